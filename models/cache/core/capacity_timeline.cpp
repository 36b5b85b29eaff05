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
    for (const std::uint32_t id : m_order)
        m_free.push_back(id);
    m_order.clear();
    m_last.clear();
    m_points = 0;
    m_live = 0;
    m_base = 0;
    m_cursor_t = m_pruned;
    m_cursor_c = 0;
    m_cursor_i = pos{};
    m_cursor_ok = true;
    m_skip.valid = false;
}

int capacity_timeline::top_of(const chunk& h) const
{
    if (h.stale) {
        int k = 0, top = h.p[0].second;
        for (unsigned j = 0; j < h.n; ++j) {
            k += h.p[j].second;
            top = std::max(top, k);
        }
        h.top = top;
        h.stale = false;
    }
    return h.top;
}

std::uint32_t capacity_timeline::new_chunk()
{
    if (!m_free.empty()) {
        const std::uint32_t id = m_free.back();
        m_free.pop_back();
        m_pool[id].n = 0;
        m_pool[id].sum = 0;
        m_pool[id].stale = true;
        return id;
    }
    m_pool.emplace_back();
    return static_cast<std::uint32_t>(m_pool.size() - 1);
}

void capacity_timeline::prune(std::uint64_t now)
{
    if (now <= m_pruned)
        return;
    m_pruned = now;
    std::size_t drop = 0; // whole chunks folded
    while (drop < m_order.size() && last_time(drop) <= now) {
        const chunk& h = ch(drop);
        m_base += h.sum;
        for (unsigned j = 0; j < h.n; ++j)
            m_live -= static_cast<std::size_t>(h.p[j].ends);
        m_points -= h.n;
        m_free.push_back(m_order[drop++]);
    }
    // The cursor's point (if m_cursor_t >= now) is after now: it was not folded.
    if (drop > 0) {
        m_order.erase(m_order.begin(), m_order.begin() + static_cast<std::ptrdiff_t>(drop));
        m_last.erase(m_last.begin(), m_last.begin() + static_cast<std::ptrdiff_t>(drop));
        m_cursor_i.c -= std::min(m_cursor_i.c, drop);
    }
    if (!m_order.empty() && ch(0).p[0].first <= now) {
        chunk& h = ch(0);
        unsigned j = 0;
        for (; h.p[j].first <= now; ++j) { // the last point is after now
            m_base += h.p[j].second;
            h.sum -= h.p[j].second;
            m_live -= static_cast<std::size_t>(h.p[j].ends);
        }
        std::copy(h.p + j, h.p + h.n, h.p);
        h.n -= j;
        h.stale = true;
        m_points -= j;
        if (m_cursor_i.c == 0)
            m_cursor_i.k -= std::min(m_cursor_i.k, j);
    }
    if (m_cursor_t < now) {
        m_cursor_t = now;
        m_cursor_c = m_base;
        m_cursor_i = pos{};
        m_cursor_ok = true;
    }
}

capacity_timeline::pos capacity_timeline::after(std::uint64_t t) const
{
    // The first chunk whose last point is after t, then the first point after t in it.
    const auto lo = static_cast<std::size_t>(std::upper_bound(m_last.begin(), m_last.end(), t) -
                                             m_last.begin());
    if (lo == m_order.size())
        return pos{lo, 0};
    const chunk& h = ch(lo);
    const auto* p = std::upper_bound(
        h.p, h.p + h.n, t, [](std::uint64_t v, const change_point& q) { return v < q.first; });
    return pos{lo, static_cast<unsigned>(p - h.p)};
}

void capacity_timeline::insert_at(pos i, const change_point& q)
{
    ++m_points;
    // q lands right before the cursor's point: the cursor's point is then q (if q is after the
    // cursor's time) or still the one it was, right after q. Otherwise the cursor's point stays
    // the same and its place moves with the points.
    const bool before_cursor = m_cursor_ok && m_cursor_i.c == i.c && m_cursor_i.k == i.k;
    pos& u = m_cursor_i;
    if (at_end(i)) {
        // After every point: at the end of the last chunk, or in a new one.
        if (m_order.empty() || ch(m_order.size() - 1).n == chunk_points) {
            m_order.push_back(new_chunk());
            m_last.push_back(q.first);
        }
        i = pos{m_order.size() - 1, ch(m_order.size() - 1).n};
    } else if (i.k == 0 && i.c > 0 && ch(i.c - 1).n < chunk_points) {
        i = pos{i.c - 1, ch(i.c - 1).n}; // the end of the chunk before has room
    }
    if (ch(i.c).n == chunk_points) {
        // Split the full chunk: its upper half moves to a new chunk after it.
        const std::uint32_t id = new_chunk(); // may move m_pool: take references after
        chunk& lo = ch(i.c);
        chunk& hi = m_pool[id];
        const unsigned half = chunk_points / 2;
        std::copy(lo.p + half, lo.p + chunk_points, hi.p);
        hi.n = chunk_points - half;
        lo.n = half;
        int sum = 0;
        for (unsigned j = 0; j < hi.n; ++j)
            sum += hi.p[j].second;
        hi.sum = sum;
        lo.sum -= sum;
        hi.stale = lo.stale = true;
        m_order.insert(m_order.begin() + static_cast<std::ptrdiff_t>(i.c + 1), id);
        m_last.insert(m_last.begin() + static_cast<std::ptrdiff_t>(i.c + 1), m_last[i.c]);
        m_last[i.c] = lo.p[half - 1].first;
        if (!before_cursor) {
            if (u.c == i.c && u.k >= half)
                u = pos{u.c + 1, u.k - half};
            else if (u.c > i.c)
                ++u.c;
        }
        if (i.k > half)
            i = pos{i.c + 1, i.k - half};
    }
    chunk& h = ch(i.c);
    std::copy_backward(h.p + i.k, h.p + h.n, h.p + h.n + 1);
    h.p[i.k] = q;
    if (i.k == h.n)
        m_last[i.c] = q.first;
    ++h.n;
    h.sum += q.second;
    h.stale = true;
    if (before_cursor) {
        u = i;
        if (q.first <= m_cursor_t)
            next(u);
    } else if (u.c == i.c && u.k >= i.k)
        ++u.k;
}

void capacity_timeline::erase_at(pos i)
{
    --m_points;
    chunk& h = ch(i.c);
    h.sum -= h.p[i.k].second;
    std::copy(h.p + i.k + 1, h.p + h.n, h.p + i.k);
    h.stale = true;
    const bool emptied = --h.n == 0;
    if (emptied) {
        m_free.push_back(m_order[i.c]);
        m_order.erase(m_order.begin() + static_cast<std::ptrdiff_t>(i.c));
        m_last.erase(m_last.begin() + static_cast<std::ptrdiff_t>(i.c));
    } else if (i.k == h.n)
        m_last[i.c] = h.p[h.n - 1].first;
    // The cursor's place: the points after i moved down one place in its chunk, or the chunks
    // after it one place if it emptied.
    pos& u = m_cursor_i;
    if (!m_cursor_ok || u.c < i.c)
        return;
    if (u.c == i.c && u.k == i.k) { // the erased point: the next one takes its place
        if (!emptied && u.k == h.n)
            u = pos{u.c + 1, 0};
    } else if (u.c == i.c) {
        if (u.k > i.k)
            --u.k;
    } else if (emptied)
        --u.c;
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
    // mostly starts where the last search stopped: the cursor knows the place.
    pos i;
    if (m_order.empty() || last_time(m_order.size() - 1) < t)
        i = pos{m_order.size(), 0};
    else if (t == m_cursor_t)
        i = cursor();
    else
        i = after(t);
    // The point before i, if any.
    pos prev = i;
    bool has_prev = true;
    if (prev.k > 0)
        --prev.k;
    else if (prev.c > 0)
        prev = pos{prev.c - 1, ch(prev.c - 1).n - 1};
    else
        has_prev = false;
    if (has_prev && at(prev).first == t) {
        chunk& h = ch(prev.c);
        change_point& q = h.p[prev.k];
        q.second += d;
        q.ends += ends;
        h.sum += d;
        h.stale = true;
        if (q.second == 0) {
            // The next point takes the ends (see m_live).
            ch(i.c).p[i.k].ends += q.ends;
            erase_at(prev);
        }
    } else {
        insert_at(i, {t, d, ends});
    }
}

int capacity_timeline::count_at(std::uint64_t t, pos& after_t) const
{
    if (t < m_pruned)
        t = m_pruned;
    int c = m_cursor_c;
    pos i = cursor();
    if (t >= m_cursor_t) {
        while (!at_end(i) && at(i).first <= t) {
            if (i.k == 0 && m_last[i.c] <= t) { // the whole chunk
                c += ch(i.c).sum;
                ++i.c;
                continue;
            }
            c += at(i).second;
            next(i);
        }
    } else {
        // Walk back: undo the changes in (t, m_cursor_t].
        for (;;) {
            if (i.k == 0) {
                if (i.c == 0)
                    break;
                if (ch(i.c - 1).p[0].first > t) { // the whole chunk before
                    --i.c;
                    c -= ch(i.c).sum;
                    continue;
                }
                i = pos{i.c - 1, ch(i.c - 1).n};
            }
            if (ch(i.c).p[i.k - 1].first <= t)
                break;
            --i.k;
            c -= ch(i.c).p[i.k].second;
        }
        if (!at_end(i) && i.k == ch(i.c).n) // normalized: the start of the next chunk
            i = pos{i.c + 1, 0};
    }
    after_t = i;
    m_cursor_t = t;
    m_cursor_c = c;
    m_cursor_i = i;
    m_cursor_ok = true;
    return c;
}

unsigned capacity_timeline::in_use(std::uint64_t t) const
{
    pos after_t;
    const int c = count_at(t, after_t);
    return c > 0 ? static_cast<unsigned>(c) : 0;
}

std::uint64_t capacity_timeline::full_time(std::uint64_t s, std::uint64_t e) const
{
    const auto cap = static_cast<int>(m_capacity);
    pos i;
    int c = count_at(s, i);
    std::uint64_t full = 0, t = s;
    for (;;) {
        // A whole chunk before e during which the count stays below capacity: no full time.
        if (i.k == 0 && !at_end(i) && c < cap && last_time(i.c) < e && c + top_of(ch(i.c)) < cap) {
            t = last_time(i.c);
            c += ch(i.c).sum;
            ++i.c;
            continue;
        }
        const std::uint64_t nt = at_end(i) || at(i).first > e ? e : at(i).first;
        if (c >= cap)
            full += nt - t;
        if (nt == e)
            return full;
        t = nt;
        c += at(i).second;
        next(i);
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

capacity_timeline::pos capacity_timeline::first_full(pos i, int& c, std::uint64_t until) const
{
    const int cap = static_cast<int>(m_capacity);
    // The window check walks every change point of [t, t + length) while the count stays
    // below capacity (about a hundred at saturation). A chunk that lies before `until` whose
    // largest running change keeps the count below capacity is crossed in one step; else its
    // points are walked one by one.
    while (!at_end(i)) {
        const chunk& h = ch(i.c);
        if (i.k == 0 && h.p[h.n - 1].first < until && c + top_of(h) < cap) {
            c += h.sum;
            ++i.c;
            continue;
        }
        for (; i.k < h.n; ++i.k) {
            if (h.p[i.k].first >= until)
                return i;
            c += h.p[i.k].second;
            if (c >= cap)
                return i;
        }
        ++i.c;
        i.k = 0;
    }
    return i;
}

std::uint64_t capacity_timeline::search(std::uint64_t arrival, std::uint64_t length) const
{
    const auto cap = static_cast<int>(m_capacity);
    std::uint64_t t = arrival;
    pos i;
    int c = count_at(t, i); // the count on [t, time of change point i)
    for (;;) {
        // Full at t: move to the first change point after which the count is below capacity
        // (the last change point always drops to 0, since every booking ends).
        while (c >= cap) {
            if (at_end(i))
                return forever;
            t = at(i).first;
            c += at(i).second;
            next(i);
        }
        // Room at t: is there room up to t + length?
        const std::uint64_t until = plus(t, length);
        int cj = c;
        pos j = first_full(i, cj, until);
        if (at_end(j) || at(j).first >= until) {
            // The count at t is known: the next query (a booking at t, or the next search
            // from the stretch's end) starts here.
            if (t >= m_pruned) {
                m_cursor_t = t;
                m_cursor_c = c;
                m_cursor_i = i;
                m_cursor_ok = true;
            }
            return t;
        }
        t = at(j).first;
        c = cj;
        next(j);
        i = j;
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
