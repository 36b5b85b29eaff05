// Unit tests of the LLC switcher's algorithm: the flag registers' transitions and the
// shadow-tag estimator (against a brute-force model, on the two workload shapes, and
// sampled against unsampled), and random epochs of adaptive decisions and flag transitions
// against a reference, with the switcher's coverage plan (docs/coverage.md). See
// models/llc/README.md ("LLC switcher").
#include "models/llc/core/llc_org.h"
#include "test/seed.h"
#include "test/support/coverage.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <list>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

using namespace vgpu::llc;

namespace {
/// Home module of a line under round-robin page placement (4 KiB pages of 32 lines).
unsigned home_of(std::uint64_t line, unsigned modules)
{
    return static_cast<unsigned>(line / 32 % modules);
}

/// The references' shadow LLCs: per (organisation, module, set) an LRU list of lines.
struct lru_sets {
    unsigned sets, ways;
    std::map<std::tuple<int, unsigned, unsigned>, std::list<std::uint64_t>> lists;
    /// True on a hit of `line` (made most recent); a miss allocates it, evicting the LRU line.
    bool touch(int org, unsigned module, std::uint64_t line)
    {
        auto& l = lists[{org, module, static_cast<unsigned>(line % sets)}];
        for (auto it = l.begin(); it != l.end(); ++it)
            if (*it == line) {
                l.erase(it);
                l.push_front(line);
                return true;
            }
        l.push_front(line);
        if (l.size() > ways)
            l.pop_back();
        return false;
    }
};

estimator_params small(unsigned sample_every)
{
    estimator_params p;
    p.modules = 4;
    p.sets = 64;
    p.ways = 4;
    p.sample_every = sample_every;
    p.min_samples = 16;
    return p;
}
} // namespace

TEST_CASE("switch flags: ARCH is the target, CHANGE a pending switch, CUR the one in effect")
{
    switch_flags f(llc_org::shared);
    CHECK_FALSE(f.request(llc_org::shared)); // already in effect
    CHECK_FALSE(f.change());
    CHECK(f.request(llc_org::private_org));
    CHECK(f.arch() == llc_org::private_org);
    CHECK(f.cur() == llc_org::shared); // not until the engine completes
    CHECK(f.change());
    CHECK(f.complete());
    CHECK(f.cur() == llc_org::private_org);
    CHECK_FALSE(f.change());
    CHECK(f.request(llc_org::shared));
    CHECK_FALSE(f.request(llc_org::private_org)); // retargeted to CUR: cancelled
    CHECK_FALSE(f.change());
    CHECK_FALSE(f.complete()); // nothing changes
    CHECK(other(llc_org::shared) == llc_org::private_org);
}

TEST_CASE("estimator: with every set sampled, its hits equal a brute-force model of both")
{
    const std::uint32_t seed = vgpu::test::seed_or(2024);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const estimator_params p = small(1);
    org_estimator e(p);
    lru_sets ref{p.sets, p.ways, {}};
    std::uint64_t ref_hits[2] = {0, 0};
    for (int i = 0; i < 50000; ++i) {
        const std::uint64_t line = rng() % 2048;
        const unsigned from = rng() % 4, home = home_of(line, 4);
        const bool write = rng() % 4 == 0;
        e.access(from, home, line * 128 + rng() % 128, write);
        ref_hits[0] += ref.touch(0, home, line);
        if (!(write && from != home)) // a write to a remote line goes through, allocating nothing
            ref_hits[1] += ref.touch(1, from, line);
    }
    CHECK(e.samples() == 50000);
    CHECK(e.hits(llc_org::shared) == ref_hits[0]);
    CHECK(e.hits(llc_org::private_org) == ref_hits[1]);
}

TEST_CASE("estimator: a read-only table every module reads favours private")
{
    // The case (a): every module reads a table that fits one module's LLC, here four
    // times over a loaded link (60 cycles a crossing). Per access, private: (30 + 200 + 0.75 x
    // 120 + 3 x 30) / 4 = 102.5; shared: 30 + 0.75 x 120 + 200 / 16 = 132.5. (Twice over an
    // idle 40-cycle link, shared's 115 would beat private's 160: the latency model alone does
    // not see the link's bandwidth, which the shell's costs must carry.)
    estimator_params p = small(4);
    p.costs = {30, 200, 60};
    org_estimator e(p);
    const std::uint64_t lines = p.sets * p.ways; // one LLC
    for (int pass = 0; pass < 4; ++pass)
        for (std::uint64_t l = 0; l < lines; ++l)
            for (unsigned m = 0; m < 4; ++m)
                e.access(m, home_of(l, 4), l * 128, false);
    CHECK(e.crossings(llc_org::shared) > e.crossings(llc_org::private_org));
    CHECK(e.cost(llc_org::private_org) == Approx(102.5));
    CHECK(e.cost(llc_org::shared) == Approx(132.5));
    CHECK(e.decide(llc_org::shared, 0.05) == llc_org::private_org);
    CHECK_FALSE(e.decide(llc_org::private_org, 0.05).has_value());
    e.new_epoch();
    CHECK(e.samples() == 0);
    CHECK_FALSE(e.decide(llc_org::shared, 0.0).has_value()); // too few samples
}

TEST_CASE("estimator: producer-consumer across modules favours shared when DRAM is slow")
{
    // The case (b): module 0 writes a buffer that fits the LLCs, module 1 reads it.
    estimator_params p = small(4);
    p.costs = {30, 400, 40};
    org_estimator e(p);
    const std::uint64_t lines = 2 * p.sets * p.ways; // half of the four LLCs
    for (std::uint64_t l = 0; l < lines; ++l)
        e.access(0, home_of(l, 4), l * 128, true);
    for (std::uint64_t l = 0; l < lines; ++l)
        e.access(1, home_of(l, 4), l * 128, false);
    CHECK(e.hits(llc_org::shared) > e.hits(llc_org::private_org));
    CHECK(e.decide(llc_org::private_org, 0.05) == llc_org::shared);
    CHECK_FALSE(e.decide(llc_org::shared, 0.05).has_value());
}

TEST_CASE("estimator: one set in 8 estimates the costs of all sets within 10 %")
{
    const std::uint32_t seed = vgpu::test::seed_or(8);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    org_estimator all(small(1)), sampled(small(8));
    for (int i = 0; i < 200000; ++i) {
        // A hot set of lines per module plus a shared read-mostly region.
        const unsigned from = rng() % 4;
        const std::uint64_t line = rng() % 2 ? 4096 + from * 512 + rng() % 200 : rng() % 1024;
        const bool write = rng() % 10 == 0;
        all.access(from, home_of(line, 4), line * 128, write);
        sampled.access(from, home_of(line, 4), line * 128, write);
    }
    CHECK(sampled.samples() < all.samples() / 4);
    for (llc_org o : {llc_org::shared, llc_org::private_org})
        CHECK(sampled.cost(o) == Approx(all.cost(o)).epsilon(0.10));
    CHECK_THROWS_AS(org_estimator(small(3)), std::invalid_argument);
    CHECK_THROWS_AS(all.access(4, 0, 0, false), std::out_of_range);
}

TEST_CASE("estimator: a congested link measured under shared moves the table to private")
{
    // The table of the case above read twice over an idle 40-cycle link: per access, shared
    // 30 + 0.75 x 80 + 200 / 8 = 115 beats private 30 + (200 + 0.75 x 80) / 2 = 160. Shared
    // crosses 1.5 times an access, private 0.75.
    estimator_params p = small(4);
    p.costs = {30, 200, 40};
    org_estimator e(p);
    const std::uint64_t lines = p.sets * p.ways;
    for (int pass = 0; pass < 2; ++pass)
        for (std::uint64_t l = 0; l < lines; ++l)
            for (unsigned m = 0; m < 4; ++m)
                e.access(m, home_of(l, 4), l * 128, false);
    CHECK(e.cost(llc_org::shared) == Approx(115));
    CHECK(e.cost(llc_org::private_org) == Approx(160));
    CHECK_FALSE(e.decide(llc_org::shared, 0.05).has_value());
    // Measured under shared: a crossing takes 120 cycles (80 of queueing). Shared pays it all:
    // 30 + 1.5 x 120 + 25 = 235; private makes half the crossings, so half the queueing:
    // 30 + 100 + 0.75 x (40 + 40) = 190.
    e.set_measured({30, 200, 120});
    CHECK(e.cost(llc_org::shared, llc_org::shared) == Approx(235));
    CHECK(e.cost(llc_org::private_org, llc_org::shared) == Approx(190));
    CHECK(e.decide(llc_org::shared, 0.05) == llc_org::private_org);
    // Measured under private (its own lighter load: 20 cycles of queueing): shared would cross
    // twice as often, 40 cycles of queueing, 30 + 1.5 x 80 + 25 = 175; private 30 + 100 + 0.75
    // x 60 = 175: no switch back.
    e.set_measured({30, 200, 60});
    CHECK(e.cost(llc_org::shared, llc_org::private_org) == Approx(175));
    CHECK(e.cost(llc_org::private_org, llc_org::private_org) == Approx(175));
    CHECK_FALSE(e.decide(llc_org::private_org, 0.05).has_value());
    // A measured LLC lookup and DRAM access weigh both; DRAM queueing scales with the misses.
    e.set_measured({50, 300, 40});
    CHECK(e.cost(llc_org::shared, llc_org::shared) == Approx(50 + 60 + 300.0 / 8));
    CHECK(e.cost(llc_org::private_org, llc_org::shared) ==
          Approx(50 + (200 + 100 * 4 + 60) / 2.0)); // 4 x the misses: 4 x the queueing
    // A new epoch returns to the unloaded figures.
    e.new_epoch();
    for (int pass = 0; pass < 2; ++pass)
        for (std::uint64_t l = 0; l < lines; ++l)
            for (unsigned m = 0; m < 4; ++m)
                e.access(m, home_of(l, 4), l * 128, false);
    CHECK(e.cost(llc_org::shared) == Approx(30 + 0.75 * 80)); // warm shadows, idle link: 90
}

TEST_CASE("estimator: each module decides from its own SMs' accesses")
{
    // Module 0 reads lines of its own (no crossing either way; under shared they compete with
    // module 1's reads of lines homed on module 0); module 1 reads a table homed on every
    // module four times (private saves it the crossings).
    estimator_params p = small(4);
    p.costs = {30, 200, 60};
    org_estimator e(p);
    const std::uint64_t lines = p.sets * p.ways;
    for (int pass = 0; pass < 4; ++pass)
        for (std::uint64_t l = 0; l < lines; ++l) {
            e.access(1, home_of(l, 4), l * 128, false);
            const std::uint64_t own = (l / 32 * 4) * 32 + l % 32; // homed on module 0
            e.access(0, home_of(own, 4), own * 128, false);
        }
    CHECK(e.crossings(llc_org::shared, 0) == 0);
    CHECK(e.crossings(llc_org::private_org, 0) == 0);
    CHECK(e.cost(llc_org::shared, 0u) <= e.cost(llc_org::private_org, 0u));
    CHECK(e.cost(llc_org::private_org, 1u) < e.cost(llc_org::shared, 1u));
    CHECK_FALSE(e.decide(0, llc_org::shared, 0.05).has_value());
    CHECK(e.decide(1, llc_org::shared, 0.05) == llc_org::private_org);
    CHECK(e.samples(0) + e.samples(1) == e.samples());
    CHECK_THROWS_AS(e.decide(4, llc_org::shared, 0.05), std::out_of_range);
}

namespace {
/// The reference of the adaptive switch test: per (organisation, module) shadow sets of every
/// set (LRU lists), written from the switcher's description (models/llc/README.md), not from
/// org_estimator's code; counts per requesting module.
struct switch_reference {
    struct counts {
        std::uint64_t samples = 0, misses[2] = {0, 0}, crossings[2] = {0, 0};
    };
    explicit switch_reference(const estimator_params& p)
        : p(p), sets{p.sets, p.ways, {}}, mod(p.modules)
    {
    }
    /// Organisations 0 (shared) and 1 (private) are the shadows; 2 the module LLCs as the flags
    /// organise them.
    bool touch(int org, unsigned module, std::uint64_t line)
    {
        return sets.touch(org, module, line);
    }
    /// The kind of the access under each organisation, for the coverage plan.
    std::pair<const char*, const char*> access(unsigned from, unsigned home, std::uint64_t line,
                                               bool write)
    {
        counts& c = mod[from];
        ++c.samples;
        const bool remote = from != home;
        const bool sh = touch(0, home, line);
        c.misses[0] += !sh;
        c.crossings[0] += remote ? 2 : 0;
        const char* shared_kind =
            remote ? (sh ? "remote_hit" : "remote_miss") : (sh ? "local_hit" : "local_miss");
        if (write && remote) { // write-through to the home, no allocation
            c.crossings[1] += 1;
            return {shared_kind, "remote_write_through"};
        }
        const bool pr = touch(1, from, line);
        c.misses[1] += !pr;
        c.crossings[1] += !pr && remote ? 2 : 0;
        return {shared_kind, remote ? (pr ? "remote_copy_hit" : "remote_copy_miss")
                                    : (pr ? "local_hit" : "local_miss")};
    }
    /// Mean cost of organisation `org` for module m's accesses at the unloaded costs.
    double cost(unsigned m, int org) const
    {
        const counts& c = mod[m];
        return p.costs.llc + (p.costs.dram * static_cast<double>(c.misses[org]) +
                              p.costs.link * static_cast<double>(c.crossings[org])) /
                                 static_cast<double>(c.samples);
    }
    /// The module LLCs as the flags organise them (not shadows): an access from module m goes
    /// to m's slices when m is private (allocating, except a remote write, which goes through),
    /// else to the home's slices.
    void llc_access(unsigned from, unsigned home, std::uint64_t line, bool write, bool private_org)
    {
        if (!private_org)
            touch(2, home, line);
        else if (!(write && from != home))
            touch(2, from, line);
    }
    /// Module m leaves private: its slices drop the copies of lines homed elsewhere; returns
    /// how many.
    std::uint64_t leave_private(unsigned m, unsigned (*home)(std::uint64_t, unsigned))
    {
        std::uint64_t n = 0;
        for (auto& [key, lines] : sets.lists) {
            if (std::get<0>(key) != 2 || std::get<1>(key) != m)
                continue;
            for (auto it = lines.begin(); it != lines.end();) {
                if (home(*it, p.modules) != m) {
                    it = lines.erase(it);
                    ++n;
                } else {
                    ++it;
                }
            }
        }
        return n;
    }
    void new_epoch() { mod.assign(p.modules, counts{}); }

    estimator_params p;
    lru_sets sets;
    std::vector<counts> mod;
};
} // namespace

TEST_CASE("llc switcher: random epochs of adaptive decisions and flag transitions, against a "
          "reference")
{
    // Four modules decide at each epoch's end from their own SMs' accesses (every set sampled,
    // unloaded costs drawn per epoch); a decision requests a switch of the module's flags, which
    // the engine completes or a second request retargets first. The reference: LRU shadow sets
    // written here, the decision rule of the README (at least min_samples, and the other
    // organisation cheaper by the margin), and the flags' rules (ARCH, CHANGE, CUR).
    const std::uint32_t seed = vgpu::test::seed_or(39);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    // Coverage plan (docs/coverage.md): each epoch's workload shape per module; each access
    // under each organisation (shared: a hit or miss in the home's LLC, local or across the
    // link; private: in the requester's LLC, of its own line or a copy of a remote one, or a
    // remote write that goes through); the decision by the organisation in effect (too few
    // samples, keep, switch); a flag request (nothing to do, a new switch, a retarget of a
    // pending one, a cancel back to CUR); a completed switch's direction; the copies of remote
    // lines a switch from private to shared drops (from a reference of the module LLCs as the
    // flags organise them: the switch engine itself is the shell's, models/llc/llc_switcher).
    vgpu::test::coverage cov("llc_switcher", seed);
    cov.point("workload", {"idle", "shared_table", "own_lines", "consumer", "mixed"});
    cov.point("shared_access", {"local_hit", "local_miss", "remote_hit", "remote_miss"});
    cov.point("private_access", {"local_hit", "local_miss", "remote_copy_hit", "remote_copy_miss",
                                 "remote_write_through"});
    cov.point("decision", {"too_few_samples", "keep", "switch"});
    cov.point("in_effect", {"shared", "private"});
    cov.cross("in_effect", "decision");
    cov.point("request", {"in_effect", "new_switch", "repeat_pending", "cancel"});
    cov.point("switch", {"shared_to_private", "private_to_shared"});
    cov.point("dropped_copies", {"0", "1-63", "64+"});

    estimator_params p;
    p.modules = 4;
    p.sets = 64;
    p.ways = 4;
    p.sample_every = 1;
    p.min_samples = 64;
    const double margin = 0.05;
    std::vector<switch_flags> flags(p.modules, switch_flags(llc_org::shared));
    org_estimator e(p);
    switch_reference ref(p);
    const char* org_bin[] = {"shared", "private"};
    for (int epoch = 0; epoch < 400; ++epoch) {
        const path_costs costs{30, static_cast<double>(100 + rng() % 4 * 100),
                               static_cast<double>(20 + rng() % 6 * 20)};
        e.set_costs(costs);
        ref.p.costs = costs;
        std::vector<unsigned> shape(p.modules);
        for (unsigned m = 0; m < p.modules; ++m)
            shape[m] = static_cast<unsigned>(rng() % 5);
        const unsigned producer = static_cast<unsigned>(rng() % p.modules);
        for (int i = 0; i < 2000; ++i) {
            const unsigned m = static_cast<unsigned>(rng() % p.modules);
            std::uint64_t line = 0;
            bool write = false;
            switch (shape[m]) {
            case 0: // idle: a few accesses
                if (rng() % 64 != 0)
                    continue;
                line = rng() % 4096;
                break;
            case 1: // a read-only table homed on every module, read by all
                line = 8192 + rng() % 512;
                break;
            case 2: { // its own lines, read and written
                const std::uint64_t l = rng() % 512;
                line = (l / 32 * p.modules + m) * 32 + l % 32;
                write = rng() % 3 == 0;
                break;
            }
            case 3: // reads a buffer the producer module writes (homed everywhere)
                line = 16384 + rng() % 768;
                if (m == producer)
                    write = true;
                break;
            default: // anything
                line = rng() % 8192;
                write = rng() % 4 == 0;
            }
            const unsigned home = home_of(line, p.modules);
            e.access(m, home, line * 128 + rng() % 128, write);
            const auto [sk, pk] = ref.access(m, home, line, write);
            ref.llc_access(m, home, line, write, flags[m].cur() == llc_org::private_org);
            cov.hit("shared_access", sk);
            cov.hit("private_access", pk);
        }
        for (unsigned m = 0; m < p.modules; ++m) {
            static const char* shapes[] = {"idle", "shared_table", "own_lines", "consumer",
                                           "mixed"};
            cov.hit("workload", shapes[shape[m]]);
            const llc_org cur = flags[m].cur();
            const int ci = cur == llc_org::shared ? 0 : 1;
            const auto d = e.decide(m, cur, margin);
            // The reference decision (skipped when the two costs are within rounding).
            std::optional<llc_org> want;
            const char* decision = "too_few_samples";
            REQUIRE(e.samples(m) == ref.mod[m].samples);
            if (ref.mod[m].samples >= p.min_samples) {
                const double mine = ref.cost(m, ci), alt = ref.cost(m, 1 - ci);
                decision = "keep";
                if (alt < mine * (1 - margin)) {
                    want = other(cur);
                    decision = "switch";
                }
                if (std::abs(alt - mine * (1 - margin)) > 1e-9 * mine) {
                    CAPTURE(epoch, m, mine, alt);
                    REQUIRE(d == want);
                    REQUIRE(e.cost(cur, m) == Approx(mine));
                    REQUIRE(e.cost(other(cur), m) == Approx(alt));
                }
            } else {
                REQUIRE_FALSE(d.has_value());
            }
            cov.hit("in_effect", org_bin[ci]);
            cov.hit("decision", decision);
            cov.hit_cross("in_effect", org_bin[ci], "decision", decision);
            // The flags: the decision's request, at times a second one before the engine runs
            // (the host's, at a launch), then the engine completes.
            std::vector<llc_org> requests;
            if (d)
                requests.push_back(*d);
            if (rng() % 4 == 0)
                requests.push_back(rng() % 2 ? llc_org::shared : llc_org::private_org);
            for (llc_org target : requests) {
                const bool pending = flags[m].change();
                // Two organisations: while a switch is pending, a request names its target
                // again or cancels it (back to CUR).
                const char* kind = !pending && target == cur ? "in_effect"
                                   : !pending                ? "new_switch"
                                   : target == cur           ? "cancel"
                                                             : "repeat_pending";
                const bool change = flags[m].request(target);
                REQUIRE(change == (target != cur));
                REQUIRE(flags[m].arch() == (change ? target : cur));
                cov.hit("request", kind);
            }
            const llc_org before = flags[m].cur();
            const bool switched = flags[m].complete();
            REQUIRE(switched == (flags[m].cur() != before));
            REQUIRE_FALSE(flags[m].change());
            if (switched) {
                cov.hit("switch",
                        before == llc_org::shared ? "shared_to_private" : "private_to_shared");
                if (before == llc_org::private_org) {
                    const std::uint64_t n = ref.leave_private(m, home_of);
                    cov.hit("dropped_copies", n == 0 ? "0" : n < 64 ? "1-63" : "64+");
                }
            }
        }
        e.new_epoch();
        ref.new_epoch();
    }
    cov.write();
}
