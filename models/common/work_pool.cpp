// Host threads that run a batch of independent tasks. See work_pool.h.
#include "models/common/work_pool.h"

namespace vgpu {

namespace {
/// Polls before a helper sleeps on the condition variable: batches often follow each other
/// within microseconds, and a wake-up through the kernel costs about as much.
constexpr unsigned spin_polls = 4000;
} // namespace

work_pool::work_pool(unsigned threads)
{
    for (unsigned i = 1; i < threads; ++i)
        m_helpers.emplace_back([this] { helper(); });
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

void work_pool::take(const std::function<void(std::size_t)>& task, std::size_t n)
{
    for (;;) {
        const std::size_t i = m_next.fetch_add(1, std::memory_order_relaxed);
        if (i >= n)
            return;
        try {
            task(i);
        } catch (...) {
            m_errors[i] = std::current_exception();
        }
        m_done.fetch_add(1, std::memory_order_release);
    }
}

void work_pool::helper()
{
    std::uint64_t seen = 0;
    for (;;) {
        for (unsigned k = 0; k < spin_polls && m_posted.load(std::memory_order_acquire) == seen;
             ++k)
            std::this_thread::yield();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_start.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop)
            return;
        seen = m_generation;
        const std::function<void(std::size_t)>* task = m_task;
        const std::size_t n = m_size;
        // Counted before the lock is left: the next batch is not set up until this helper is
        // out of this one (it would otherwise take the next batch's indices for this task).
        m_inside.fetch_add(1, std::memory_order_relaxed);
        lock.unlock();
        take(*task, n);
        m_inside.fetch_sub(1, std::memory_order_release);
    }
}

void work_pool::run(std::size_t n, const std::function<void(std::size_t)>& task)
{
    if (n == 0)
        return;
    ++m_batches;
    m_errors.assign(n, nullptr);
    if (m_helpers.empty() || n == 1) {
        for (std::size_t i = 0; i < n; ++i) {
            try {
                task(i);
            } catch (...) {
                m_errors[i] = std::current_exception();
            }
        }
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
            m_size = n;
            m_next.store(0, std::memory_order_relaxed);
            m_done.store(0, std::memory_order_relaxed);
            ++m_generation;
            m_posted.store(m_generation, std::memory_order_release);
        }
        m_start.notify_all();
        take(task, n);
        while (m_done.load(std::memory_order_acquire) != n)
            std::this_thread::yield();
    }
    for (const std::exception_ptr& e : m_errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace vgpu
