// Shell tests of an LLC slice over a DRAM controller, with the protocol checker on every link.
// See models/llc/README.md.
#include "models/common/trace_events.h"
#include "models/llc/llc.h"
#include "models/llc/switch_regs.h"
#include "test/seed.h"
#include "test/support/cache_bench.h"
#include "test/support/stats_probe.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <tlm_utils/simple_target_socket.h>

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
using test::counter;
using test::dbg_read32;
using test::dram_cfg;
using test::mem_size;
using test::stat;

llc::llc_config llc_cfg(unsigned sets = 1)
{
    llc::llc_config c;
    c.sets = sets;
    c.ways = 2;
    c.line_bytes = 128;
    c.hit_latency = 2; // 2 ns at a 1 ns NoC clock
    c.mshrs = 4;
    c.banks = sets >= 2 ? 2 : 1;
    c.bank_bytes_per_cycle = 64;
    return c;
}

/// An LLC slice over DRAM (test/support/cache_bench.h); `two`: a second initiator.
struct bench : test::cache_bench<llc::llc, llc::llc_config> {
    explicit bench(const llc::llc_config& c = llc_cfg(), bool two = false, bool accurate = false,
                   const dram::dram_config& d = dram_cfg())
        : cache_bench(c, two, accurate, d)
    {
    }
};

} // namespace

TEST_CASE("a read miss costs bank, tag check and the DRAM fill, a hit bank and tag check")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x000, d) == 0u);
        // 1 bank cycle + 2 tag + (1 channel cycle for one 32-byte sector + 10 DRAM)
        CHECK(d == sc_time(14, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.read32(0x004, d);
        CHECK(d == sc_time(3, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.hits") == 1);
    CHECK(stat("cache.misses") == 1);
    CHECK(stat("cache.fills") == 1);
    CHECK(stat("cache.hit_rate") == Approx(0.5));
    CHECK(stat("cache.miss_latency") == Approx(11.0));
    CHECK(stat("cache.bytes_fetched") == 32);
    CHECK(stat("mem.bytes_read") == 32);
}

TEST_CASE("fast mode: a miss holds an MSHR from its tag check until its fill arrives")
{
    trace::recorder::instance().enable(true);
    bench tb(llc_cfg(4));
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x000, d); // tag check done at 3 ns; one 32-byte sector arrives at 14 ns
        d = sc_time(1, SC_NS);
        i.read32(0x080, d); // another line: tag check at 4 ns, its sector (channel 1) at 15 ns
        d = sc_time(20, SC_NS);
        i.read32(0x004, d); // a hit: no MSHR
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(stat("cache.misses") == 2);
    CHECK(counter("cache", "mshrs_in_use") ==
          std::vector<std::pair<std::uint64_t, double>>{
              {0, 0}, {3000, 1}, {4000, 2}, {14000, 1}, {15000, 0}});
}

TEST_CASE("a dirty victim leaves through the write-back buffer: the fill does not wait")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x000, 0xaaaa, d); // part of sector 0: fetched, merged, dirty
        CHECK(d == sc_time(14, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.write32(0x080, 0xbbbb, d);
        sc_core::wait(100, SC_NS);
        CHECK(dbg_read32(tb.side.mem, 0x000) == 0u); // write-back cache: memory is old
        d = sc_core::SC_ZERO_TIME;
        i.read32(0x100, d); // one set of two ways: evicts 0x000 (LRU, dirty)
        // Tag done at 203; the fill issues at once: channel 0 [203, 204), + 10 = 214. The
        // victim's one dirty sector follows on the channel, [204, 205), off the critical path.
        CHECK(d == sc_time(14, SC_NS));
        CHECK(dbg_read32(tb.side.mem, 0x000) == 0xaaaau);
        CHECK(dbg_read32(tb.side.mem, 0x080) == 0u); // still dirty in the LLC
        CHECK(dbg_read32(i.mem, 0x080) == 0xbbbbu);  // which debug reads see
        CHECK(dbg_read32(i.mem, 0x000) == 0xaaaau);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.writebacks") == 1);
    CHECK(stat("cache.fills") == 3);
    CHECK(stat("cache.wb_full_stalls") == 0);
    // Posted DRAM writes: the entry is released as soon as the DRAM queue accepts the victim.
    CHECK(stat("cache.wb_occupancy") == Approx(0.0));
    CHECK(stat("cache.writeback_bytes") == 32); // the dirty sector only
    CHECK(stat("mem.writes") == 1);
    CHECK(stat("mem.bytes_written") == 32);
}

TEST_CASE("a partial write fetches and merges, a full-line write allocates without a fetch")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t pattern[128];
        for (unsigned k = 0; k < 128; ++k)
            pattern[k] = static_cast<std::uint8_t>(k);
        tb.side.mem.debug(tlm::TLM_WRITE_COMMAND, 0x200, pattern, 128);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x208, 0xdeadbeef, d); // fetches sector 0
        std::uint8_t got[128];
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x200, got, 128, d); // fetches sectors 1..3
        std::memcpy(pattern + 8, "\xef\xbe\xad\xde", 4);
        CHECK(std::memcmp(got, pattern, 128) == 0);
        CHECK(stat("mem.reads") == 2);
        CHECK(stat("mem.bytes_read") == 128);

        std::uint8_t full[128];
        std::memset(full, 0x5a, 128);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x400, full, 128, d);
        CHECK(d == sc_time(4, SC_NS)); // 2 bank cycles + 2 tag, no DRAM
        CHECK(stat("mem.reads") == 2);
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x400, got, 128, d);
        CHECK(std::memcmp(got, full, 128) == 0);

        // Full length but with byte enables: sector 0 is written in part, so it alone is
        // fetched; sectors 1..3 are replaced whole.
        unsigned char be[128];
        std::memset(be, TLM_BYTE_ENABLED, 128);
        be[0] = TLM_BYTE_DISABLED;
        d = sc_core::SC_ZERO_TIME;
        access_be(i.mem, tlm::TLM_WRITE_COMMAND, 0x600, full, 128, be, 128, d);
        CHECK(stat("mem.reads") == 3);
        CHECK(stat("mem.bytes_read") == 160);
        CHECK(dbg_read32(tb.side.mem, 0x208) == 0xdeadbeefu); // 0x200 was evicted, written back
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.fills") == 3);
    CHECK(stat("cache.writebacks") == 1);
    CHECK(stat("cache.line_misses") == 3);
    CHECK(stat("cache.sector_misses") == 1);
    // 0x200 was dirty in sector 0 only (the byte-enabled and full writes hit other lines).
    CHECK(stat("mem.bytes_written") == 32);
}

TEST_CASE("a fill never overwrites dirty sectors: of a span, only the missing ones are filled")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t pattern[128];
        for (unsigned k = 0; k < 128; ++k)
            pattern[k] = static_cast<std::uint8_t>(k);
        tb.side.mem.debug(tlm::TLM_WRITE_COMMAND, 0x800, pattern, 128);
        std::uint8_t sector[32];
        std::memset(sector, 0x5a, 32);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x820, sector, 32, d); // sector 1 whole: no fetch
        CHECK(d == sc_time(3, SC_NS));
        CHECK(stat("mem.reads") == 0);
        sc_core::wait(100, SC_NS);
        // The whole line: sectors 0, 2, 3 missing, read as one span of 128 bytes (2 bank
        // cycles, tag done at 104, 2 channel cycles [104, 106), + 10 = 116).
        std::uint8_t got[128];
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x800, got, 128, d);
        CHECK(d == sc_time(16, SC_NS));
        std::memcpy(pattern + 32, sector, 32);
        CHECK(std::memcmp(got, pattern, 128) == 0);
        CHECK(dbg_read32(tb.side.mem, 0x820) == 0x23222120u); // memory: still the pattern
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.bytes_read") == 128);
    CHECK(stat("cache.sector_misses") == 1);
}

namespace {
/// DRAM writes are posted: a write-back buffer entry is free again as soon as the DRAM queue
/// takes the victim. To make a victim wait, channel 0 gets a queue of one entry, held from 190
/// to 214 ns by `side`: at 150 it reads 4 KiB at 0x8000 (channel 0, bank 1, row 1: ACTIVATE
/// and column at 150, the data bus [150, 214)), then a line of the same row arriving at 190, a
/// row hit whose column command waits for the bus until 214 (data [214, 215)); it holds the
/// queue entry until then. Lines 0x000 (A) and 0x100 (C) are bank 0, row 0 of channel 0;
/// 0x080 (B) and 0x180 (D) bank 0, row 0 of channel 1 (no bank timings: a 32-byte sector takes
/// one 1 ns burst, + 10 ns for a read).
dram::dram_config one_entry_dram()
{
    dram::dram_config d = dram_cfg();
    d.queue_entries = 1;
    return d;
}

void hold_channel0_queue(test::test_initiator& side)
{
    sc_core::wait(150, SC_NS);
    std::vector<std::uint8_t> buf(4096);
    sc_time d = sc_core::SC_ZERO_TIME;
    side.mem.access(tlm::TLM_READ_COMMAND, 0x8000, buf.data(), 4096, d);
    d = sc_time(190, SC_NS) - sc_core::sc_time_stamp();
    side.mem.access(tlm::TLM_READ_COMMAND, 0x8000, buf.data(), 32, d);
}
} // namespace

namespace {
/// Lines A = 0x000 and B = 0x080 are made dirty; at 200 ns C = 0x100 and D = 0x180 are read,
/// evicting A and then B. Returns when each read got its data. Fast mode: one initiator, D
/// issued right after C; accurate mode: two initiators.
void two_evictions(bool accurate, unsigned wb_entries, sc_time& end_c, sc_time& end_d,
                   unsigned stalls, bool full_queue = false)
{
    llc::llc_config c = llc_cfg();
    c.wb_entries = wb_entries;
    bench tb(c, true, accurate, full_queue ? one_entry_dram() : dram_cfg());
    if (full_queue)
        tb.side.body = hold_channel0_queue;
    auto read_at_200 = [&](test::test_initiator& i, std::uint64_t addr, sc_time& end) {
        // With the full queue, D (init2, accurate mode) is read at 201: C takes the bank first.
        const sc_time at(full_queue && &i == tb.init2.get() ? 201 : 200, SC_NS);
        sc_core::wait(at - sc_core::sc_time_stamp());
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(addr, d);
        end = sc_core::sc_time_stamp() + d;
    };
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x000, 1, d);
        sc_core::wait(d);
        read_at_200(i, 0x100, end_c);
        if (!accurate) {
            sc_time d2 = sc_core::SC_ZERO_TIME;
            i.read32(0x180, d2);
            end_d = sc_core::sc_time_stamp() + d2;
        }
    };
    tb.init2->body = [&](test::test_initiator& i) {
        sc_core::wait(100, SC_NS);
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x080, 2, d);
        sc_core::wait(d);
        if (accurate)
            read_at_200(i, 0x180, end_d);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.writebacks") == 2);
    CHECK(stat("cache.wb_full_stalls") == stalls);
    CHECK(stat("mem.bytes_written") == 64);
    CHECK(dbg_read32(tb.side.mem, 0x000) == 1u);
    CHECK(dbg_read32(tb.side.mem, 0x080) == 2u);
}
} // namespace

// Fast mode (call order): at 200, C (LLC bank [200, 201), tag done 203) evicts dirty A into
// the only buffer entry and issues at 203. C's read waits for channel 0's queue entry until
// 214 (held by `side`), then: row 0 open (A's fetch at 3), the bus is taken [214, 215), so its
// column command and data go to [215, 216): the queue entry is held [214, 215), and C's data
// arrives at 216 + 10 = 226. A's write arrives at 203 and needs the entry after C's stay: it
// enters at 215 (posted: landed), so A's buffer entry is held [203, 215). D (bank [201, 202),
// tag done 204) evicts dirty B and needs the entry (one of 12 ns so far): from 215; its read on
// channel 1 (row 0 open since B's fetch) [215, 216), + 10 = 226.
TEST_CASE("fast mode: with one write-back buffer entry, the second dirty victim waits for it")
{
    sc_time c, d;
    two_evictions(false, 1, c, d, 1, true);
    CHECK(c == sc_time(226, SC_NS));
    CHECK(d == sc_time(226, SC_NS));
}

TEST_CASE("fast mode: with free write-back buffer entries, neither fill waits")
{
    sc_time c, d;
    two_evictions(false, 16, c, d, 0);
    CHECK(c == sc_time(214, SC_NS));
    CHECK(d == sc_time(215, SC_NS)); // tag done at 204, channel 1 [204, 205), + 10
}

// Accurate mode (arrival order; D is read at 201 so that C takes the LLC bank first): C's
// lookup at 200 evicts dirty A, whose drain writes at once: channel 0's queue is full (held by
// `side` until 214), so the write waits and is admitted at 214, when the entry is released. C's
// read (at its tag time, 203) waits behind it: A's write issues at 215 (bus [215, 216)), C's
// read is admitted then and issues at 216 (bank 0 busy until 216), data [216, 217), + 10 = 227.
// D (bank at 201) finds the entry taken until 214, then evicts B and reads on channel 1 at 214:
// [214, 215), + 10 = 225.
TEST_CASE("accurate mode: with one write-back buffer entry, the second dirty victim waits")
{
    sc_time c, d;
    two_evictions(true, 1, c, d, 1, true);
    CHECK(c == sc_time(227, SC_NS));
    CHECK(d == sc_time(225, SC_NS));
}

TEST_CASE("accurate mode: with free write-back buffer entries, neither fill waits")
{
    sc_time c, d;
    two_evictions(true, 16, c, d, 0);
    CHECK(std::min(c, d) == sc_time(214, SC_NS));
    CHECK(std::max(c, d) == sc_time(215, SC_NS)); // tag done at 204, [204, 205), + 10
}

TEST_CASE("fast mode: a miss on a line whose write-back is buffered fetches after it landed")
{
    bench tb(llc_cfg(), false, false, one_entry_dram());
    tb.side.body = hold_channel0_queue;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x000, 0x1111, d);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.write32(0x080, 0x2222, d);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        i.read32(0x100, d); // evicts 0x000: its write lands at 215, C's data at 226 (above)
        CHECK(d == sc_time(26, SC_NS));
        // 0x000 again: bank [201, 202), tag done at 204, but its write-back lands at 215: the
        // fetch issues then (evicting 0x080 into the buffer entry, free from 215). Channel 0's
        // entry is held until 216 (C's read [214, 215), A's write [215, 216)); bank 0 is busy
        // until 217 (A's write's column at 216), the bus until 217: data [217, 218), + 10.
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x000, d) == 0x1111u);
        CHECK(d == sc_time(28, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.wb_read_waits") == 1);
    CHECK(stat("cache.writebacks") == 2);
}

TEST_CASE("fast mode: a requester behind in time is not stalled by MSHRs booked ahead of it")
{
    llc::llc_config c = llc_cfg(4);
    c.mshrs = 2;
    bench tb(c, true);
    tb.init.body = [&](test::test_initiator& i) {
        // A quantum ahead: three misses at 1000 ns. Lines 0x000 (bank 0) and 0x080 (bank 1):
        // bank [1000, 1001), tag done at 1003, MSHRs held [1003, 1014) each.
        const std::uint64_t lines[] = {0x000, 0x080, 0x180};
        const int want_ns[] = {1014, 1014, 1025};
        for (int k = 0; k < 3; ++k) {
            sc_time d(1000, SC_NS);
            i.read32(lines[k], d);
            CHECK(d == sc_time(want_ns[k], SC_NS));
        }
        // 0x180 (bank 1 [1001, 1002), tag done at 1004): both MSHRs busy until 1014, issue
        // then, channel 1 [1014, 1015), + 10 = 1025.
    };
    tb.init2->body = [&](test::test_initiator& i) {
        sc_core::wait(sc_core::SC_ZERO_TIME); // after `init` has booked its misses
        // At 0 ns both MSHRs are free for as long as a miss lasts (11 ns): no wait.
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x100, d);
        CHECK(d == sc_time(14, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.mshr_full_stalls") == 1);
}

TEST_CASE("requests for a line whose fill is in flight merge into it")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x000, d);
        CHECK(d == sc_time(14, SC_NS));
        d = sc_core::SC_ZERO_TIME; // same sector, same local time: the bank is busy 1 cycle,
        i.write32(0x010, 7, d);    // then the fill
        CHECK(d == sc_time(14, SC_NS));
        CHECK(dbg_read32(i.mem, 0x010) == 7u);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.reads") == 1);
    CHECK(stat("cache.mshr_merges") == 1);
    CHECK(stat("cache.bank_wait.max") == Approx(1.0));
}

TEST_CASE("debug transport serves held lines, forwards the rest and changes no state")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x100, 0x1111, d); // dirty in the LLC
        std::uint32_t v = 0x2222;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x300, &v, 4) == 4u); // absent: forwarded
        CHECK(dbg_read32(tb.side.mem, 0x300) == 0x2222u);
        v = 0x3333;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x104, &v, 4) == 4u); // held: both
        CHECK(dbg_read32(tb.side.mem, 0x104) == 0x3333u);
        std::uint8_t two_lines[256];
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x080, two_lines, 256) == 256u);
        std::uint32_t a, b;
        std::memcpy(&a, two_lines + 0x80, 4);
        std::memcpy(&b, two_lines + 0x84, 4);
        CHECK(a == 0x1111u);
        CHECK(b == 0x3333u);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, mem_size - 4, two_lines, 8) == 4u);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x300, d) == 0x2222u); // debug allocated nothing: a miss
        CHECK(d == sc_time(14, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.reads") == 1);
    CHECK(stat("cache.writes") == 1);
    CHECK(stat("cache.writebacks") == 0);
    CHECK(stat("cache.misses") == 2);
}

TEST_CASE("errors from DRAM travel back and allocate nothing, and DMI is refused")
{
    bench tb;
    tb.init.mem.set_dmi_enabled(true);
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        i.read32(mem_size + 0x80, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(i.write32(mem_size + 0x80, 1, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(i.write32(0x80, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x80, d) == 1u);
        CHECK(i.mem.dmi_accesses() == 0);
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(0x80);
        CHECK_FALSE(i.mem->get_direct_mem_ptr(gp, dmi));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.errors") == 2);
    CHECK(stat("cache.misses") == 3);
    CHECK(stat("cache.hits") == 1);
}

TEST_CASE("accurate mode: two requests for one bank in the same cycle take turns")
{
    bench tb(llc_cfg(4), true, true);
    // Two different lines of the same bank.
    const std::uint64_t x = 0x000;
    std::uint64_t y = 0x080;
    while (tb.cache.bank_of(y) != tb.cache.bank_of(x))
        y += 0x80;
    sc_time end1, end2;
    auto body = [&](test::test_initiator& i, std::uint64_t addr, sc_time& end) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(addr, d); // warm up: the line is then resident
        sc_core::wait(d);
        sc_core::wait(sc_time(100, SC_NS) - sc_core::sc_time_stamp());
        d = sc_core::SC_ZERO_TIME;
        i.read32(addr, d);
        sc_core::wait(d);
        end = sc_core::sc_time_stamp();
    };
    tb.init.body = [&](test::test_initiator& i) { body(i, x, end1); };
    tb.init2->body = [&](test::test_initiator& i) { body(i, y, end2); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    // Both arrive on the 100 ns edge and meet there: one is granted, the other a cycle later;
    // each holds the bank 1 cycle, then 2 cycles of tag check.
    CHECK(std::min(end1, end2) == sc_time(103, SC_NS));
    CHECK(std::max(end1, end2) == sc_time(104, SC_NS));
    CHECK(stat("cache.hits") == 2);
}

namespace {
/// The bank's two queues (README.md, "Queues"): whole-line hits (128 bytes: 2 bank cycles,
/// then 2 cycles of tag check) on one bank, four from the slice's own module (the local
/// queue) arriving at 100, 101, 102 and 103 ns and one from module 1 (the remote queue) at
/// 102.5 ns, each made at its arrival time. Returns their completion times, local ones first.
std::vector<sc_time> local_remote_schedule(bool accurate)
{
    bench tb(llc_cfg(), false, accurate);
    const double at[] = {100, 101, 102, 103, 102.5};
    std::vector<sc_time> end(5);
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        // Warm-up: every sector of the line becomes resident.
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x000, line, 128, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(d);
        for (unsigned k = 0; k < 5; ++k)
            sc_core::sc_spawn([&, k] {
                tlm_bus::gpu_extension e;
                e.module = k < 4 ? 0 : 1;
                e.kind = tlm_bus::access_kind::data;
                std::uint8_t buf[128];
                sc_core::wait(sc_time(at[k], SC_NS) - sc_core::sc_time_stamp());
                sc_time dd = sc_core::SC_ZERO_TIME;
                CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x000, buf, 128, dd, &e) ==
                      tlm::TLM_OK_RESPONSE);
                end[k] = sc_core::sc_time_stamp() + dd;
            });
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("cache.hits") == 5);
    CHECK(stat("cache.local_lookups") == 5); // the warm-up has no module: local
    CHECK(stat("cache.remote_lookups") == 1);
    return end;
}

/// The schedule computed by hand, oldest first over both queues: the bank is granted at 100
/// (local 100), 102 (local 101), 104 (local 102), 106 (remote 102.5), 108 (local 103), each
/// for 2 cycles, and the data follows 2 cycles of tag check later. (Round-robin between the
/// queues would grant the remote request at 104, ahead of the older local one at 102: 108 and
/// 110 instead of 110 and 108.)
void check_oldest_first(const std::vector<sc_time>& end)
{
    CHECK(end[0] == sc_time(104, SC_NS));
    CHECK(end[1] == sc_time(106, SC_NS));
    CHECK(end[2] == sc_time(108, SC_NS));
    CHECK(end[4] == sc_time(110, SC_NS)); // the remote request
    CHECK(end[3] == sc_time(112, SC_NS));
}
} // namespace

TEST_CASE("accurate mode: a bank serves its local and remote queues oldest first")
{
    check_oldest_first(local_remote_schedule(true));
}

TEST_CASE("fast mode: a bank serves its local and remote queues oldest first")
{
    check_oldest_first(local_remote_schedule(false));
}

namespace {
/// Random reads and writes (some with byte enables, some of whole lines) of `ops` accesses
/// in `ref`'s footprint, checked against `ref`, which is updated as accesses complete.
void random_traffic(test::test_initiator& i, std::uint64_t seed, unsigned ops,
                    std::vector<std::uint8_t>& ref)
{
    std::mt19937_64 rng(seed);
    const unsigned lines = static_cast<unsigned>(ref.size() / 128);
    std::uint8_t buf[128], want[128];
    unsigned char be[128];
    sc_time d = sc_core::SC_ZERO_TIME;
    unsigned bad = 0;
    for (unsigned n = 0; n < ops; ++n) {
        const unsigned line = static_cast<unsigned>(rng() % lines) * 128;
        const bool whole = rng() % 4 == 0;
        const unsigned off = whole ? 0 : static_cast<unsigned>(rng() % 128);
        const unsigned len = whole ? 128 : 1 + static_cast<unsigned>(rng() % (128 - off));
        const bool write = rng() % 3 == 0;
        const bool masked = !whole && rng() % 2 == 0;
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
        if (d > sc_time(200, SC_NS)) {
            sc_core::wait(d);
            d = sc_core::SC_ZERO_TIME;
        }
    }
    sc_core::wait(d);
}

/// Accurate-mode traffic: initiator `who` owns the 4-byte words w with w % 2 == who and
/// accesses whole lines with byte enables selecting some of its words (or, now and then, a
/// whole-line read), so both initiators share every line but never a byte.
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
        const bool write = rng() % 2 == 0;
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

TEST_CASE("randomized fast-mode traffic from two initiators: no write is ever lost")
{
    const std::uint64_t seed = vgpu::test::seed_or(4711);
    CAPTURE(seed);
    bench tb(llc_cfg(4), true);
    std::vector<std::uint8_t> ref(64 * 128, 0);
    tb.init.body = [&](test::test_initiator& i) { random_traffic(i, seed, 10000, ref); };
    tb.init2->body = [&](test::test_initiator& i) { random_traffic(i, seed + 1, 10000, ref); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    // Memory plus the dirty lines (debug reads through the LLC) hold exactly the reference.
    std::vector<std::uint8_t> now(ref.size());
    REQUIRE(tb.init.mem.debug(tlm::TLM_READ_COMMAND, 0, now.data(),
                              static_cast<unsigned>(now.size())) == now.size());
    CHECK(now == ref);
    CHECK(stat("cache.writebacks") > 0);
    CHECK(stat("cache.mshr_merges") > 0);
    CHECK(stat("cache.hits") > 0);
}

TEST_CASE("randomized accurate-mode traffic from two initiators sharing lines: no write lost")
{
    const std::uint64_t seed = vgpu::test::seed_or(99);
    CAPTURE(seed);
    bench tb(llc_cfg(2), true, true);
    std::vector<std::uint8_t> ref(16 * 128, 0);
    tb.init.body = [&](test::test_initiator& i) { owned_traffic(i, 0, seed, 4000, ref); };
    tb.init2->body = [&](test::test_initiator& i) { owned_traffic(i, 1, seed + 1, 4000, ref); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    std::vector<std::uint8_t> now(ref.size());
    REQUIRE(tb.init.mem.debug(tlm::TLM_READ_COMMAND, 0, now.data(),
                              static_cast<unsigned>(now.size())) == now.size());
    CHECK(now == ref);
    CHECK(stat("cache.writebacks") > 0);
    CHECK(stat("cache.mshr_merges") > 0);
}

TEST_CASE("llc configuration: remote ways must leave a way for the module's own lines")
{
    llc::llc_config c;
    c.remote_ways = c.ways;
    config::errors errs;
    config::provenance prov;
    config::checker chk(errs, prov);
    c.validate(chk);
    REQUIRE(errs.messages().size() == 1);
    CHECK(errs.messages()[0].find("llc.remote_ways") != std::string::npos);
    CHECK(errs.messages()[0].find("leaves no way of llc.ways") != std::string::npos);
    c.remote_ways = c.ways - 1;
    config::errors ok;
    config::checker chk2(ok, prov);
    c.validate(chk2);
    CHECK(ok.messages().empty());
}

TEST_CASE("llc switcher: each module has its own flags, and ARCH and CHANGE reach every module")
{
    // The registers of a 4-module switcher (no slices attached: the engine only flips flags).
    llc::llc_config c = llc_cfg();
    c.switch_cycles = 10;
    const noc::address_map map(4, 1 << 20, c.slices_per_module, c.line_bytes);
    llc::llc_switcher sw("sw", c, clocks(), map, llc::path_costs{}, 1);
    test::test_initiator host("host");
    host.mem.bind(sw.mmio);
    using namespace llc::switch_reg;
    std::uint32_t cur_mixed = 9, cur_all = 9, mod1 = 9, mod0 = 9, change = 9, modules = 0,
                  absent = 9;
    std::uint64_t busy0 = 0, busy1 = 0;
    bool cur1 = false, cur0 = true;
    host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        modules = h.read32(MODULES, d);
        // Module 1 alone to private.
        h.write32(MOD_ARCH0 + 4, 1, d);
        h.write32(MOD_CHANGE0 + 4, 1, d);
        sc_core::wait(d + sc_time(1, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        cur1 = sw.cur(1) == llc::llc_org::private_org;
        cur0 = sw.cur(0) == llc::llc_org::private_org;
        busy0 = sw.busy_until(0);
        busy1 = sw.busy_until(1);
        mod1 = h.read32(MOD_CUR0 + 4, d);
        mod0 = h.read32(MOD_CUR0, d);
        cur_mixed = h.read32(CUR, d);
        // Every module to private through the broadcast registers.
        h.write32(ARCH, 1, d);
        h.write32(CHANGE, 1, d);
        sc_core::wait(d + sc_time(1, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        cur_all = h.read32(CUR, d);
        change = h.read32(CHANGE, d);
        // Module 5 does not exist: its flags read 0 and a switch request does nothing.
        h.write32(MOD_ARCH0 + 20, 1, d);
        h.write32(MOD_CHANGE0 + 20, 1, d);
        absent = h.read32(MOD_ARCH0 + 20, d) | h.read32(MOD_CHANGE0 + 20, d) |
                 h.read32(MOD_CUR0 + 20, d) | h.read32(CHANGE, d);
    };
    sc_core::sc_start();
    CHECK(modules == 4);
    CHECK(cur1);
    CHECK_FALSE(cur0);
    CHECK(busy0 == 0);      // module 0 did not switch: its slices never wait
    CHECK(busy1 == 10'000); // module 1's switch: switch_cycles at a 1 ns NoC clock
    CHECK(mod1 == 1);
    CHECK(mod0 == 0);
    CHECK(cur_mixed == 2);
    CHECK(cur_all == 1);
    CHECK(change == 0);
    CHECK(absent == 0);
    CHECK(sw.switches() == 4); // module 1 once, modules 0, 2 and 3 once more
}

namespace {
/// The home of module 0's private copies (module 1's side, hand-timed): a read takes its data
/// 2 ns after it arrives and answers 60 ns later (a slow way back); a write lands 10 ns after
/// it arrives and answers 5 ns later. Every request must be marked home_access.
struct slow_home : sc_core::sc_module {
    tlm_utils::simple_target_socket<slow_home> in{"in"};
    std::vector<std::uint8_t> mem = std::vector<std::uint8_t>(2 * mem_size, 0);
    unsigned unmarked = 0;
    explicit slow_home(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &slow_home::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        tlm_bus::gpu_extension* e = nullptr;
        gp.get_extension(e);
        unmarked += e && e->home_access ? 0 : 1;
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
        const bool write = gp.is_write();
        sc_core::wait(sc_time(write ? 10 : 2, SC_NS));
        for (unsigned k = 0; k < gp.get_data_length(); ++k) {
            const unsigned char* be = gp.get_byte_enable_ptr();
            if (be && be[k % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED)
                continue;
            if (write)
                mem[gp.get_address() + k] = gp.get_data_ptr()[k];
            else
                gp.get_data_ptr()[k] = mem[gp.get_address() + k];
        }
        sc_core::wait(sc_time(write ? 5 : 60, SC_NS));
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};
} // namespace

TEST_CASE("accurate mode: a private copy's fill asked during a write-through of its line sees it")
{
    // Module 0's slice in llc.mode private; line X is homed on module 1. A write of word 0 of
    // X goes through to the home (arrives at 0 ns; tag check done at 3 ns; lands at the home at
    // 13 ns, answers at 18 ns). A read of word 1 at 5 ns misses the copy: its fill must not
    // read the home before 18 ns, or it takes word 0's old value at 10 ns and installs it at
    // 70 ns, after the write found no valid sector to patch: the read of word 0 at 200 ns
    // would then hit the stale copy.
    llc::llc_config c = llc_cfg();
    c.mode = llc::llc_mode::private_;
    const noc::address_map map(2, mem_size, 1, c.line_bytes);
    llc::llc_switcher sw("sw", c, clocks(true), map, llc::path_costs{}, 1);
    test::test_initiator host("host"); // the register window, unused here
    host.mem.bind(sw.mmio);
    host.body = [](test::test_initiator&) {};
    llc::llc slice("slice", c, clocks(true));
    slice.attach(sw, 0, map);
    slow_home home("home");
    slice.out.bind(home.in);
    test::test_initiator sm("sm");
    sm.mem.bind(slice.in);
    const std::uint64_t x = mem_size + 0x400;
    const std::uint32_t old_word = 0x01010101, new_word = 0xb0b0b0b0;
    std::memcpy(&home.mem[x], &old_word, 4);
    std::uint32_t word1 = 0, word0 = 0;
    sc_time fill_done;
    sm.body = [&](test::test_initiator& i) {
        tlm_bus::gpu_extension e;
        e.module = 0;
        e.sm = 0;
        e.kind = tlm_bus::access_kind::data;
        sc_core::sc_spawn([&] {
            sc_core::wait(sc_time(5, SC_NS));
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(i.mem.access(tlm::TLM_READ_COMMAND, x + 4, &word1, 4, d, &e) ==
                  tlm::TLM_OK_RESPONSE);
            fill_done = sc_core::sc_time_stamp() + d;
        });
        sc_time d = sc_core::SC_ZERO_TIME;
        std::uint32_t v = new_word;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, x, &v, 4, d, &e) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(sc_time(200, SC_NS) - sc_core::sc_time_stamp());
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, x, &word0, 4, d, &e) == tlm::TLM_OK_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(sm.done);
    CHECK(home.unmarked == 0);
    CHECK(stat("slice.home_writes") == 1);
    CHECK(stat("slice.misses") == 1); // the fill of word 1; word 0 hits the copy
    CHECK(word1 == 0);
    // The fill issued once the write had answered (18 ns): the home's data at 20 ns, 60 ns back.
    CHECK(fill_done == sc_time(80, SC_NS));
    CHECK(home.mem[x] == 0xb0);
    CHECK(word0 == new_word);
}

TEST_CASE("accurate mode: a private copy's fill in flight while its module leaves private is "
          "not kept")
{
    // Module 0's slice reads word 1 of X (homed on module 1) at 0 ns: its fill takes the home's
    // data at 5 ns and lands at 65 ns. Module 0 switches to shared at 10 ns; its SMs then
    // write the home directly (word 0 at 20 ns, made here at the home); it is private again at
    // 30 ns. The fill read the home before that write: it must not be installed, so the read
    // of word 0 at 200 ns fetches the new word instead of hitting a stale copy.
    llc::llc_config c = llc_cfg();
    c.mode = llc::llc_mode::private_;
    c.switch_cycles = 2;
    const noc::address_map map(2, mem_size, 1, c.line_bytes);
    llc::llc_switcher sw("sw", c, clocks(true), map, llc::path_costs{}, 1);
    test::test_initiator host("host");
    host.mem.bind(sw.mmio);
    llc::llc slice("slice", c, clocks(true));
    slice.attach(sw, 0, map);
    slow_home home("home");
    slice.out.bind(home.in);
    test::test_initiator sm("sm");
    sm.mem.bind(slice.in);
    const std::uint64_t x = mem_size + 0x400;
    const std::uint32_t old_word = 0x01010101, new_word = 0xb0b0b0b0;
    std::memcpy(&home.mem[x], &old_word, 4);
    bool shared_at_20 = false, private_at_40 = false;
    host.body = [&](test::test_initiator& h) {
        using namespace llc::switch_reg;
        sc_core::wait(sc_time(10, SC_NS));
        sc_time d = sc_core::SC_ZERO_TIME;
        h.write32(MOD_ARCH0, 0, d); // module 0 to shared
        h.write32(MOD_CHANGE0, 1, d);
        sc_core::wait(sc_time(20, SC_NS) - sc_core::sc_time_stamp());
        shared_at_20 = sw.cur(0) == llc::llc_org::shared;
        std::memcpy(&home.mem[x], &new_word, 4); // module 0's SM writes word 0 at its home
        sc_core::wait(sc_time(30, SC_NS) - sc_core::sc_time_stamp());
        d = sc_core::SC_ZERO_TIME;
        h.write32(MOD_ARCH0, 1, d); // and back to private
        h.write32(MOD_CHANGE0, 1, d);
        sc_core::wait(sc_time(40, SC_NS) - sc_core::sc_time_stamp());
        private_at_40 = sw.cur(0) == llc::llc_org::private_org;
    };
    std::uint32_t word1 = 0, word0 = 0;
    sm.body = [&](test::test_initiator& i) {
        tlm_bus::gpu_extension e;
        e.module = 0;
        e.sm = 0;
        e.kind = tlm_bus::access_kind::data;
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, x + 4, &word1, 4, d, &e) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(sc_time(200, SC_NS) - sc_core::sc_time_stamp());
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, x, &word0, 4, d, &e) == tlm::TLM_OK_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(sm.done);
    REQUIRE(host.done);
    CHECK(shared_at_20);
    CHECK(private_at_40);
    CHECK(sw.switches() == 2);
    CHECK(word1 == 0);
    CHECK(stat("slice.misses") == 2); // the fill of 65 ns was dropped: word 0 misses again
    CHECK(word0 == new_word);
}
