// Unit tests of the NoC output-port arbiters: grant sequences, fairness and the wait bound.
// See models/noc/README.md.
#include "models/noc/core/arbiter.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

using namespace vgpu::noc;

namespace {

/// Candidates with the inputs whose bit is set in mask requesting.
std::vector<candidate> requests(unsigned inputs, std::uint32_t mask)
{
    std::vector<candidate> c(inputs);
    for (unsigned i = 0; i < inputs; ++i)
        c[i].valid = (mask >> i) & 1;
    return c;
}

} // namespace

TEST_CASE("arbiter kinds have config names and a factory")
{
    REQUIRE(to_string(arbiter_kind::round_robin) == "round_robin");
    REQUIRE(arbiter_kind_from_string("round_robin") == arbiter_kind::round_robin);
    REQUIRE_FALSE(arbiter_kind_from_string("lottery"));
    auto a = make_arbiter(arbiter_kind::round_robin, 3);
    REQUIRE(a->inputs() == 3);
    REQUIRE(a->last_grant() == -1);
    REQUIRE(dynamic_cast<round_robin_arbiter*>(a.get()) != nullptr);
    REQUIRE_THROWS_AS(make_arbiter(arbiter_kind::round_robin, 0), std::invalid_argument);
    REQUIRE_THROWS_WITH(a->grant(requests(4, 0xf)), Catch::Contains("4 candidates for 3 inputs"));
}

TEST_CASE("round_robin grants in rotating order starting after the last grant")
{
    round_robin_arbiter a(4);
    std::vector<int> got;
    for (int i = 0; i < 6; ++i)
        got.push_back(a.grant(requests(4, 0xf)));
    REQUIRE(got == std::vector<int>{0, 1, 2, 3, 0, 1});

    // Only inputs 1 and 3 request; then input 0 joins after 3 was granted.
    got.clear();
    for (int i = 0; i < 3; ++i)
        got.push_back(a.grant(requests(4, 0xa)));
    got.push_back(a.grant(requests(4, 0xb)));
    got.push_back(a.grant(requests(4, 0xb)));
    got.push_back(a.grant(requests(4, 0xb)));
    REQUIRE(got == std::vector<int>{3, 1, 3, 0, 1, 3});

    // An idle cycle grants nothing and keeps the priority.
    REQUIRE(a.grant(requests(4, 0)) == -1);
    REQUIRE(a.last_grant() == 3);
    REQUIRE(a.grant(requests(4, 0x9)) == 0);

    // Barrier counts and ages do not influence round-robin.
    auto c = requests(4, 0xf);
    c[3].barrier_count = 30;
    c[3].age_cycles = 1000;
    REQUIRE(a.grant(c) == 1);

    a.reset();
    REQUIRE(a.last_grant() == -1);
    REQUIRE(a.grant(requests(4, 0xc)) == 2);
}

TEST_CASE("round_robin with every input requesting grants each input once every N grants")
{
    for (unsigned n : {1u, 2u, 3u, 5u, 8u, 16u, 31u}) {
        INFO("inputs " << n);
        round_robin_arbiter a(n);
        const auto all = requests(n, 0xffffffffu);
        std::vector<int> seq;
        for (unsigned g = 0; g < 10 * n; ++g)
            seq.push_back(a.grant(all));
        for (unsigned w = 0; w + n <= seq.size(); ++w) {
            std::vector<unsigned> count(n, 0);
            for (unsigned k = w; k < w + n; ++k)
                ++count[static_cast<unsigned>(seq[k])];
            REQUIRE(count == std::vector<unsigned>(n, 1));
        }
    }
}

TEST_CASE("round_robin grants a requesting input within N grants and matches a reference")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "round_robin random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned n : {2u, 3u, 4u, 7u, 16u}) {
        INFO("inputs " << n);
        auto arb = make_arbiter(arbiter_kind::round_robin, n);
        std::vector<candidate> c(n);
        // others[i]: grants to other inputs since input i started waiting.
        std::vector<unsigned> others(n, 0);
        int ref_last = static_cast<int>(n) - 1;
        unsigned max_others = 0;
        for (int cycle = 0; cycle < 20000; ++cycle) {
            // A request stays until granted; new requests arrive at random.
            for (unsigned i = 0; i < n; ++i) {
                if (!c[i].valid && rng() % 3 == 0) {
                    c[i].valid = true;
                    c[i].barrier_count = static_cast<unsigned>(rng() % 8);
                    others[i] = 0;
                }
            }
            int expect = -1;
            for (unsigned k = 1; k <= n && expect < 0; ++k) {
                const unsigned i = (static_cast<unsigned>(ref_last) + k) % n;
                if (c[i].valid)
                    expect = static_cast<int>(i);
            }
            const int g = arb->grant(c);
            REQUIRE(g == expect);
            if (g < 0)
                continue;
            ref_last = g;
            c[static_cast<unsigned>(g)].valid = false;
            for (unsigned i = 0; i < n; ++i) {
                if (c[i].valid) {
                    ++others[i];
                    if (others[i] > max_others)
                        max_others = others[i];
                }
                c[i].age_cycles += c[i].valid;
            }
            // At most N-1 other grants before a waiting input's own: granted within N grants.
            REQUIRE(max_others <= n - 1);
        }
        // Under this load the bound is reached, so it is tight.
        REQUIRE(max_others == n - 1);
    }
}

namespace {
/// A candidate list from (barrier count, age) pairs; a negative count = no request. Arrival
/// order follows age (older = earlier; equal ages: lower input first).
std::vector<candidate> cands(std::initializer_list<std::pair<int, std::uint64_t>> l)
{
    std::vector<candidate> c;
    std::uint64_t i = 0;
    for (const auto& [count, age] : l)
        c.push_back({count >= 0, count >= 0 ? static_cast<unsigned>(count) : 0u, age,
                     ((~std::uint64_t{0} - age) << 8) + i++});
    return c;
}
} // namespace

TEST_CASE("barrier_aware grants the highest barrier count, ties round-robin, and says why")
{
    REQUIRE(arbiter_kind_from_string("barrier_aware") == arbiter_kind::barrier_aware);
    REQUIRE(arbiter_kind_from_string("fifo") == arbiter_kind::fifo);
    barrier_aware_arbiter a(4, 0);
    // Input 2 has the most warps waiting.
    CHECK(a.grant(cands({{1, 0}, {0, 0}, {7, 0}, {3, 0}})) == 2);
    CHECK(a.last_reason() == grant_reason::priority);
    // Ties among the highest: rotation after the last grant (2): 3, then 1.
    CHECK(a.grant(cands({{0, 0}, {5, 0}, {-1, 0}, {5, 0}})) == 3);
    CHECK(a.last_reason() == grant_reason::priority); // 5 beat input 0's 0
    CHECK(a.grant(cands({{-1, 0}, {5, 0}, {-1, 0}, {5, 0}})) == 1);
    CHECK(a.last_reason() == grant_reason::rotation); // equals only
    CHECK(a.grant(cands({{-1, 0}, {-1, 0}, {-1, 0}, {-1, 0}})) == -1);
    CHECK(a.last_reason() == grant_reason::none);
    CHECK(a.last_grant() == 1); // an idle cycle keeps the rotation
    // All zero: it is round-robin.
    round_robin_arbiter rr(4);
    barrier_aware_arbiter b(4, 16);
    for (int i = 0; i < 12; ++i) {
        const auto c = cands({{0, 1}, {0, 2}, {-1, 0}, {0, 3}});
        CHECK(b.grant(c) == rr.grant(c));
    }
}

TEST_CASE("barrier_aware ageing: a request past max_wait_cycles wins, round-robin among them")
{
    barrier_aware_arbiter a(3, 10);
    CHECK(a.grant(cands({{0, 10}, {9, 3}, {9, 2}})) == 0);
    CHECK(a.last_reason() == grant_reason::age);
    CHECK(a.grant(cands({{0, 11}, {9, 12}, {9, 2}})) == 1); // aged: 0 and 1, after 0 comes 1
    CHECK(a.grant(cands({{0, 12}, {9, 12}, {9, 2}})) == 0); // after 1: 2 is not aged, then 0
    CHECK(a.grant(cands({{0, 9}, {9, 3}, {9, 2}})) == 1);   // nobody aged: priority, then after 0
    CHECK(a.last_reason() == grant_reason::priority);
    // Ageing off: priority forever.
    barrier_aware_arbiter off(2, 0);
    for (int i = 0; i < 5; ++i)
        CHECK(off.grant(cands({{0, 1000}, {1, 0}})) == 1);
}

TEST_CASE("fifo grants the head that arrived first")
{
    fifo_arbiter a(3);
    CHECK(a.grant(cands({{0, 4}, {0, 9}, {0, 1}})) == 1);
    CHECK(a.last_reason() == grant_reason::age);
    CHECK(a.grant(cands({{0, 5}, {-1, 0}, {0, 5}})) == 0); // same cycle: input 0 arrived first
    CHECK(a.grant(cands({{-1, 0}, {-1, 0}, {7, 5}})) == 2);
    CHECK(a.last_reason() == grant_reason::rotation); // alone
}

TEST_CASE("barrier_aware: the age bound holds against an adversarial stream")
{
    // One grant per cycle. Input 0 holds one request with barrier count 0; every other input
    // always has a fresh request with the highest count (a new one arrives the cycle its
    // predecessor is granted). Without ageing input 0 starves; with max_wait W it is granted
    // within W + (inputs - 1) cycles, since when it ages at most inputs - 1 heads are older.
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 200; ++round) {
        const unsigned n = 2 + static_cast<unsigned>(rng() % 15);
        const std::uint64_t w = 1 + rng() % 64;
        barrier_aware_arbiter a(n, w);
        // The victim (input 0) arrives at cycle w; the others' first heads arrive at random
        // in [0, 2w], so some are older than the victim and age before it.
        std::vector<std::uint64_t> born(n, w);
        for (unsigned i = 1; i < n; ++i)
            born[i] = rng() % (2 * w + 1);
        std::uint64_t cycle = 0;
        std::vector<std::uint64_t> seq(n);
        for (unsigned i = 0; i < n; ++i)
            seq[i] = born[i] * 64 + i; // arrival order: by cycle, then input
        bool granted = false;
        for (; cycle <= 3 * w + n + 4 && !granted; ++cycle) {
            std::vector<candidate> c(n);
            for (unsigned i = 0; i < n; ++i) {
                const bool present = born[i] <= cycle;
                c[i] = {present, i == 0 ? 0u : 255u, present ? cycle - born[i] : 0u, seq[i]};
            }
            const int g = a.grant(c);
            if (g == 0) {
                granted = true;
            } else if (g > 0) {
                born[static_cast<unsigned>(g)] = cycle + 1;
                seq[static_cast<unsigned>(g)] = (cycle + 1) * 64 + static_cast<unsigned>(g);
            }
        }
        INFO("round " << round << " inputs " << n << " max_wait " << w);
        REQUIRE(granted);
        // Granted at cycle - 1; it arrived at w and aged at 2w.
        CHECK(cycle - 1 <= 2 * w + (n - 1));
    }
    // And without ageing, the same stream starves input 0.
    barrier_aware_arbiter starving(3, 0);
    for (int cycle = 0; cycle < 1000; ++cycle)
        REQUIRE(starving.grant(cands({{0, static_cast<std::uint64_t>(cycle)}, {9, 0}, {9, 0}})) !=
                0);
}
