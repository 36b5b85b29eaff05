// How far a run has got, for the progress line vgpu-sim prints on a terminal during long runs.
// The command processor writes it as launches, CTAs and kernels end, the SMs as their time
// advances (relaxed atomic stores, no effect on the model); vgpu-sim's printer thread reads it.
// One simulation per process.
#pragma once

#include <atomic>
#include <cstdint>

namespace vgpu {

struct run_progress {
    std::atomic<std::uint64_t> sim_ps{0};       ///< simulated time of the last update
    std::atomic<std::uint64_t> launches{0};     ///< kernels launched
    std::atomic<std::uint64_t> kernels_done{0}; ///< kernels ended (done or in error)
    std::atomic<std::uint64_t> ctas_done{0};    ///< CTAs ended

    /// The process's progress.
    static run_progress& get()
    {
        static run_progress p;
        return p;
    }
    /// Records that the simulation reached simulated time ps.
    void at(std::uint64_t ps) { sim_ps.store(ps, std::memory_order_relaxed); }
    /// Records an event at simulated time ps: counter (one of the above) goes up by one.
    void count(std::atomic<std::uint64_t>& counter, std::uint64_t ps)
    {
        counter.fetch_add(1, std::memory_order_relaxed);
        sim_ps.store(ps, std::memory_order_relaxed);
    }
};

} // namespace vgpu
