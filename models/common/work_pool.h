// Host threads that run a batch of independent tasks (platform.host_threads). No SystemC: the
// tasks make no SystemC calls. See docs/architecture.md ("Parallel simulation").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vgpu {

/// Runs tasks 0..n-1 of a batch on `threads` host threads: the caller's and threads - 1
/// helpers. Tasks of one batch must not touch each other's data; which thread runs which task
/// is not fixed, so a task's result may not depend on it. With one thread every task runs on
/// the caller, in index order.
class work_pool {
public:
    /// threads >= 1 (the caller counts as one).
    explicit work_pool(unsigned threads);
    ~work_pool();
    work_pool(const work_pool&) = delete;
    work_pool& operator=(const work_pool&) = delete;

    unsigned threads() const { return static_cast<unsigned>(m_helpers.size()) + 1; }
    /// Runs task(i) for every i < n and returns when all have; rethrows the exception of the
    /// lowest index that threw, if any (the others still ran). `home`, if given, names each
    /// task's preferred thread (modulo threads()): a thread runs its own tasks first, then
    /// helps with the others, so that a task that recurs (an SM's) tends to stay on one host
    /// core with its data.
    void run(std::size_t n, const std::function<void(std::size_t)>& task,
             const std::vector<unsigned>* home = nullptr);
    /// Batches run so far (calls with at least one task).
    std::uint64_t batches() const { return m_batches; }

private:
    /// Runs task(i), keeping what it throws in m_errors[i].
    void run_one(const std::function<void(std::size_t)>& task, std::size_t i);
    /// Thread `me` (0: the caller) takes tasks of the current batch, its own first.
    void take(unsigned me, const std::function<void(std::size_t)>& task, std::size_t n,
              const std::vector<unsigned>* home);
    void helper(unsigned me);

    std::vector<std::thread> m_helpers;
    std::mutex m_mutex;
    std::condition_variable m_start;
    std::uint64_t m_generation = 0; ///< batches handed out (m_mutex)
    bool m_stop = false;            ///< (m_mutex)
    const std::function<void(std::size_t)>* m_task = nullptr;
    const std::vector<unsigned>* m_home = nullptr;
    std::size_t m_size = 0;
    std::vector<std::atomic<bool>> m_taken;   ///< per task of the current batch (grows)
    std::atomic<std::size_t> m_done{0};       ///< tasks finished
    std::atomic<unsigned> m_inside{0};        ///< helpers inside the current batch
    std::atomic<std::uint64_t> m_posted{0};   ///< m_generation, read without the lock
    std::vector<std::exception_ptr> m_errors; ///< per task of the current batch
    std::uint64_t m_batches = 0;
};

} // namespace vgpu
