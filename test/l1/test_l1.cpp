// Shell tests of the L1 data cache over a DRAM controller, with the protocol checker on every
// link. See models/l1/README.md.
#include "models/l1/l1.h"
#include "test/seed.h"
#include "test/support/cache_bench.h"
#include "test/support/stats_probe.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
using test::access_be;
using test::clocks;
using test::dram_cfg;
using test::mem_size;
using test::stat;

l1::l1_config l1_cfg()
{
    l1::l1_config c;
    c.sets = 4;
    c.ways = 2;
    c.line_bytes = 128;
    c.hit_latency = 2; // 2 ns at a 1 ns core clock
    c.mshrs = 4;
    return c;
}

/// The L1 over DRAM (test/support/cache_bench.h); `two`: a second initiator.
struct bench : test::cache_bench<l1::l1, l1::l1_config> {
    explicit bench(bool two = false, bool accurate = false, const l1::l1_config& c = l1_cfg())
        : cache_bench(c, two, accurate)
    {
    }
};

} // namespace

TEST_CASE("a read miss fetches its sector below the tag check, a hit costs the hit latency")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0x11223344;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x104, &v, 4) == 4u);
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x104, d) == 0x11223344u);
        // 2 ns tag + 1 channel cycle (one 32-byte sector at 64 B/cycle) + 10 ns DRAM latency
        CHECK(d == sc_time(13, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x104, d) == 0x11223344u);
        CHECK(d == sc_time(2, SC_NS));
        // Same line, sector 3: a sector miss. The tag stage is taken [100, 101) by the hit, so
        // 101 + 2 tag + 1 channel cycle + 10 = 114.
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x17c, d) == 0u);
        CHECK(d == sc_time(14, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.reads") == 3);
    CHECK(stat("cache.hits") == 1);
    CHECK(stat("cache.misses") == 2);
    CHECK(stat("cache.line_misses") == 1);
    CHECK(stat("cache.sector_misses") == 1);
    CHECK(stat("cache.hit_rate") == Approx(1.0 / 3.0));
    CHECK(stat("cache.miss_latency") == Approx(13.5)); // 13 and 14
    CHECK(stat("cache.tag_stalls") == 1);
    CHECK(stat("cache.bytes_fetched") == 64);
    CHECK(stat("mem.reads") == 2);
    CHECK(stat("mem.bytes_read") == 64);
}

TEST_CASE("writes go through to memory, update a present line and allocate nothing")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x200, d); // allocate the line
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x200, 0xabcd, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_time(2, SC_NS)); // 2 ns tag; the DRAM acknowledges (posts) the write
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x200, d) == 0xabcdu); // the line was updated: a hit
        CHECK(d == sc_time(2, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x400, 0x5555, d) == tlm::TLM_OK_RESPONSE); // absent: no allocation
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x400, d) == 0x5555u); // so this is a miss (one sector)
        CHECK(d == sc_time(13, SC_NS));
    };
    tb.side.body = [&](test::test_initiator& s) {
        sc_core::wait(150, SC_NS);
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(s.read32(0x200, d) == 0xabcdu); // memory has the write
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.side.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.writes") == 2);
    CHECK(stat("cache.misses") == 2);
    CHECK(stat("cache.hits") == 1);
    CHECK(stat("mem.writes") == 2);
}

TEST_CASE("reads of a line whose fill is in flight merge into it, and full MSHRs stall a miss")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        // Every read at time 0; the tag stage takes one per cycle: starts at 0, 1, 2, ...
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x000, d); // tag [0, 2), channel 0 [2, 3), + 10 ns: 13
        CHECK(d == sc_time(13, SC_NS));
        d = sc_core::SC_ZERO_TIME; // same sector: tag done at 3, waits for the same fill
        i.read32(0x010, d);
        CHECK(d == sc_time(13, SC_NS));
        // Four more misses: each MSHR is held from its issue until its data arrives, and a
        // miss needs one free for as long as misses have lasted (11 ns). Tag done at 4, 5, 6;
        // the channels alternate by line: 0x080 ch1 [4, 5) -> 15, 0x100 ch0 [5, 6) -> 16,
        // 0x180 ch1 [6, 7) -> 17. The 4 MSHRs are then held until 13, 15, 16, 17.
        const std::uint64_t lines[] = {0x080, 0x100, 0x180, 0x200};
        const int want_ns[] = {15, 16, 17, 24};
        for (int k = 0; k < 4; ++k) {
            d = sc_core::SC_ZERO_TIME;
            i.read32(lines[k], d);
            CHECK(d == sc_time(want_ns[k], SC_NS));
        }
        // 0x200: tag done at 7, every MSHR busy until 13: issue at 13, channel 0 [13, 14), 24.
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.reads") == 5);
    CHECK(stat("cache.mshr_merges") == 1);
    CHECK(stat("cache.mshr_full_stalls") == 1);
    CHECK(stat("cache.misses") == 5);
    CHECK(stat("cache.tag_stalls") == 5);
    CHECK(stat("cache.tag_wait.max") == Approx(5.0));
}

TEST_CASE("fast mode: a retried read whose replay never comes leaves the line at its time")
{
    // Four misses take the four MSHRs; a fifth read (replayable, as an SM's line request) is
    // answered with a retry time, when an MSHR is free. Its replay never comes (as when it
    // faults in the TLB on its way back). A miss made after that time finds free MSHRs and
    // goes below at once. (Counted until its replay came, the waiter stayed in line for good:
    // every later miss was told to retry once more.)
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        tlm_bus::gpu_extension ext;
        ext.kind = tlm_bus::access_kind::data;
        ext.replayable = true;
        std::shared_ptr<tlm_bus::fault_wait> f;
        const auto read = [&](std::uint64_t addr, sc_time& d) {
            std::uint32_t v = 0;
            f.reset();
            return i.mem.access(tlm::TLM_READ_COMMAND, addr, &v, 4, d, &ext, nullptr, &f);
        };
        // Tag done at 2, 3, 4, 5; the MSHRs are held until 13, 15, 16, 17 (see above).
        const std::uint64_t lines[] = {0x000, 0x080, 0x100, 0x180};
        for (std::uint64_t a : lines) {
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(read(a, d) == tlm::TLM_OK_RESPONSE);
            CHECK(!f);
        }
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(read(0x200, d) == tlm::TLM_OK_RESPONSE);
        REQUIRE(f);
        CHECK(f->retry_ps == sc_time(13, SC_NS).value()); // the first MSHR free
        // No replay. Long after, every MSHR is free: a new miss goes below at once.
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(read(0x280, d) == tlm::TLM_OK_RESPONSE);
        CHECK(!f);
        CHECK(d == sc_time(13, SC_NS)); // 2 ns tag + 1 channel cycle + 10 ns DRAM
        // A waiter whose replay comes at its time leaves the line then too: the next miss
        // after it is not held back either (0x280 holds one MSHR, three more take the rest).
        const std::uint64_t more[] = {0x300, 0x380, 0x400};
        for (std::uint64_t a : more) {
            d = sc_core::SC_ZERO_TIME;
            read(a, d);
            CHECK(!f);
        }
        d = sc_core::SC_ZERO_TIME;
        read(0x480, d);
        REQUIRE(f);
        const std::uint64_t at = f->retry_ps;
        sc_core::wait(sc_time::from_value(at) - sc_core::sc_time_stamp());
        ext.replay = true;
        d = sc_core::SC_ZERO_TIME;
        CHECK(read(0x480, d) == tlm::TLM_OK_RESPONSE);
        CHECK(!f);
        ext.replay = false;
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        read(0x500, d);
        CHECK(!f);
        CHECK(d == sc_time(13, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.mshr_retries") == 2);
}

TEST_CASE("sectors: a miss fetches only the missing sectors, in one span, and installs those")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        for (unsigned k = 0; k < 128; ++k)
            line[k] = static_cast<std::uint8_t>(k);
        i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x100, line, 128);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x104, d); // sector 0
        CHECK(d == sc_time(13, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.read32(0x140, d); // sector 2: a sector miss, 32 bytes
        CHECK(d == sc_time(13, SC_NS));
        sc_core::wait(100, SC_NS); // meanwhile (150 ns) `side` changes sectors 1 and 2 in memory
        // The whole line: sectors 1 and 3 are missing. One read of the span 1..3 (96 bytes at
        // 64 GB/s: 1.5 ns): tag 200..202, channel [202, 203.5), + 10 = 213.5. Only 1 and 3 are
        // installed: sector 2 keeps the L1's copy (same kernel: no coherence needed).
        std::uint8_t got[128];
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x100, got, 128, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_time(13500, sc_core::SC_PS));
        std::uint32_t w1 = 0, w2 = 0;
        std::memcpy(&w1, got + 0x20, 4);
        std::memcpy(&w2, got + 0x40, 4);
        CHECK(w1 == 0xaaaaaaaau);
        CHECK(w2 == 0x43424140u);
        CHECK(got[0x7f] == 0x7f);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x140, d) == 0x43424140u); // a hit on the copy kept
        CHECK(d == sc_time(2, SC_NS));
    };
    tb.side.body = [&](test::test_initiator& s) {
        sc_core::wait(150, SC_NS);
        sc_time d = sc_core::SC_ZERO_TIME;
        s.write32(0x120, 0xaaaaaaaa, d);
        s.write32(0x140, 0xbbbbbbbb, d);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.side.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.misses") == 3);
    CHECK(stat("cache.line_misses") == 1);
    CHECK(stat("cache.sector_misses") == 2);
    CHECK(stat("cache.hits") == 1);
    CHECK(stat("cache.bytes_fetched") == 32 + 32 + 96);
    CHECK(stat("mem.bytes_read") == 32 + 32 + 96);
}

TEST_CASE("a write makes the sectors it covers whole valid and skips bytes of invalid ones")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x200, d); // the line, sector 0 only
        sc_core::wait(100, SC_NS);
        std::uint8_t whole[32];
        for (unsigned k = 0; k < 32; ++k)
            whole[k] = static_cast<std::uint8_t>(0x80 + k);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, 0x220, whole, 32, d) == tlm::TLM_OK_RESPONSE);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x240, 0x5151, d) == tlm::TLM_OK_RESPONSE); // part of sector 2
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x224, d) == 0x87868584u); // sector 1 became valid: a hit
        CHECK(d == sc_time(2, SC_NS));
        sc_core::wait(100, SC_NS);
        // Sector 2 is not valid: a sector miss that reads the write from memory. Tag 300..302,
        // channel 0 [302, 303), + 10 = 313.
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x240, d) == 0x5151u);
        CHECK(d == sc_time(13, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.hits") == 1);
    CHECK(stat("cache.line_misses") == 1);
    CHECK(stat("cache.sector_misses") == 1);
    CHECK(stat("mem.writes") == 2);
}

namespace {
/// Four lines of four sets are made resident, then read again at 100 ns, all at once: the
/// delays of the four hits (the tag stage serves lines_per_cycle lookups per cycle).
void four_hits(bool accurate, unsigned lines_per_cycle, const int (&want_ns)[4],
               unsigned tag_stalls)
{
    l1::l1_config c = l1_cfg();
    c.lines_per_cycle = lines_per_cycle;
    bench tb(false, accurate, c);
    tb.init.body = [&](test::test_initiator& i) {
        const std::uint64_t lines[] = {0x000, 0x080, 0x100, 0x180};
        for (std::uint64_t a : lines) {
            sc_time d = sc_core::SC_ZERO_TIME;
            i.read32(a, d);
            sc_core::wait(d);
        }
        sc_core::wait(sc_time(100, SC_NS) - sc_core::sc_time_stamp());
        for (int k = 0; k < 4; ++k) {
            sc_time d = sc_core::SC_ZERO_TIME;
            i.read32(lines[k], d);
            CHECK(d == sc_time(want_ns[k], SC_NS));
        }
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.hits") == 4);
    CHECK(stat("cache.tag_stalls") == tag_stalls);
    CHECK(stat("cache.tag_wait.max") == Approx(tag_stalls == 3 ? 3.0 : 1.0));
}
} // namespace

TEST_CASE("lines_per_cycle 1: uncoalesced hits take one tag cycle per line (fast mode)")
{
    four_hits(false, 1, {2, 3, 4, 5}, 3);
}

TEST_CASE("lines_per_cycle 2: two lookups per cycle (fast mode)")
{
    four_hits(false, 2, {2, 2, 3, 3}, 2);
}

TEST_CASE("lines_per_cycle 1: the same tag stage in accurate mode")
{
    four_hits(true, 1, {2, 3, 4, 5}, 3);
}

namespace {
/// Accurate mode, two requesters missing at time 0 on lines of different channels; returns
/// when each got its data.
void two_misses(unsigned mshrs, sc_time& end1, sc_time& end2, unsigned stalls)
{
    l1::l1_config c = l1_cfg();
    c.mshrs = mshrs;
    bench tb(true, true, c);
    auto body = [&](test::test_initiator& i, std::uint64_t addr, sc_time& end) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(addr, d);
        sc_core::wait(d);
        end = sc_core::sc_time_stamp();
    };
    tb.init.body = [&](test::test_initiator& i) { body(i, 0x000, end1); };
    tb.init2->body = [&](test::test_initiator& i) { body(i, 0x080, end2); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.mshr_full_stalls") == stalls);
}
} // namespace

TEST_CASE("accurate mode: the MSHRs bound the misses in flight (one MSHR)")
{
    sc_time end1, end2;
    two_misses(1, end1, end2, 1);
    // First: tag [0, 2), channel 0 [2, 3), + 10: 13. Second: tag done at 3, waits for the
    // MSHR until 13, then channel 1 [13, 14), + 10: 24.
    CHECK(std::min(end1, end2) == sc_time(13, SC_NS));
    CHECK(std::max(end1, end2) == sc_time(24, SC_NS));
}

TEST_CASE("accurate mode: the MSHRs bound the misses in flight (two MSHRs)")
{
    sc_time end1, end2;
    two_misses(2, end1, end2, 0);
    // Both in flight: the second's tag is done at 3, channel 1 [3, 4), + 10: 14.
    CHECK(std::min(end1, end2) == sc_time(13, SC_NS));
    CHECK(std::max(end1, end2) == sc_time(14, SC_NS));
}

TEST_CASE("a request of a newer epoch invalidates the whole L1 first")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        tlm_bus::gpu_extension e;
        e.epoch = 1;
        std::uint32_t v = 0;
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x300, &v, 4, d, &e);
        sc_core::wait(100, SC_NS); // meanwhile `side` (another SM) writes 0x300
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x300, &v, 4, d, &e);
        CHECK(v == 0u); // same kernel: the L1 keeps its copy
        CHECK(d == sc_time(2, SC_NS));
        e.epoch = 2;
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x300, &v, 4, d, &e);
        CHECK(v == 0x77u); // next kernel: dropped and fetched again
        CHECK(d == sc_time(14, SC_NS));
    };
    tb.side.body = [&](test::test_initiator& s) {
        sc_core::wait(50, SC_NS);
        sc_time d = sc_core::SC_ZERO_TIME;
        s.write32(0x300, 0x77, d);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.invalidations") == 2); // epoch 0 -> 1 and 1 -> 2
    CHECK(stat("cache.misses") == 2);
}

TEST_CASE("byte-enable writes change only enabled bytes, in memory and in the line")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t init[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x500, init, 8);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x500, d); // allocate
        std::uint8_t fresh[8] = {0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8};
        unsigned char be[8] = {0, 0xff, 0xff, 0, 0, 0, 0xff, 0};
        CHECK(access_be(i.mem, tlm::TLM_WRITE_COMMAND, 0x500, fresh, 8, be, 8, d) ==
              tlm::TLM_OK_RESPONSE);
        const std::uint8_t want[8] = {1, 0xa2, 0xa3, 4, 5, 6, 0xa7, 8};
        std::uint8_t got[8] = {};
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x500, got, 8, d);
        CHECK(d == sc_time(2, SC_NS)); // from the line
        CHECK(std::memcmp(got, want, 8) == 0);
        // A read with byte enables leaves the disabled bytes of the buffer alone.
        std::uint8_t part[8];
        std::memset(part, 0xee, 8);
        unsigned char rbe[4] = {0xff, 0, 0, 0};
        CHECK(access_be(i.mem, tlm::TLM_READ_COMMAND, 0x500, part, 8, rbe, 4, d) ==
              tlm::TLM_OK_RESPONSE);
        const std::uint8_t want_part[8] = {1, 0xee, 0xee, 0xee, 5, 0xee, 0xee, 0xee};
        CHECK(std::memcmp(part, want_part, 8) == 0);
    };
    tb.side.body = [&](test::test_initiator& s) {
        sc_core::wait(50, SC_NS);
        std::uint8_t got[8] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        s.mem.access(tlm::TLM_READ_COMMAND, 0x500, got, 8, d);
        const std::uint8_t want[8] = {1, 0xa2, 0xa3, 4, 5, 6, 0xa7, 8};
        CHECK(std::memcmp(got, want, 8) == 0);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.side.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("debug transport allocates nothing, takes no time and updates a present line")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x600, &v, 4) == 4u);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x600, d);
        CHECK(d == sc_time(13, SC_NS)); // the debug read allocated nothing
        v = 0x4242;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x600, &v, 4) == 4u);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x600, d) == 0x4242u); // the present line was updated
        CHECK(d == sc_time(2, SC_NS));
        std::uint8_t buf[16];
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, mem_size - 8, buf, 16) == 8u);
    };
    tb.side.body = [&](test::test_initiator& s) {
        sc_core::wait(50, SC_NS);
        std::uint32_t v = 0;
        CHECK(s.mem.debug(tlm::TLM_READ_COMMAND, 0x600, &v, 4) == 4u);
        CHECK(v == 0x4242u); // and memory too
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.reads") == 2);
    CHECK(stat("cache.writes") == 0);
    CHECK(stat("mem.reads") == 1);
}

TEST_CASE("the L1 refuses DMI although the memory below grants it")
{
    bench tb;
    tb.init.mem.set_dmi_enabled(true);
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x700, 5, d);
        CHECK(i.read32(0x700, d) == 5u);
        CHECK(i.read32(0x700, d) == 5u);
        CHECK(i.mem.dmi_accesses() == 0);
        CHECK(i.mem.transactions() == 3);
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(0x700);
        CHECK_FALSE(i.mem->get_direct_mem_ptr(gp, dmi));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("error responses from below travel back unchanged and allocate nothing")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        i.read32(mem_size + 0x100, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(i.write32(mem_size + 0x100, 1, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        i.read32(mem_size + 0x100, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.errors") == 3);
    CHECK(stat("cache.hits") == 0);
}

namespace {
/// Random reads and writes (some with byte enables) of `ops` accesses in a footprint of 64
/// lines, checked against `ref`, which is updated in the order the accesses complete.
void random_traffic(test::test_initiator& i, std::uint64_t seed, unsigned ops,
                    std::vector<std::uint8_t>& ref, bool lock_step)
{
    std::mt19937_64 rng(seed);
    const unsigned footprint = static_cast<unsigned>(ref.size());
    std::uint8_t buf[128], want[128];
    unsigned char be[128];
    sc_time d = sc_core::SC_ZERO_TIME;
    unsigned bad = 0;
    for (unsigned n = 0; n < ops; ++n) {
        const unsigned line = static_cast<unsigned>(rng() % (footprint / 128)) * 128;
        const unsigned off = static_cast<unsigned>(rng() % 128);
        const unsigned len = 1 + static_cast<unsigned>(rng() % (128 - off));
        const bool write = rng() % 3 == 0;
        const bool masked = rng() % 2 == 0;
        for (unsigned k = 0; k < len; ++k)
            be[k] = (rng() & 1) ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
        const std::uint64_t addr = line + off;
        tlm::tlm_response_status s;
        if (write) {
            for (unsigned k = 0; k < len; ++k)
                buf[k] = static_cast<std::uint8_t>(rng());
            s = access_be(i.mem, tlm::TLM_WRITE_COMMAND, addr, buf, len, masked ? be : nullptr, len,
                          d);
            for (unsigned k = 0; k < len; ++k)
                if (!masked || be[k] == TLM_BYTE_ENABLED)
                    ref[addr + k] = buf[k];
        } else {
            std::memset(buf, 0xcd, len);
            s = access_be(i.mem, tlm::TLM_READ_COMMAND, addr, buf, len, masked ? be : nullptr, len,
                          d);
            for (unsigned k = 0; k < len; ++k)
                want[k] = (!masked || be[k] == TLM_BYTE_ENABLED) ? ref[addr + k] : 0xcd;
            if (std::memcmp(buf, want, len) != 0 && ++bad <= 5)
                FAIL_CHECK("read " << n << " of " << len << " bytes at 0x" << std::hex << addr
                                   << " returned wrong data");
        }
        CHECK(s == tlm::TLM_OK_RESPONSE);
        if (lock_step || d > sc_time(200, SC_NS)) {
            sc_core::wait(d);
            d = sc_core::SC_ZERO_TIME;
        }
    }
    sc_core::wait(d);
}
} // namespace

TEST_CASE("randomized fast-mode traffic from two initiators reads back every last write")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240611);
    CAPTURE(seed);
    bench tb(true);
    std::vector<std::uint8_t> ref(64 * 128, 0);
    tb.init.body = [&](test::test_initiator& i) { random_traffic(i, seed, 10000, ref, false); };
    tb.init2->body = [&](test::test_initiator& i) {
        random_traffic(i, seed + 1, 10000, ref, false);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    std::vector<std::uint8_t> mem(ref.size());
    tb.side.mem.debug(tlm::TLM_READ_COMMAND, 0, mem.data(), static_cast<unsigned>(mem.size()));
    CHECK(mem == ref);
    CHECK(stat("cache.hits") > 0);
    CHECK(stat("cache.misses") > 0);
    CHECK(stat("cache.mshr_merges") > 0);
}

namespace {
/// Accurate-mode traffic: initiator `who` owns the 4-byte words w with w % 2 == who and
/// accesses whole lines with byte enables selecting some of its words, so both initiators
/// share every line but never a byte; `ref` holds the expected contents.
void owned_traffic(test::test_initiator& i, unsigned who, std::uint64_t seed, unsigned ops,
                   std::vector<std::uint8_t>& ref)
{
    std::mt19937_64 rng(seed);
    const unsigned lines = static_cast<unsigned>(ref.size() / 128);
    std::uint8_t buf[128];
    unsigned char be[128];
    unsigned bad = 0;
    for (unsigned n = 0; n < ops; ++n) {
        const std::uint64_t line = (rng() % lines) * 128;
        const bool write = rng() % 3 == 0;
        for (unsigned w = 0; w < 32; ++w) {
            const bool on = w % 2 == who && (rng() & 1);
            std::memset(be + 4 * w, on ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED, 4);
        }
        for (unsigned k = 0; k < 128; ++k)
            buf[k] = static_cast<std::uint8_t>(rng());
        sc_time d = sc_time(static_cast<double>(rng() % 3), SC_NS);
        const tlm::tlm_response_status s =
            access_be(i.mem, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, line, buf, 128,
                      be, 128, d);
        CHECK(s == tlm::TLM_OK_RESPONSE);
        for (unsigned k = 0; k < 128; ++k) {
            if (be[k] != TLM_BYTE_ENABLED)
                continue;
            if (write)
                ref[line + k] = buf[k];
            else if (buf[k] != ref[line + k] && ++bad <= 5)
                FAIL_CHECK("initiator " << who << " read " << n << ": byte 0x" << std::hex
                                        << line + k << " is wrong");
        }
        sc_core::wait(d);
    }
}
} // namespace

TEST_CASE("randomized accurate-mode traffic from two initiators sharing lines stays correct")
{
    const std::uint64_t seed = vgpu::test::seed_or(777);
    CAPTURE(seed);
    bench tb(true, true);
    std::vector<std::uint8_t> ref(24 * 128, 0);
    tb.init.body = [&](test::test_initiator& i) { owned_traffic(i, 0, seed, 4000, ref); };
    tb.init2->body = [&](test::test_initiator& i) { owned_traffic(i, 1, seed + 1, 4000, ref); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    std::vector<std::uint8_t> mem(ref.size());
    tb.side.mem.debug(tlm::TLM_READ_COMMAND, 0, mem.data(), static_cast<unsigned>(mem.size()));
    CHECK(mem == ref);
    CHECK(stat("cache.mshr_merges") > 0);
    CHECK(stat("cache.hits") > 0);
}
