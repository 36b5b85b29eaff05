// Unit tests of vgpu::cache::cache_controller: hand-made sequences, and randomized sequences
// of sectored requests checked against a map-based reference model (seed printed).
// See models/cache/README.md.
#include "models/cache/core/cache_controller.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

using vgpu::cache::cache_array;
using vgpu::cache::cache_controller;
using vgpu::cache::controller_params;
using vgpu::cache::index_kind;
using vgpu::cache::sector_cover;
using vgpu::cache::sector_mask;
using vgpu::cache::write_policy;
using outcome = cache_controller::outcome;

namespace {

controller_params params(unsigned sets, unsigned ways, unsigned line, unsigned mshrs,
                         write_policy policy, index_kind index = index_kind::modulo,
                         unsigned sector = 0, unsigned wb_entries = 0)
{
    controller_params p;
    p.sets = sets;
    p.ways = ways;
    p.line_bytes = line;
    p.sector_bytes = sector;
    p.mshrs = mshrs;
    p.policy = policy;
    p.index = index;
    p.wb_entries = wb_entries;
    return p;
}

const char* name(outcome o)
{
    switch (o) {
    case outcome::hit:
        return "hit";
    case outcome::merge:
        return "merge";
    case outcome::stall:
        return "stall";
    case outcome::miss:
        return "miss";
    }
    return "?";
}

} // namespace

TEST_CASE("controller: hit, miss, merge into a miss in flight, stall when MSHRs are full")
{
    // 4 sets x 2 ways of 64-byte lines (one sector each), 2 MSHRs, write-back.
    cache_controller c(params(4, 2, 64, 2, write_policy::write_back_allocate));
    cache_controller::request r1, r2, r3, r4;
    REQUIRE(c.lookup(0x1010, 1, r1) == outcome::miss); // claims an MSHR for line 0x1000
    REQUIRE(r1.fetch == 1);
    REQUIRE(c.busy(0x1000));
    REQUIRE(c.busy(0x103f));
    REQUIRE(c.misses_in_flight() == 1);
    REQUIRE(c.lookup(0x1020, 1, r2) == outcome::merge); // same line, fill in flight
    REQUIRE(c.lookup(0x1020, 1, r2) == outcome::merge); // asked again: counted once
    REQUIRE(c.lookup(0x2000, 1, r3) == outcome::miss);
    REQUIRE(c.lookup(0x3000, 1, r4) == outcome::stall); // both MSHRs busy
    REQUIRE(c.lookup(0x3000, 1, r4) == outcome::stall);
    REQUIRE(c.counts().misses == 2);
    REQUIRE(c.counts().sector_misses == 0);
    REQUIRE(c.counts().merges == 1);
    REQUIRE(c.counts().full_stalls == 1);

    // The fill of 0x1000 arrives: allocate (no victim), fill, serve, release.
    REQUIRE_FALSE(c.allocate(0x1000).valid);
    std::vector<std::uint8_t> line(64);
    for (unsigned i = 0; i < 64; ++i)
        line[i] = static_cast<std::uint8_t>(i);
    c.fill(0x1000, line.data(), 1);
    c.finish_miss(0x1000);
    REQUIRE_FALSE(c.busy(0x1000));
    REQUIRE(c.counts().fills == 1);
    REQUIRE(c.counts().filled_sectors == 1);
    // The merged request now hits but was counted as a merge, not a hit.
    REQUIRE(c.lookup(0x1020, 1, r2) == outcome::hit);
    REQUIRE(c.counts().hits == 0);
    std::uint32_t w = 0;
    c.read(0x1020, &w, 4);
    REQUIRE(w == 0x23222120u);
    // The stalled request gets the freed MSHR: counted as a miss once, the stall stays one.
    REQUIRE(c.lookup(0x3000, 1, r4) == outcome::miss);
    REQUIRE(c.counts().misses == 3);
    REQUIRE(c.counts().full_stalls == 1);
    cache_controller::request fresh;
    REQUIRE(c.lookup(0x1000, 1, fresh) == outcome::hit);
    REQUIRE(c.counts().hits == 1);
}

TEST_CASE("controller: sectors decide hits, sector misses fetch what is missing, pinning")
{
    // 4 sets x 2 ways of 128-byte lines in 4 sectors of 32 bytes; set = line number mod 4, so
    // 0x1000, 0x1200 and 0x1400 share set 0.
    cache_controller c(
        params(4, 2, 128, 2, write_policy::write_back_allocate, index_kind::modulo, 32));
    std::vector<std::uint8_t> img(128);
    for (unsigned i = 0; i < 128; ++i)
        img[i] = static_cast<std::uint8_t>(i + 1);

    // A 4-byte read at 0x1004 needs sector 0: a line miss fetches that sector only.
    cache_controller::request a;
    REQUIRE(c.lookup(0x1004, 0x1, a) == outcome::miss);
    CHECK(a.fetch == 0x1);
    c.allocate(0x1000);
    c.fill(0x1000, img.data(), a.fetch);
    c.finish_miss(0x1000);
    cache_controller::request b;
    CHECK(c.lookup(0x1010, 0x1, b) == outcome::hit);
    // Sector 2 is missing: a sector miss; the line stays resident and is pinned meanwhile.
    cache_controller::request s;
    REQUIRE(c.lookup(0x1040, 0x4, s) == outcome::miss);
    CHECK(s.fetch == 0x4);
    CHECK(c.counts().sector_misses == 1);
    // Sectors 0 and 2 needed, 0 valid: only sector 2 is fetched (a request waiting for it).
    cache_controller::request m;
    CHECK(c.lookup(0x101c, 0x5, m) == outcome::merge);
    // While pinned, 0x1000 is never the victim, even as the LRU line of its set.
    REQUIRE_FALSE(c.allocate(0x1200).valid);
    std::vector<std::uint8_t> zeros(128, 0);
    c.fill(0x1200, zeros.data(), 0xf);
    CHECK(c.allocate(0x1400).line_addr == 0x1200);
    c.fill(0x1000, img.data(), s.fetch);
    c.finish_miss(0x1000);
    CHECK(c.array().valid_sectors(0x1000) == 0x5);
    CHECK(c.lookup(0x101c, 0x5, m) == outcome::hit);
    std::uint8_t got = 0;
    c.read(0x1041, &got, 1);
    CHECK(got == 0x42);

    // Which sectors a run touches and which it covers whole.
    sector_cover cv;
    c.cover(cv, 0x1004, 8); // bytes 4..11
    CHECK(cv.touched == 0x1);
    CHECK(cv.whole == 0);
    c.cover(cv, 0x1020, 64); // bytes 32..95: sectors 1 and 2 whole
    CHECK(cv.touched == 0x7);
    CHECK(cv.whole == 0x6);
    CHECK(cv.partial() == 0x1);
    sector_cover line;
    c.cover(line, 0x2000, 128);
    CHECK(line.whole == 0xf);
    CHECK(line.partial() == 0);
    // A whole-line write needs no sector: its miss fetches nothing.
    cache_controller::request wr;
    REQUIRE(c.lookup(0x2000, line.partial(), wr) == outcome::miss);
    CHECK(wr.fetch == 0);
    c.finish_miss(0x2000);

    // The span of one read that brings the sectors to fetch.
    unsigned off = 0, bytes = 0;
    c.fetch_span(0x5, off, bytes);
    CHECK(off == 0);
    CHECK(bytes == 96);
    c.fetch_span(0x8, off, bytes);
    CHECK(off == 96);
    CHECK(bytes == 32);
    c.fetch_span(0, off, bytes);
    CHECK(bytes == 0);
}

TEST_CASE("controller, write-back: dirty victims wait in the write-back buffer, their lines "
          "busy")
{
    // One set of 2 ways of 64-byte lines in 4 sectors of 16 bytes; 2 MSHRs, 1 buffer entry.
    cache_controller c(
        params(1, 2, 64, 2, write_policy::write_back_allocate, index_kind::modulo, 16, 1));
    std::vector<std::uint8_t> zeros(64, 0);
    c.allocate(0x00);
    c.fill(0x00, zeros.data(), 0xf);
    const std::uint32_t v = 0xcafef00d;
    c.write(0x04, &v, 4); // write-back: sector 0 becomes dirty
    CHECK(c.array().dirty_sectors(0x00) == 0x1);
    c.allocate(0x40);
    c.fill(0x40, zeros.data(), 0xf);
    cache_controller::request r;
    REQUIRE(c.lookup(0x00, 0x1, r) == outcome::hit); // 0x00 most recently used: 0x40 is LRU
    CHECK_FALSE(c.array().victim_dirty(0x80));
    CHECK_FALSE(c.allocate(0x80).dirty); // 0x40 leaves, clean
    CHECK(c.array().victim_dirty(0xc0)); // now 0x00 is LRU
    const cache_array::victim dirty = c.allocate(0xc0);
    REQUIRE(dirty.line_addr == 0x00);
    REQUIRE(dirty.dirty_sectors == 0x1);
    CHECK(c.wb_in_use() == 0);
    const unsigned e = c.buffer_writeback(dirty);
    CHECK(e == 0);
    CHECK(c.wb_full());
    CHECK(c.counts().writebacks == 1);
    CHECK(c.counts().wb_sectors == 1);
    CHECK(c.writeback(e).line == 0x00);
    CHECK(c.writeback(e).dirty == 0x1);
    std::uint32_t back = 0;
    std::memcpy(&back, c.writeback(e).data + 4, 4);
    CHECK(back == v);
    CHECK(c.find_writeback(0x3c) == 0);
    CHECK(c.find_writeback(0x40) == -1);
    // Its line is busy: a request for it waits (merge) until the write has reached memory.
    cache_controller::request r2;
    CHECK(c.lookup(0x08, 0x1, r2) == outcome::merge);
    CHECK(c.misses_in_flight() == 0);
    CHECK_THROWS_AS(c.buffer_writeback(dirty), std::logic_error); // full
    // Debug writes reach the dirty sectors of the buffered copy only.
    const std::uint8_t x = 0x77;
    c.debug_write_buffered(0x05, &x, 1);
    c.debug_write_buffered(0x25, &x, 1);
    CHECK(c.writeback(e).data[5] == 0x77);
    CHECK(c.writeback(e).data[0x25] == 0);
    // A miss that waits for an entry counts one stall however often it asks.
    cache_controller::request w;
    c.count_wb_stall(w);
    c.count_wb_stall(w);
    CHECK(c.counts().wb_full_stalls == 1);
    c.end_writeback(e);
    CHECK_FALSE(c.wb_full());
    CHECK_FALSE(c.busy(0x00));
    CHECK(c.lookup(0x08, 0x1, r2) == outcome::miss);
    CHECK_THROWS_AS(c.end_writeback(e), std::logic_error);
}

TEST_CASE("controller, write-through: present lines updated clean, stale fills dropped")
{
    // 4 sets x 2 ways of 64-byte lines in 4 sectors of 16 bytes, 2 MSHRs.
    cache_controller wt(
        params(4, 2, 64, 2, write_policy::write_through_no_allocate, index_kind::modulo, 16));
    std::vector<std::uint8_t> zeros(64, 0), ones(64, 1);
    // A write below an absent line: nothing to update, nothing allocated.
    CHECK_FALSE(wt.wrote_below(0x100));
    CHECK_FALSE(wt.array().probe(0x100));
    // A present line is updated and stays clean.
    cache_controller::request r;
    REQUIRE(wt.lookup(0x200, 0xf, r) == outcome::miss);
    REQUIRE_FALSE(wt.complete_fill(0x200, zeros.data(), r.fetch).valid);
    wt.finish_miss(0x200);
    REQUIRE(wt.wrote_below(0x208));
    const std::uint8_t seven = 7;
    wt.write_valid(0x208, &seven, 1);
    CHECK_FALSE(wt.array().is_dirty(0x200));
    std::uint8_t got = 0;
    wt.read(0x208, &got, 1);
    CHECK(got == 7);
    // Only sector 0 of 0x280 resident: a write of sector 1 whole makes it valid; the bytes of a
    // write into invalid sector 2 are skipped.
    cache_controller::request r1;
    REQUIRE(wt.lookup(0x280, 0x1, r1) == outcome::miss);
    wt.complete_fill(0x280, ones.data(), r1.fetch);
    wt.finish_miss(0x280);
    REQUIRE(wt.wrote_below(0x290));
    sector_cover cv;
    wt.cover(cv, 0x290, 16);
    wt.array().set_valid(0x290, cv.whole);
    wt.write_valid(0x290, zeros.data(), 16);
    wt.write_valid(0x2a0, zeros.data(), 4);
    CHECK(wt.array().valid_sectors(0x280) == 0x3);
    wt.read(0x29f, &got, 1);
    CHECK(got == 0);
    // A write while the fill of its line is in flight: the fill serves its request but is not
    // installed (it may hold data older than memory).
    cache_controller::request r2;
    REQUIRE(wt.lookup(0x300, 0xf, r2) == outcome::miss);
    CHECK_FALSE(wt.wrote_below(0x310));
    CHECK_FALSE(wt.wrote_below(0x318)); // marked once
    CHECK_FALSE(wt.complete_fill(0x300, ones.data(), r2.fetch).valid);
    wt.finish_miss(0x300);
    CHECK_FALSE(wt.array().probe(0x300));
    CHECK(wt.counts().fills == 2);
    // The next fill of that line is installed again.
    cache_controller::request r3;
    REQUIRE(wt.lookup(0x300, 0xf, r3) == outcome::miss);
    wt.complete_fill(0x300, ones.data(), r3.fetch);
    wt.finish_miss(0x300);
    CHECK(wt.array().probe(0x300));
}

TEST_CASE("controller, write-through: a fill finds every way pinned and is not installed")
{
    // One set of 2 ways of 64-byte lines in 4 sectors of 16 bytes, 3 MSHRs.
    cache_controller c(
        params(1, 2, 64, 3, write_policy::write_through_no_allocate, index_kind::modulo, 16));
    std::vector<std::uint8_t> d(64, 5);
    for (std::uint64_t line : {0x000, 0x040}) {
        cache_controller::request r;
        REQUIRE(c.lookup(line, 0x1, r) == outcome::miss);
        c.complete_fill(line, d.data(), r.fetch);
        c.finish_miss(line);
    }
    // Sector misses on both lines pin them.
    cache_controller::request s0, s1, n;
    REQUIRE(c.lookup(0x010, 0x2, s0) == outcome::miss);
    REQUIRE(c.lookup(0x050, 0x2, s1) == outcome::miss);
    CHECK(c.counts().sector_misses == 2);
    REQUIRE(c.lookup(0x080, 0x1, n) == outcome::miss);
    CHECK_FALSE(c.can_allocate(0x080));
    CHECK_FALSE(c.complete_fill(0x080, d.data(), n.fetch).valid);
    CHECK_FALSE(c.array().probe(0x080));
    c.finish_miss(0x080);
    c.complete_fill(0x010, d.data(), s0.fetch);
    c.finish_miss(0x010);
    CHECK(c.array().valid_sectors(0x000) == 0x3);
    CHECK(c.can_allocate(0x080)); // 0x000 is no longer pinned
    CHECK(c.counts().fills == 3);
}

TEST_CASE("controller, fast mode: merges at the latest arrival, MSHRs and buffer entries as "
          "intervals")
{
    // 8 sets x 2 ways of 64-byte lines in 4 sectors of 16 bytes, 2 MSHRs, write-through.
    cache_controller c(
        params(8, 2, 64, 2, write_policy::write_through_no_allocate, index_kind::modulo, 16));
    std::vector<std::uint8_t> data(64, 0);
    // Miss A at tag time 10: no MSHR busy, issue at 10; its sector 0 arrives at 100.
    auto t = c.lookup_at(0x000, 0x1, 10);
    REQUIRE(t.result == outcome::miss);
    CHECK(t.fetch == 0x1);
    auto m = c.begin_fast_miss(10, true, 0, 0);
    CHECK(m.issue == 10);
    c.complete_fill(0x000, data.data(), t.fetch);
    c.array().set_ready(0x000, t.fetch, 100);
    c.end_fast_miss(m, 100, 0); // holds an MSHR over [10, 100)
    CHECK(c.fast_mshrs().hold_estimate() == 90);
    // Miss B at 20: one MSHR is free over [20, 110): issue at 20, arrives at 120.
    REQUIRE(c.lookup_at(0x040, 0x1, 20).result == outcome::miss);
    m = c.begin_fast_miss(20, true, 0, 0);
    CHECK(m.issue == 20);
    c.complete_fill(0x040, data.data(), 0x1);
    c.array().set_ready(0x040, 0x1, 120);
    c.end_fast_miss(m, 120, 0); // [20, 120); estimate 100
    // A at 50: sector 0 valid, arriving at 100 -> merge, ready 100; at 150 -> hit.
    t = c.lookup_at(0x004, 0x1, 50);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 100);
    t = c.lookup_at(0x004, 0x1, 150);
    CHECK(t.result == outcome::hit);
    CHECK(t.ready == 150);
    // Sector 1 of A's line is missing: a sector miss; with sector 0 also needed, it completes
    // no earlier than sector 0's arrival.
    t = c.lookup_at(0x00c, 0x3, 70);
    CHECK(t.result == outcome::miss);
    CHECK(t.fetch == 0x2);
    CHECK(t.ready == 100);
    // Its MSHR: at 70 both are taken ([10, 100) and [20, 120)); it needs 100 ps from its
    // issue, and one frees at 100: issue at 100, one full stall.
    m = c.begin_fast_miss(70, true, 0, 0);
    CHECK(m.issue == 100);
    CHECK(c.counts().full_stalls == 1);
    c.end_fast_miss(m, 180, 0);
    CHECK(c.fast_mshrs().in_use(150) == 1);
    CHECK(c.counts().hits == 1);
    // The request at 50 merged; the sector miss at 70 found the line's fill in flight (until
    // 100): it waited for it (a merge) before it missed, as in accurate mode.
    CHECK(c.counts().merges == 2);
    CHECK(c.counts().misses == 3);
    CHECK(c.counts().sector_misses == 1);

    // Write-back: one buffer entry. A dirty victim holds it from the issue until its write has
    // landed; the next dirty victim's miss waits for it, a clean one does not.
    cache_controller wb(
        params(8, 2, 64, 4, write_policy::write_back_allocate, index_kind::modulo, 16, 1));
    auto m1 = wb.begin_fast_miss(0, true, 0x3, 0);
    CHECK(m1.issue == 0);
    wb.end_fast_miss(m1, 50, 80); // MSHR [0, 50), entry [0, 80)
    CHECK(wb.counts().writebacks == 1);
    CHECK(wb.counts().wb_sectors == 2);
    auto m2 = wb.begin_fast_miss(10, true, 0x1, 0);
    CHECK(m2.issue == 80); // the entry needs 80 ps free: from 80
    CHECK(wb.counts().wb_full_stalls == 1);
    CHECK(wb.counts().full_stalls == 0);
    wb.end_fast_miss(m2, 130, 200);                  // entry [80, 200): estimate 120
    auto m3 = wb.begin_fast_miss(20, false, 0x1, 0); // a whole-line write: no MSHR
    CHECK(m3.issue == 200);
    CHECK_FALSE(m3.has_mshr);
    auto m4 = wb.begin_fast_miss(20, true, 0, 0); // clean victim: only an MSHR
    CHECK(m4.issue == 20);
    CHECK(wb.counts().wb_full_stalls == 2);
    // A fetch of a line must wait for its buffered write-back to land.
    wb.note_writeback(0x40, 80, 0);
    wb.note_writeback(0x40, 60, 0);
    CHECK(wb.writeback_done(0x44) == 80);
    CHECK(wb.writeback_done(0x80) == 0);
}

TEST_CASE("controller, fast mode: a request merges only with a fill asked for at or before its "
          "time")
{
    // 8 sets x 2 ways of 64-byte lines in 4 sectors of 16 bytes, 4 MSHRs, write-back (the LLC).
    cache_controller c(
        params(8, 2, 64, 4, write_policy::write_back_allocate, index_kind::modulo, 16));
    std::vector<std::uint8_t> data(64, 7);
    // A, booked ahead, misses sector 0 at tag time 1000 (asked then); its data arrives at 1300.
    auto t = c.lookup_at(0x000, 0x1, 1000);
    REQUIRE(t.result == outcome::miss);
    CHECK(t.early == 0);
    c.allocate(0x000);
    c.fill(0x000, data.data(), t.fetch);
    c.array().set_ready(0x000, t.fetch, 1300, 1000);
    // A request at 1100 (after A asked): a merge that completes at A's arrival.
    t = c.lookup_at(0x004, 0x1, 1100);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 1300);
    // B at 200 (earlier in simulated time, reaching the cache later): A's fill was not in flight
    // at B's time, so B misses sector 0 itself (early), and its ready ignores A's arrival.
    t = c.lookup_at(0x008, 0x3, 200);
    REQUIRE(t.result == outcome::miss);
    CHECK(t.early == 0x1);
    CHECK(t.fetch == 0x3); // sector 1 is not valid, sector 0 is early
    CHECK(t.ready == 200);
    CHECK(c.counts().sector_misses == 1);
    // B's fetch brings sector 0 at 500, asked at 200: the sector keeps the earlier arrival and
    // request; a request at 300 now merges with B's fill, one at 100 is still early.
    c.array().advance_ready(0x000, t.early, 500, 200);
    c.fill(0x000, data.data(), 0x2); // the sector it lacked is installed
    c.array().set_ready(0x000, 0x2, 500, 200);
    CHECK(c.array().ready(0x000, 0x1) == 500);
    t = c.lookup_at(0x000, 0x1, 300);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 500);
    CHECK(c.lookup_at(0x000, 0x1, 100).early == 0x1);
    // A later fetch never delays a sector: advance_ready keeps the earlier arrival.
    c.array().advance_ready(0x000, 0x1, 900, 150);
    CHECK(c.array().ready(0x000, 0x1) == 500);
    // Once a sector has arrived, it is a hit for any request at or after its arrival.
    t = c.lookup_at(0x000, 0x3, 600);
    CHECK(t.result == outcome::hit);

    // Without request times (set_ready's default, the L1's fills) the rule never applies: a
    // request earlier than the fill merges with it as before.
    cache_controller l1(
        params(8, 2, 64, 2, write_policy::write_through_no_allocate, index_kind::modulo, 16));
    REQUIRE(l1.lookup_at(0x000, 0x1, 1000).result == outcome::miss);
    l1.complete_fill(0x000, data.data(), 0x1);
    l1.array().set_ready(0x000, 0x1, 1300);
    t = l1.lookup_at(0x000, 0x1, 200);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 1300);
    CHECK(t.early == 0);
}

TEST_CASE("controller: line buffers, two per MSHR, and bad parameters")
{
    cache_controller wt(params(4, 2, 32, 3, write_policy::write_through_no_allocate));
    std::vector<std::uint8_t*> got;
    for (std::uint8_t* b = wt.take_buffer(); b; b = wt.take_buffer())
        got.push_back(b);
    CHECK(got.size() == 6); // two per MSHR
    std::set<std::uint8_t*> distinct(got.begin(), got.end());
    CHECK(distinct.size() == 6);
    std::memset(got[0], 0xab, 32); // each is a whole line
    wt.give_buffer(got[1]);
    CHECK(wt.take_buffer() == got[1]);
    cache_controller wb(params(4, 2, 32, 3, write_policy::write_back_allocate));
    unsigned n = 0;
    while (wb.take_buffer())
        ++n;
    CHECK(n == 6);

    CHECK_THROWS_WITH(cache_controller(params(4, 2, 32, 0, write_policy::write_back_allocate)),
                      Catch::Contains("mshrs must be at least 1"));
    CHECK_THROWS_WITH(cache_controller(params(3, 2, 32, 1, write_policy::write_back_allocate)),
                      Catch::Contains("power of two"));
    CHECK_THROWS_AS(cache_controller(params(4, 2, 48, 1, write_policy::write_back_allocate)),
                    std::invalid_argument);
    CHECK_THROWS_AS(cache_controller(params(4, 2, 64, 1, write_policy::write_back_allocate,
                                            index_kind::modulo, 24)),
                    std::invalid_argument);
}

namespace {

/// Independent model of the controller: per set a list of lines (most recently used first)
/// with their valid and dirty sectors; sets found by its own index computation; plain sets
/// for lines in flight, buffered write-backs and stale fills.
struct reference {
    struct line {
        std::uint64_t addr;
        sector_mask valid = 0, dirty = 0;
    };
    unsigned sets = 0, ways = 0, line_bytes = 0, sector_bytes = 0, mshrs = 0, wb_entries = 0;
    bool xor_index = false;
    std::map<unsigned, std::list<line>> lru;          // front = most recently used
    std::set<std::uint64_t> missing, buffered, stale; // MSHR entries: misses, write-backs
    unsigned in_flight = 0;
    std::uint64_t hits = 0, misses = 0, sector_misses = 0, merges = 0, stalls = 0, fills = 0,
                  filled_sectors = 0, writebacks = 0, wb_sectors = 0, wb_stalls = 0;

    unsigned set_of(std::uint64_t addr) const
    {
        const std::uint64_t n = addr / line_bytes;
        if (!xor_index)
            return static_cast<unsigned>(n % sets);
        // Bit i of the index is the XOR of bits i, i + b, i + 2b, ... of the line number.
        unsigned b = 0;
        while ((1u << b) < sets)
            ++b;
        unsigned idx = 0;
        for (unsigned i = 0; i < b; ++i) {
            unsigned bit = 0;
            for (unsigned j = i; j < 64; j += b)
                bit ^= static_cast<unsigned>((n >> j) & 1);
            idx |= bit << i;
        }
        return idx;
    }
    line* find(std::uint64_t l)
    {
        for (auto& x : lru[set_of(l)])
            if (x.addr == l)
                return &x;
        return nullptr;
    }
    void touch(std::uint64_t l)
    {
        auto& s = lru[set_of(l)];
        for (auto it = s.begin(); it != s.end(); ++it)
            if (it->addr == l) {
                s.splice(s.begin(), s, it);
                return;
            }
    }
    bool pinned(std::uint64_t l) { return missing.count(l) > 0; }
    /// The line allocate(l) replaces: the LRU line that is not pinned (nullptr: a free way,
    /// or none when `none` is set).
    const line* victim(std::uint64_t l, bool& none)
    {
        auto& s = lru[set_of(l)];
        none = false;
        if (s.size() < ways)
            return nullptr;
        for (auto it = s.rbegin(); it != s.rend(); ++it)
            if (!pinned(it->addr))
                return &*it;
        none = true;
        return nullptr;
    }
    /// Allocates l; returns the replaced line, if any (evicted says so).
    line allocate(std::uint64_t l, bool& evicted)
    {
        bool none = false;
        const line* v = victim(l, none);
        REQUIRE_FALSE(none);
        line out{0};
        evicted = v != nullptr;
        auto& s = lru[set_of(l)];
        if (v) {
            out = *v;
            for (auto it = s.begin(); it != s.end(); ++it)
                if (it->addr == v->addr) {
                    s.erase(it);
                    break;
                }
        }
        s.push_front({l});
        return out;
    }
    outcome lookup(std::uint64_t l, sector_mask need, cache_controller::request& r,
                   sector_mask& fetch)
    {
        if (missing.count(l) || buffered.count(l)) {
            if (!r.merged)
                ++merges;
            r.merged = true;
            return outcome::merge;
        }
        line* x = find(l);
        if (x)
            touch(l);
        x = find(l);
        if (x && (need & ~x->valid) == 0) {
            if (!r.merged)
                ++hits;
            return outcome::hit;
        }
        if (in_flight < mshrs) {
            ++misses;
            sector_misses += x != nullptr;
            missing.insert(l);
            ++in_flight;
            fetch = x ? need & ~x->valid : need;
            return outcome::miss;
        }
        if (!r.stalled)
            ++stalls;
        r.stalled = true;
        return outcome::stall;
    }
};

/// A request of the randomized bench.
struct request {
    std::uint64_t addr = 0;
    unsigned len = 0;
    bool write = false;
    std::vector<std::uint8_t> data;
    sector_mask need = 0, whole = 0;
    cache_controller::request core_req, ref_req;
};

/// A miss being served: allocate (write-back), fetch, fill, serve.
struct pending_miss {
    request req;
    std::uint64_t line = 0;
    sector_mask fetch = 0;
    int phase = 0; // 0: allocate (write-back) / 1: fetched, waiting to arrive
    std::vector<std::uint8_t> image;
};

/// Randomized accurate-mode traffic of sectored requests against the reference: outcomes,
/// victims, counts and data. Write-back: every read returns the last write, and memory after
/// draining the buffer and a final flush holds every last write. Write-through: hits never
/// return data older than memory, no line is ever dirty.
void random_accurate(write_policy policy, index_kind index, std::uint64_t seed)
{
    const bool wb = policy == write_policy::write_back_allocate;
    // Write-through pins lines only for sector misses: one set makes a fully pinned set common.
    const unsigned sets = wb ? 4 : 1, ways = 2, line_bytes = 32, sector_bytes = 8, mshrs = 3,
                   wbe = 2;
    std::cout << "cache_controller random test: " << (wb ? "write-back" : "write-through") << ", "
              << (index == index_kind::xor_fold ? "xor-fold" : "modulo") << " index, seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    cache_controller c(params(sets, ways, line_bytes, mshrs, policy, index, sector_bytes, wbe));
    reference ref;
    ref.sets = sets;
    ref.ways = ways;
    ref.line_bytes = line_bytes;
    ref.sector_bytes = sector_bytes;
    ref.mshrs = mshrs;
    ref.wb_entries = wbe;
    ref.xor_index = index == index_kind::xor_fold;

    const std::uint64_t n_lines = 5ull * sets * ways;
    std::map<std::uint64_t, std::uint8_t> truth;  // last value written to each byte
    std::map<std::uint64_t, std::uint8_t> memory; // what is below the cache
    auto byte_of = [](const std::map<std::uint64_t, std::uint8_t>& m, std::uint64_t a) {
        auto it = m.find(a);
        return it == m.end() ? static_cast<std::uint8_t>(a * 7 + 1) : it->second;
    };
    // Sectors of a line that [off, off + len) touches, and those it covers whole.
    auto sectors = [&](unsigned off, unsigned len, sector_mask& touched, sector_mask& whole) {
        touched = whole = 0;
        for (unsigned s = 0; s < line_bytes / sector_bytes; ++s) {
            const unsigned a = s * sector_bytes, b = a + sector_bytes;
            if (off < b && off + len > a)
                touched |= sector_mask{1} << s;
            if (off <= a && off + len >= b)
                whole |= sector_mask{1} << s;
        }
    };
    std::vector<request> waiters;
    std::vector<pending_miss> misses;
    std::uint64_t served_hits = 0, stale_drops = 0, dirty_victims = 0, pinned_blocks = 0,
                  wb_blocks = 0, sector_fetches = 0, drains = 0;

    auto check_counts = [&] {
        const auto& k = c.counts();
        REQUIRE(k.hits == ref.hits);
        REQUIRE(k.misses == ref.misses);
        REQUIRE(k.sector_misses == ref.sector_misses);
        REQUIRE(k.merges == ref.merges);
        REQUIRE(k.full_stalls == ref.stalls);
        REQUIRE(k.fills == ref.fills);
        REQUIRE(k.filled_sectors == ref.filled_sectors);
        REQUIRE(k.writebacks == ref.writebacks);
        REQUIRE(k.wb_sectors == ref.wb_sectors);
        REQUIRE(k.wb_full_stalls == ref.wb_stalls);
        REQUIRE(c.misses_in_flight() == ref.in_flight);
        REQUIRE(c.wb_in_use() == ref.buffered.size());
    };
    auto line_of = [&](std::uint64_t a) { return a & ~std::uint64_t{line_bytes - 1}; };
    // Serves a request whose sectors are valid: reads must see the newest data.
    auto serve = [&](const request& w) {
        const std::uint64_t l = line_of(w.addr);
        if (w.write) {
            c.array().set_valid(l, w.whole);
            c.write(w.addr, w.data.data(), w.len);
            for (unsigned i = 0; i < w.len; ++i)
                truth[w.addr + i] = w.data[i];
            reference::line* x = ref.find(l);
            x->valid |= w.whole;
            x->dirty |= w.need | w.whole;
        } else {
            std::vector<std::uint8_t> got(w.len);
            c.read(w.addr, got.data(), w.len);
            for (unsigned i = 0; i < w.len; ++i)
                REQUIRE(got[i] == byte_of(truth, w.addr + i));
        }
    };
    auto new_request = [&](request& w) {
        sector_mask fetch = 0;
        const outcome o = c.lookup(w.addr, w.need, w.core_req);
        const outcome e = ref.lookup(line_of(w.addr), w.need, w.ref_req, fetch);
        INFO("lookup of " << w.addr << ": core " << name(o) << ", reference " << name(e));
        REQUIRE(o == e);
        if (o == outcome::hit) {
            ++served_hits;
            serve(w);
        } else if (o == outcome::miss) {
            REQUIRE(w.core_req.fetch == fetch);
            pending_miss m;
            m.line = line_of(w.addr);
            m.fetch = fetch;
            m.req = w;
            m.phase = wb ? 0 : 1;
            misses.push_back(m);
        } else {
            waiters.push_back(w);
        }
    };
    // Write-back: makes the miss's line resident; false if it must wait (every way pinned, or
    // a dirty victim and a full buffer).
    auto make_resident = [&](pending_miss& m) {
        if (c.array().probe(m.line))
            return true;
        bool none = false;
        const reference::line* rv = ref.victim(m.line, none);
        REQUIRE(c.can_allocate(m.line) == !none);
        if (none) {
            ++pinned_blocks;
            return false;
        }
        const bool dirty = rv && rv->dirty != 0;
        REQUIRE(c.array().victim_dirty(m.line) == dirty);
        if (dirty && ref.buffered.size() == wbe) {
            REQUIRE(c.wb_full());
            c.count_wb_stall(m.req.core_req);
            if (!m.req.ref_req.wb_stalled)
                ++ref.wb_stalls;
            m.req.ref_req.wb_stalled = true;
            ++wb_blocks;
            return false;
        }
        const cache_array::victim v = c.allocate(m.line);
        bool evicted = false;
        const reference::line r = ref.allocate(m.line, evicted);
        REQUIRE(v.valid == evicted);
        if (v.valid) {
            REQUIRE(v.line_addr == r.addr);
            REQUIRE(v.valid_sectors == r.valid);
            REQUIRE(v.dirty_sectors == r.dirty);
        }
        if (v.dirty) {
            ++dirty_victims;
            // The dirty sectors of a victim hold the newest data of their bytes.
            for (unsigned i = 0; i < line_bytes; ++i)
                if (v.dirty_sectors & (sector_mask{1} << (i / sector_bytes)))
                    REQUIRE(v.data[i] == byte_of(truth, v.line_addr + i));
            c.buffer_writeback(v);
            ref.buffered.insert(v.line_addr);
            ++ref.writebacks;
            ref.wb_sectors += static_cast<unsigned>(__builtin_popcountll(v.dirty_sectors));
        }
        return true;
    };
    auto drain = [&](unsigned i) {
        const cache_controller::wb_entry& e = c.writeback(i);
        for (unsigned k = 0; k < line_bytes; ++k)
            if (e.dirty & (sector_mask{1} << (k / sector_bytes)))
                memory[e.line + k] = e.data[k];
        ref.buffered.erase(e.line);
        c.end_writeback(i);
        ++drains;
    };

    for (int op = 0; op < 60000; ++op) {
        const unsigned r = static_cast<unsigned>(rng() % 100);
        if (r < 40) {
            // A new request (write-through: reads only come here; writes go below first).
            request w;
            const std::uint64_t line = (rng() % n_lines) * line_bytes;
            w.write = rng() % 2 == 0;
            unsigned off, len;
            if (rng() % 4 == 0) { // whole sectors
                const unsigned first = static_cast<unsigned>(rng() % (line_bytes / sector_bytes));
                const unsigned n =
                    1 + static_cast<unsigned>(rng() % (line_bytes / sector_bytes - first));
                off = first * sector_bytes;
                len = n * sector_bytes;
            } else {
                off = static_cast<unsigned>(rng() % line_bytes);
                len = 1 + static_cast<unsigned>(rng() % (line_bytes - off));
            }
            w.addr = line + off;
            w.len = len;
            for (unsigned i = 0; i < len; ++i)
                w.data.push_back(static_cast<std::uint8_t>(rng()));
            sector_mask touched = 0;
            sectors(off, len, touched, w.whole);
            sector_cover cv;
            c.cover(cv, w.addr, len);
            REQUIRE(cv.touched == touched);
            REQUIRE(cv.whole == w.whole);
            w.need = w.write ? touched & ~w.whole : touched;
            if (!wb && w.write) {
                for (unsigned i = 0; i < len; ++i)
                    memory[w.addr + i] = truth[w.addr + i] = w.data[i];
                const bool present = c.wrote_below(w.addr);
                reference::line* x = ref.find(line);
                REQUIRE(present == (x != nullptr));
                if (ref.missing.count(line))
                    ref.stale.insert(line);
                if (present) {
                    c.array().set_valid(w.addr, w.whole);
                    c.write_valid(w.addr, w.data.data(), len);
                    x->valid |= w.whole;
                }
                continue;
            }
            new_request(w);
        } else if (r < 55 && !waiters.empty()) {
            // A waiting request asks again (after some release).
            const std::size_t i = rng() % waiters.size();
            request w = waiters[i];
            waiters.erase(waiters.begin() + static_cast<long>(i));
            new_request(w);
        } else if (r < 65 && wb && c.wb_in_use() > 0) {
            std::vector<unsigned> busy;
            for (unsigned i = 0; i < wbe; ++i)
                if (c.writeback(i).busy)
                    busy.push_back(i);
            drain(busy[rng() % busy.size()]);
        } else if (!misses.empty()) {
            const std::size_t i = rng() % misses.size();
            pending_miss& m = misses[i];
            if (m.phase == 0) {
                if (!make_resident(m))
                    continue;
                m.phase = 1;
                continue;
            }
            // The fetched sectors arrive (as memory holds them now).
            m.image.assign(line_bytes, 0xee);
            for (unsigned k = 0; k < line_bytes; ++k)
                if (m.fetch & (sector_mask{1} << (k / sector_bytes)))
                    m.image[k] = byte_of(memory, m.line + k);
            sector_fetches += m.fetch != 0 && m.fetch != (sector_mask{1} << 4) - 1;
            if (wb) {
                // The line is pinned: still resident.
                REQUIRE(c.array().probe(m.line));
                if (m.fetch) {
                    c.fill(m.line, m.image.data(), m.fetch);
                    ++ref.fills;
                    ref.filled_sectors += static_cast<unsigned>(__builtin_popcountll(m.fetch));
                    reference::line* x = ref.find(m.line);
                    x->valid |= m.fetch;
                }
                serve(m.req);
            } else {
                // Write-through: installed at arrival unless a write overtook it or every way
                // of the set is pinned.
                const bool was_stale = ref.stale.erase(m.line) > 0;
                reference::line* x = ref.find(m.line);
                bool none = false;
                const reference::line* rv = x ? nullptr : ref.victim(m.line, none);
                const cache_array::victim v = c.complete_fill(m.line, m.image.data(), m.fetch);
                if (was_stale || none) {
                    stale_drops += was_stale;
                    pinned_blocks += !was_stale;
                    REQUIRE_FALSE(v.valid);
                    REQUIRE(c.array().probe(m.line) == (x != nullptr));
                } else {
                    if (!x) {
                        bool evicted = false;
                        const reference::line rl = ref.allocate(m.line, evicted);
                        REQUIRE(v.valid == evicted);
                        REQUIRE(evicted == (rv != nullptr));
                        if (v.valid) {
                            REQUIRE(v.line_addr == rl.addr);
                            REQUIRE_FALSE(v.dirty);
                        }
                    }
                    ++ref.fills;
                    ref.filled_sectors += static_cast<unsigned>(__builtin_popcountll(m.fetch));
                    ref.find(m.line)->valid |= m.fetch;
                    // Installed data is as new as memory: the request reads the last write.
                    serve(m.req);
                }
            }
            c.finish_miss(m.line);
            ref.missing.erase(m.line);
            --ref.in_flight;
            misses.erase(misses.begin() + static_cast<long>(i));
        }
        if (op % 97 == 0)
            check_counts();
    }
    check_counts();
    std::cout << "  hits " << served_hits << ", misses " << ref.misses << " (sector "
              << ref.sector_misses << "), merges " << ref.merges << ", stalls " << ref.stalls
              << ", pinned sets " << pinned_blocks << ", dirty victims " << dirty_victims
              << ", buffer full " << wb_blocks << ", stale fills " << stale_drops << "\n";
    // Every outcome happened.
    CHECK(served_hits > 1000);
    CHECK(ref.misses > 1000);
    CHECK(ref.sector_misses > 300);
    CHECK(ref.merges > 100);
    CHECK(ref.stalls > 100);
    CHECK(sector_fetches > 300);
    CHECK(pinned_blocks > 0);
    if (wb) {
        CHECK(dirty_victims > 100);
        CHECK(wb_blocks > 10);
        CHECK(drains > 100);
        // After the buffer drains and a final flush, memory holds every last write.
        for (unsigned i = 0; i < wbe; ++i)
            if (c.writeback(i).busy)
                drain(i);
        c.invalidate_all([&](std::uint64_t line, const std::uint8_t* data, sector_mask dirty) {
            for (unsigned i = 0; i < line_bytes; ++i)
                if (dirty & (sector_mask{1} << (i / sector_bytes)))
                    memory[line + i] = data[i];
        });
        for (const auto& [a, v] : truth)
            REQUIRE(byte_of(memory, a) == v);
    } else {
        CHECK(stale_drops > 10);
        CHECK(c.array().dirty_count() == 0);
    }
}

} // namespace

TEST_CASE("controller randomized against a reference: write-back, write-allocate, XOR fold")
{
    random_accurate(write_policy::write_back_allocate, index_kind::xor_fold,
                    vgpu::test::seed_or(20240611));
}

TEST_CASE("controller randomized against a reference: write-through, no-allocate, modulo")
{
    random_accurate(write_policy::write_through_no_allocate, index_kind::modulo,
                    vgpu::test::seed_or(20240611) + 1);
}
