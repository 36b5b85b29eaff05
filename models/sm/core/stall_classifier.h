// Stall classifier: the reason a cycle in which no warp issues is charged to, from what the
// waiting warps wait for. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include "models/sm/core/scoreboard.h"

#include <cstdint>

namespace vgpu::sm {

/// Counts the waiting warps of one cycle by reason and names the reason of most of them.
class stall_classifier {
public:
    /// Most warps counted with one reason in a cycle (an SM holds at most 64).
    static constexpr unsigned max_count = 0xffff;

    /// Starts a new cycle: no warp counted.
    void clear() { m_counts = 0; }
    /// A warp that cannot issue this cycle waits for reason.
    void add(wait_reason reason) { m_counts += std::uint64_t{1} << shift(reason); }
    /// A warp counted with reason no longer waits (it was added, and not removed since).
    void remove(wait_reason reason) { m_counts -= std::uint64_t{1} << shift(reason); }
    /// Warps counted with reason.
    unsigned count(wait_reason reason) const
    {
        return static_cast<unsigned>(m_counts >> shift(reason)) & max_count;
    }
    /// memory, barrier or scoreboard: the reason of most counted warps; ties go to memory,
    /// then barrier; memory when none is counted (nothing resident but requests in flight).
    wait_reason classify() const;

private:
    static unsigned shift(wait_reason reason) { return 16 * static_cast<unsigned>(reason); }
    // A count of 16 bits per reason, all in one word: the issue loop adds a warp at a time,
    // and increments of an array in memory would wait for each other.
    std::uint64_t m_counts = 0;
};

} // namespace vgpu::sm
