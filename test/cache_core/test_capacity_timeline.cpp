// Unit tests of vgpu::cache::capacity_timeline: hand-computed bookings, and randomized
// bookings checked against a per-picosecond count (seed printed). See models/cache/README.md.
#include "models/cache/core/capacity_timeline.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

using vgpu::cache::capacity_timeline;

namespace {
/// The reference search: the first t >= arrival at which fewer than capacity intervals are
/// counted at every picosecond of [t, t + length) (length 0 counts as 1).
std::uint64_t reference_first_room(const std::vector<unsigned>& count, unsigned capacity,
                                   std::uint64_t arrival, std::uint64_t length)
{
    length = std::max<std::uint64_t>(length, 1);
    std::uint64_t want = arrival;
    for (;;) {
        bool room = true;
        for (std::uint64_t k = want; k < want + length; ++k)
            if (count[k] >= capacity) {
                room = false;
                want = k + 1;
                break;
            }
        if (room)
            return want;
    }
}
} // namespace

TEST_CASE("capacity_timeline: a request waits only where every entry is taken")
{
    capacity_timeline t(2);
    CHECK(t.capacity() == 2);
    CHECK(t.book(0, 100));
    CHECK(t.book(50, 150));
    CHECK(t.in_use(0) == 1);
    CHECK(t.in_use(50) == 2);
    CHECK(t.in_use(99) == 2);
    CHECK(t.in_use(100) == 1);
    CHECK(t.in_use(150) == 0);
    // [60, 70) meets two bookings: full from 50 to 100, so the earliest start is 100.
    CHECK(t.earliest(60, 10, 0) == 100);
    // Before 50 only one entry is taken: 10 ps at 20 fit, 40 ps at 20 do not (they would
    // reach into [50, 100)).
    CHECK(t.earliest(20, 10, 0) == 20);
    CHECK(t.earliest(20, 40, 0) == 100);
    CHECK(t.earliest(150, 1000, 0) == 150);
    // Length 0 counts as one picosecond.
    CHECK(t.earliest(99, 0, 0) == 100);
    CHECK(t.earliest(49, 0, 0) == 49);
    CHECK_THROWS_AS(capacity_timeline(0), std::invalid_argument);
}

TEST_CASE("capacity_timeline: a lagging requester uses the time before bookings made ahead")
{
    // Two MSHRs. An initiator a quantum ahead booked both from 1000 to 1100; one behind at 500
    // needs an MSHR for 100 ps: both are free then (a ready-time model would make it wait
    // until 1100).
    capacity_timeline t(2);
    t.book(1000, 1100);
    t.book(1000, 1100);
    const auto r = t.reserve_for(500, 100, 400);
    CHECK(r.start == 500);
    CHECK(r.end == 600);
    // 450 ps from 700 would overlap the full stretch: it starts when an entry frees at 1100.
    CHECK(t.earliest(700, 450, 400) == 1100);
    CHECK(t.earliest(600, 400, 400) == 600); // [600, 1000) fits exactly
    // Three bookings over [1000, 1100) never happen: the capacity is never exceeded.
    const auto r2 = t.reserve_for(950, 100, 400);
    CHECK(r2.start == 1100);
    CHECK(t.overrun() == 0);
}

TEST_CASE("capacity_timeline: provisional reservations learn the hold and are trimmed")
{
    capacity_timeline t(1);
    CHECK(t.hold_estimate() == 0);
    // First miss at 10: nothing learnt yet, a zero-length provisional interval; its data
    // arrives at 60, so it holds [10, 60) and the estimate becomes 50.
    auto a = t.reserve(10, 0);
    CHECK(a.start == 10);
    CHECK(t.finish(a, 60));
    CHECK(a.end == 60);
    CHECK(t.hold_estimate() == 50);
    CHECK(t.in_use(59) == 1);
    // Second at 20: needs 50 ps free from its start, so it starts at 60 and holds [60, 110)
    // provisionally; it ends at 90, giving [90, 110) back.
    auto b = t.reserve(20, 0);
    CHECK(b.start == 60);
    CHECK(b.end == 110);
    CHECK(t.finish(b, 90));
    CHECK(t.in_use(89) == 1);
    CHECK(t.in_use(90) == 0);
    CHECK(t.hold_estimate() == 50);
    CHECK(t.earliest(90, 50, 0) == 90);
    // An end before the start is clamped to the start.
    auto c = t.reserve(200, 0);
    t.finish(c, 100);
    CHECK(c.end == 200);
    CHECK(t.in_use(200) == 0);
}

TEST_CASE("capacity_timeline: an extension into a full stretch is booked and counted")
{
    capacity_timeline t(1);
    t.book(100, 200); // booked ahead
    auto a = t.reserve(0, 0);
    CHECK(a.start == 0);
    auto b = a;
    CHECK(t.finish(b, 50)); // hold estimate 50
    // Another request learns that 50 ps are needed, fits in [50, 100), but lasts 100 ps: its
    // extension [100, 150) meets the booking ahead.
    auto c = t.reserve(50, 0);
    CHECK(c.start == 50);
    CHECK(c.end == 100);
    CHECK_FALSE(t.finish(c, 150));
    CHECK(t.overrun() == 50);
    CHECK(t.in_use(120) == 2);
    CHECK(t.hold_estimate() == 100);
    // A direct booking over a full stretch is counted the same way.
    CHECK_FALSE(t.book(180, 220));
    CHECK(t.overrun() == 70);
}

TEST_CASE("capacity_timeline: intervals that global time has passed are forgotten")
{
    capacity_timeline t(1);
    t.book(10, 20);
    t.book(30, 40);
    t.book(50, 60);
    CHECK(t.breakpoints() == 6);
    // Global time 35: [10, 20) is gone, [30, 40) still matters (its start folded into the
    // count at 35).
    CHECK(t.earliest(35, 5, 35) == 40);
    CHECK(t.breakpoints() == 3);
    CHECK(t.in_use(35) == 1);
    CHECK(t.earliest(60, 5, 70) == 60);
    CHECK(t.breakpoints() == 0);
    t.book(80, 90);
    t.clear();
    CHECK(t.breakpoints() == 0);
    CHECK(t.earliest(80, 5, 70) == 80);
}

TEST_CASE("capacity_timeline: randomized bookings against a per-picosecond count")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240707);
    std::cout << "capacity_timeline random test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned capacity : {1u, 3u}) {
        capacity_timeline t(capacity);
        std::vector<unsigned> count(60000, 0);
        std::uint64_t now = 0, overrun = 0;
        unsigned waited = 0, estimated = 0, overruns = 0;
        const auto first_room = [&](std::uint64_t arrival, std::uint64_t length) {
            return reference_first_room(count, capacity, arrival, length);
        };
        for (int n = 0; n < 3000; ++n) {
            // Global time creeps forward at a rate that keeps the resource about 90 % busy.
            now += rng() % (capacity == 1 ? 24 : 9);
            // Requesters up to 400 ps ahead of global time, in any call order.
            const std::uint64_t arrival = now + rng() % 400;
            std::uint64_t start = 0, end = 0;
            if (n % 2 == 0) { // a known length
                const std::uint64_t length = 1 + rng() % 20;
                const auto r = t.reserve_for(arrival, length, now);
                REQUIRE(r.start == first_room(arrival, length));
                start = r.start;
                end = r.end;
            } else {
                // Room for the estimate, then the real length (overruns counted past it).
                const std::uint64_t hold = t.hold_estimate();
                auto r = t.reserve(arrival, now);
                REQUIRE(r.start == first_room(arrival, hold));
                start = r.start;
                end = start + 1 + rng() % 20;
                std::uint64_t over = 0;
                for (std::uint64_t k = start + hold; k < end; ++k)
                    over += count[k] >= capacity;
                REQUIRE(t.finish(r, end) == (over == 0));
                REQUIRE(r.end == end);
                overrun += over;
                overruns += over > 0;
                estimated += end <= start + hold;
                REQUIRE(t.hold_estimate() == std::max(hold, end - start));
            }
            REQUIRE(end < count.size());
            waited += start > arrival;
            for (std::uint64_t k = start; k < end; ++k)
                ++count[k];
            for (std::uint64_t k = now; k < now + 400; ++k)
                REQUIRE(t.in_use(k) == count[k]);
        }
        CHECK(t.overrun() == overrun);
        CHECK(waited > 100);
        CHECK(estimated > 100);
        CHECK(overruns < 50);
        // Beyond capacity only where an interval outran its estimate.
        if (overrun == 0)
            CHECK(*std::max_element(count.begin(), count.end()) == capacity);
    }
}

TEST_CASE("capacity_timeline: long windows over many change points, against a per-picosecond "
          "count")
{
    // Room for a long interval is checked over every change point it spans, in blocks; a
    // change point may carry several starts or ends at once (times on a coarse grid here).
    // Searches for other lengths, without booking, check the search alone.
    const std::uint64_t seed = vgpu::test::seed_or(20240707) + 3;
    std::cout << "capacity_timeline long-window test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned capacity : {2u, 5u, 16u, 40u}) {
        INFO("capacity " << capacity);
        capacity_timeline t(capacity);
        std::vector<unsigned> count(400000, 0);
        std::uint64_t now = 0;
        unsigned waited = 0;
        const auto first_room = [&](std::uint64_t arrival, std::uint64_t length) {
            return reference_first_room(count, capacity, arrival, length);
        };
        const std::uint64_t grid = 1 + rng() % 4;
        for (int n = 0; n < 4000 && now < 300000; ++n) {
            now += grid * (rng() % (capacity <= 5 ? 6 : 2));
            const std::uint64_t arrival = now + grid * (rng() % 150);
            if (rng() % 4 == 0) { // a search alone
                const std::uint64_t length = 1 + rng() % 600;
                REQUIRE(t.earliest(arrival, length, now) == first_room(arrival, length));
                continue;
            }
            std::uint64_t start = 0, end = 0;
            if (rng() % 2) {
                const std::uint64_t length = grid * (1 + rng() % 100);
                const auto r = t.reserve_for(arrival, length, now);
                REQUIRE(r.start == first_room(arrival, length));
                start = r.start;
                end = r.end;
            } else {
                const std::uint64_t hold = t.hold_estimate();
                REQUIRE(t.earliest(arrival, hold, now) == first_room(arrival, hold));
                auto r = t.reserve(arrival, now);
                REQUIRE(r.start == first_room(arrival, hold));
                start = r.start;
                end = start + grid * (rng() % 100);
                std::uint64_t over = 0;
                for (std::uint64_t k = std::max(start, start + hold); k < end; ++k)
                    over += count[k] >= capacity;
                REQUIRE(t.finish(r, end) == (over == 0));
            }
            REQUIRE(end < count.size());
            waited += start > arrival;
            for (std::uint64_t k = start; k < end; ++k)
                ++count[k];
            if (n % 50 == 0)
                for (std::uint64_t k = now; k < now + 2000; ++k)
                    REQUIRE(t.in_use(k) == count[k]);
        }
        CHECK(waited > 100);
    }
}

TEST_CASE("capacity_timeline: searches over runs of starts and stacked starts, against a "
          "per-picosecond count")
{
    // Intervals booked directly (book(), no search, the count may exceed capacity) in runs of
    // consecutive starts, several at one time now and then: a window may climb to capacity
    // within a few change points from far below it.
    const std::uint64_t seed = vgpu::test::seed_or(20240707) + 4;
    std::cout << "capacity_timeline runs-of-starts test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 40; ++round) {
        const unsigned capacity = 1 + static_cast<unsigned>(rng() % 24);
        const bool stacks = round % 2 == 1; // else every change point is +1 or -1
        INFO("round " << round << " capacity " << capacity);
        capacity_timeline t(capacity);
        std::vector<unsigned> count(20000, 0);
        const auto first_room = [&](std::uint64_t arrival, std::uint64_t length) {
            return reference_first_room(count, capacity, arrival, length);
        };
        std::uint64_t now = 0;
        for (int n = 0; n < 300; ++n) {
            if (rng() % 3 == 0) { // a run of starts, some stacked, ending anywhere later
                std::uint64_t s = now + rng() % 3000;
                const unsigned run = 1 + static_cast<unsigned>(rng() % (2 * capacity + 2));
                for (unsigned k = 0; k < run; ++k) {
                    const std::uint64_t e = s + 1 + rng() % 2000;
                    const unsigned stack = stacks && rng() % 5 == 0 ? 2 + rng() % 3 : 1;
                    for (unsigned m = 0; m < stack; ++m) {
                        t.book(s, e);
                        for (std::uint64_t x = s; x < e; ++x)
                            ++count[x];
                    }
                    s += 1 + rng() % 3;
                }
            }
            now += rng() % 20;
            const std::uint64_t arrival = now + rng() % 3000;
            const std::uint64_t length = 1 + rng() % 800;
            REQUIRE(t.earliest(arrival, length, now) == first_room(arrival, length));
        }
    }
}

TEST_CASE("capacity_timeline: back-to-back bookings in and out of time order, against a "
          "per-picosecond count and a count of live intervals")
{
    // Requests that start where an earlier interval ends cancel change points (the live count's
    // hand-over, see capacity_timeline.h); the live count must never fall below the intervals
    // that have not ended, or the "room everywhere" shortcut would answer wrongly.
    const std::uint64_t seed = vgpu::test::seed_or(20240707) + 5;
    std::cout << "capacity_timeline back-to-back test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (const bool in_order : {true, false}) {
        for (unsigned capacity : {1u, 2u, 4u}) {
            INFO("in_order " << in_order << " capacity " << capacity);
            capacity_timeline t(capacity);
            std::vector<unsigned> count(40000, 0);
            std::vector<std::uint64_t> ends; // of every interval booked
            std::uint64_t now = 0, last_arrival = 0;
            unsigned waited = 0;
            for (int n = 0; n < 2500; ++n) {
                now += rng() % (in_order ? 6 : 4);
                // In order: arrivals never go back. Out of order: up to 300 ps ahead of global
                // time in any order.
                std::uint64_t arrival = now + rng() % 300;
                if (in_order)
                    arrival = last_arrival = std::max(last_arrival, now + rng() % 8);
                std::uint64_t start = 0, end = 0;
                if (n % 3 != 0) {
                    const std::uint64_t length = 1 + rng() % 12;
                    const auto r = t.reserve_for(arrival, length, now);
                    REQUIRE(r.start == reference_first_room(count, capacity, arrival, length));
                    start = r.start;
                    end = r.end;
                } else {
                    const std::uint64_t hold = t.hold_estimate();
                    auto r = t.reserve(arrival, now);
                    REQUIRE(r.start == reference_first_room(count, capacity, arrival, hold));
                    start = r.start;
                    end = start + 1 + rng() % 12;
                    std::uint64_t over = 0;
                    for (std::uint64_t k = start + hold; k < end; ++k)
                        over += count[k] >= capacity;
                    REQUIRE(t.finish(r, end) == (over == 0));
                }
                REQUIRE(end < count.size());
                waited += start > arrival;
                for (std::uint64_t k = start; k < end; ++k)
                    ++count[k];
                ends.push_back(end);
                const auto live = static_cast<std::size_t>(std::count_if(
                    ends.begin(), ends.end(), [&](std::uint64_t e) { return e > now; }));
                REQUIRE(t.live() >= live);
                for (std::uint64_t k = now; k < now + 300; ++k)
                    REQUIRE(t.in_use(k) == count[k]);
            }
            CHECK(waited > 100);
            // Global time past every end: nothing is live.
            const std::uint64_t last = *std::max_element(ends.begin(), ends.end());
            CHECK(t.earliest(last, 1, last) == last);
            CHECK(t.live() == 0);
            CHECK(t.breakpoints() == 0);
        }
    }
}
