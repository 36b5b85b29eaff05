// Occupancy bookkeeping of a shared resource in fast (loosely timed) mode, no SystemC.
// See docs/tlm-bus.md ("Contention in fast mode").
#pragma once

#include <cstdint>
#include <iterator>
#include <limits>
#include <map>

namespace vgpu::tlm_bus {

/// A resource that moves one request's data at a time (a port, a channel, a bus). With
/// temporal decoupling, requests reach it in call order, not in time order: a request may
/// arrive (in simulated time) before one that was booked earlier. The timeline keeps the
/// booked intervals and fills the free time at or after a request's arrival with its
/// occupancy, in as many pieces as the free gaps require (the data of a transfer moves in
/// flits, so a small gap carries part of it). Booked time never overlaps: the resource never
/// exceeds its rate, whatever the call order. All times are picoseconds.
class busy_timeline {
public:
    /// Where a booking landed.
    struct booking {
        std::uint64_t start;  ///< first booked picosecond (arrival if the resource was free)
        std::uint64_t finish; ///< end of the last piece: when the transfer is complete
    };

    /// Books `occupancy` in the free time at or after `arrival`. `now` is the global simulated
    /// time: only intervals that ended by then are forgotten (nothing booked can still matter
    /// to a request, because no initiator is behind global time).
    booking reserve(std::uint64_t arrival, std::uint64_t occupancy, std::uint64_t now)
    {
        while (!m_booked.empty() && m_booked.begin()->second <= now)
            m_booked.erase(m_booked.begin());
        std::uint64_t t = arrival;
        auto it = m_booked.upper_bound(t);
        if (it != m_booked.begin() && std::prev(it)->second > t)
            t = std::prev(it)->second; // arrival falls inside a booked interval
        if (occupancy == 0)
            return {t, t};
        const std::uint64_t first = t;
        std::uint64_t remaining = occupancy;
        for (;;) {
            // t is free; `it` is the first interval that starts after t (or none).
            const std::uint64_t gap_end =
                it == m_booked.end() ? std::numeric_limits<std::uint64_t>::max() : it->first;
            const std::uint64_t take = remaining < gap_end - t ? remaining : gap_end - t;
            const auto merged = insert(t, t + take);
            remaining -= take;
            if (remaining == 0) {
                compact();
                return {first, t + take};
            }
            // The gap is full and merged with the interval after it: continue after that.
            t = merged->second;
            it = std::next(merged);
        }
    }
    /// Intervals kept at most. Only an initiator that never synchronises can exceed it; the
    /// oldest gaps are then filled (counted in lost_ps): the resource serves less, never more.
    static constexpr std::size_t max_intervals = 4096;
    /// End of the latest booking (0 when idle).
    std::uint64_t busy_until() const { return m_booked.empty() ? 0 : m_booked.rbegin()->second; }
    /// Booked intervals still remembered (for tests).
    std::size_t intervals() const { return m_booked.size(); }
    /// Free time given up by compaction (0 unless an initiator never synchronised).
    std::uint64_t lost_ps() const { return m_lost_ps; }

private:
    using map = std::map<std::uint64_t, std::uint64_t>;

    /// Books the free interval [s, e), merging with neighbours that touch it.
    map::iterator insert(std::uint64_t s, std::uint64_t e)
    {
        auto next = m_booked.find(e);
        if (next != m_booked.end()) {
            e = next->second;
            m_booked.erase(next);
        }
        auto at = m_booked.lower_bound(s);
        if (at != m_booked.begin() && std::prev(at)->second == s) {
            std::prev(at)->second = e;
            return std::prev(at);
        }
        return m_booked.emplace_hint(at, s, e);
    }

    void compact()
    {
        while (m_booked.size() > max_intervals) {
            auto a = m_booked.begin();
            auto b = std::next(a);
            m_lost_ps += b->first - a->second;
            a->second = b->second;
            m_booked.erase(b);
        }
    }

    map m_booked; ///< start -> end, disjoint, never touching
    std::uint64_t m_lost_ps = 0;
};

} // namespace vgpu::tlm_bus
