// Unit tests of fast-mode occupancy booking. See tlm_bus/busy_timeline.h.
#include "tlm_bus/busy_timeline.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using vgpu::tlm_bus::busy_timeline;

TEST_CASE("requests in time order queue back to back")
{
    busy_timeline t;
    CHECK(t.reserve(0, 10, 0) == 0);
    CHECK(t.reserve(0, 10, 0) == 10);
    CHECK(t.reserve(5, 10, 0) == 20);
    CHECK(t.reserve(100, 10, 0) == 100); // idle gap: starts on arrival
    CHECK(t.busy_until() == 110);
}

TEST_CASE("an early request booked after a late one uses the gap before it")
{
    busy_timeline t;
    CHECK(t.reserve(1000, 10, 0) == 1000); // a decoupled initiator far ahead
    CHECK(t.reserve(0, 10, 0) == 0);       // an earlier arrival is not queued behind it
    CHECK(t.reserve(995, 10, 0) == 1010);  // overlaps the booking: waits until it ends
    CHECK(t.reserve(985, 10, 0) == 985);   // [985, 995) is free
    CHECK(t.reserve(990, 10, 0) == 1020);  // the gap [995, 1000) is too short
}

TEST_CASE("intervals that ended before now are forgotten, touching ones merge")
{
    busy_timeline t;
    for (int i = 0; i < 100; ++i)
        t.reserve(static_cast<std::uint64_t>(i) * 10, 10, 0);
    CHECK(t.intervals() == 1); // all touching: one merged interval [0, 1000)
    t.reserve(5000, 10, 0);
    CHECK(t.intervals() == 2);
    t.reserve(6000, 10, 2000);
    CHECK(t.intervals() == 2); // [0, 1000) forgotten at now = 2000
}

TEST_CASE("the number of remembered bookings is bounded")
{
    busy_timeline t;
    for (std::uint64_t i = 0; i < 1000; ++i)
        t.reserve(i * 100, 10, 0); // disjoint, never merged, never pruned by time
    CHECK(t.intervals() == busy_timeline::max_intervals);
    CHECK(t.busy_until() == 99910);
}

TEST_CASE("random bookings never overlap and never start before their arrival")
{
    const unsigned seed = 20261121;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    busy_timeline t;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> booked;
    for (int i = 0; i < 60; ++i) { // within max_intervals: nothing forgotten
        std::uint64_t arrival = rng() % 20000, occ = 1 + rng() % 50;
        std::uint64_t start = t.reserve(arrival, occ, 0);
        REQUIRE(start >= arrival);
        for (const auto& [s, e] : booked)
            REQUIRE((start + occ <= s || start >= e));
        booked.emplace_back(start, start + occ);
    }
}
