// Reference versions of the DRAM channel's timing structures for test_dram_structures.cpp:
// one sorted array of pairs per timeline, a walk over every step a stay covers, every bank
// forgotten on each forget() call, no search hints. The models' structures
// (models/dram/core) must answer every call sequence as these do.
#pragma once

#include "models/dram/core/channel_state.h"
#include "models/dram/core/front_map.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <vector>

namespace vgpu::dram::ref {

using vgpu::dram::access_plan;
using vgpu::dram::bank_state;
using vgpu::dram::dram_timing;
using vgpu::dram::front_map;
using vgpu::dram::row_outcome;

class bus_booking {
public:
    std::uint64_t first_fit(std::uint64_t earliest, std::uint64_t length) const;
    void book(std::uint64_t start, std::uint64_t length);
    void forget(std::uint64_t now);
    std::size_t intervals() const { return m_busy.size(); }
    std::uint64_t busy_until() const { return m_busy.empty() ? 0 : m_busy.back().second; }

private:
    front_map<std::uint64_t, std::uint64_t> m_busy; ///< start -> end, disjoint, not touching
};

inline std::uint64_t bus_booking::first_fit(std::uint64_t earliest, std::uint64_t length) const
{
    std::uint64_t start = earliest;
    auto it = m_busy.upper_bound(start);
    if (it != m_busy.begin() && std::prev(it)->second > start)
        start = std::prev(it)->second; // earliest falls inside a booking
    while (it != m_busy.end() && it->first < start + length) {
        start = std::max(start, it->second); // the gap before this booking is too short
        ++it;
    }
    return start;
}

inline void bus_booking::book(std::uint64_t start, std::uint64_t length)
{
    if (length == 0)
        return;
    std::uint64_t end = start + length;
    auto next = m_busy.lower_bound(start);
    if (next != m_busy.end() && next->first < end)
        throw std::logic_error("dram bus booking overlaps an earlier booking");
    if (next != m_busy.begin() && std::prev(next)->second > start)
        throw std::logic_error("dram bus booking overlaps an earlier booking");
    // Merge with the neighbours it touches, so a saturated bus is one interval.
    if (next != m_busy.end() && next->first == end) {
        end = next->second;
        next = m_busy.erase(next);
    }
    if (next != m_busy.begin() && std::prev(next)->second == start)
        std::prev(next)->second = end;
    else
        m_busy.insert(next, start, end);
}

inline void bus_booking::forget(std::uint64_t now)
{
    while (!m_busy.empty() && m_busy.front().second <= now)
        m_busy.pop_front();
}

class queue_booking {
public:
    explicit queue_booking(unsigned capacity);

    std::optional<std::uint64_t> blocked(std::uint64_t enter, std::uint64_t leave) const;
    unsigned book(std::uint64_t enter, std::uint64_t leave);
    unsigned held_at(std::uint64_t t) const;
    void forget(std::uint64_t now);

private:
    front_map<std::uint64_t, long>::iterator split(std::uint64_t t);
    void add_full(std::uint64_t from, std::uint64_t to);

    unsigned m_capacity;
    long m_base = 0; ///< entries held before the first step
    front_map<std::uint64_t, long> m_steps;
    front_map<std::uint64_t, std::uint64_t> m_full;
};

queue_booking::queue_booking(unsigned capacity) : m_capacity(capacity)
{
    if (capacity == 0)
        throw std::invalid_argument("dram queue: needs at least one entry");
}

inline std::optional<std::uint64_t> queue_booking::blocked(std::uint64_t enter,
                                                           std::uint64_t leave) const
{
    leave = std::max(leave, enter + 1);
    // The first stretch that ends after enter: the one holding enter, else the next one.
    auto it = m_full.upper_bound(enter);
    if (it != m_full.begin() && std::prev(it)->second > enter)
        --it;
    if (it == m_full.end() || it->first >= leave)
        return std::nullopt;
    return it->second;
}

inline front_map<std::uint64_t, long>::iterator queue_booking::split(std::uint64_t t)
{
    auto it = m_steps.lower_bound(t);
    if (it != m_steps.end() && it->first == t)
        return it;
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return m_steps.insert(it, t, held);
}

inline void queue_booking::add_full(std::uint64_t from, std::uint64_t to)
{
    // [from, to) was not full, so no stretch overlaps it; merge with those that touch it.
    auto next = m_full.lower_bound(from);
    if (next != m_full.end() && next->first == to) {
        to = next->second;
        next = m_full.erase(next);
    }
    if (next != m_full.begin() && std::prev(next)->second == from)
        std::prev(next)->second = to;
    else
        m_full.insert(next, from, to);
}

inline unsigned queue_booking::book(std::uint64_t enter, std::uint64_t leave)
{
    leave = std::max(leave, enter + 1);
    // Split at leave first (it holds what was held there), then at enter; count the split
    // points as positions, since a split moves the entries after it.
    const auto at_leave = split(leave);
    const auto last = at_leave - m_steps.begin();
    const std::size_t before = m_steps.size();
    auto it = split(enter);
    auto end = m_steps.begin() + last + static_cast<std::ptrdiff_t>(m_steps.size() - before);
    const long cap = static_cast<long>(m_capacity);
    const long held = it->second + 1;
    // Each run of steps this stay makes full (capacity - 1 -> capacity) is a new stretch; the
    // steps that were full already lie in stretches.
    std::uint64_t run = 0;
    bool in_run = false;
    for (; it != end; ++it) {
        const bool full = ++it->second == cap;
        if (full != in_run) { // rare: one branch per step otherwise
            if (full)
                run = it->first;
            else
                add_full(run, it->first);
            in_run = full;
        }
    }
    if (in_run)
        add_full(run, end->first);
    return static_cast<unsigned>(std::max(0L, held));
}

inline unsigned queue_booking::held_at(std::uint64_t t) const
{
    auto it = m_steps.upper_bound(t);
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return static_cast<unsigned>(std::max(0L, held));
}

inline void queue_booking::forget(std::uint64_t now)
{
    if (m_steps.empty() || m_steps.front().first > now)
        return;
    std::uint64_t folded = 0;
    while (!m_steps.empty() && m_steps.front().first <= now) {
        folded = m_steps.front().first;
        m_base = m_steps.front().second;
        m_steps.pop_front();
    }
    // Everything before the first step now holds m_base, as the last folded step did: a
    // stretch that ended at or before it is gone (what it covered holds m_base < capacity, or
    // lies in the stretch holding that step), and the stretch holding it reaches back to 0.
    // Stretch ends are step times, so none ends between `folded` and the first step.
    while (!m_full.empty() && m_full.front().second <= folded)
        m_full.pop_front();
    if (!m_full.empty() && m_full.front().first <= folded)
        m_full.front().first = 0;
}

class channel_state {
public:
    channel_state(const dram_timing& t, unsigned banks);

    access_plan plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                     std::uint64_t start) const;
    struct plan_cursor {
        std::size_t gap = 0; ///< 0 before any plan: search from `start`
    };
    access_plan plan(unsigned bank, std::uint64_t row, std::uint64_t bytes, std::uint64_t start,
                     plan_cursor& at) const;
    const bank_state& state_at(unsigned bank, std::uint64_t start) const;
    bool booked_after(unsigned bank, std::uint64_t start) const;
    std::uint64_t earliest_first(unsigned bank, std::uint64_t start) const
    {
        return std::max(start, state_at(bank, start).ready_ps);
    }
    bool commit(unsigned bank, std::uint64_t row, const access_plan& p);
    void forget(std::uint64_t now);

    bank_state bank(unsigned b) const;
    std::size_t bookings(unsigned b) const { return m_banks.at(b).booked.size(); }
    const bus_booking& bus() const { return m_bus; }                         ///< the data bus
    const dram_timing& timing() const { return m_t; }                        ///< the timings
    unsigned banks() const { return static_cast<unsigned>(m_banks.size()); } ///< bank count

private:
    struct booking {
        row_outcome outcome; ///< what it found (what it needs of the bank before it)
        bank_state after;    ///< the bank after it (ready_ps = end of the booking)
    };
    struct timeline {
        bank_state base;                          ///< after every forgotten booking
        front_map<std::uint64_t, booking> booked; ///< first command -> booking, disjoint
    };
    access_plan plan_after(const bank_state& prev, std::uint64_t row, std::uint64_t occupancy,
                           std::uint64_t start, bool bus) const;
    bool fits(const access_plan& a, std::uint64_t row, std::uint64_t next_first,
              const booking& next) const;

    dram_timing m_t;
    std::vector<timeline> m_banks;
    mutable std::uint64_t m_occupancy_bytes = ~std::uint64_t{0}; ///< plan(): the last size...
    mutable std::uint64_t m_occupancy_ps = 0;                    ///< ...and its transfer_ps()
    bus_booking m_bus;
    std::uint64_t m_forgotten = 0;
    bool m_forgotten_valid = false; ///< m_forgotten holds
};

channel_state::channel_state(const dram_timing& t, unsigned banks) : m_t(t), m_banks(banks)
{
    if (banks == 0 || !(t.bandwidth_gbps > 0))
        throw std::invalid_argument("dram channel: needs a bank and a positive bandwidth");
}

inline access_plan channel_state::plan_after(const bank_state& prev, std::uint64_t row,
                                             std::uint64_t occupancy, std::uint64_t start,
                                             bool bus) const
{
    access_plan p;
    p.outcome = prev.outcome(row);
    const std::uint64_t s = std::max(start, prev.ready_ps);
    std::uint64_t column = s;
    switch (p.outcome) {
    case row_outcome::hit:
        p.row_activated_ps = prev.activated_ps;
        break;
    case row_outcome::miss:
        p.first_ps = p.activate_ps = p.row_activated_ps = s;
        column = s + m_t.tRCD;
        break;
    case row_outcome::conflict:
        p.first_ps = std::max(s, prev.activated_ps + m_t.tRAS); // PRECHARGE
        p.activate_ps = p.row_activated_ps = p.first_ps + m_t.tRP;
        column = p.activate_ps + m_t.tRCD;
        break;
    }
    p.data_ps = bus ? m_bus.first_fit(column + m_t.tCL, occupancy) : column + m_t.tCL;
    p.column_ps = p.data_ps - m_t.tCL;
    if (p.outcome == row_outcome::hit)
        p.first_ps = p.column_ps;
    p.end_ps = p.data_ps + occupancy;
    return p;
}

inline bool channel_state::fits(const access_plan& a, std::uint64_t row, std::uint64_t next_first,
                                const booking& next) const
{
    const std::uint64_t a_end = a.column_ps + (a.end_ps - a.data_ps);
    const std::uint64_t close = std::max(a_end, a.row_activated_ps + m_t.tRAS); // PRECHARGE
    // An access that leaves open the row the next booking opens or uses: that booking's column
    // command finds its row open at its planned time (a miss's or conflict's PRECHARGE and
    // ACTIVATE are then not needed and the bank idles instead), so it runs as planned.
    if (next.after.row == row)
        return a_end <= next_first;
    switch (next.outcome) {
    case row_outcome::hit:
        return close + m_t.tRP + m_t.tRCD <= next_first; // its row must be open again
    case row_outcome::conflict:
        return close <= next_first;
    case row_outcome::miss:
        return close + m_t.tRP <= next_first; // it found the bank closed: close it again
    }
    return false;
}

inline access_plan channel_state::plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                                       std::uint64_t start) const
{
    plan_cursor at;
    return plan(bank, row, bytes, start, at);
}

inline access_plan channel_state::plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                                       std::uint64_t start, plan_cursor& at) const
{
    const timeline& tl = m_banks.at(bank);
    // The first gap to try: the one start falls in, or the earlier plan's gap if that is later.
    auto next = tl.booked.begin() + static_cast<std::ptrdiff_t>(at.gap);
    if (next == tl.booked.begin() || !(start < std::prev(next)->first))
        next = tl.booked.upper_bound(start);
    bank_state prev = next == tl.booked.begin() ? tl.base : std::prev(next)->second.after;
    // Accesses are nearly always one size: the last size's transfer time is kept (the
    // computation takes a floating-point division and rounding, per plan).
    if (bytes != m_occupancy_bytes) {
        m_occupancy_bytes = bytes;
        m_occupancy_ps = m_t.transfer_ps(bytes);
    }
    const std::uint64_t occupancy = m_occupancy_ps;
    for (;;) {
        // A later data slot only ends the access later, so a gap that cannot hold it with the
        // bus free cannot hold it at all: skip the bus search there.
        const bool last = next == tl.booked.end();
        if (last ||
            fits(plan_after(prev, row, occupancy, start, false), row, next->first, next->second)) {
            const access_plan p = plan_after(prev, row, occupancy, start, true);
            if (last || fits(p, row, next->first, next->second)) {
                at.gap = static_cast<std::size_t>(next - tl.booked.begin());
                return p;
            }
        }
        prev = next->second.after;
        ++next;
    }
}

inline const bank_state& channel_state::state_at(unsigned bank, std::uint64_t start) const
{
    const timeline& tl = m_banks.at(bank);
    const auto next = tl.booked.upper_bound(start);
    return next == tl.booked.begin() ? tl.base : std::prev(next)->second.after;
}

inline bool channel_state::booked_after(unsigned bank, std::uint64_t start) const
{
    const timeline& tl = m_banks.at(bank);
    return !tl.booked.empty() && start < tl.booked.back().first;
}

inline bool channel_state::commit(unsigned bank, std::uint64_t row, const access_plan& p)
{
    timeline& tl = m_banks.at(bank);
    booking b;
    b.outcome = p.outcome;
    b.after.open = true;
    b.after.row = row;
    b.after.activated_ps = p.row_activated_ps;
    // The column commands of the access span its data transfer; the bank's next command
    // (another column command, or a PRECHARGE) follows them.
    b.after.ready_ps = p.column_ps + (p.end_ps - p.data_ps);
    auto at = tl.booked.lower_bound(p.first_ps);
    if (at != tl.booked.end() && at->first == p.first_ps)
        throw std::logic_error("dram bank booking collides with an earlier booking");
    at = tl.booked.insert(at, p.first_ps, b);
    // A row hit booked after it that needs another row gets it back just in time (fits()
    // checked there is room): that row's ACTIVATE moves to then, for tRAS.
    auto next = std::next(at);
    if (next != tl.booked.end() && next->second.outcome == row_outcome::hit &&
        next->second.after.row != row)
        next->second.after.activated_ps =
            std::max(next->second.after.activated_ps, next->first - m_t.tRCD);
    m_bus.book(p.data_ps, p.end_ps - p.data_ps);
    if (std::min(b.after.ready_ps, p.end_ps) <= m_forgotten)
        m_forgotten_valid = false; // booked in the past (tests): forget() must look again
    return next != tl.booked.end() && next->second.outcome != row_outcome::hit &&
           next->second.after.row == row;
}

inline void channel_state::forget(std::uint64_t now)
{
    if (m_forgotten_valid && now == m_forgotten)
        return;
    m_forgotten = now;
    m_forgotten_valid = true;
    for (timeline& tl : m_banks)
        while (!tl.booked.empty() && tl.booked.front().second.after.ready_ps <= now) {
            tl.base = tl.booked.front().second.after;
            tl.booked.pop_front();
        }
    m_bus.forget(now);
}

inline bank_state channel_state::bank(unsigned b) const
{
    const timeline& tl = m_banks.at(b);
    return tl.booked.empty() ? tl.base : tl.booked.back().second.after;
}

} // namespace vgpu::dram::ref
