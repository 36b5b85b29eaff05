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

pooled_map<std::uint64_t, long>::iterator queue_booking::split(std::uint64_t t)
{
    auto it = m_steps.lower_bound(t);
    if (it != m_steps.end() && it->first == t)
        return it;
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return m_steps.emplace_hint(it, t, held);
}

unsigned queue_booking::book(std::uint64_t enter, std::uint64_t leave)
{
    leave = std::max(leave, enter + 1);
    auto last = split(leave);
    for (auto it = split(enter); it != last; ++it)
        ++it->second;
    return held_at(enter);
}

unsigned queue_booking::held_at(std::uint64_t t) const
{
    auto it = m_steps.upper_bound(t);
    const long held = it == m_steps.begin() ? m_base : std::prev(it)->second;
    return static_cast<unsigned>(std::max(0L, held));
}

void queue_booking::forget(std::uint64_t now)
{
    while (!m_steps.empty() && m_steps.begin()->first <= now) {
        m_base = m_steps.begin()->second;
        m_steps.erase(m_steps.begin());
    }
}

} // namespace vgpu::dram
