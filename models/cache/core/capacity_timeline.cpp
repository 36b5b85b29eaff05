// Occupancy of a resource of N interchangeable entries as intervals of simulated time.
// See models/cache/README.md ("Capacity in fast mode").
#include "models/cache/core/capacity_timeline.h"

#include <algorithm>
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
    ++m_version;
    m_delta.clear();
    m_head = 0;
    m_live = 0;
    m_base = 0;
    m_cursor_t = m_pruned;
    m_cursor_c = 0;
    m_cursor_i = 0;
    m_skip.valid = false;
    m_step = 1;
}

void capacity_timeline::prune(std::uint64_t now)
{
    if (now <= m_pruned)
        return;
    m_pruned = now;
    while (m_head < m_delta.size() && m_delta[m_head].first <= now) {
        m_base += m_delta[m_head].second;
        m_live -= static_cast<std::size_t>(m_delta[m_head++].ends);
    }
    if (m_cursor_t < now) {
        m_cursor_t = now;
        m_cursor_c = m_base;
        m_cursor_i = m_head;
    }
    if (m_head > 64 && 2 * m_head > m_delta.size()) {
        m_delta.erase(m_delta.begin(), m_delta.begin() + static_cast<std::ptrdiff_t>(m_head));
        m_cursor_i -= m_head;
        m_head = 0;
    }
}

std::size_t capacity_timeline::after(std::uint64_t t) const
{
    return static_cast<std::size_t>(
        std::upper_bound(m_delta.begin() + static_cast<std::ptrdiff_t>(m_head), m_delta.end(), t,
                         [](std::uint64_t v, const change_point& p) { return v < p.first; }) -
        m_delta.begin());
}

void capacity_timeline::change(std::uint64_t t, int d, int ends)
{
    ++m_version;
    if (t <= m_cursor_t)
        m_cursor_c += d;
    if (t <= m_pruned) {
        m_base += d;
        return;
    }
    // Bookings mostly end after every change point: append without a search. A booking
    // mostly starts where the last search stopped: the cursor knows the index.
    const std::size_t i = m_delta.size() == m_head || m_delta.back().first < t ? m_delta.size()
                          : t == m_cursor_t                                    ? m_cursor_i
                                                                               : after(t);
    const auto at = m_delta.begin() + static_cast<std::ptrdiff_t>(i);
    if (i != m_head && std::prev(at)->first == t) {
        std::prev(at)->second += d;
        std::prev(at)->ends += ends;
        if (std::prev(at)->second == 0) {
            // The next point takes the ends (see m_live).
            at->ends += std::prev(at)->ends;
            m_delta.erase(std::prev(at));
            if (t <= m_cursor_t)
                --m_cursor_i;
        } else
            m_step = std::max(m_step, std::prev(at)->second);
    } else if (m_head > 0 && i - m_head < m_delta.size() - i) {
        // Fewer points before the new one than after it, and room before them (points
        // pruned): those before move down a place. The cursor's index moves with them if the
        // new point lies after the cursor (its first point after the cursor is then at or
        // before i - 1).
        std::copy(m_delta.begin() + static_cast<std::ptrdiff_t>(m_head), at,
                  m_delta.begin() + static_cast<std::ptrdiff_t>(m_head - 1));
        --m_head;
        m_delta[i - 1] = {t, d, ends};
        if (t > m_cursor_t)
            --m_cursor_i;
        m_step = std::max(m_step, d);
    } else {
        m_delta.insert(at, {t, d, ends});
        if (t <= m_cursor_t)
            ++m_cursor_i;
        m_step = std::max(m_step, d);
    }
}

int capacity_timeline::count_at(std::uint64_t t, std::size_t& next) const
{
    if (t < m_pruned)
        t = m_pruned;
    int c = m_cursor_c;
    std::size_t i = m_cursor_i;
    if (t >= m_cursor_t) {
        for (; i < m_delta.size() && m_delta[i].first <= t; ++i)
            c += m_delta[i].second;
    } else {
        // Walk back: undo the changes in (t, m_cursor_t].
        while (i > m_head && m_delta[i - 1].first > t) {
            --i;
            c -= m_delta[i].second;
        }
    }
    next = i;
    m_cursor_t = t;
    m_cursor_c = c;
    m_cursor_i = i;
    return c;
}

unsigned capacity_timeline::in_use(std::uint64_t t) const
{
    std::size_t next = 0;
    const int c = count_at(t, next);
    return c > 0 ? static_cast<unsigned>(c) : 0;
}

std::uint64_t capacity_timeline::full_time(std::uint64_t s, std::uint64_t e) const
{
    const auto cap = static_cast<int>(m_capacity);
    std::size_t i = 0;
    int c = count_at(s, i);
    std::uint64_t full = 0, t = s;
    for (;;) {
        const std::uint64_t next =
            i == m_delta.size() || m_delta[i].first > e ? e : m_delta[i].first;
        if (c >= cap)
            full += next - t;
        if (next == e)
            return full;
        t = next;
        c += m_delta[i++].second;
    }
}

std::uint64_t capacity_timeline::earliest(std::uint64_t arrival, std::uint64_t length,
                                          std::uint64_t now)
{
    prune(now);
    // Fewer live intervals than entries: there is room at every time.
    if (m_live < m_capacity)
        return arrival;
    if (length == 0)
        length = 1;
    if (m_memo.valid && m_memo.version == m_version && m_memo.pruned == m_pruned &&
        m_memo.length == length && (arrival == m_memo.arrival || arrival == m_memo.start))
        return m_memo.start;
    // No start in the known stretch: the earliest one from inside it is the earliest from its
    // end. (Below global time counts were folded into m_base: no shortcut there.)
    const bool skip = m_skip.valid && length >= m_skip.length && arrival >= m_pruned &&
                      arrival >= m_skip.from && arrival < m_skip.to;
    const std::uint64_t from = skip ? m_skip.to : arrival;
    const std::uint64_t t = search(from, length);
    if (t != forever && arrival >= m_pruned)
        m_skip = {true, skip ? m_skip.from : arrival, t, length};
    m_memo = {true, m_version, m_pruned, length, arrival, t};
    return t;
}

std::size_t capacity_timeline::first_full(std::size_t i, int& c, std::uint64_t until) const
{
    const int cap = static_cast<int>(m_capacity);
    const change_point* const d = m_delta.data();
    const std::size_t n = m_delta.size();
    // The window check walks every change point of [t, t + length) while the count stays
    // below capacity (about a hundred at saturation). Blocks of 8: the times are sorted, so
    // one comparison tells the block lies before `until`, and one of the block's running
    // counts tells whether any reached capacity; the point itself is then found one by one.
    while (i + 8 <= n && d[i + 7].first < until) {
        if (cap - c > 8 * m_step) { // no point of the block can reach capacity: just sum
            c += (d[i].second + d[i + 1].second) + (d[i + 2].second + d[i + 3].second) +
                 ((d[i + 4].second + d[i + 5].second) + (d[i + 6].second + d[i + 7].second));
            i += 8;
            continue;
        }
        int k = c, top = c;
        for (std::size_t b = 0; b < 8; ++b) {
            k += d[i + b].second;
            top = std::max(top, k);
        }
        if (top >= cap)
            break;
        c = k;
        i += 8;
    }
    for (; i < n && d[i].first < until; ++i) {
        c += d[i].second;
        if (c >= cap)
            break;
    }
    return i;
}

std::uint64_t capacity_timeline::search(std::uint64_t arrival, std::uint64_t length) const
{
    const auto cap = static_cast<int>(m_capacity);
    std::uint64_t t = arrival;
    std::size_t i = 0;
    int c = count_at(t, i); // the count on [t, time of change point i)
    for (;;) {
        // Full at t: move to the first change point after which the count is below capacity
        // (the last change point always drops to 0, since every booking ends).
        while (c >= cap) {
            if (i == m_delta.size())
                return forever;
            t = m_delta[i].first;
            c += m_delta[i++].second;
        }
        // Room at t: is there room up to t + length?
        const std::uint64_t until = plus(t, length);
        int cj = c;
        const std::size_t j = first_full(i, cj, until);
        if (j == m_delta.size() || m_delta[j].first >= until) {
            // The count at t is known: the next query (a booking at t, or the next search
            // from the stretch's end) starts here.
            if (t >= m_pruned) {
                m_cursor_t = t;
                m_cursor_c = c;
                m_cursor_i = i;
            }
            return t;
        }
        t = m_delta[j].first;
        c = cj;
        i = j + 1;
    }
}

bool capacity_timeline::book(std::uint64_t start, std::uint64_t end)
{
    if (m_pending)
        throw std::logic_error("capacity_timeline: a booking while a reservation is pending");
    return book_checked_from(start, end, start);
}

bool capacity_timeline::book_checked_from(std::uint64_t start, std::uint64_t end,
                                          std::uint64_t check_from)
{
    if (end <= start)
        return true;
    // With fewer live intervals than entries nothing can be full.
    const std::uint64_t over =
        m_live < m_capacity || check_from >= end ? 0 : full_time(check_from, end);
    m_overrun += over;
    // The end first: when the start's point then cancels, the next point (the end's, or one
    // before it) takes its ends (see m_live).
    if (end > m_pruned) {
        ++m_live;
        change(end, -1, 1);
    } else
        change(end, -1);
    change(start, +1);
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
    if (m_pending)
        throw std::logic_error("capacity_timeline: a reservation is already pending");
    reservation r;
    r.start = earliest(arrival, m_hold, now);
    r.end = plus(r.start, m_hold);
    m_pending = true;
    m_pending_pruned = m_pruned;
    m_pending_free_until = r.end;
    return r;
}

bool capacity_timeline::finish(reservation& r, std::uint64_t end)
{
    if (!m_pending)
        throw std::logic_error("capacity_timeline: finish without a pending reservation");
    m_pending = false;
    if (end < r.start)
        end = r.start;
    // [r.start, start + estimate) was found free and nothing was booked since: only the part
    // beyond it can overrun, and full_time finds exactly that part. (A prune since the search
    // may have moved the time full_time starts from: then the whole interval is checked.)
    const std::uint64_t free_until = m_pruned == m_pending_pruned ? m_pending_free_until : r.start;
    const bool ok = book_checked_from(r.start, end, std::max(r.start, std::min(free_until, end)));
    r.end = end;
    if (end - r.start > m_hold)
        m_hold = end - r.start;
    return ok;
}

} // namespace vgpu::cache
