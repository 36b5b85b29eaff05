// Unit test of vgpu::cache::cache_controller's fast-mode lookup against its accurate-mode
// lookup on a line with a fill in flight (one MSHR entry per line in both modes).
// See models/cache/README.md ("One MSHR entry per line").
#include "models/cache/core/cache_controller.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

using vgpu::cache::cache_controller;
using vgpu::cache::controller_params;
using vgpu::cache::index_kind;
using vgpu::cache::write_policy;
using outcome = cache_controller::outcome;

namespace {
controller_params params(unsigned sets, unsigned ways, unsigned line, unsigned mshrs,
                         write_policy policy, index_kind index, unsigned sector)
{
    controller_params p;
    p.sets = sets;
    p.ways = ways;
    p.line_bytes = line;
    p.sector_bytes = sector;
    p.mshrs = mshrs;
    p.policy = policy;
    p.index = index;
    return p;
}
} // namespace

TEST_CASE("controller, fast mode: a line with a fill in flight is busy for every sector, as in "
          "accurate mode")
{
    // 8 sets x 2 ways of 64-byte lines in 4 sectors of 16 bytes, 4 MSHRs, write-back (the LLC).
    // A fetch below takes 100 ps. Requests, in time order:
    //   A at 10 needs sector 0 (absent line), B at 50 sector 0, C at 60 sector 1,
    //   E at 150 sector 0.
    // The reference is the accurate-mode controller (lookup against the MSHR table), stepped
    // by hand in time order; the fast-mode lookup_at must give the same outcomes, the same
    // times and the same counts.
    const auto p = params(8, 2, 64, 4, write_policy::write_back_allocate, index_kind::modulo, 16);
    std::vector<std::uint8_t> data(64, 3);
    const std::uint64_t below = 100;

    // --- reference: accurate mode ---
    cache_controller acc(p);
    cache_controller::request ra, rb, rc, re;
    REQUIRE(acc.lookup(0x000, 0x1, ra) == outcome::miss); // at 10: A's fill until 110
    acc.allocate(0x000);
    REQUIRE(acc.lookup(0x000, 0x1, rb) == outcome::merge); // at 50
    REQUIRE(acc.lookup(0x010, 0x2, rc) == outcome::merge); // at 60: the line is busy
    acc.fill(0x000, data.data(), ra.fetch);                // at 110: A's data
    acc.finish_miss(0x000);
    REQUIRE(acc.lookup(0x000, 0x1, rb) == outcome::hit); // B is served at 110
    const std::uint64_t b_acc = 10 + below;
    REQUIRE(acc.lookup(0x010, 0x2, rc) == outcome::miss); // C issues at 110, fill until 210
    CHECK(rc.fetch == 0x2);
    const std::uint64_t c_issue_acc = b_acc;
    REQUIRE(acc.lookup(0x000, 0x1, re) == outcome::merge); // at 150: busy with C's fill
    acc.fill(0x000, data.data(), rc.fetch);                // at 210
    acc.finish_miss(0x000);
    REQUIRE(acc.lookup(0x000, 0x1, re) == outcome::hit); // E is served at 210
    const std::uint64_t e_acc = c_issue_acc + below;

    // --- fast mode, the same requests in the same (time) order ---
    cache_controller fast(p);
    auto t = fast.lookup_at(0x000, 0x1, 10); // A
    REQUIRE(t.result == outcome::miss);
    CHECK(t.busy_until == 0);
    fast.allocate(0x000);
    fast.fill(0x000, data.data(), t.fetch);
    fast.array().set_ready(0x000, t.fetch, 10 + below, 10);
    t = fast.lookup_at(0x000, 0x1, 50); // B
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == b_acc);
    t = fast.lookup_at(0x010, 0x2, 60); // C: a sector A does not fetch
    REQUIRE(t.result == outcome::miss);
    CHECK(t.fetch == 0x2);
    CHECK(t.busy_until == c_issue_acc); // not 60: the line's MSHR entry is A's until 110
    const std::uint64_t c_issue = std::max<std::uint64_t>(60, t.busy_until);
    fast.fill(0x000, data.data(), t.fetch);
    fast.array().set_ready(0x000, t.fetch, c_issue + below, 60);
    t = fast.lookup_at(0x000, 0x1, 150); // E: sector 0 arrived at 110, C's fill in flight
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == e_acc);
    t = fast.lookup_at(0x000, 0x1, 250); // after every fill: a hit
    CHECK(t.result == outcome::hit);
    CHECK(t.ready == 250);
    REQUIRE(acc.lookup(0x000, 0x1, ra) == outcome::hit); // the same hit, for the counts

    CHECK(fast.counts().hits == acc.counts().hits);
    CHECK(fast.counts().merges == acc.counts().merges);
    CHECK(fast.counts().misses == acc.counts().misses);
    CHECK(fast.counts().sector_misses == acc.counts().sector_misses);
    CHECK(acc.counts().merges == 3);

    // A request earlier than the fill's request (booked ahead, reaching the cache later) does
    // not find the line busy: at 5, neither fill had been asked for.
    t = fast.lookup_at(0x020, 0x4, 5);
    REQUIRE(t.result == outcome::miss);
    CHECK(t.busy_until == 0);
}
