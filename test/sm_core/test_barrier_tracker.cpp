// Unit tests of vgpu::sm::barrier_tracker: release when every warp of a CTA arrived, exited
// warps and deadlocks, cancellation and the waiting count. See models/sm/README.md.
#include "models/sm/core/barrier_tracker.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace vgpu::sm;

using outcome = barrier_tracker::outcome;

TEST_CASE("barrier_tracker checks its geometry")
{
    REQUIRE_THROWS_AS(barrier_tracker(0, 1), std::invalid_argument);
    REQUIRE_THROWS_AS(barrier_tracker(65, 1), std::invalid_argument);
    REQUIRE_THROWS_AS(barrier_tracker(8, 0), std::invalid_argument);
    barrier_tracker b(8, 2);
    REQUIRE_THROWS_AS(b.start(2, 0x1), std::out_of_range);
    REQUIRE_THROWS_AS(b.start(0, 0x100), std::out_of_range);
    barrier_tracker full(64, 1);
    full.start(0, ~0ull);
    REQUIRE(full.warps(0) == 64);
}

TEST_CASE("barrier_tracker releases when the last warp of the CTA arrives")
{
    barrier_tracker b(8, 2);
    b.start(0, 0x0b); // slots 0, 1, 3
    b.start(1, 0x34); // slots 2, 4, 5
    REQUIRE(b.warps(0) == 3);
    REQUIRE(b.warp_mask(1) == 0x34);

    auto a = b.arrive(3, 7, 100);
    REQUIRE(a.result == outcome::none);
    REQUIRE(b.at_barrier(3));
    REQUIRE(b.pc(3) == 7);
    REQUIRE(b.since(3) == 100);
    a = b.arrive(0, 7, 104);
    REQUIRE(a.result == outcome::none);
    // A warp of the other CTA does not count for CTA 0.
    a = b.arrive(2, 9, 105);
    REQUIRE(a.result == outcome::none);
    REQUIRE(b.waiting() == 3);
    REQUIRE(b.arrived(0) == 2);
    REQUIRE(b.arrived(1) == 1);
    REQUIRE(b.first_waiting(0) == 0);
    REQUIRE(b.first_waiting(1) == 2);

    a = b.arrive(1, 7, 110);
    REQUIRE(a.result == outcome::released);
    REQUIRE(a.released == 0x0b);
    REQUIRE(b.arrived(0) == 0);
    REQUIRE(b.waiting() == 1); // slot 2 of CTA 1 still waits
    REQUIRE_FALSE(b.at_barrier(0));
    REQUIRE_FALSE(b.at_barrier(3));
    REQUIRE(b.at_barrier(2));
    REQUIRE(b.first_waiting(0) == -1);
    // Arrival cycles are kept for the wait statistics: 110 - 100, 110 - 104, 110 - 110.
    REQUIRE(b.since(3) == 100);
    REQUIRE(b.since(0) == 104);
    REQUIRE(b.since(1) == 110);

    // The next barrier of CTA 0 counts from zero again.
    REQUIRE(b.arrive(0, 12, 200).result == outcome::none);
    REQUIRE(b.arrived(0) == 1);
}

TEST_CASE("barrier_tracker: exited warps never arrive, so the barrier deadlocks")
{
    barrier_tracker b(4, 1);
    b.start(0, 0x7); // slots 0, 1, 2
    REQUIRE(b.exit(2) == outcome::none);
    REQUIRE(b.exited(0) == 1);
    REQUIRE(b.arrive(0, 5, 10).result == outcome::none);
    // Slot 1 arrives: 2 arrived + 1 exited = 3 warps, but not all arrived -> deadlock.
    const auto a = b.arrive(1, 5, 12);
    REQUIRE(a.result == outcome::deadlock);
    REQUIRE(a.released == 0);
    REQUIRE(b.waiting() == 2);
    REQUIRE(b.arrived(0) == 2);
}

TEST_CASE("barrier_tracker: an exit leaving only waiting warps deadlocks, the last exit ends")
{
    barrier_tracker b(4, 1);
    b.start(0, 0xf);
    REQUIRE(b.arrive(1, 3, 10).result == outcome::none);
    REQUIRE(b.arrive(2, 3, 11).result == outcome::none);
    REQUIRE(b.exit(0) == outcome::none); // 2 arrived + 1 exited < 4
    REQUIRE(b.exit(3) == outcome::deadlock);
    REQUIRE(b.first_waiting(0) == 1);
    REQUIRE(b.pc(1) == 3);

    barrier_tracker c(4, 1);
    c.start(0, 0x3);
    REQUIRE(c.exit(0) == outcome::none);
    REQUIRE_FALSE(c.all_exited(0));
    REQUIRE(c.exit(1) == outcome::all_exited);
    REQUIRE(c.all_exited(0));
    // Without an arrival, exits alone are no deadlock.
    barrier_tracker d(4, 1);
    d.start(0, 0x7);
    REQUIRE(d.exit(0) == outcome::none);
    REQUIRE(d.exit(1) == outcome::none);
    REQUIRE(d.exit(2) == outcome::all_exited);
}

TEST_CASE("barrier_tracker: cancelling a CTA takes its waiting warps off the count")
{
    barrier_tracker b(8, 2);
    b.start(0, 0x0f);
    b.start(1, 0xf0);
    b.arrive(0, 1, 5);
    b.arrive(2, 1, 6);
    b.arrive(4, 2, 7);
    REQUIRE(b.waiting() == 3);
    b.cancel(0);
    REQUIRE(b.waiting() == 1);
    REQUIRE_FALSE(b.at_barrier(0));
    REQUIRE_FALSE(b.at_barrier(2));
    REQUIRE(b.at_barrier(4));
    b.cancel(0); // twice: no change
    REQUIRE(b.waiting() == 1);
    // A new CTA in slot 0 starts clean.
    b.start(0, 0x03);
    REQUIRE(b.arrived(0) == 0);
    REQUIRE(b.exited(0) == 0);
    REQUIRE(b.warps(0) == 2);
}
