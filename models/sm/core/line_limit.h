// The SM's limit on line requests in flight (config sm.max_line_requests): a request due while
// the limit is in flight waits in the LSU until one completes. Pure C++; see
// models/sm/README.md ("Line requests in flight").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <vector>

namespace vgpu::sm {

/// `limit` places, each free from a cycle on, or held by a request whose completion is not yet
/// known. Requests take places in request order, each at or after the one before; a request
/// takes the place that frees first. Both timing modes use it alike: a place is released when
/// its request is answered, free from the request's completion cycle on.
class line_limit {
public:
    /// limit: requests in flight at once (0: no limit).
    explicit line_limit(unsigned limit) : m_limit(limit) {}

    unsigned limit() const { return m_limit; }

    /// A place for a request due at cycle `due`: the cycle it may go (`due`, or when the place
    /// that frees first is free), the place then held until release(); nothing when every
    /// place is held (the request waits for the next release).
    std::optional<std::uint64_t> take(std::uint64_t due)
    {
        if (m_limit == 0)
            return due;
        // Places free by `due` are as good as unused ones: forget their cycles, so the heap
        // holds only the completions still ahead (a few while the limit is not reached).
        while (!m_free.empty() && m_free.top() <= due)
            m_free.pop();
        if (m_held + m_free.size() < m_limit) { // a place free at `due`
            ++m_held;
            return due;
        }
        if (m_free.empty())
            return std::nullopt;
        const std::uint64_t at = m_free.top(); // later than due
        m_free.pop();
        ++m_held;
        return at;
    }

    /// A held place is free from cycle `end` on (its request completes then).
    void release(std::uint64_t end)
    {
        if (m_limit == 0)
            return;
        --m_held;
        m_free.push(end);
    }

    unsigned held() const { return m_held; } ///< places held by requests not yet released

private:
    unsigned m_limit;
    unsigned m_held = 0;
    /// Cycles from which released places are free, those still ahead of the last take (at most
    /// limit - held of them); the other places are free.
    std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> m_free;
};

} // namespace vgpu::sm
