// Unit tests of vgpu::sm::warp_scheduler: exact pick sequences for LRR and GTO.
// See models/sm/README.md.
#include "models/sm/core/warp_scheduler.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

using namespace vgpu::sm;

namespace {

/// Picks for each ready mask in turn.
std::vector<int> picks(warp_scheduler& s, const std::vector<std::uint64_t>& ready)
{
    std::vector<int> out;
    for (auto r : ready)
        out.push_back(s.pick(r));
    return out;
}

} // namespace

TEST_CASE("warp_scheduler policies have config names and checked geometry")
{
    REQUIRE(to_string(sched_policy::lrr) == "lrr");
    REQUIRE(to_string(sched_policy::gto) == "gto");
    REQUIRE(sched_policy_from_string("gto") == sched_policy::gto);
    REQUIRE(sched_policy_from_string("lrr") == sched_policy::lrr);
    REQUIRE_FALSE(sched_policy_from_string("two_level"));
    REQUIRE_THROWS_AS(warp_scheduler(0, sched_policy::lrr), std::invalid_argument);
    REQUIRE_THROWS_WITH(warp_scheduler(65, sched_policy::gto), Catch::Contains("1..64"));
    warp_scheduler s(64, sched_policy::gto);
    REQUIRE(s.slots() == 64);
    REQUIRE(s.policy() == sched_policy::gto);
    REQUIRE(s.last_issued() == -1);
    REQUIRE_THROWS_AS(s.launch(64), std::out_of_range);
}

TEST_CASE("LRR picks the first ready slot after the last issued one")
{
    warp_scheduler s(4, sched_policy::lrr);
    REQUIRE(picks(s, {0xf, 0xf, 0xf, 0xf, 0xf}) == std::vector<int>{0, 1, 2, 3, 0});
    // last 0: 0b0101 -> 2, 0 (wrap), 2; nothing ready -> -1 and the position is kept.
    REQUIRE(picks(s, {0x5, 0x5, 0x5, 0x0, 0x9, 0x9, 0x2}) ==
            std::vector<int>{2, 0, 2, -1, 3, 0, 1});
    REQUIRE(s.last_issued() == 1);
    // Only the issuing warp ready: it issues every cycle.
    REQUIRE(picks(s, {0x8, 0x8, 0x8}) == std::vector<int>{3, 3, 3});
    // Bits above slots() are ignored.
    REQUIRE(s.pick(0xf0) == -1);
    REQUIRE(s.pick(0xf1) == 0);
}

TEST_CASE("LRR wraps around at 64 slots")
{
    warp_scheduler s(64, sched_policy::lrr);
    const std::uint64_t r = (1ull << 63) | (1ull << 62) | 1ull;
    REQUIRE(picks(s, {r, r, r, r, r}) == std::vector<int>{0, 62, 63, 0, 62});
}

TEST_CASE("GTO keeps the issuing warp while ready, else the oldest ready one")
{
    warp_scheduler s(4, sched_policy::gto);
    // Launch order 2, 0, 3, 1: slot 2 is the oldest, slot 1 the youngest.
    for (unsigned w : {2u, 0u, 3u, 1u})
        s.launch(w);
    REQUIRE(s.age(2) < s.age(0));
    REQUIRE(s.age(3) < s.age(1));
    REQUIRE(picks(s, {0xf, 0xf, 0xb, 0xb, 0xa, 0xf, 0x2, 0xe, 0x0, 0x8}) ==
            std::vector<int>{2, 2, 0, 0, 3, 3, 1, 1, -1, 3});
    // Slot 2's warp exits and a new one is launched there: it is now the youngest.
    s.launch(2);
    REQUIRE(picks(s, {0x6, 0x6, 0x4}) == std::vector<int>{1, 1, 2});
}

TEST_CASE("GTO without launches treats lower slots as older")
{
    warp_scheduler s(8, sched_policy::gto);
    REQUIRE(picks(s, {0xf0, 0xf0, 0xe0, 0xff, 0x0f}) == std::vector<int>{4, 4, 5, 5, 0});
}

TEST_CASE("LRR and GTO match simple references on random readiness")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "warp_scheduler random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned slots : {1u, 5u, 32u, 48u, 64u}) {
        warp_scheduler lrr(slots, sched_policy::lrr);
        warp_scheduler gto(slots, sched_policy::gto);
        std::vector<std::uint64_t> age(slots);
        std::uint64_t next_age = 0;
        for (unsigned w = 0; w < slots; ++w) {
            age[w] = next_age++;
            gto.launch(w);
        }
        int lrr_last = -1, gto_last = -1;
        for (int cycle = 0; cycle < 20000; ++cycle) {
            if (rng() % 50 == 0) {
                const unsigned w = static_cast<unsigned>(rng() % slots);
                gto.launch(w);
                age[w] = next_age++;
            }
            std::vector<bool> ready(slots);
            std::uint64_t mask = 0;
            for (unsigned w = 0; w < slots; ++w) {
                ready[w] = rng() % 4 == 0;
                mask |= std::uint64_t{ready[w]} << w;
            }

            int want = -1;
            for (unsigned k = 1; k <= slots && want < 0; ++k) {
                const unsigned w = static_cast<unsigned>(lrr_last + static_cast<int>(k)) % slots;
                if (ready[w])
                    want = static_cast<int>(w);
            }
            REQUIRE(lrr.pick(mask) == want);
            if (want >= 0)
                lrr_last = want;

            want = -1;
            if (gto_last >= 0 && ready[static_cast<unsigned>(gto_last)]) {
                want = gto_last;
            } else {
                for (unsigned w = 0; w < slots; ++w) {
                    if (ready[w] && (want < 0 || age[w] < age[static_cast<unsigned>(want)]))
                        want = static_cast<int>(w);
                }
            }
            REQUIRE(gto.pick(mask) == want);
            if (want >= 0)
                gto_last = want;
        }
    }
}
