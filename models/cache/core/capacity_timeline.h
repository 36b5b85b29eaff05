// Occupancy of a resource of N interchangeable entries (MSHRs, buffer entries, lookup ports) as
// intervals of simulated time, no SystemC. See models/cache/README.md ("Capacity in fast mode").
#pragma once

#include <cstdint>
#include <map>

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
/// miss is known only once its data has returned from below, so reserve() books a provisional
/// interval of hold_estimate() (the longest interval finished so far: the request needs room
/// that long) and finish() sets the real end: shorter gives time back, longer extends the
/// booking. An extension into time when every entry is taken is booked all the same (the request
/// did hold its entry) and counted in overrun_ps(), never silently; it happens only when an
/// interval outlives every earlier one and meets a full stretch.
class capacity_timeline {
public:
    /// A booked interval [start, end).
    struct reservation {
        std::uint64_t start = 0; ///< when the request holds an entry
        std::uint64_t end = 0;   ///< when it gives it back
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
    /// Books a provisional [t, t + hold_estimate()) at t = earliest(arrival, hold_estimate(),
    /// now); finish() sets its end.
    reservation reserve(std::uint64_t arrival, std::uint64_t now);
    /// Moves r's end to `end` (clamped to >= r.start) and learns its length for
    /// hold_estimate(). Returns false if an extension overran the capacity (counted).
    bool finish(reservation& r, std::uint64_t end);
    /// Books [start, end) without a search; returns false where that exceeds the capacity
    /// (booked all the same, counted in overrun_ps()).
    bool book(std::uint64_t start, std::uint64_t end);

    /// Provisional length of reserve(): the longest interval finished so far (0 before any).
    std::uint64_t hold_estimate() const { return m_hold; }
    /// Intervals booked at instant t (t >= the last `now` seen).
    unsigned in_use(std::uint64_t t) const;
    /// Entry-time booked beyond the capacity by extensions (0 unless an estimate was short).
    std::uint64_t overrun() const { return m_overrun; }
    /// Change points remembered (for tests).
    std::size_t breakpoints() const { return m_steps.size(); }
    /// Forgets every booking (the requesters of what was booked are gone).
    void clear();

private:
    using map = std::map<std::uint64_t, unsigned>;
    void prune(std::uint64_t now);
    /// The change point at t, created with the count of the interval containing t if absent.
    map::iterator split(std::uint64_t t);
    /// Adds one booking over [s, e) (s < e); returns the entry-time that exceeded capacity.
    std::uint64_t add(std::uint64_t s, std::uint64_t e);
    /// Removes one booking over [s, e) (s < e).
    void remove(std::uint64_t s, std::uint64_t e);
    /// Erases change points in [s, e] that do not change the count.
    void merge(std::uint64_t s, std::uint64_t e);

    unsigned m_capacity;
    map m_steps; ///< t -> intervals booked from t until the next change point (0 before the first)
    std::uint64_t m_hold = 0;
    std::uint64_t m_overrun = 0;
};

} // namespace vgpu::cache
