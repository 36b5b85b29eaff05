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
    const long cap = static_cast<long>(m_capacity);
    auto it = m_steps.upper_bound(enter);
    long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    while (held < cap) {
        if (it == m_steps.end() || it->first >= leave)
            return std::nullopt;
        held = it->second;
        ++it;
    }
    // Full: an entry frees at the first step that holds fewer than the capacity.
    for (; it != m_steps.end(); ++it)
        if (it->second < cap)
            return it->first;
    throw std::logic_error("dram queue booking: a stay never ends");
}

front_map<std::uint64_t, long>::iterator queue_booking::split(std::uint64_t t)
{
    auto it = m_steps.lower_bound(t);
    if (it != m_steps.end() && it->first == t)
        return it;
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return m_steps.insert(it, t, held);
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
    const long held = ++it->second;
    for (++it; it != end; ++it)
        ++it->second;
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
    while (!m_steps.empty() && m_steps.front().first <= now) {
        m_base = m_steps.front().second;
        m_steps.pop_front();
    }
}

} // namespace vgpu::dram
