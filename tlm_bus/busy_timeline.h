// Occupancy bookkeeping of a shared resource in fast (loosely timed) mode, no SystemC.
// See docs/tlm-bus.md ("Contention in fast mode").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

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
        // Bookings end after global time, so with global time where it was, nothing has ended
        // since (and the front interval, likely out of the host's caches, need not be read).
        if (now != m_pruned_at)
            prune(now);
        span* a = m_booked.data();
        std::size_t n = m_booked.size();
        const std::size_t head = m_head;
        std::uint64_t t = arrival;
        // A third of the requests arrive after every booked start: no search.
        std::size_t i = n;
        if (i > head && a[n - 1].start > t)
            i = first_after(t);
        if (i > head && a[i - 1].end > t)
            t = a[i - 1].end; // arrival falls inside a booked interval
        if (occupancy == 0)
            return {t, t};
        const std::uint64_t first = t;
        std::uint64_t remaining = occupancy;
        for (;;) {
            // t is free; i is the first interval that starts after t (or none).
            const bool last = i == n;
            const std::uint64_t gap_end =
                last ? std::numeric_limits<std::uint64_t>::max() : a[i].start;
            const std::uint64_t take = remaining < gap_end - t ? remaining : gap_end - t;
            // Book [t, t + take), merged with the neighbours it touches; i becomes the index of
            // the interval holding it.
            const bool joins_prev = i > head && a[i - 1].end == t;
            const bool joins_next = !last && t + take == gap_end;
            if (joins_prev && joins_next) {
                a[i - 1].end = a[i].end;
                m_booked.erase(m_booked.begin() + static_cast<std::ptrdiff_t>(i));
                --n;
                --i;
            } else if (joins_prev) {
                a[i - 1].end = t + take;
                --i;
            } else if (joins_next) {
                a[i].start = t;
            } else {
                a = insert_at(i, span{t, t + take});
                ++n;
            }
            remaining -= take;
            if (remaining == 0) {
                if (n - head > max_intervals)
                    compact();
                return {first, t + take};
            }
            // The gap is full and merged with the interval after it: continue after that.
            t = a[i].end;
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

    /// Index of the first interval that starts after t (one does: the last). Arrivals fall
    /// anywhere among the live intervals (a third after the last start, which reserve() checks
    /// first; the rest spread evenly back to the oldest), so this is a binary search without
    /// branches on the data: a fixed number of halvings for a given number of intervals.
    std::size_t first_after(std::uint64_t t) const
    {
        const span* const a = m_booked.data();
        const span* base = a + m_head;
        std::size_t len = m_booked.size() - m_head;
        while (len > 1) {
            const std::size_t half = len / 2;
            base = base[half - 1].start <= t ? base + half : base;
            len -= half;
        }
        return static_cast<std::size_t>(base - a);
    }

    /// Inserts `s` before index i; returns the (possibly moved) storage. The storage starts at
    /// initial_capacity intervals (a port keeps a few dozen live), not grown from one.
    span* insert_at(std::size_t i, span s)
    {
        if (m_booked.capacity() == 0)
            m_booked.reserve(initial_capacity);
        m_booked.insert(m_booked.begin() + static_cast<std::ptrdiff_t>(i), s);
        return m_booked.data();
    }
    static constexpr std::size_t initial_capacity = 64;

    /// Forgets the intervals that ended by `now`: they leave from the front, and the storage
    /// they held is reclaimed once they are the larger part of it (amortised constant time).
    void prune(std::uint64_t now)
    {
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

} // namespace vgpu::tlm_bus
