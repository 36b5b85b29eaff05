// The request queue of one DRAM channel in fast mode, booked as the stays of its requests.
// Pure C++, times in picoseconds; see models/dram/README.md ("Timing modes").
#pragma once

#include "models/dram/core/front_map.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::dram {

/// A queue of `capacity` entries in fast mode. A request holds an entry for its stay
/// [enter, leave); it may enter only where fewer than `capacity` entries are held during the
/// whole stay, whatever the order in which stays are booked (temporal decoupling books a later
/// stay before an earlier one). Stays are forgotten once global time has passed their end, so the
/// capacity holds at every instant, at any quantum.
class queue_booking {
public:
    /// `capacity` >= 1.
    explicit queue_booking(unsigned capacity);

    /// Nothing when a stay [enter, leave) fits; otherwise the earliest time after `enter` at
    /// which it may be tried again (an entry is free again after the first full instant).
    std::optional<std::uint64_t> blocked(std::uint64_t enter, std::uint64_t leave) const;
    /// Books the stay [enter, leave) (at least one picosecond); returns the entries held at
    /// `enter`, this one included.
    unsigned book(std::uint64_t enter, std::uint64_t leave);
    /// Entries held at `t`.
    unsigned held_at(std::uint64_t t) const;
    /// Folds the stays that ended at or before `now` (global time) into the base count.
    void forget(std::uint64_t now);

private:
    /// Makes steps start at `enter` and at `leave` > enter (each holding what was held there),
    /// moving the steps after each once; sets `begin` and `end` to their indices.
    void split(std::uint64_t enter, std::uint64_t leave, std::size_t& begin, std::size_t& end);
    /// Index of the first step at or after `t` (m_time.size() when none).
    std::size_t lower_bound(std::uint64_t t) const;
    /// Adds [from, to), newly full, to m_full, merged with the stretches it touches.
    void add_full(std::uint64_t from, std::uint64_t to);

    unsigned m_capacity;
    long m_base = 0; ///< entries held before the first step
    /// The steps, from m_head on: entries m_held[i] held from m_time[i] to the next step, times
    /// ascending. Two arrays rather than one of pairs, so that booking a stay adds one to a
    /// contiguous run of counts (vectorised) and checks in the same pass whether it made one
    /// full. Booking a stay touches only the steps it covers and a query only those of the
    /// stay, so the cost does not grow with the number of stays remembered (with temporal
    /// decoupling, several microseconds of them). forget() moves m_head; the storage before it
    /// is reclaimed once it is the larger part.
    std::vector<std::uint64_t> m_time;
    std::vector<std::int32_t> m_held;
    std::size_t m_head = 0;
    /// The maximal full stretches of the steps (held >= capacity throughout; 0 stands for "since
    /// before the first step"), start -> end, disjoint and not touching. blocked() answers from
    /// them with one search instead of walking the steps of the stay and of the full stretch
    /// after it: the first full instant of a stay lies in the first stretch that ends after
    /// `enter`, if that stretch starts before `leave`, and the first instant after it with an
    /// entry free is that stretch's end (its maximality). book() only adds to the counts, so
    /// a stretch only grows or merges with others: book() adds the steps it makes full;
    /// forget() only folds steps into m_base (see there).
    front_map<std::uint64_t, std::uint64_t> m_full;
};

} // namespace vgpu::dram
