// The booked busy intervals of one DRAM data bus, in picoseconds. Pure C++; see
// models/dram/README.md ("Timing modes").
#pragma once

#include "models/dram/core/front_map.h"

#include <cstddef>
#include <cstdint>

namespace vgpu::dram {

/// Disjoint busy intervals of a data bus. A transfer takes the first gap long enough at or after
/// its earliest start. Intervals are forgotten only when the caller reports that global time has
/// passed their end, never because there are many of them: a request that lags behind others in
/// simulated time (temporal decoupling) still sees every booking it could overlap, so the bus
/// never carries more than its bandwidth, whatever the quantum.
class bus_booking {
public:
    /// Start of the first free gap of `length` at or after `earliest`.
    std::uint64_t first_fit(std::uint64_t earliest, std::uint64_t length) const;
    /// Marks [start, start + length) busy; throws std::logic_error if it overlaps a booking.
    void book(std::uint64_t start, std::uint64_t length);
    /// Drops the intervals that ended at or before `now` (global simulated time).
    void forget(std::uint64_t now);
    /// Intervals remembered (touching bookings are merged into one).
    std::size_t intervals() const { return m_busy.size(); }
    /// End of the latest booking (0 when none is remembered).
    std::uint64_t busy_until() const { return m_busy.empty() ? 0 : m_busy.back().second; }

private:
    front_map<std::uint64_t, std::uint64_t> m_busy; ///< start -> end, disjoint, not touching
    /// Changes of m_busy (book(), forget() that drops an interval): positions found before one
    /// are stale after it.
    std::uint64_t m_version = 0;
    /// The last first_fit() answer and the position of the first interval starting at or after
    /// it (where book() of that start goes), valid while m_version is m_hint_version: a booking
    /// of the start its plan found (as channel_state::commit() makes) skips its search.
    mutable std::uint64_t m_hint_start = 0;
    mutable std::size_t m_hint_index = 0;
    mutable std::uint64_t m_hint_version = ~std::uint64_t{0};
};

} // namespace vgpu::dram
