// Occupancy of a resource of N interchangeable entries (MSHRs, buffer entries, lookup ports) as
// intervals of simulated time, no SystemC. See models/cache/README.md ("Capacity in fast mode").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace vgpu::cache {

/// A resource of `capacity` interchangeable entries, each held by one request over an interval
/// of time (picoseconds, or any unit used consistently). With temporal decoupling, requests reach
/// it in call order, not in time order: a request may arrive (in simulated time) before intervals
/// that requesters ahead in time booked earlier. The timeline keeps every booked interval until
/// global time has passed its end, so a request takes the earliest time at or after its arrival
/// at which an entry is free over its whole interval, in a gap before later bookings if one is
/// long enough. Which entry serves which interval is not tracked: at most `capacity` intervals
/// overlapping at every instant is exactly the condition for an assignment to entries to exist.
///
/// Known lengths (a lookup port held one cycle) are booked with reserve_for(). The length of a
/// miss is known only once its data has returned from below: reserve() finds the earliest start
/// with room for hold_estimate() (the longest interval finished so far: the request needs room
/// that long), and finish() books the real interval from that start. Nothing may be booked on
/// the timeline between the two calls (the caller's access below never comes back to it), so
/// the room found is still there. An interval longer than the estimate that runs into time when
/// every entry is taken is booked all the same (the request did hold its entry) and counted in
/// overrun(), never silently; it happens only when an interval outlives every earlier one and
/// meets a full stretch.
class capacity_timeline {
public:
    /// An interval [start, end).
    struct reservation {
        std::uint64_t start = 0; ///< when the request holds an entry
        std::uint64_t end = 0;   ///< when it gives it back (reserve(): start + the estimate)
    };

    /// capacity >= 1 entries (throws std::invalid_argument for 0).
    explicit capacity_timeline(unsigned capacity);

    unsigned capacity() const { return m_capacity; } ///< entries

    /// Earliest t >= arrival at which fewer than capacity intervals are booked at every instant
    /// of [t, t + length) (length 0 counts as 1). `now` is the global time: intervals that
    /// ended by then are forgotten (no request arrives before global time).
    std::uint64_t earliest(std::uint64_t arrival, std::uint64_t length, std::uint64_t now);
    /// Books [t, t + length) at t = earliest(arrival, length, now).
    reservation reserve_for(std::uint64_t arrival, std::uint64_t length, std::uint64_t now);
    /// The start t = earliest(arrival, hold_estimate(), now) of an interval whose end is not
    /// known yet; finish() books it. Throws std::logic_error if one is already pending.
    reservation reserve(std::uint64_t arrival, std::uint64_t now);
    /// Books the pending reservation r as [r.start, end) (end clamped to >= r.start), learns
    /// its length for hold_estimate() and sets r.end. Returns false if the part beyond the
    /// estimate overran the capacity (counted).
    bool finish(reservation& r, std::uint64_t end);
    /// Books [start, end) without a search; returns false where that exceeds the capacity
    /// (booked all the same, counted in overrun()).
    bool book(std::uint64_t start, std::uint64_t end);

    /// Length reserve() asks room for: the longest interval finished so far (0 before any).
    std::uint64_t hold_estimate() const { return m_hold; }
    /// Intervals booked at instant t (t >= the last `now` seen).
    unsigned in_use(std::uint64_t t) const;
    /// Entry-time booked beyond the capacity (0 unless an estimate was short).
    std::uint64_t overrun() const { return m_overrun; }
    /// At least the number of intervals booked that end after the last `now` seen (for tests;
    /// see m_live).
    std::size_t live() const { return m_live; }
    /// Change points remembered (for tests).
    std::size_t breakpoints() const { return m_delta.size() - m_head; }
    /// Forgets every booking (the requesters of what was booked are gone).
    void clear();

private:
    /// A time, the change of the count there and the number of live intervals that end there.
    /// A plain struct, not std::pair: a trivially copyable element lets an insertion before the
    /// end move the tail with one memmove (the end count fills what was padding: 16 bytes).
    struct change_point {
        std::uint64_t first; ///< time
        int second;          ///< change of the count
        int ends;            ///< intervals counted in m_live that end here (or earlier, see m_live)
    };
    void prune(std::uint64_t now);
    /// Adds d to the number of intervals booked from t on; `ends` intervals counted in m_live
    /// end at t.
    void change(std::uint64_t t, int d, int ends = 0);
    /// Index of the first change point after t.
    std::size_t after(std::uint64_t t) const;
    /// The number of intervals booked at t and the index of the first change after t; keeps
    /// t as the cursor, so a query near the previous one costs little.
    int count_at(std::uint64_t t, std::size_t& next) const;
    /// From change point i on, with c intervals booked before it: the first change point before
    /// `until` after which capacity or more are booked (c = the count after it), else the first
    /// at or after `until` or the end (c = the count before it).
    std::size_t first_full(std::size_t i, int& c, std::uint64_t until) const;
    /// earliest() without the shortcuts: scans the change points from arrival.
    std::uint64_t search(std::uint64_t arrival, std::uint64_t length) const;
    /// Entry-time in [s, e) at which capacity or more intervals are booked (s < e).
    std::uint64_t full_time(std::uint64_t s, std::uint64_t e) const;
    /// book() whose overrun check starts at check_from (the time before it is known to have
    /// room).
    bool book_checked_from(std::uint64_t start, std::uint64_t end, std::uint64_t check_from);

    unsigned m_capacity;
    /// Intervals are kept as changes of the count, +1 at a start and -1 at an end, sorted by
    /// time from m_head on (the ones before were folded into m_base, the count at m_pruned).
    /// Booking is cheap; a search scans change points only while at least `capacity`
    /// intervals are live (otherwise every time has room).
    std::vector<change_point> m_delta;
    std::size_t m_head = 0;
    /// Intervals booked with an end after m_pruned, less those whose end a prune has passed: the
    /// shortcut "fewer live intervals than entries, so room everywhere" reads it. Each live
    /// interval's end is counted in its change point's `ends`, and a prune past the point takes
    /// them off, in O(1) per point it folds anyway (a heap of ends cost a push and a pop of
    /// O(log n) per interval). A change point whose changes cancel (an interval starting where
    /// another ends) is erased and hands its `ends` to the next point (one exists: the count
    /// after it is at least 1): those ends are taken off when a prune passes that point, later
    /// than their time, so m_live is an upper bound, exact except for such stretches. An upper
    /// bound keeps every answer: the shortcut is then taken less often, and the search it
    /// spares returns the same time.
    std::size_t m_live = 0;
    int m_base = 0;
    std::uint64_t m_pruned = 0;
    // A time >= m_pruned whose count (m_base + the changes at or before it) is known: a cache
    // of the last query, so it does not change what the timeline holds.
    mutable std::uint64_t m_cursor_t = 0;
    mutable int m_cursor_c = 0;
    mutable std::size_t m_cursor_i = 0; ///< index of the first change point after m_cursor_t
    bool m_pending = false;
    /// The pending reservation's [start, m_pending_free_until) had room when reserve() found
    /// it; while m_pruned is still m_pending_pruned, nothing has changed there since.
    std::uint64_t m_pending_pruned = 0;
    std::uint64_t m_pending_free_until = 0;
    /// The last search of earliest(): with the same bookings (m_version), m_pruned and length,
    /// a search from memo_arrival or from its answer memo_start returns memo_start again
    /// (earliest() of its own answer is that answer). reserve() repeats the search its caller
    /// has just made; this spares the second scan of the change points.
    struct search_memo {
        bool valid = false;
        std::uint64_t version = 0, pruned = 0, length = 0, arrival = 0, start = 0;
    };
    search_memo m_memo;
    /// A stretch [from, to) in which no interval of `length` or longer can start (an earlier
    /// search walked it). Bookings only add to the count and pruning changes no count at or
    /// after global time, so the stretch stays infeasible until clear(): a search from inside
    /// it starts at `to`. At saturation every request walks the same full stretch ahead of
    /// global time; this spares the walk.
    struct infeasible_stretch {
        bool valid = false;
        std::uint64_t from = 0, to = 0, length = 0;
    };
    mutable infeasible_stretch m_skip;
    /// At least the largest increase of the count at any one change point (a bound: it never
    /// shrinks until clear()), so the window check knows when k points cannot reach capacity.
    int m_step = 1;
    std::uint64_t m_version = 0; ///< counts changes of the bookings
    std::uint64_t m_hold = 0;
    std::uint64_t m_overrun = 0;
};

} // namespace vgpu::cache
