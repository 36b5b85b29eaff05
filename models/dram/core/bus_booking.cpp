// Data-bus interval booking. See models/dram/README.md ("Timing modes").
#include "models/dram/core/bus_booking.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace vgpu::dram {

std::uint64_t bus_booking::first_fit(std::uint64_t earliest, std::uint64_t length) const
{
    std::uint64_t start = earliest;
    auto it = m_busy.upper_bound(start);
    if (it != m_busy.begin() && std::prev(it)->second > start)
        start = std::prev(it)->second; // earliest falls inside a booking
    while (it != m_busy.end() && it->first < start + length) {
        start = std::max(start, it->second); // the gap before this booking is too short
        ++it;
    }
    // Every interval before `it` starts before `start` (it holds earliest or was walked past),
    // and `it` starts at or after start + length: `it` is where a booking of `start` goes.
    m_hint_start = start;
    m_hint_index = static_cast<std::size_t>(it - m_busy.begin());
    m_hint_version = m_version;
    return start;
}

void bus_booking::book(std::uint64_t start, std::uint64_t length)
{
    if (length == 0)
        return;
    std::uint64_t end = start + length;
    auto next = m_hint_version == m_version && m_hint_start == start
                    ? m_busy.begin() + static_cast<std::ptrdiff_t>(m_hint_index)
                    : m_busy.lower_bound(start);
    ++m_version;
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

void bus_booking::forget(std::uint64_t now)
{
    while (!m_busy.empty() && m_busy.front().second <= now) {
        m_busy.pop_front();
        ++m_version;
    }
}

} // namespace vgpu::dram
