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
    const std::uint64_t seq = m_arrivals++;
    m_q.push_back(r);
    m_seq.push_back(seq);
    if (r.bank >= m_groups.size()) {
        m_groups.resize(r.bank + 1);
        m_summary.resize(r.bank + 1);
    }
    m_summary[r.bank].valid = false;
    for (group& g : m_groups[r.bank])
        if (g.row == r.row && g.bytes == r.bytes) {
            ++g.count;
            return;
        }
    m_groups[r.bank].push_back({r.row, r.bytes, seq, 1});
}

void frfcfs_queue::clear_plans(unsigned banks) const
{
    m_plans.clear();
    m_first_plan.assign(banks, none);
    m_state_at.assign(banks, nullptr);
}

std::size_t frfcfs_queue::plan_index(const channel_state& ch, unsigned bank, std::uint64_t row,
                                     std::uint64_t bytes, std::uint64_t start) const
{
    // A bank with nothing booked after `start` gives every row with the same outcome the same
    // plan (channel_state::booked_after): then its conflicts (and its hits) are planned once.
    const bank_state*& state = m_state_at[bank];
    if (!state)
        state = ch.booked_after(bank, start) ? &m_booked_after : &ch.state_at(bank, start);
    std::optional<row_outcome> outcome;
    if (state != &m_booked_after)
        outcome = state->outcome(row);
    for (std::size_t k = m_first_plan[bank]; k != none; k = m_plans[k].next) {
        const bank_plan& b = m_plans[k];
        if (b.bytes == bytes && (outcome ? b.plan.outcome == *outcome : b.row == row))
            return k;
    }
    m_plans.push_back({row, bytes, ch.plan(bank, row, bytes, start), m_first_plan[bank]});
    m_first_plan[bank] = m_plans.size() - 1;
    return m_plans.size() - 1;
}

const access_plan& frfcfs_queue::plan_of(const channel_state& ch, unsigned bank, const group& g,
                                         std::uint64_t start) const
{
    if (g.plan_state == &ch && g.plan_start <= start && start <= g.plan.first_ps &&
        ch.forgotten_until() <= start &&
        ch.plan_holds(bank, g.plan_commits, g.plan.data_ps, g.plan.end_ps)) {
        g.plan_commits = ch.commits(); // it holds after them all
        return g.plan;
    }
    g.plan = m_plans[plan_index(ch, bank, g.row, g.bytes, start)].plan;
    g.plan_start = start;
    g.plan_commits = ch.commits();
    g.plan_state = &ch;
    return g.plan;
}

const frfcfs_queue::bank_summary* frfcfs_queue::summary_at(const channel_state& ch, unsigned bank,
                                                           std::uint64_t start) const
{
    bank_summary& m = m_summary[bank];
    if (!m.valid || m.state != &ch || start < m.start || m.min_first < start ||
        ch.forgotten_until() > start || !ch.plan_holds(bank, m.commits, m.data_lo, m.data_hi))
        return nullptr;
    m.commits = ch.commits(); // it holds after them all
    return &m;
}

void frfcfs_queue::summarise(const channel_state& ch, unsigned bank, std::uint64_t start,
                             const summary_builder& s) const
{
    bank_summary& m = m_summary[bank];
    m.valid = true;
    m.state = &ch;
    m.commits = ch.commits();
    m.start = start;
    m.min_first = s.min_first;
    // With a hit queued, the bank's conflicts are held back: the other groups name its edge.
    m.min_open = s.hits ? s.min_not_conflict : s.min_first;
    m.data_lo = s.data_lo;
    m.data_hi = s.data_hi;
}

std::size_t frfcfs_queue::index_of(std::uint64_t seq) const
{
    return static_cast<std::size_t>(std::lower_bound(m_seq.begin(), m_seq.end(), seq) -
                                    m_seq.begin());
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
    // Per group (its members find the same plan), per bank: the oldest ready hit wins; else
    // the oldest ready miss, or ready conflict to a bank without queued hits (even hits not
    // ready this cycle). A bank that cannot take a command within this cycle has no ready
    // request: it is not planned (its queued hits hold back only its own conflicts, which are
    // not ready either).
    constexpr std::uint64_t nobody = ~std::uint64_t{0};
    clear_plans(ch.banks());
    m_may_start.assign(ch.banks(), 0);
    std::uint64_t hit = nobody, other = nobody;
    // The groups' plans (plan_of()), which stay in place during the call.
    const access_plan *hit_plan = nullptr, *other_plan = nullptr;
    for (unsigned b = 0; b < m_groups.size(); ++b) {
        if (m_groups[b].empty())
            continue;
        // None of its plans is ready this cycle (the cheap test first: the summary need only
        // be checked when it would skip the bank).
        if (m_summary[b].valid && m_summary[b].min_first >= edge + cycle && summary_at(ch, b, edge))
            continue;
        if (!may_start(ch, b, edge, edge + cycle))
            continue;
        bool hits = false;
        std::uint64_t conflict = nobody;
        const access_plan* conflict_plan = nullptr;
        summary_builder sb;
        for (const group& g : m_groups[b]) {
            const access_plan& p = plan_of(ch, b, g, edge);
            sb.add(p);
            const bool ready = p.first_ps < edge + cycle;
            if (p.outcome == row_outcome::hit) {
                hits = true;
                if (ready && g.oldest < hit) {
                    hit = g.oldest;
                    hit_plan = &p;
                }
            } else if (ready && p.outcome == row_outcome::miss) {
                if (g.oldest < other) {
                    other = g.oldest;
                    other_plan = &p;
                }
            } else if (ready && g.oldest < conflict) {
                conflict = g.oldest;
                conflict_plan = &p;
            }
        }
        if (!hits && conflict < other) { // else the bank's open row still has hits queued
            other = conflict;
            other_plan = conflict_plan;
        }
        summarise(ch, b, edge, sb); // every group of the bank was planned at the edge
    }
    if (hit != nobody) {
        m_picked = *hit_plan;
        return index_of(hit);
    }
    if (other != nobody) {
        m_picked = *other_plan;
        return index_of(other);
    }
    return std::nullopt;
}

dram_request frfcfs_queue::take(std::size_t i)
{
    const dram_request r = m_q.at(i);
    const std::uint64_t seq = m_seq[i];
    m_q.erase(m_q.begin() + static_cast<std::ptrdiff_t>(i));
    m_seq.erase(m_seq.begin() + static_cast<std::ptrdiff_t>(i));
    m_summary[r.bank].valid = false;
    std::vector<group>& groups = m_groups[r.bank];
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const group& x) { return x.row == r.row && x.bytes == r.bytes; });
    if (--g->count == 0) {
        *g = groups.back();
        groups.pop_back();
    } else if (g->oldest == seq) {
        // Its next member is the oldest now: the first one after it in arrival order.
        for (std::size_t k = i;; ++k)
            if (m_q[k].bank == r.bank && m_q[k].row == r.row && m_q[k].bytes == r.bytes) {
                g->oldest = m_seq[k];
                break;
            }
    }
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
    // No request of a bank starts before the bank's earliest_first(): the banks are visited by
    // that bound, and once it is no earlier than the best edge found, the rest cannot win
    // (the minimum is the same as over every request).
    // A bank whose summary holds names its edge at once.
    std::optional<std::uint64_t> next;
    m_bounds.clear();
    for (unsigned b = 0; b < m_groups.size(); ++b) {
        if (m_groups[b].empty())
            continue;
        if (const bank_summary* m = summary_at(ch, b, from)) {
            const std::uint64_t at = std::max(from, m->min_open / cycle * cycle);
            next = next ? std::min(*next, at) : at;
        } else {
            m_bounds.push_back({std::max(from, ch.earliest_first(b, from) / cycle * cycle), b});
        }
    }
    std::sort(m_bounds.begin(), m_bounds.end());
    clear_plans(banks);
    for (const auto& [bound, b] : m_bounds) {
        if (next && *next <= bound)
            break;
        bool hits = false;
        const std::vector<group>& groups = m_groups[b];
        m_scratch.resize(groups.size());
        summary_builder sb;
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const access_plan& p = plan_of(ch, b, groups[k], from);
            sb.add(p);
            hits = hits || p.outcome == row_outcome::hit;
            m_scratch[k] = {p.outcome, p.first_ps};
        }
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const planned& p = m_scratch[k];
            if (p.outcome == row_outcome::conflict && hits)
                continue;
            const std::uint64_t at = std::max(from, p.first_ps / cycle * cycle);
            next = next ? std::min(*next, at) : at;
        }
        summarise(ch, b, from, sb); // every group of the bank was planned from `from`
    }
    return next;
}

} // namespace vgpu::dram
