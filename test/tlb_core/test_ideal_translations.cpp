// Unit tests of the ideal model's shared translations. See models/tlb/core/ideal_translations.h.
#include "models/tlb/core/ideal_translations.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>

using vgpu::tlb::ideal_translations;

TEST_CASE("ideal translations: kept per page until a newer epoch, another table or a shootdown")
{
    ideal_translations t;
    CHECK(t.find(1, 0x1000, 7) == 0); // nothing known yet
    t.insert(7, 0x70001);
    t.insert(8, 0x80001);
    t.insert(9, 0x90001);
    CHECK(t.find(1, 0x1000, 7) == 0x70001);
    // An SM still in an older epoch of the same table sees the same entries.
    CHECK(t.find(0, 0x1000, 8) == 0x80001);
    // A shootdown of pages 8..9 drops those two only.
    t.invalidate(8, 9, false);
    CHECK(t.find(1, 0x1000, 7) == 0x70001);
    CHECK(t.find(1, 0x1000, 8) == 0);
    CHECK(t.find(1, 0x1000, 9) == 0);
    CHECK(t.size() == 1);
    // A newer epoch drops everything (the driver may have remapped between kernels).
    CHECK(t.find(2, 0x1000, 7) == 0);
    t.insert(7, 0x70003);
    CHECK(t.find(2, 0x1000, 7) == 0x70003);
    // Another page table drops everything too.
    CHECK(t.find(2, 0x2000, 7) == 0);
    t.insert(7, 0x71001);
    t.insert(5, 0x51001);
    // A shootdown of every page.
    t.invalidate(0, 0, true);
    CHECK(t.size() == 0);
    CHECK(t.find(2, 0x2000, 5) == 0);
}

TEST_CASE("ideal translations: random inserts, lookups and shootdowns against a map")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261124);
    std::cout << "ideal translations random test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    ideal_translations t;
    REQUIRE(t.find(0, 0x1000, 0) == 0); // the context, as a TLB's first request sets it
    std::map<std::uint64_t, std::uint64_t> ref;
    for (int n = 0; n < 200000; ++n) {
        // Pages in a small range, so that probes collide, shootdowns hit and the table grows.
        const std::uint64_t vpn = rng() % 4096 + (rng() % 8 == 0 ? (rng() << 20) : 0);
        const unsigned op = rng() % 100;
        if (op < 45) {
            const std::uint64_t pte = rng() | 1;
            t.insert(vpn, pte);
            ref.emplace(vpn, pte);
        } else if (op < 97) {
            const auto it = ref.find(vpn);
            REQUIRE(t.find(0, 0x1000, vpn) == (it == ref.end() ? 0 : it->second));
        } else {
            const std::uint64_t last = vpn + rng() % 64;
            t.invalidate(vpn, last, false);
            ref.erase(ref.lower_bound(vpn), ref.upper_bound(last));
        }
        REQUIRE(t.size() == ref.size());
    }
    for (const auto& [vpn, pte] : ref)
        REQUIRE(t.find(0, 0x1000, vpn) == pte);
    t.invalidate(0, 0, true);
    CHECK(t.size() == 0);
}
