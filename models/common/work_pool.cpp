// Host threads that run a batch of independent tasks. See work_pool.h.
#include "models/common/work_pool.h"

namespace vgpu {

namespace {
/// Polls before a helper sleeps on the condition variable (a few tens of microseconds): batches
/// often follow each other that closely, and a wake-up through the kernel costs several
/// microseconds; a longer spin takes a host core (or its sibling) from the simulation thread.
constexpr unsigned spin_polls = 20000;

/// One poll's pause: the CPU's spin-wait hint where there is one.
void pause()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}
} // namespace

work_pool::work_pool(unsigned threads)
{
    for (unsigned i = 1; i < threads; ++i)
        m_helpers.emplace_back([this, i] { helper(i); });
}

work_pool::~work_pool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_start.notify_all();
    for (std::thread& t : m_helpers)
        t.join();
}

void work_pool::run_one(const std::function<void(std::size_t)>& task, std::size_t i)
{
    try {
        task(i);
    } catch (...) {
        m_errors[i] = std::current_exception();
    }
}

void work_pool::take(unsigned me, const std::function<void(std::size_t)>& task, std::size_t n,
                     const std::vector<unsigned>* home)
{
    const unsigned threads = this->threads();
    const auto run_task = [&](std::size_t i) {
        if (m_taken[i].exchange(true, std::memory_order_relaxed))
            return;
        run_one(task, i);
        m_done.fetch_add(1, std::memory_order_release);
    };
    if (home)
        for (std::size_t i = 0; i < n; ++i)
            if ((*home)[i] % threads == me)
                run_task(i);
    // Then the others' (those of a thread that is late, or has more).
    for (std::size_t k = 0; k < n; ++k)
        run_task((k + me) % n);
}

void work_pool::helper(unsigned me)
{
    std::uint64_t seen = 0;
    for (;;) {
        for (unsigned k = 0; k < spin_polls && m_posted.load(std::memory_order_acquire) == seen;
             ++k)
            pause();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_start.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop)
            return;
        seen = m_generation;
        const std::function<void(std::size_t)>* task = m_task;
        const std::vector<unsigned>* home = m_home;
        const std::size_t n = m_size;
        // Counted before the lock is left: the next batch is not set up until this helper is
        // out of this one (it would otherwise take the next batch's tasks for this task).
        m_inside.fetch_add(1, std::memory_order_relaxed);
        lock.unlock();
        take(me, *task, n, home);
        m_inside.fetch_sub(1, std::memory_order_release);
    }
}

void work_pool::run(std::size_t n, const std::function<void(std::size_t)>& task,
                    const std::vector<unsigned>* home)
{
    if (n == 0)
        return;
    ++m_batches;
    m_errors.assign(n, nullptr);
    if (m_helpers.empty() || n == 1) {
        for (std::size_t i = 0; i < n; ++i)
            run_one(task, i);
    } else {
        {
            // A helper counts itself in under the lock: checked under it too, no helper of an
            // earlier batch is left, and none can start on that batch now.
            std::unique_lock<std::mutex> lock(m_mutex);
            while (m_inside.load(std::memory_order_acquire) != 0) {
                lock.unlock();
                std::this_thread::yield();
                lock.lock();
            }
            m_task = &task;
            m_home = home;
            m_size = n;
            if (m_taken.size() < n)
                m_taken = std::vector<std::atomic<bool>>(n);
            for (std::size_t i = 0; i < n; ++i)
                m_taken[i].store(false, std::memory_order_relaxed);
            m_done.store(0, std::memory_order_relaxed);
            ++m_generation;
            m_posted.store(m_generation, std::memory_order_release);
        }
        m_start.notify_all();
        take(0, task, n, home);
        while (m_done.load(std::memory_order_acquire) != n)
            std::this_thread::yield();
    }
    for (const std::exception_ptr& e : m_errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace vgpu
