// Fast-mode DRAM request queue as booked stays. See models/dram/README.md ("Timing modes").
#include "models/dram/core/queue_booking.h"

#include <algorithm>
#include <cstring>
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

namespace {
/// The first i in [from, to) with (held[i] == v) == eq, else `to`: eight counts at a time
/// (vectorised), then one by one within the eight that hold it.
std::size_t first_where(const std::int32_t* held, std::size_t from, std::size_t to, std::int32_t v,
                        bool eq)
{
    const int want = eq ? 1 : 0;
    while (from + 8 <= to) {
        int any = 0;
        for (std::size_t k = 0; k < 8; ++k)
            any |= (held[from + k] == v ? 1 : 0) == want;
        if (any)
            break;
        from += 8;
    }
    while (from < to && (held[from] == v ? 1 : 0) != want)
        ++from;
    return from;
}
} // namespace

std::size_t queue_booking::lower_bound(std::uint64_t t) const
{
    // Stays end near the latest step: most searches land in the last few.
    const std::size_t n = m_time.size();
    if (m_head == n || m_time[n - 1] < t)
        return n;
    const auto first = m_time.begin() + static_cast<std::ptrdiff_t>(m_head);
    return static_cast<std::size_t>(std::lower_bound(first, m_time.end(), t) - m_time.begin());
}

void queue_booking::split(std::uint64_t enter, std::uint64_t leave, std::size_t& begin,
                          std::size_t& end)
{
    const std::size_t n = m_time.size();
    const std::size_t l = lower_bound(leave);
    const auto first = m_time.begin() + static_cast<std::ptrdiff_t>(m_head);
    const auto e = static_cast<std::size_t>(
        std::lower_bound(first, m_time.begin() + static_cast<std::ptrdiff_t>(l), enter) -
        m_time.begin());
    // The step at l starts at or after leave > enter: a step at enter lies before it.
    const std::size_t add_leave = l == n || m_time[l] != leave ? 1 : 0;
    const std::size_t add_enter = e == l || m_time[e] != enter ? 1 : 0;
    const std::int32_t held_leave = l == m_head ? static_cast<std::int32_t>(m_base) : m_held[l - 1];
    const std::int32_t held_enter = e == m_head ? static_cast<std::int32_t>(m_base) : m_held[e - 1];
    if (const std::size_t k = add_enter + add_leave) {
        for (std::size_t i = 0; i < k; ++i) { // grown at the end, filled below
            m_time.push_back(0);
            m_held.push_back(0);
        }
        std::uint64_t* time = m_time.data();
        std::int32_t* held = m_held.data();
        std::memmove(time + l + k, time + l, (n - l) * sizeof *time);
        std::memmove(held + l + k, held + l, (n - l) * sizeof *held);
        if (add_leave) {
            time[l + add_enter] = leave;
            held[l + add_enter] = held_leave;
        }
        if (add_enter) {
            std::memmove(time + e + 1, time + e, (l - e) * sizeof *time);
            std::memmove(held + e + 1, held + e, (l - e) * sizeof *held);
            time[e] = enter;
            held[e] = held_enter;
        }
    }
    begin = e;
    end = l + add_enter;
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
    std::size_t begin = 0, end = 0;
    split(enter, leave, begin, end);
    const std::int32_t cap = static_cast<std::int32_t>(m_capacity);
    // One pass adds the stay to its steps and notes whether one became full (capacity - 1 ->
    // capacity): nearly always none, and then nothing else is done.
    std::int32_t* held = m_held.data();
    int made_full = 0;
    for (std::size_t i = begin; i < end; ++i) {
        const std::int32_t h = held[i] + 1;
        held[i] = h;
        made_full |= h == cap;
    }
    if (made_full) {
        // Each run of steps this stay made full (holding exactly the capacity now) is a new
        // stretch; the steps that were full already hold more and lie in stretches.
        for (std::size_t i = first_where(held, begin, end, cap, true); i != end;) {
            const std::size_t j = first_where(held, i, end, cap, false);
            add_full(m_time[i], m_time[j]); // m_time[end] is leave
            i = j == end ? end : first_where(held, j, end, cap, true);
        }
    }
    return static_cast<unsigned>(std::max(0, held[begin]));
}

unsigned queue_booking::held_at(std::uint64_t t) const
{
    const auto first = m_time.begin() + static_cast<std::ptrdiff_t>(m_head);
    const auto i = static_cast<std::size_t>(std::upper_bound(first, m_time.end(), t) - first);
    const long held = i == 0 ? m_base : m_held[m_head + i - 1];
    return static_cast<unsigned>(std::max(0L, held));
}

void queue_booking::forget(std::uint64_t now)
{
    if (m_head == m_time.size() || m_time[m_head] > now)
        return;
    std::uint64_t folded = 0;
    while (m_head != m_time.size() && m_time[m_head] <= now) {
        folded = m_time[m_head];
        m_base = m_held[m_head];
        ++m_head;
    }
    if (m_head == m_time.size()) {
        m_time.clear();
        m_held.clear();
        m_head = 0;
    } else if (m_head > 32 && 2 * m_head > m_time.size()) {
        m_time.erase(m_time.begin(), m_time.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_held.erase(m_held.begin(), m_held.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_head = 0;
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
