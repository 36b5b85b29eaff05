// Unit tests of vgpu::sm::watchdog: the earliest limit cycle across CTAs and expiry.
// See models/sm/README.md.
#include "models/sm/core/watchdog.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace vgpu::sm;

TEST_CASE("watchdog checks its geometry and starts without a limit")
{
    REQUIRE_THROWS_AS(watchdog(0, 10), std::invalid_argument);
    REQUIRE_THROWS_AS(watchdog(2, 0), std::invalid_argument);
    const watchdog w(2, 10);
    REQUIRE(w.max_cycles() == 10);
    REQUIRE(w.next_limit() == watchdog::never);
    REQUIRE_FALSE(w.watched(0));
    REQUIRE_THROWS_AS(w.watched(2), std::out_of_range);
}

TEST_CASE("watchdog: the next limit is the earliest start + max_cycles + 1 across CTAs")
{
    watchdog w(4, 1000);
    w.watch(2, 500); // limit 1501
    REQUIRE(w.next_limit() == 1501);
    w.watch(0, 700); // 1701: later, no change
    REQUIRE(w.next_limit() == 1501);
    w.watch(3, 100); // 1101
    REQUIRE(w.next_limit() == 1101);
    REQUIRE(w.start(3) == 100);
    // Running exactly max_cycles is allowed; one more cycle is not.
    REQUIRE_FALSE(w.expired(3, 1100));
    REQUIRE(w.expired(3, 1101));
    REQUIRE_FALSE(w.expired(2, 1101));
    REQUIRE_FALSE(w.expired(1, 5000)); // never watched
}

TEST_CASE("watchdog: a forgotten CTA stops counting, refresh() recomputes the limit")
{
    watchdog w(3, 50);
    w.watch(0, 10); // 61
    w.watch(1, 30); // 81
    w.watch(2, 20); // 71
    w.forget(0);
    REQUIRE_FALSE(w.watched(0));
    REQUIRE_FALSE(w.expired(0, 1000));
    REQUIRE(w.next_limit() == 61); // early until refreshed (a check then finds nothing)
    w.refresh();
    REQUIRE(w.next_limit() == 71);
    w.forget(2);
    w.forget(1);
    w.refresh();
    REQUIRE(w.next_limit() == watchdog::never);
    // A slot watched again counts from its new start.
    w.watch(0, 400);
    REQUIRE(w.next_limit() == 451);
    REQUIRE(w.expired(0, 451));
}

TEST_CASE("watchdog: a CTA that starts after the checked cycle has not expired")
{
    watchdog w(2, 10);
    w.watch(0, 5000); // launched with an annotated delay: starts ahead of the issue loop
    REQUIRE_FALSE(w.expired(0, 100));
    REQUIRE_FALSE(w.expired(0, 5010));
    REQUIRE(w.expired(0, 5011));
}
