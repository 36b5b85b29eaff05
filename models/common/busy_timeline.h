// Busy-until accounting of a shared resource for fast (loosely timed) mode.
// See docs/timing.md.
#pragma once

#include <algorithm>
#include <cstdint>

namespace vgpu {

/// A resource that serves one request at a time: a request arriving at `arrival` starts when
/// the resource is free and occupies it for `occupancy` (all times in picoseconds).
class busy_timeline {
public:
    /// Reserves the resource; returns the start time (>= arrival).
    std::uint64_t reserve(std::uint64_t arrival, std::uint64_t occupancy)
    {
        std::uint64_t start = std::max(arrival, m_busy_until);
        m_busy_until = start + occupancy;
        return start;
    }
    std::uint64_t busy_until() const { return m_busy_until; }

private:
    std::uint64_t m_busy_until = 0;
};

} // namespace vgpu
