// Unit tests of the LLC switcher's algorithm: the flag registers' transitions and the
// shadow-tag estimator (against a brute-force model, on the two workload shapes, and
// sampled against unsampled). See models/llc/README.md ("LLC switcher").
#include "models/llc/core/llc_org.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <list>
#include <map>
#include <random>
#include <stdexcept>

using namespace vgpu::llc;

namespace {
/// Home module of a line under round-robin page placement (4 KiB pages of 32 lines).
unsigned home_of(std::uint64_t line, unsigned modules)
{
    return static_cast<unsigned>(line / 32 % modules);
}

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
    // Reference: per (organisation, module, set) an LRU list of lines.
    std::map<std::tuple<int, unsigned, unsigned>, std::list<std::uint64_t>> ref;
    std::uint64_t ref_hits[2] = {0, 0};
    auto lru = [&](int org, unsigned module, std::uint64_t line) {
        auto& l = ref[{org, module, static_cast<unsigned>(line % p.sets)}];
        for (auto it = l.begin(); it != l.end(); ++it)
            if (*it == line) {
                l.erase(it);
                l.push_front(line);
                return true;
            }
        l.push_front(line);
        if (l.size() > p.ways)
            l.pop_back();
        return false;
    };
    for (int i = 0; i < 50000; ++i) {
        const std::uint64_t line = rng() % 2048;
        const unsigned from = rng() % 4, home = home_of(line, 4);
        const bool write = rng() % 4 == 0;
        e.access(from, home, line * 128 + rng() % 128, write);
        ref_hits[0] += lru(0, home, line);
        if (!(write && from != home)) // a write to a remote line goes through, allocating nothing
            ref_hits[1] += lru(1, from, line);
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
