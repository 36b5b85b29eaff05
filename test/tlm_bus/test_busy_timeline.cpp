// Unit tests of fast-mode occupancy booking. See tlm_bus/busy_timeline.h.
#include "test/seed.h"
#include "test/tlm_bus/busy_timeline_reference.h"
#include "tlm_bus/busy_timeline.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using vgpu::tlm_bus::busy_timeline;

TEST_CASE("requests in time order queue back to back")
{
    busy_timeline t;
    CHECK(t.reserve(0, 10, 0).finish == 10);
    CHECK(t.reserve(0, 10, 0).start == 10);
    const auto b = t.reserve(5, 10, 0);
    CHECK(b.start == 20);
    CHECK(b.finish == 30);
    CHECK(t.reserve(100, 10, 0).start == 100); // idle gap: starts on arrival
    CHECK(t.busy_until() == 110);
}

TEST_CASE("an early request booked after a late one uses the free time before it")
{
    busy_timeline t;
    CHECK(t.reserve(1000, 10, 0).start == 1000); // a decoupled initiator far ahead
    CHECK(t.reserve(0, 10, 0).start == 0);       // an earlier arrival is not queued behind it
    const auto a = t.reserve(995, 10, 0);        // [995, 1000) then [1010, 1015)
    CHECK(a.start == 995);
    CHECK(a.finish == 1015);
    const auto b = t.reserve(985, 20, 0); // [985, 995) then [1015, 1025)
    CHECK(b.start == 985);
    CHECK(b.finish == 1025);
    CHECK(t.intervals() == 2); // [0, 10) and [985, 1025)
}

TEST_CASE("a small gap carries part of a transfer: nothing is wasted, nothing overlaps")
{
    busy_timeline t;
    t.reserve(0, 10, 0);  // [0, 10)
    t.reserve(13, 10, 0); // [13, 23)
    const auto b = t.reserve(0, 8, 0);
    CHECK(b.start == 10);
    CHECK(b.finish == 28); // 3 ps in [10, 13), 5 ps in [23, 28)
    CHECK(t.intervals() == 1);
    CHECK(t.busy_until() == 28);
}

TEST_CASE("intervals that ended before now are forgotten, and only those")
{
    busy_timeline t;
    for (int i = 0; i < 100; ++i)
        t.reserve(static_cast<std::uint64_t>(i) * 10, 10, 0);
    CHECK(t.intervals() == 1); // all touching: one merged interval [0, 1000)
    t.reserve(5000, 10, 0);
    CHECK(t.intervals() == 2);
    t.reserve(6000, 10, 999);
    CHECK(t.intervals() == 3); // [0, 1000) has not ended at now = 999: kept
    t.reserve(7000, 10, 2000);
    CHECK(t.intervals() == 3); // forgotten at now = 2000
}

TEST_CASE("a lagging request never reuses time booked by one ahead of it")
{
    busy_timeline t;
    for (std::uint64_t i = 0; i < 1000; ++i)
        t.reserve(i * 100, 10, 0); // 1000 disjoint bookings, none forgotten (now = 0)
    CHECK(t.intervals() == 1000);
    // A request arriving at 0 that needs 95 ps gets the 90 free picoseconds before 100 plus
    // 5 after the booking [100, 110).
    const auto b = t.reserve(5, 95, 0);
    CHECK(b.start == 10);
    CHECK(b.finish == 115);
}

TEST_CASE("compaction beyond max_intervals fills the oldest gaps: serves less, never more")
{
    busy_timeline t;
    const std::uint64_t n = busy_timeline::max_intervals + 10;
    for (std::uint64_t i = 0; i < n; ++i)
        t.reserve(i * 100, 10, 0);
    CHECK(t.intervals() == busy_timeline::max_intervals);
    CHECK(t.lost_ps() == 10 * 90);
    // The filled gaps are no longer free: a request at 0 waits past them.
    // The first 11 bookings became one interval [0, 1010): a request at 0 waits past it.
    CHECK(t.reserve(0, 10, 0).start == 1010);
}

TEST_CASE("random bookings never overlap, never start before arrival, and sum to occupancy")
{
    const unsigned seed = 20261123;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    busy_timeline t;
    std::vector<char> used(40000, 0);
    std::uint64_t total = 0;
    for (int i = 0; i < 500; ++i) {
        const std::uint64_t arrival = rng() % 20000, occ = 1 + rng() % 50;
        const auto before = used;
        const auto b = t.reserve(arrival, occ, 0);
        REQUIRE(b.start >= arrival);
        REQUIRE(b.finish >= b.start + occ);
        total += occ;
        // Reference: the free picoseconds from arrival on, first come first filled.
        std::uint64_t need = occ, p = arrival, last = 0;
        bool first = true;
        while (need > 0) {
            if (!used[p]) {
                if (first)
                    REQUIRE(b.start == p);
                first = false;
                used[p] = 1;
                last = p;
                --need;
            }
            ++p;
        }
        REQUIRE(b.finish == last + 1);
    }
    std::uint64_t busy = 0;
    for (char c : used)
        busy += c;
    REQUIRE(busy == total);
}

TEST_CASE("random bookings with global time advancing match the free-picosecond reference")
{
    // Requests never arrive before global time, so forgetting what ended by then changes no
    // answer: every booking is the reference's first free picoseconds from its arrival.
    const unsigned seed = 20261124;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    busy_timeline t;
    std::vector<char> used(200000, 0);
    std::uint64_t now = 0;
    for (int i = 0; i < 5000; ++i) {
        if (rng() % 4 == 0)
            now += rng() % 40;
        const std::uint64_t arrival = now + rng() % 400, occ = 1 + rng() % 30;
        const auto b = t.reserve(arrival, occ, now);
        std::uint64_t need = occ, p = arrival, start = 0, last = 0;
        bool first = true;
        while (need > 0) {
            if (!used[p]) {
                if (first)
                    start = p;
                first = false;
                used[p] = 1;
                last = p;
                --need;
            }
            ++p;
        }
        REQUIRE(b.start == start);
        REQUIRE(b.finish == last + 1);
        // Everything still remembered ends after now.
        REQUIRE((t.intervals() == 0 || t.busy_until() > now));
    }
    CHECK(t.intervals() < 200); // old intervals were forgotten, not kept
}

namespace {
/// One randomized run against the reference (the former sorted-vector timeline): every booking's
/// start and finish, and the remembered intervals, latest end and lost time after it, equal.
/// `spread`: how far past global time arrivals fall; `advance`: 1 in advance calls moves global
/// time (0: never, so nothing is forgotten and compaction starts past max_intervals).
void compare_with_reference(std::uint64_t seed, int calls, std::uint64_t spread, unsigned advance)
{
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    busy_timeline t;
    vgpu::test::reference_timeline ref;
    std::uint64_t now = 0;
    for (int i = 0; i < calls; ++i) {
        if (advance && rng() % advance == 0)
            now += rng() % (spread / 4 + 1);
        // Arrivals: mostly among the latest bookings, some far behind them (an SM late in its
        // quantum), some far ahead; occupancies of a flit to a few lines, now and then none.
        std::uint64_t arrival = now;
        switch (rng() % 4) {
        case 0:
            arrival += spread - rng() % (spread / 8 + 1);
            break;
        case 1:
            arrival += rng() % (spread / 16 + 1);
            break;
        default:
            arrival += rng() % (spread + 1);
            break;
        }
        const std::uint64_t occ = rng() % 16 == 0 ? 0 : 1 + rng() % (rng() % 2 ? 8 : 2000);
        INFO("call " << i << " arrival " << arrival << " occupancy " << occ << " now " << now);
        const auto b = t.reserve(arrival, occ, now);
        const auto r = ref.reserve(arrival, occ, now);
        REQUIRE(b.start == r.start);
        REQUIRE(b.finish == r.finish);
        REQUIRE(t.intervals() == ref.intervals());
        REQUIRE(t.busy_until() == ref.busy_until());
        REQUIRE(t.lost_ps() == ref.lost_ps());
    }
}
} // namespace

TEST_CASE("random bookings match the sorted-vector reference, call for call")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261203);
    // Global time advancing (what the simulator does), narrow and wide windows of arrivals.
    compare_with_reference(seed, 40000, 3000, 3);
    compare_with_reference(seed + 1, 40000, 200000, 5);
    compare_with_reference(seed + 2, 20000, 50, 2);
}

TEST_CASE("random bookings past max_intervals compact as the reference does")
{
    // Global time never moves: nothing is forgotten, the timeline fills past max_intervals and
    // its oldest gaps are filled, with the same lost time at every step.
    const std::uint64_t seed = vgpu::test::seed_or(20261204);
    compare_with_reference(seed, 12000, 10000000, 0);
}
