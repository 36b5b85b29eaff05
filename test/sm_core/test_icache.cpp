// Instruction cache core: geometry, hits and misses, LRU, fills in flight shared by warps,
// tagged next-line prefetch. See models/sm/README.md.
#include "models/sm/core/icache.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <vector>

using namespace vgpu::sm;
using kind = icache::outcome;

namespace {
constexpr unsigned line = 64;
/// Address of line i of set s in a cache of `sets` sets (line i of the set: i-th alias).
std::uint64_t addr(unsigned s, unsigned i, unsigned sets)
{
    return (std::uint64_t{i} * sets + s) * line;
}
} // namespace

TEST_CASE("icache geometry: capacity in whole sets of ways lines, bad shapes refused")
{
    const icache a(16 * 1024, 64, 4);
    CHECK(a.sets() == 64u); // 256 lines / 4 ways
    CHECK(a.ways() == 4u);
    CHECK(a.line_bytes() == 64u);
    CHECK(a.line_of(0x1234) == 0x1200u);
    CHECK(icache(1000, 64, 4).sets() == 3u); // 15 lines: 3 sets of 4, 3 lines unused
    CHECK(icache(10, 64, 1).sets() == 1u);   // less than a line: one line
    CHECK_THROWS_AS(icache(1024, 48, 4), std::invalid_argument);
    CHECK_THROWS_AS(icache(1024, 64, 0), std::invalid_argument);
    CHECK_THROWS_AS(icache(128, 64, 4), std::invalid_argument); // 2 lines, 4 ways
}

TEST_CASE("icache: a miss is in flight until filled, then hits from its arrival cycle")
{
    icache c(1024, line, 2);
    const auto m = c.access(0x1010, 0);
    CHECK(m.kind == kind::miss);
    CHECK(m.ready == icache::unknown);
    CHECK(m.prefetch_next);
    CHECK(c.fills() == 1u);
    // A second warp at cycle 3 waits for the same fill, whose arrival is not known yet.
    auto w = c.access(0x1030, 3);
    CHECK(w.kind == kind::in_flight);
    CHECK(w.ready == icache::unknown);
    CHECK(!w.prefetch_next); // a demand fill: its next line was prefetched by the miss
    c.filled(0x1000, 101);
    std::uint64_t ready = 0;
    REQUIRE(c.in_flight(0x1000, ready));
    CHECK(ready == 101u);
    w = c.access(0x1000, 50);
    CHECK(w.kind == kind::in_flight);
    CHECK(w.ready == 101u);
    CHECK(!c.present(0x1000));
    const auto h = c.access(0x1000, 101);
    CHECK(h.kind == kind::hit);
    CHECK(!h.prefetch_next);
    CHECK(c.present(0x1000));
    CHECK(c.fills() == 0u);
    CHECK(c.access(0x103c, 200).kind == kind::hit); // any address of the line
}

TEST_CASE("icache: LRU replaces the least recently used line of the set")
{
    icache c(4 * line * 2, line, 2); // 4 sets of 2 ways
    REQUIRE(c.sets() == 4u);
    const auto a = addr(1, 0, 4), b = addr(1, 1, 4), d = addr(1, 2, 4), other = addr(2, 0, 4);
    for (const auto x : {a, b, other}) {
        REQUIRE(c.access(x, 0).kind == kind::miss);
        c.filled(x, 10);
    }
    CHECK(c.access(a, 10).kind == kind::hit);
    CHECK(c.access(b, 11).kind == kind::hit);
    CHECK(c.access(a, 12).kind == kind::hit); // b is now the least recently used of set 1
    REQUIRE(c.access(d, 13).kind == kind::miss);
    c.filled(d, 20);
    CHECK(c.access(other, 20).kind == kind::hit); // installs d in set 1, evicting b
    CHECK(c.present(a));
    CHECK(!c.present(b));
    CHECK(c.present(d));
    CHECK(c.access(b, 21).kind == kind::miss);
    c.filled(b, 30);
    CHECK(c.access(d, 30).kind == kind::hit); // b evicts a (used at 12, before d)
    CHECK(!c.present(a));
    CHECK(c.present(b));
}

TEST_CASE("icache: fills that arrived are installed earliest first (LRU follows arrival)")
{
    icache c(line * 2, line, 2); // one set of 2 ways
    const auto x = addr(0, 0, 1), y = addr(0, 1, 1), z = addr(0, 2, 1);
    REQUIRE(c.access(x, 0).kind == kind::miss);
    REQUIRE(c.access(y, 0).kind == kind::miss);
    c.filled(y, 5); // y arrives first although requested second
    c.filled(x, 9);
    REQUIRE(c.access(z, 10).kind == kind::miss); // installs y, then x
    c.filled(z, 12);
    CHECK(c.prefetch(addr(0, 7, 1), 12)); // installs z over y, the older arrival
    CHECK(!c.present(y));
    CHECK(c.present(x));
    CHECK(c.present(z));
}

TEST_CASE("icache: tagged next-line prefetch on a miss and on a prefetched line's first use")
{
    icache c(16 * line, line, 4);
    REQUIRE(c.access(0, 0).prefetch_next);
    c.filled(0, 101);
    CHECK(c.prefetch(line, 1));
    CHECK(!c.prefetch(line, 1)); // already in flight
    CHECK(!c.prefetch(0, 1));    // in flight as a demand fill
    c.filled(line, 102);
    CHECK(!c.prefetch(0, 150)); // present
    // The first demand use of the prefetched line asks for the next one; later uses do not.
    auto r = c.access(line, 150);
    CHECK(r.kind == kind::hit);
    CHECK(r.prefetch_next);
    CHECK(!c.access(line, 151).prefetch_next);
    // A prefetch still in flight: the first warp that needs it waits and asks for the next.
    REQUIRE(c.prefetch(2 * line, 151));
    c.filled(2 * line, 252);
    r = c.access(2 * line, 160);
    CHECK(r.kind == kind::in_flight);
    CHECK(r.ready == 252u);
    CHECK(r.prefetch_next);
    r = c.access(2 * line, 161);
    CHECK(r.kind == kind::in_flight);
    CHECK(!r.prefetch_next);
    // Installed without the prefetch tag (it was used before it arrived).
    r = c.access(2 * line, 252);
    CHECK(r.kind == kind::hit);
    CHECK(!r.prefetch_next);
}

TEST_CASE("icache: a failed fill is dropped, so the next access misses again")
{
    icache c(16 * line, line, 4);
    REQUIRE(c.access(0x400, 0).kind == kind::miss);
    c.fill_failed(0x400);
    CHECK(c.fills() == 0u);
    CHECK(c.access(0x400, 1).kind == kind::miss);
    c.filled(0x400, 10);
    CHECK(c.access(0x400, 10).kind == kind::hit);
}

TEST_CASE("icache: invalidate drops present lines and keeps fills in flight")
{
    icache c(16 * line, line, 4);
    REQUIRE(c.access(0, 0).kind == kind::miss);
    c.filled(0, 5);
    REQUIRE(c.access(line, 0).kind == kind::miss);
    c.filled(line, 50);
    REQUIRE(c.access(0, 10).kind == kind::hit);
    c.invalidate();
    CHECK(!c.present(0));
    CHECK(c.access(0, 11).kind == kind::miss);
    CHECK(c.access(line, 12).kind == kind::in_flight);
    CHECK(c.access(line, 50).kind == kind::hit);
}

// icache::quiet() lets a cycle that runs on another host thread look a line up (docs/
// architecture.md, "Parallel simulation"): it must be true exactly when access() requests
// nothing (no miss, no prefetch) and installs nothing (no arrived fill retires).
TEST_CASE("icache: quiet() is true exactly when an access requests and installs nothing")
{
    const std::uint64_t seed = vgpu::test::seed_or(53);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    icache c(8 * line, line, 2); // 4 sets of 2: evictions happen
    std::uint64_t cycle = 0;
    std::vector<std::uint64_t> unfilled; // fills requested, arrival not reported yet
    unsigned quiet = 0, loud = 0;
    for (int step = 0; step < 20000; ++step) {
        cycle += rng() % 4;
        const std::uint64_t a = (rng() % 24) * line;
        switch (rng() % 4) {
        case 0: { // report a fill's arrival
            if (!unfilled.empty()) {
                const std::size_t k = rng() % unfilled.size();
                c.filled(unfilled[k], cycle + rng() % 40);
                unfilled.erase(unfilled.begin() + static_cast<std::ptrdiff_t>(k));
            }
            break;
        }
        case 1: // a prefetch
            if (c.prefetch(a, cycle))
                unfilled.push_back(a);
            break;
        default: { // a lookup, checked against quiet()
            const bool q = c.quiet(a, cycle);
            const unsigned fills = c.fills();
            const auto r = c.access(a, cycle);
            const bool requested = r.kind == kind::miss || r.prefetch_next;
            const bool installed = c.fills() < fills + (r.kind == kind::miss ? 1u : 0u);
            INFO("step " << step << " line " << a / line << " cycle " << cycle);
            CHECK(q == (!requested && !installed));
            (q ? quiet : loud) += 1;
            if (r.kind == kind::miss)
                unfilled.push_back(a);
            break;
        }
        }
    }
    CHECK(quiet > 1000); // both cases occur often
    CHECK(loud > 1000);
}
