// Randomized test of vgpu::cache::capacity_timeline (change points in chunks) against the simple
// structure it replaced, a single sorted vector of change points (flat_capacity_timeline.h): the
// same calls must give the same answers (seed printed). See models/cache/README.md.
#include "models/cache/core/capacity_timeline.h"
#include "test/cache_core/flat_capacity_timeline.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <iostream>
#include <random>

using vgpu::cache::capacity_timeline;
using vgpu::cache::reference::flat_capacity_timeline;

TEST_CASE("capacity_timeline: every answer equals the single sorted vector's")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261203);
    std::cout << "capacity_timeline reference test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    // Capacities from one entry to the platforms' MSHR counts: at 192 and 256 several hundred
    // change points are live, so chunks split, empty and are reused.
    for (unsigned capacity : {1u, 2u, 5u, 16u, 64u, 192u, 256u}) {
        INFO("capacity " << capacity);
        capacity_timeline a(capacity);
        flat_capacity_timeline b(capacity);
        // A coarse grid makes starts and ends meet (change points that add up or cancel).
        const std::uint64_t grid = 1 + rng() % 8;
        const std::uint64_t span = 40 + rng() % 400; // how far ahead of global time requests go
        const unsigned busy = 2 + static_cast<unsigned>(rng() % 6); // longer: busier
        std::uint64_t now = 0;
        const int steps = capacity >= 64 ? 30000 : 8000;
        for (int n = 0; n < steps; ++n) {
            INFO("step " << n << " now " << now);
            if (rng() % 4 == 0)
                now += grid * (rng() % 3);
            const std::uint64_t arrival = now + grid * (rng() % span);
            const std::uint64_t length = grid * (rng() % (busy * capacity / 2 + 8));
            switch (rng() % 8) {
            case 0: { // a search alone
                REQUIRE(a.earliest(arrival, length, now) == b.earliest(arrival, length, now));
                break;
            }
            case 1:
            case 2: { // a known length
                const auto ra = a.reserve_for(arrival, length, now);
                const auto rb = b.reserve_for(arrival, length, now);
                REQUIRE(ra.start == rb.start);
                REQUIRE(ra.end == rb.end);
                break;
            }
            case 3: { // booked without a search (may overrun)
                const std::uint64_t start = arrival;
                const std::uint64_t end = start + grid * (rng() % 20);
                REQUIRE(a.book(start, end) == b.book(start, end));
                break;
            }
            default: { // the search its caller makes, then reserve and finish
                const std::uint64_t h = a.hold_estimate();
                REQUIRE(h == b.hold_estimate());
                REQUIRE(a.earliest(arrival, h, now) == b.earliest(arrival, h, now));
                auto ra = a.reserve(arrival, now);
                auto rb = b.reserve(arrival, now);
                REQUIRE(ra.start == rb.start);
                REQUIRE(ra.end == rb.end);
                // Mostly within the estimate, sometimes beyond it.
                const std::uint64_t len =
                    rng() % 16 == 0 ? h + grid * (1 + rng() % 50) : (h == 0 ? 0 : rng() % (h + 1));
                const std::uint64_t end = ra.start + len;
                REQUIRE(a.finish(ra, end) == b.finish(rb, end));
                REQUIRE(ra.end == rb.end);
                break;
            }
            }
            REQUIRE(a.overrun() == b.overrun());
            REQUIRE(a.live() == b.live());
            REQUIRE(a.breakpoints() == b.breakpoints());
            for (int q = 0; q < 3; ++q) {
                const std::uint64_t t = now + grid * (rng() % (span + 50));
                REQUIRE(a.in_use(t) == b.in_use(t));
            }
            if (rng() % 5000 == 0) {
                a.clear();
                b.clear();
            }
        }
    }
}
