// Constrained-random stimulus for the OUTLis buffer bench: per run a configuration (policy,
// victim, priority order, active sources, group size), per phase a traffic pattern (fill,
// drain, balanced, bursts, trickle, idle) and a completion pattern on the write-out side (at
// issue, after a latency in any order, held), per cycle the core's calls. A function of the
// seed and of the reference's state only, so a run replays exactly. See
// models/shader_trace/rtl/README.md.
#pragma once

#include "models/shader_trace/core/slot_buffer.h"
#include "models/shader_trace/core/token.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace vgpu::shader_trace::rtl_test {

/// One run between two resets.
struct run_config {
    full_policy full = full_policy::stall;
    victim_policy victim = victim_policy::same_source;
    std::vector<unsigned> priority; ///< source ids, highest first
    std::vector<unsigned> active;   ///< the sources that store in this run
    std::vector<unsigned> weight;   ///< their relative store rates
    unsigned tokens = 8;            ///< G
    std::uint64_t length = 10000;   ///< cycles
    unsigned reset_cycles = 1;
};

/// One cycle's calls, on core source ids.
struct cycle_calls {
    bool take = false;
    bool done = false;
    unsigned done_slot = 0;
    bool store = false;
    unsigned store_src = 0;
    group g;
    bool lost = false;
    unsigned lost_src = 0;
};

class stimulus {
public:
    stimulus(std::uint32_t seed, unsigned slots, unsigned sources)
        : m_rng(seed), m_slots(slots), m_sources(sources)
    {
    }

    run_config next_run(bool replacements)
    {
        run_config c;
        c.full = replacements || chance(0.6) ? full_policy::replace : full_policy::stall;
        c.victim = replacements || chance(0.5) ? victim_policy::lowest_priority
                                               : victim_policy::same_source;
        c.priority.resize(m_sources);
        for (unsigned s = 0; s < m_sources; ++s)
            c.priority[s] = s;
        std::shuffle(c.priority.begin(), c.priority.end(), m_rng);
        static constexpr unsigned counts[] = {1, 2, 2, 3, 3, 4, 5, 8, 12, 0};
        unsigned n = counts[pick(std::size(counts))];
        n = n == 0 ? m_sources : std::min(n, m_sources);
        if (replacements)
            n = std::max(n, std::min(2u, m_sources));
        std::vector<unsigned> all(m_sources);
        for (unsigned s = 0; s < m_sources; ++s)
            all[s] = s;
        std::shuffle(all.begin(), all.end(), m_rng);
        c.active.assign(all.begin(), all.begin() + n);
        const bool skewed = chance(0.4);
        for (unsigned i = 0; i < n; ++i)
            c.weight.push_back(skewed && i == 0 ? 8 * n : 1 + pick(4));
        c.tokens = 1 + pick(8);
        c.length = 2000 + pick(30000);
        c.reset_cycles = 1 + pick(3);
        m_phase_left = 0;
        m_pending.clear();
        m_cfg = c;
        m_fill_bias = replacements;
        return c;
    }

    /// The calls of the next cycle; `core` and `in_flight` (per slot) are the reference's
    /// state before it.
    cycle_calls next(const slot_buffer& core, const std::vector<bool>& in_flight,
                     std::uint64_t cycle)
    {
        if (m_phase_left == 0)
            next_phase();
        --m_phase_left;
        cycle_calls c;
        c.take = m_burst ? (cycle / m_burst_len) % 2 == 0 && chance(m_p_take) : chance(m_p_take);
        const bool takes = c.take && core.head() != slot_buffer::none;
        // Completions: the slot taken in this cycle (a write freed at issue), or one whose
        // latency has passed, in any order; or a slot not in flight (ignored).
        if (takes && chance(m_p_at_issue)) {
            c.done = true;
            c.done_slot = core.head();
        } else if (takes) {
            m_pending.push_back({core.head(), cycle + 1 + pick(m_latency)});
        }
        if (!c.done && !m_held && !m_pending.empty()) {
            const std::size_t i = pick(m_pending.size());
            if (m_pending[i].due <= cycle) {
                c.done = true;
                c.done_slot = m_pending[i].slot;
                m_pending.erase(m_pending.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        if (!c.done && chance(0.02)) {
            const unsigned s = pick(m_slots);
            if (!in_flight[s] && !(takes && s == core.head())) {
                c.done = true;
                c.done_slot = s;
            }
        }
        if (chance(m_p_store)) {
            c.store = true;
            c.store_src = weighted_source();
            c.g = make_group(c.store_src);
        }
        if (chance(0.01)) {
            c.lost = true;
            c.lost_src = m_cfg.active[pick(m_cfg.active.size())];
        }
        return c;
    }

    /// Tokens drawn by kind since the start: pad, sync, event.
    std::uint64_t tokens_of(token_kind k) const { return m_tokens[static_cast<unsigned>(k)]; }
    std::uint64_t empty_groups() const { return m_empty_groups; }

private:
    struct pending {
        unsigned slot;
        std::uint64_t due;
    };

    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(m_rng) < p; }
    unsigned pick(std::size_t n) { return static_cast<unsigned>(m_rng() % n); }

    void next_phase()
    {
        m_phase_left = 10 + pick(490);
        m_burst = false;
        m_held = false;
        switch (m_fill_bias && chance(0.5) ? 0 : pick(6)) {
        case 0: // fill: the buffer runs full, stores stall or replace
            m_p_store = 0.7 + 0.3 * unit();
            m_p_take = 0.05 * unit();
            break;
        case 1: // drain: down to empty, takes find nothing
            m_p_store = 0.05 * unit();
            m_p_take = 0.5 + 0.5 * unit();
            break;
        case 2: // balanced
            m_p_store = unit();
            m_p_take = unit();
            break;
        case 3: // the write-out side in bursts
            m_p_store = 0.3 + 0.7 * unit();
            m_p_take = 0.5 + 0.5 * unit();
            m_burst = true;
            m_burst_len = 2 + pick(40);
            break;
        case 4: // trickle
            m_p_store = 0.2 + 0.6 * unit();
            m_p_take = 0.1 * unit();
            break;
        default: // nearly idle: the adapter skips the cycles without work
            m_p_store = 0.03 * unit();
            m_p_take = 0.03 * unit();
            break;
        }
        switch (pick(4)) {
        case 0: // freed at issue, as the unit does
            m_p_at_issue = 1;
            break;
        case 1: // completions after a latency, in any order
            m_p_at_issue = 0;
            m_latency = 1 + pick(60);
            break;
        case 2: // completions held: every slot can end in flight
            m_p_at_issue = 0;
            m_latency = 1 + pick(20);
            m_held = true;
            break;
        default:
            m_p_at_issue = 0.5;
            m_latency = 1 + pick(10);
            break;
        }
    }
    double unit() { return std::uniform_real_distribution<double>(0, 1)(m_rng); }

    unsigned weighted_source()
    {
        unsigned total = 0;
        for (unsigned w : m_cfg.weight)
            total += w;
        unsigned r = pick(total);
        for (std::size_t i = 0; i < m_cfg.weight.size(); ++i) {
            if (r < m_cfg.weight[i])
                return m_cfg.active[i];
            r -= m_cfg.weight[i];
        }
        return m_cfg.active.back();
    }

    /// A group of G tokens of every kind: SYNC and event tokens of the source, PAD tokens
    /// filling its end; now and then an empty group.
    group make_group(unsigned source)
    {
        group g;
        if (chance(0.01)) {
            ++m_empty_groups;
            return g;
        }
        bool padding = false;
        for (unsigned i = 0; i < m_cfg.tokens; ++i) {
            padding = padding || (i > 0 && chance(0.15));
            std::uint64_t t = 0;
            if (!padding && chance(0.2))
                t = make_sync(source, pick(1024), pick(256),
                              m_rng() | std::uint64_t{m_rng()} << 32);
            else if (!padding)
                t = make_event(source, static_cast<event>(pick(9)), pick(64), pick(512),
                               static_cast<std::uint32_t>(m_rng()));
            ++m_tokens[static_cast<unsigned>(kind_of(t))];
            g.push_back(t);
        }
        return g;
    }

    std::mt19937 m_rng;
    unsigned m_slots, m_sources;
    run_config m_cfg;
    std::uint64_t m_phase_left = 0;
    double m_p_store = 0, m_p_take = 0, m_p_at_issue = 1;
    unsigned m_latency = 1;
    bool m_burst = false, m_held = false, m_fill_bias = false;
    std::uint64_t m_burst_len = 1;
    std::vector<pending> m_pending;
    std::uint64_t m_tokens[4] = {};
    std::uint64_t m_empty_groups = 0;
};

} // namespace vgpu::shader_trace::rtl_test
