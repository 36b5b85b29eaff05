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

const access_plan& frfcfs_queue::plan_of(const channel_state& ch, const dram_request& r,
                                         std::uint64_t start) const
{
    bank_plan& b = m_last[r.bank];
    if (!b.valid || b.row != r.row || b.bytes != r.bytes) {
        b.plan = ch.plan(r.bank, r.row, r.bytes, start);
        b.valid = true;
        b.row = r.row;
        b.bytes = r.bytes;
    }
    return b.plan;
}

std::optional<std::size_t> frfcfs_queue::pick(const channel_state& ch, std::uint64_t edge,
                                              std::uint64_t cycle) const
{
    // One plan per request: what it finds (and whether it can start this cycle) is kept for
    // the second pass, which needs the banks with queued hits.
    m_hit_banks.assign(ch.banks(), 0);
    m_last.assign(ch.banks(), bank_plan{});
    m_scratch.resize(m_q.size());
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const dram_request& r = m_q[i];
        const access_plan& p = plan_of(ch, r, edge);
        const bool ready = p.first_ps < edge + cycle;
        if (p.outcome == row_outcome::hit) {
            if (ready)
                return i; // the oldest ready row hit
            m_hit_banks[r.bank] = 1;
        }
        m_scratch[i] = {p.outcome, ready, p.first_ps};
    }
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const planned& p = m_scratch[i];
        if (!p.ready || p.outcome == row_outcome::hit)
            continue;
        if (p.outcome == row_outcome::conflict && m_hit_banks[m_q[i].bank])
            continue; // the bank's open row still has hits queued
        return i;
    }
    return std::nullopt;
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
    // The plan's first command does not move while nothing is committed: a request becomes
    // ready at the edge of the cycle that contains it. A conflict held back by hits to its
    // bank waits for them (one of them names the edge).
    const std::uint64_t from = edge + cycle;
    m_hit_banks.assign(ch.banks(), 0);
    m_last.assign(ch.banks(), bank_plan{});
    m_scratch.resize(m_q.size());
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const dram_request& r = m_q[i];
        const access_plan& p = plan_of(ch, r, from);
        if (p.outcome == row_outcome::hit)
            m_hit_banks[r.bank] = 1;
        m_scratch[i] = {p.outcome, false, p.first_ps};
    }
    std::optional<std::uint64_t> next;
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const planned& p = m_scratch[i];
        if (p.outcome == row_outcome::conflict && m_hit_banks[m_q[i].bank])
            continue;
        const std::uint64_t at = std::max(from, p.first_ps / cycle * cycle);
        next = next ? std::min(*next, at) : at;
    }
    return next;
}

} // namespace vgpu::dram
