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

void frfcfs_queue::clear_plans(unsigned banks) const
{
    m_plans.clear();
    m_first_plan.assign(banks, none);
    m_state_at.assign(banks, nullptr);
}

const access_plan& frfcfs_queue::plan_of(const channel_state& ch, const dram_request& r,
                                         std::uint64_t start) const
{
    // A bank with nothing booked after `start` gives every row with the same outcome the same
    // plan (channel_state::booked_after): then its conflicts (and its hits) are planned once.
    const bank_state*& state = m_state_at[r.bank];
    if (!state)
        state = ch.booked_after(r.bank, start) ? &m_booked_after : &ch.state_at(r.bank, start);
    std::optional<row_outcome> outcome;
    if (state != &m_booked_after)
        outcome = state->outcome(r.row);
    for (std::size_t k = m_first_plan[r.bank]; k != none; k = m_plans[k].next) {
        const bank_plan& b = m_plans[k];
        if (b.bytes == r.bytes && (outcome ? b.plan.outcome == *outcome : b.row == r.row))
            return b.plan;
    }
    m_plans.push_back(
        {r.row, r.bytes, ch.plan(r.bank, r.row, r.bytes, start), m_first_plan[r.bank]});
    m_first_plan[r.bank] = m_plans.size() - 1;
    return m_plans.back().plan;
}

bool frfcfs_queue::may_start(const channel_state& ch, unsigned bank, std::uint64_t start,
                             std::uint64_t before) const
{
    std::uint8_t& known = m_may_start[bank];
    if (known == 0)
        known = ch.earliest_first(bank, start) < before ? 1 : 2;
    return known == 1;
}

std::optional<std::size_t> frfcfs_queue::pick(const channel_state& ch, std::uint64_t edge,
                                              std::uint64_t cycle) const
{
    // One plan per request: what it finds (and whether it can start this cycle) is kept for
    // the second pass, which needs the banks with queued hits. A bank that cannot take a
    // command within this cycle has no ready request: its requests are not planned (its
    // queued hits hold back only its own conflicts, which are not ready either).
    m_hit_banks.assign(ch.banks(), 0);
    clear_plans(ch.banks());
    m_may_start.assign(ch.banks(), 0);
    m_scratch.resize(m_q.size());
    for (std::size_t i = 0; i < m_q.size(); ++i) {
        const dram_request& r = m_q[i];
        if (!may_start(ch, r.bank, edge, edge + cycle)) {
            m_scratch[i] = {row_outcome::miss, false, 0};
            continue;
        }
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
    if (m_q.empty())
        return std::nullopt;
    const unsigned banks = ch.banks();
    // The queue's indices grouped by bank, oldest first within a bank.
    m_bank_begin.assign(banks + 1, 0);
    for (const dram_request& r : m_q)
        ++m_bank_begin[r.bank + 1];
    for (unsigned b = 0; b < banks; ++b)
        m_bank_begin[b + 1] += m_bank_begin[b];
    m_order.resize(m_q.size());
    m_scratch.resize(m_q.size());
    m_fill.assign(m_bank_begin.begin(), m_bank_begin.end() - 1);
    for (std::size_t i = 0; i < m_q.size(); ++i)
        m_order[m_fill[m_q[i].bank]++] = i;
    // No request of a bank starts before the bank's earliest_first(): the banks are visited by
    // that bound, and once it is no earlier than the best edge found, the rest cannot win
    // (the minimum is the same as over every request).
    m_bounds.clear();
    for (unsigned b = 0; b < banks; ++b)
        if (m_bank_begin[b + 1] > m_bank_begin[b])
            m_bounds.push_back({std::max(from, ch.earliest_first(b, from) / cycle * cycle), b});
    std::sort(m_bounds.begin(), m_bounds.end());
    clear_plans(banks);
    std::optional<std::uint64_t> next;
    for (const auto& [bound, b] : m_bounds) {
        if (next && *next <= bound)
            break;
        bool hits = false;
        for (std::size_t k = m_bank_begin[b]; k < m_bank_begin[b + 1]; ++k) {
            const access_plan& p = plan_of(ch, m_q[m_order[k]], from);
            hits = hits || p.outcome == row_outcome::hit;
            m_scratch[k] = {p.outcome, false, p.first_ps};
        }
        for (std::size_t k = m_bank_begin[b]; k < m_bank_begin[b + 1]; ++k) {
            const planned& p = m_scratch[k];
            if (p.outcome == row_outcome::conflict && hits)
                continue;
            const std::uint64_t at = std::max(from, p.first_ps / cycle * cycle);
            next = next ? std::min(*next, at) : at;
        }
    }
    return next;
}

} // namespace vgpu::dram
