// The equivalence testbench of the NoC arbiter: one output port whose requests come from a
// seeded constrained-random stimulus, arbitrated every cycle by the C++ core and by the
// verilated RTL (through its adapter), compared cycle by cycle. See models/noc/rtl/README.md.
#pragma once

#include "models/noc/core/arbiter.h"
#include "models/noc/rtl/rtl_arbiter.h"
#include "test/support/coverage.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace vgpu::noc::rtl_test {

/// One run: its shape comes from the seed unless fixed here.
struct run_config {
    std::uint64_t seed = 1;
    std::uint64_t cycles = 100000;
    int inputs = -1;                        ///< -1: drawn from the seed
    int kind = -1;                          ///< -1: drawn; else an arbiter_kind
    std::int64_t max_wait = -1;             ///< -1: drawn
    unsigned vcd_last = 32;                 ///< cycles at the end (or before a mismatch) in the VCD
    std::string vcd_prefix = "noc_arbiter"; ///< VCD file: <prefix>_seed<seed>.vcd
    /// Host-speed runs: arbitrate with one side only (the other side's grants are taken as
    /// equal; nothing is compared).
    enum side_kind { both, core_only, rtl_only } side = both;
    bool cover = false; ///< write the functional coverage of the run (declare_coverage)
};

/// The arbiter's coverage plan (docs/coverage.md), counted at every grant of a compared run:
/// the reason, the granted head's barrier count and age, the number of contenders, ties among
/// the highest counts, the round-robin search (the first grant, a grant after the last one, a
/// wrap to a lower index), the policy, and reason x count and reason x contenders.
inline void declare_coverage(vgpu::test::coverage& cov)
{
    cov.point("policy", {"round_robin", "barrier_aware", "barrier_aware_ageing"});
    cov.point("reason", {"rotation", "priority", "age"});
    cov.point("count", {"0", "1-3", "4-31", "32-254", "255"});
    cov.point("age", {"0", "1-15", "16-255", "256-65534", "saturated"});
    cov.point("contenders", {"1", "2-3", "4-15", "16-63", "64"});
    cov.point("tie", {"single", "tie"});
    cov.point("search", {"first", "after_last", "wrapped"});
    // The crosses without their impossible pairs: a priority grant beats a lower count, so it
    // has at least two contenders and a count of at least 1.
    cov.point("reason x count",
              {"rotation x 0", "rotation x 1-3", "rotation x 4-31", "rotation x 32-254",
               "rotation x 255", "priority x 1-3", "priority x 4-31", "priority x 32-254",
               "priority x 255", "age x 0", "age x 1-3", "age x 4-31", "age x 32-254",
               "age x 255"});
    cov.point("reason x contenders",
              {"rotation x 1", "rotation x 2-3", "rotation x 4-15", "rotation x 16-63",
               "rotation x 64", "priority x 2-3", "priority x 4-15", "priority x 16-63",
               "priority x 64", "age x 1", "age x 2-3", "age x 4-15", "age x 16-63", "age x 64"});
}

inline const char* count_bin(unsigned c)
{
    return c == 0 ? "0" : c <= 3 ? "1-3" : c <= 31 ? "4-31" : c <= 254 ? "32-254" : "255";
}
inline const char* age_bin(std::uint64_t a)
{
    return a == 0       ? "0"
           : a <= 15    ? "1-15"
           : a <= 255   ? "16-255"
           : a <= 65534 ? "256-65534"
                        : "saturated";
}
inline const char* contenders_bin(unsigned n)
{
    return n == 1 ? "1" : n <= 3 ? "2-3" : n <= 15 ? "4-15" : n <= 63 ? "16-63" : "64";
}

/// What a run compared and found.
struct run_result {
    bool match = true;
    std::uint64_t mismatch_cycle = 0;
    std::string report;         ///< the first mismatch: cycle, seed, both states, candidates
    std::string shape;          ///< inputs, policy, max_wait
    std::uint64_t compared = 0; ///< cycles at which both arbitrated (the port was free)
    std::uint64_t idle = 0;     ///< of those, cycles without a request (RTL not clocked)
    std::array<std::uint64_t, 4> by_reason{}; ///< grants by grant_reason
    std::uint64_t ties = 0;      ///< barrier_aware grants among several equal highest counts
    std::uint64_t saturated = 0; ///< candidates whose age exceeded the RTL's age field
    std::string vcd;             ///< the VCD written
};

/// The stimulus: per-input queues of head requests, filled in phases (idle, light, heavy,
/// bursts, an adversarial stream of high counts against one count-0 input), barrier counts
/// drawn from bins (0, 1-3, 4-31, 32-254, 255: ties are frequent), a port held 1-4 cycles per
/// grant, and now and then a head that has waited longer than the RTL's age field holds.
class stimulus {
public:
    struct request {
        unsigned count;
        std::uint64_t arrival; // may lie before cycle 0: a head that waited long
        std::uint64_t order;
    };

    stimulus(std::uint64_t seed, unsigned inputs) : m_rng(seed), m_q(inputs) {}

    /// Arrivals of cycle now.
    void arrive(std::uint64_t now)
    {
        if (now >= m_phase_end)
            new_phase(now);
        const unsigned n = static_cast<unsigned>(m_q.size());
        for (unsigned i = 0; i < n; ++i) {
            double rate = m_rate;
            unsigned count = 0;
            if (m_phase == adversarial)
                rate = i == m_victim ? (m_q[i].empty() ? 1.0 : 0.0) : 1.0;
            if (m_q[i].size() >= 16 || !chance(rate))
                continue;
            count = m_phase == adversarial ? (i == m_victim ? 0 : 200 + pick(0, 55)) : draw_count();
            std::uint64_t arrival = now + 1000000; // offset: arrivals may lie "before" 0
            if (chance(0.0002))
                arrival -= pick(65536, 1u << 20);
            m_q[i].push_back({count, arrival, m_order++});
        }
        if (m_phase == burst && chance(0.02)) {
            const unsigned first = pick(0, n - 1), len = pick(1, n);
            for (unsigned k = 0; k < len; ++k) {
                auto& q = m_q[(first + k) % n];
                const unsigned c = draw_count();
                for (unsigned r = pick(1, 4); r > 0 && q.size() < 16; --r)
                    q.push_back({c, now + 1000000, m_order++});
            }
        }
    }
    /// The candidates the port sees at cycle now.
    void candidates(std::uint64_t now, std::vector<candidate>& c) const
    {
        for (std::size_t i = 0; i < m_q.size(); ++i) {
            c[i] = {};
            if (!m_q[i].empty()) {
                const request& h = m_q[i].front();
                c[i] = {true, h.count, now + 1000000 - h.arrival, h.order};
            }
        }
    }
    void pop(unsigned input) { m_q[input].pop_front(); }
    unsigned hold() { return chance(0.8) ? 1 : pick(2, 4); } ///< cycles the grant holds the port

private:
    enum phase_kind { idle, light, heavy, burst, adversarial };
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(m_rng) < p; }
    unsigned pick(unsigned lo, unsigned hi)
    {
        return std::uniform_int_distribution<unsigned>(lo, hi)(m_rng);
    }
    unsigned draw_count()
    {
        switch (pick(0, 19)) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
        case 5:
            return 0;
        case 6:
        case 7:
        case 8:
        case 9:
        case 10:
        case 11:
            return pick(1, 3);
        case 12:
        case 13:
        case 14:
        case 15:
            return pick(4, 31);
        case 16:
        case 17:
        case 18:
            return pick(32, 254);
        default:
            return 255;
        }
    }
    void new_phase(std::uint64_t now)
    {
        // The run starts loaded, so that every seed meets contention early.
        m_phase = now == 0 ? heavy : static_cast<phase_kind>(pick(0, 4));
        m_phase_end = now + pick(50, 500);
        m_victim = pick(0, static_cast<unsigned>(m_q.size()) - 1);
        m_rate = m_phase == idle ? 0.0 : m_phase == light ? 0.03 : m_phase == heavy ? 0.6 : 0.01;
    }

    std::mt19937_64 m_rng;
    std::vector<std::deque<request>> m_q;
    phase_kind m_phase = idle;
    std::uint64_t m_phase_end = 0;
    std::uint64_t m_order = 0;
    unsigned m_victim = 0;
    double m_rate = 0;
};

inline const char* reason_name(grant_reason r)
{
    static const char* const names[] = {"none", "rotation", "priority", "age"};
    return names[static_cast<unsigned>(r) & 3];
}

/// Runs the core and the verilated Model side by side; stops at the first mismatch and runs
/// the seed again to leave a VCD of the cycles before it (replay_to: that run, up to the
/// cycle of the mismatch).
template <class Model>
run_result compare(run_config cfg, std::optional<std::uint64_t> replay_to = std::nullopt)
{
    std::mt19937_64 shape(cfg.seed ^ 0x9e3779b97f4a7c15ull);
    static const unsigned sizes[] = {1, 2, 3, 4, 5, 7, 8, 10, 16, 41, 64, 64};
    const unsigned n = cfg.inputs > 0 ? static_cast<unsigned>(cfg.inputs) : sizes[shape() % 12];
    const auto kind = cfg.kind >= 0      ? static_cast<arbiter_kind>(cfg.kind)
                      : shape() % 4 == 0 ? arbiter_kind::round_robin
                                         : arbiter_kind::barrier_aware;
    static const std::uint64_t waits[] = {0, 0, 0, 1, 2, 5, 16, 64, 300, 65535};
    const std::uint64_t max_wait =
        cfg.max_wait >= 0 ? static_cast<std::uint64_t>(cfg.max_wait) : waits[shape() % 10];
    const std::uint64_t cycles = replay_to ? *replay_to + 1 : cfg.cycles;

    run_result res;
    std::ostringstream sh;
    sh << "seed " << cfg.seed << ", " << n << " inputs, " << to_string(kind) << ", max_wait "
       << max_wait;
    res.shape = sh.str();
    const auto core = make_arbiter(kind, n, max_wait);
    verilated_arbiter<Model> rtl(n, kind, max_wait, static_cast<int>(cfg.seed % 1000000 + 1));
    stimulus stim(cfg.seed, n);
    std::vector<candidate> cands(n);
    const std::uint64_t trace_from = cycles > cfg.vcd_last ? cycles - cfg.vcd_last : 0;
    res.vcd = cfg.vcd_prefix + "_seed" + std::to_string(cfg.seed) + ".vcd";
    std::uint64_t busy_until = 0;
    vgpu::test::coverage cov("noc_arbiter", cfg.seed);
    declare_coverage(cov);
    const bool cover = cfg.cover && !replay_to;
    if (cover)
        cov.hit("policy", kind == arbiter_kind::round_robin ? "round_robin"
                          : max_wait > 0                    ? "barrier_aware_ageing"
                                                            : "barrier_aware");
    for (std::uint64_t now = 0; now < cycles; ++now) {
        if (cfg.vcd_last > 0 && now == trace_from)
            rtl.start_trace(res.vcd);
        stim.arrive(now);
        if (now < busy_until)
            continue; // the port is held by the last grant: no arbitration
        stim.candidates(now, cands);
        const int core_before = core->last_grant();
        const rtl_arbiter_state rtl_before = rtl.state();
        const int g = cfg.side == run_config::rtl_only ? -2 : core->grant(cands);
        const int r = cfg.side == run_config::core_only ? g : rtl.grant(cands);
        if (cfg.side != run_config::both) {
            const int granted = cfg.side == run_config::core_only ? g : r;
            ++res.compared;
            if (granted < 0) {
                ++res.idle;
                continue;
            }
            stim.pop(static_cast<unsigned>(granted));
            busy_until = now + stim.hold();
            continue;
        }
        ++res.compared;
        if (g < 0)
            ++res.idle;
        if (g != r || core->last_reason() != rtl.last_reason() || rtl.assertion_failed()) {
            res.match = false;
            res.mismatch_cycle = now;
            std::ostringstream o;
            o << "cycle " << now << " (" << res.shape << "): core grants " << g << " ("
              << reason_name(core->last_reason()) << ", last grant before " << core_before
              << "), RTL grants " << r << " (" << reason_name(rtl.last_reason())
              << ", state before: last_valid " << rtl_before.last_valid << " last_idx "
              << rtl_before.last_idx << ")"
              << (rtl.assertion_failed() ? ", an RTL assertion failed" : "")
              << "\n  candidates (input: count, age):";
            for (unsigned i = 0; i < n; ++i)
                if (cands[i].valid)
                    o << " " << i << ": " << cands[i].barrier_count << ", " << cands[i].age_cycles
                      << ";";
            res.report = o.str();
            break;
        }
        if (g < 0)
            continue;
        ++res.by_reason[static_cast<unsigned>(core->last_reason())];
        for (unsigned i = 0; i < n; ++i)
            if (cands[i].valid && cands[i].age_cycles > verilated_arbiter<Model>::max_age)
                ++res.saturated;
        const candidate& won = cands[static_cast<unsigned>(g)];
        unsigned equal = 0, contenders = 0;
        for (unsigned i = 0; i < n; ++i) {
            contenders += cands[i].valid;
            equal += cands[i].valid && cands[i].barrier_count == won.barrier_count;
        }
        const bool tie_break =
            kind == arbiter_kind::barrier_aware && core->last_reason() != grant_reason::age;
        if (tie_break)
            res.ties += equal > 1;
        if (cover) {
            const char* reason = reason_name(core->last_reason());
            cov.hit("reason", reason);
            cov.hit("count", count_bin(won.barrier_count));
            cov.hit("age", age_bin(won.age_cycles));
            cov.hit("contenders", contenders_bin(contenders));
            if (tie_break)
                cov.hit("tie", equal > 1 ? "tie" : "single");
            cov.hit("search", core_before < 0   ? "first"
                              : g > core_before ? "after_last"
                                                : "wrapped");
            cov.hit_cross("reason", reason, "count", count_bin(won.barrier_count));
            cov.hit_cross("reason", reason, "contenders", contenders_bin(contenders));
        }
        stim.pop(static_cast<unsigned>(g));
        busy_until = now + stim.hold();
    }
    rtl.stop_trace();
    if (cover) {
        cov.write(); // $VGPU_COVERAGE_DIR/noc_arbiter.<seed>.json
        // Code coverage (verilated with VGPU_RTL_COVERAGE), beside it for scripts/coverage.
        const char* dir = std::getenv("VGPU_COVERAGE_DIR");
        rtl.write_coverage((dir && *dir ? std::string(dir) : std::string(".")) + "/noc_arbiter." +
                           std::to_string(cfg.seed) + ".dat");
    }
    if (!res.match && !replay_to && cfg.vcd_last > 0) {
        // The same seed again, to leave the VCD of the cycles up to the mismatch.
        run_config again = cfg;
        again.max_wait = static_cast<std::int64_t>(max_wait);
        again.inputs = static_cast<int>(n);
        again.kind = static_cast<int>(kind);
        compare<Model>(again, res.mismatch_cycle);
        res.report += "\n  VCD of the last " + std::to_string(cfg.vcd_last) + " cycles: " + res.vcd;
    }
    return res;
}

} // namespace vgpu::noc::rtl_test
