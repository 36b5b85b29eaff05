// Occupancy of a resource of N interchangeable entries as intervals of simulated time.
// See models/cache/README.md ("Capacity in fast mode").
#include "models/cache/core/capacity_timeline.h"

#include <iterator>
#include <limits>
#include <stdexcept>

namespace vgpu::cache {

namespace {
constexpr std::uint64_t forever = std::numeric_limits<std::uint64_t>::max();

std::uint64_t plus(std::uint64_t t, std::uint64_t d)
{
    return d > forever - t ? forever : t + d;
}
} // namespace

capacity_timeline::capacity_timeline(unsigned capacity) : m_capacity(capacity)
{
    if (capacity == 0)
        throw std::invalid_argument("capacity_timeline: capacity must be at least 1");
}

void capacity_timeline::clear()
{
    m_steps.clear();
}

void capacity_timeline::prune(std::uint64_t now)
{
    // The change point whose interval contains `now` stays; everything before it is past.
    while (m_steps.size() >= 2 && std::next(m_steps.begin())->first <= now)
        m_steps.erase(m_steps.begin());
    if (!m_steps.empty() && m_steps.begin()->second == 0 && m_steps.size() == 1)
        m_steps.clear();
}

unsigned capacity_timeline::in_use(std::uint64_t t) const
{
    auto it = m_steps.upper_bound(t);
    return it == m_steps.begin() ? 0 : std::prev(it)->second;
}

std::uint64_t capacity_timeline::earliest(std::uint64_t arrival, std::uint64_t length,
                                          std::uint64_t now)
{
    prune(now);
    if (length == 0)
        length = 1;
    std::uint64_t t = arrival;
    for (;;) {
        auto it = m_steps.upper_bound(t);
        if (it != m_steps.begin())
            --it; // the interval containing t
        const std::uint64_t until = plus(t, length);
        bool full = false;
        for (; it != m_steps.end() && it->first < until; ++it) {
            if (it->second < m_capacity)
                continue;
            // Full from here: continue after the first change point below capacity (the last
            // change point always drops to 0, since every booking ends).
            auto free = std::next(it);
            while (free != m_steps.end() && free->second >= m_capacity)
                ++free;
            t = free == m_steps.end() ? forever : free->first;
            full = true;
            break;
        }
        if (!full)
            return t;
    }
}

capacity_timeline::map::iterator capacity_timeline::split(std::uint64_t t)
{
    auto it = m_steps.lower_bound(t);
    if (it != m_steps.end() && it->first == t)
        return it;
    const unsigned count = it == m_steps.begin() ? 0 : std::prev(it)->second;
    return m_steps.emplace_hint(it, t, count);
}

void capacity_timeline::merge(std::uint64_t s, std::uint64_t e)
{
    auto it = m_steps.lower_bound(s);
    while (it != m_steps.end() && it->first <= e) {
        const unsigned before = it == m_steps.begin() ? 0 : std::prev(it)->second;
        if (it->second == before)
            it = m_steps.erase(it);
        else
            ++it;
    }
}

std::uint64_t capacity_timeline::add(std::uint64_t s, std::uint64_t e)
{
    auto first = split(s);
    auto last = split(e);
    std::uint64_t over = 0;
    for (auto it = first; it != last; ++it) {
        if (it->second >= m_capacity)
            over += std::next(it)->first - it->first;
        ++it->second;
    }
    merge(s, e);
    return over;
}

void capacity_timeline::remove(std::uint64_t s, std::uint64_t e)
{
    // Time before the first change point has been forgotten (global time passed it).
    if (m_steps.empty() || e <= m_steps.begin()->first)
        return;
    if (s < m_steps.begin()->first)
        s = m_steps.begin()->first;
    auto first = split(s);
    auto last = split(e);
    for (auto it = first; it != last; ++it) {
        if (it->second == 0)
            throw std::logic_error("capacity_timeline: removing time that was not booked");
        --it->second;
    }
    merge(s, e);
}

bool capacity_timeline::book(std::uint64_t start, std::uint64_t end)
{
    if (end <= start)
        return true;
    const std::uint64_t over = add(start, end);
    m_overrun += over;
    return over == 0;
}

capacity_timeline::reservation
capacity_timeline::reserve_for(std::uint64_t arrival, std::uint64_t length, std::uint64_t now)
{
    reservation r;
    r.start = earliest(arrival, length, now);
    r.end = plus(r.start, length);
    book(r.start, r.end);
    return r;
}

capacity_timeline::reservation capacity_timeline::reserve(std::uint64_t arrival, std::uint64_t now)
{
    return reserve_for(arrival, m_hold, now);
}

bool capacity_timeline::finish(reservation& r, std::uint64_t end)
{
    if (end < r.start)
        end = r.start;
    bool ok = true;
    if (end < r.end)
        remove(end, r.end);
    else if (end > r.end)
        ok = book(r.end, end);
    r.end = end;
    if (end - r.start > m_hold)
        m_hold = end - r.start;
    return ok;
}

} // namespace vgpu::cache
