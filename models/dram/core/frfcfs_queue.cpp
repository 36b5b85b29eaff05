// FR-FCFS request queue of a DRAM channel. See models/dram/README.md ("Scheduling").
#include "models/dram/core/frfcfs_queue.h"

#include <algorithm>
#include <stdexcept>

namespace vgpu::dram {

frfcfs_queue::frfcfs_queue(unsigned capacity) : m_capacity(capacity)
{
    if (capacity == 0)
        throw std::invalid_argument("dram queue: needs at least one entry");
    m_q.reserve(capacity);
}

void frfcfs_queue::push(const dram_request& r)
{
    if (full())
        throw std::logic_error("dram queue: push into a full queue");
    m_q.push_back(r);
}

std::optional<std::size_t> frfcfs_queue::pick(const channel_state& ch, std::uint64_t edge,
                                              std::uint64_t cycle) const
{
    std::optional<std::size_t> oldest;
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const dram_request& r = m_q[i];
        const access_plan p = ch.plan(r.bank, r.row, r.bytes, edge);
        if (p.first_ps >= edge + cycle)
            continue; // not ready this cycle
        if (p.outcome == row_outcome::hit)
            return i; // the oldest ready row hit
        if (!oldest)
            oldest = i;
    }
    return oldest;
}

dram_request frfcfs_queue::take(std::size_t i)
{
    dram_request r = m_q.at(i);
    m_q.erase(m_q.begin() + static_cast<std::ptrdiff_t>(i));
    return r;
}

std::optional<std::uint64_t> frfcfs_queue::next_edge(const channel_state& ch, std::uint64_t edge,
                                                     std::uint64_t cycle) const
{
    std::optional<std::uint64_t> next;
    for (const dram_request& r : m_q) {
        // The plan's first command does not move while nothing is committed: the request
        // becomes ready at the edge of the cycle that contains it.
        const std::uint64_t first = ch.plan(r.bank, r.row, r.bytes, edge + cycle).first_ps;
        const std::uint64_t at = std::max(edge + cycle, first / cycle * cycle);
        next = next ? std::min(*next, at) : at;
    }
    return next;
}

} // namespace vgpu::dram
