// The reference test_busy_timeline.cpp compares tlm_bus/busy_timeline.h with: the same booking
// rule (first free time at or after the arrival, in as many pieces as the gaps require; forget
// what ended by global time; compact past max_intervals) on one sorted vector of intervals,
// searched by galloping back from the end, with a plain vector insertion per new interval.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

namespace vgpu::test {

class reference_timeline {
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
        prune(now);
        std::uint64_t t = arrival;
        // Most requests arrive after everything booked: no search.
        std::size_t i = m_booked.size();
        if (i > m_head && m_booked.back().start > t)
            i = first_after(t);
        if (i > m_head && m_booked[i - 1].end > t)
            t = m_booked[i - 1].end; // arrival falls inside a booked interval
        if (occupancy == 0)
            return {t, t};
        const std::uint64_t first = t;
        std::uint64_t remaining = occupancy;
        for (;;) {
            // t is free; i is the first interval that starts after t (or none).
            const std::uint64_t gap_end = i == m_booked.size()
                                              ? std::numeric_limits<std::uint64_t>::max()
                                              : m_booked[i].start;
            const std::uint64_t take = remaining < gap_end - t ? remaining : gap_end - t;
            // Book [t, t + take), merged with the neighbours it touches; i becomes the index of
            // the interval holding it.
            const bool joins_prev = i > m_head && m_booked[i - 1].end == t;
            const bool joins_next = i < m_booked.size() && t + take == gap_end;
            if (joins_prev && joins_next) {
                m_booked[i - 1].end = m_booked[i].end;
                m_booked.erase(m_booked.begin() + static_cast<std::ptrdiff_t>(i));
                --i;
            } else if (joins_prev) {
                m_booked[i - 1].end = t + take;
                --i;
            } else if (joins_next) {
                m_booked[i].start = t;
            } else {
                m_booked.insert(m_booked.begin() + static_cast<std::ptrdiff_t>(i),
                                span{t, t + take});
            }
            remaining -= take;
            if (remaining == 0) {
                compact();
                return {first, t + take};
            }
            // The gap is full and merged with the interval after it: continue after that.
            t = m_booked[i].end;
            ++i;
        }
    }
    /// Intervals kept at most. Only an initiator that never synchronises can exceed it; the
    /// oldest gaps are then filled (counted in lost_ps): the resource serves less, never more.
    static constexpr std::size_t max_intervals = 4096;
    /// End of the latest booking (0 when idle).
    std::uint64_t busy_until() const { return m_booked.size() == m_head ? 0 : m_booked.back().end; }
    /// Booked intervals still remembered (for tests).
    std::size_t intervals() const { return m_booked.size() - m_head; }
    /// Free time given up by compaction (0 unless an initiator never synchronised).
    std::uint64_t lost_ps() const { return m_lost_ps; }

private:
    struct span {
        std::uint64_t start, end;
    };

    /// Index of the first interval that starts after t (one does). Arrivals fall mostly near
    /// the end, among the latest bookings: the search gallops back from there, so it reads the
    /// few cache lines just written instead of halving the whole timeline.
    std::size_t first_after(std::uint64_t t) const
    {
        std::size_t hi = m_booked.size() - 1; // m_booked[hi].start > t
        std::size_t step = 1;
        while (hi - m_head > step && m_booked[hi - step].start > t) {
            hi -= step;
            step *= 2;
        }
        const std::size_t lo = hi - m_head > step ? hi - step : m_head;
        return static_cast<std::size_t>(
            std::upper_bound(m_booked.begin() + static_cast<std::ptrdiff_t>(lo),
                             m_booked.begin() + static_cast<std::ptrdiff_t>(hi), t,
                             [](std::uint64_t v, const span& s) { return v < s.start; }) -
            m_booked.begin());
    }

    /// Forgets the intervals that ended by `now`: they leave from the front, and the storage
    /// they held is reclaimed once they are the larger part of it (amortised constant time).
    void prune(std::uint64_t now)
    {
        // Bookings end after global time, so with global time where it was, nothing has ended
        // since (and the front interval, likely out of the host's caches, need not be read).
        if (now == m_pruned_at)
            return;
        m_pruned_at = now;
        while (m_head < m_booked.size() && m_booked[m_head].end <= now)
            ++m_head;
        if (m_head == m_booked.size()) {
            m_booked.clear();
            m_head = 0;
        } else if (m_head > 32 && 2 * m_head > m_booked.size()) {
            m_booked.erase(m_booked.begin(),
                           m_booked.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }

    /// Merges the oldest intervals (filling the gaps between them) until at most max_intervals
    /// remain.
    void compact()
    {
        const std::size_t live = m_booked.size() - m_head;
        if (live <= max_intervals)
            return;
        const std::size_t k = live - max_intervals; // intervals merged into the first
        span& a = m_booked[m_head];
        for (std::size_t j = m_head + 1; j <= m_head + k; ++j)
            m_lost_ps += m_booked[j].start - m_booked[j - 1].end;
        a.end = m_booked[m_head + k].end;
        m_booked.erase(m_booked.begin() + static_cast<std::ptrdiff_t>(m_head + 1),
                       m_booked.begin() + static_cast<std::ptrdiff_t>(m_head + k + 1));
    }

    /// Booked intervals from m_head on: sorted, disjoint, never touching (the ones before
    /// m_head ended by the last `now`).
    std::vector<span> m_booked;
    std::size_t m_head = 0;
    std::uint64_t m_pruned_at = ~std::uint64_t{0}; ///< `now` of the last prune
    std::uint64_t m_lost_ps = 0;
};

} // namespace vgpu::test
