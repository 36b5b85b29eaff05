// End of a run: every SystemC thread still suspended is unwound, so that what its locals own
// is freed. See docs/architecture.md.
#pragma once

namespace vgpu::platforms {

/// On destruction, kills every thread process that has not terminated (IEEE 1666-2011
/// 5.6.6.3): each unwinds its stack, running the destructors of its locals. Threads a model
/// reports parked owning nothing (host_resources::parked_threads: idle LSU threads) are left
/// alone, as their unwinding would free nothing and cost an exception each. A run stopped at
/// platform.max_time leaves threads suspended mid-function (a driver in the middle of a DMA
/// transfer, a generator between transactions); without this, what they hold is never freed.
/// Declare it after the last sc_start and after the platform, so it runs while the platform
/// still exists. Processes woken at the final time may run one more delta cycle; errors they
/// report then are ignored (the run's outcome was decided).
class thread_unwinder {
public:
    thread_unwinder() = default;
    thread_unwinder(const thread_unwinder&) = delete;
    thread_unwinder& operator=(const thread_unwinder&) = delete;
    ~thread_unwinder();
};

} // namespace vgpu::platforms
