// First-touch claims (models/page_alloc/core/touch_claims.h): the earliest touch wins, ties to
// the lowest SM, whatever the order of the calls, against a reference computed here.
#include "models/page_alloc/core/touch_claims.h"

#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

using namespace vgpu::placement;

TEST_CASE("touch claims: by hand, an earlier touch made later still wins, ties to the lowest SM")
{
    touch_claims c;
    // SM 7 calls first (at simulated time 100) for a touch at 300; SM 2 calls at 150 for a
    // touch at 200: nothing is decided before time passes 200, then SM 2 wins.
    CHECK(!c.touch(5, {300, 7}, 100, false));
    CHECK(!c.touch(5, {200, 2}, 150, false));
    CHECK(c.due_ps(5) == 201);
    CHECK(!c.decide(5, 200));
    const auto w = c.decide(5, 201);
    REQUIRE(w);
    CHECK(w->sm == 2);
    CHECK(w->at_ps == 200);
    CHECK(c.pending() == 0);
    // A tie at 400: SM 9 calls first, SM 3 wins.
    CHECK(!c.touch(6, {400, 9}, 400, false));
    CHECK(!c.touch(6, {400, 3}, 400, false));
    const auto t = c.touch(6, {401, 12}, 401, false); // a later touch decides it, for SM 3
    REQUIRE(t);
    CHECK(t->sm == 3);
    // A toucher that cannot wait decides among the touches seen.
    CHECK(!c.touch(7, {500, 4}, 450, false));
    const auto n = c.touch(7, {520, 1}, 460, true);
    REQUIRE(n);
    CHECK(n->sm == 4);
}

TEST_CASE("touch claims: random call orders consistent with simulated time give one winner")
{
    // Touches (time, SM) of one page; each call is made at a simulated time at or before its
    // touch's time, in an order where call times never decrease (as SystemC runs them), ties
    // in any order. The winner, once decided, is the minimum by (time, SM) (reference), and
    // nothing is decided while simulated time has not passed it.
    const std::uint64_t seed = vgpu::test::seed_or(35);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 2000; ++round) {
        struct call {
            std::uint64_t when, at;
            int sm;
        };
        std::vector<call> calls;
        const int n = 1 + static_cast<int>(rng() % 12);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t at = 1000 + rng() % 20; // many ties
            calls.push_back({at - rng() % 30, at, static_cast<int>(rng() % 32)});
        }
        std::shuffle(calls.begin(), calls.end(), rng);
        std::stable_sort(calls.begin(), calls.end(),
                         [](const call& a, const call& b) { return a.when < b.when; });
        touch_claim ref{~0ull, 0};
        for (const call& k : calls)
            ref = std::min(ref, touch_claim{k.at, k.sm});
        touch_claims c;
        std::optional<touch_claim> got;
        for (const call& k : calls) {
            const auto w = c.touch(1, {k.at, k.sm}, k.when, false);
            if (w) {
                got = w;
                break;
            }
        }
        if (!got) // decided once time passes the earliest claim
            got = c.decide(1, c.due_ps(1));
        INFO("round " << round);
        REQUIRE(got);
        CHECK(got->at_ps == ref.at_ps);
        CHECK(got->sm == ref.sm);
    }
}
