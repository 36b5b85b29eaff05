// Fast-mode DRAM request queue as booked stays. See models/dram/README.md ("Timing modes").
#include "models/dram/core/queue_booking.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace vgpu::dram {

queue_booking::queue_booking(unsigned capacity) : m_capacity(capacity)
{
    if (capacity == 0)
        throw std::invalid_argument("dram queue: needs at least one entry");
}

std::optional<std::uint64_t> queue_booking::blocked(std::uint64_t enter, std::uint64_t leave) const
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

front_map<std::uint64_t, long>::iterator queue_booking::split(std::uint64_t t)
{
    auto it = m_steps.lower_bound(t);
    if (it != m_steps.end() && it->first == t)
        return it;
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return m_steps.insert(it, t, held);
}

void queue_booking::add_full(std::uint64_t from, std::uint64_t to)
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

unsigned queue_booking::book(std::uint64_t enter, std::uint64_t leave)
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

unsigned queue_booking::held_at(std::uint64_t t) const
{
    auto it = m_steps.upper_bound(t);
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return static_cast<unsigned>(std::max(0L, held));
}

void queue_booking::forget(std::uint64_t now)
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

} // namespace vgpu::dram
