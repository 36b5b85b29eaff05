// Clock periods and timing mode handed to every model's constructor (from `platform`).
// See docs/architecture.md ("Timing").
#pragma once

#include <cstdint>

namespace vgpu {

/// What a model needs to know about time; built by the platform from its configuration.
struct clock_params {
    bool accurate = false;        ///< accurate mode: per-cycle arbitration, lock-step
    std::uint64_t core_ps = 1000; ///< SM/L1 clock period
    std::uint64_t noc_ps = 1000;  ///< NoC/LLC/link clock period
    std::uint64_t dram_ps = 1250; ///< DRAM clock period
    /// Fast mode: an SM further ahead of global time than this syncs before a memory
    /// instruction (platform.timing.memory_quantum_ns); none = never.
    std::uint64_t memory_quantum_ps = ~std::uint64_t{0};
};

} // namespace vgpu
