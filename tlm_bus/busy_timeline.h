// Occupancy bookkeeping of a shared resource in fast (loosely timed) mode, no SystemC.
// See docs/tlm-bus.md ("Contention in fast mode").
#pragma once

#include <cstdint>
#include <iterator>
#include <map>

namespace vgpu::tlm_bus {

/// A resource that serves one request at a time. With temporal decoupling, requests reach it
/// in call order, not in time order: a request may arrive (in simulated time) before one that
/// was booked earlier. The timeline therefore keeps the booked intervals and gives each request
/// the first gap long enough for it at or after its arrival, instead of queueing it behind the
/// latest booking. All times are picoseconds.
class busy_timeline {
public:
    /// Books `occupancy` at the first free gap at or after `arrival`; returns the start.
    /// `now` is the current simulated time: intervals that ended by then are forgotten.
    std::uint64_t reserve(std::uint64_t arrival, std::uint64_t occupancy, std::uint64_t now)
    {
        while (!m_booked.empty() && m_booked.begin()->second <= now)
            m_booked.erase(m_booked.begin());
        std::uint64_t start = arrival;
        auto it = m_booked.upper_bound(start);
        if (it != m_booked.begin() && std::prev(it)->second > start)
            start = std::prev(it)->second; // arrival falls inside a booked interval
        while (it != m_booked.end() && it->first < start + occupancy) {
            start = it->second; // the gap before this interval is too short
            ++it;
        }
        if (occupancy == 0)
            return start;
        // Merge with neighbours that touch the new interval so the map stays small.
        std::uint64_t end = start + occupancy;
        auto next = m_booked.find(end);
        if (next != m_booked.end()) {
            end = next->second;
            m_booked.erase(next);
        }
        auto at = m_booked.lower_bound(start);
        if (at != m_booked.begin() && std::prev(at)->second == start)
            std::prev(at)->second = end;
        else
            m_booked.emplace(start, end);
        // An initiator that never synchronises keeps `now` from advancing; the oldest
        // bookings are then the least likely to matter, and the map must stay small.
        while (m_booked.size() > max_intervals)
            m_booked.erase(m_booked.begin());
        return start;
    }
    static constexpr std::size_t max_intervals = 64; ///< bookings remembered at most
    /// End of the latest booking (0 when idle).
    std::uint64_t busy_until() const { return m_booked.empty() ? 0 : m_booked.rbegin()->second; }
    /// Booked intervals still remembered (for tests).
    std::size_t intervals() const { return m_booked.size(); }

private:
    std::map<std::uint64_t, std::uint64_t> m_booked; ///< start -> end, disjoint
};

} // namespace vgpu::tlm_bus
