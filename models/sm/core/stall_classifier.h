// Stall classifier: the reason a cycle in which no warp issues is charged to, from what the
// waiting warps wait for. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include "models/sm/core/scoreboard.h"

#include <array>

namespace vgpu::sm {

/// Counts the waiting warps of one cycle by reason and names the reason of most of them.
class stall_classifier {
public:
    /// Starts a new cycle: no warp counted.
    void clear() { m_counts.fill(0); }
    /// A warp that cannot issue this cycle waits for reason.
    void add(wait_reason reason) { ++m_counts[static_cast<unsigned>(reason)]; }
    /// Warps counted with reason.
    unsigned count(wait_reason reason) const { return m_counts[static_cast<unsigned>(reason)]; }
    /// memory, barrier or scoreboard: the reason of most counted warps; ties go to memory,
    /// then barrier; memory when none is counted (nothing resident but requests in flight).
    wait_reason classify() const;

private:
    std::array<unsigned, 4> m_counts{};
};

} // namespace vgpu::sm
