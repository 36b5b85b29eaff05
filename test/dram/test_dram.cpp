// Shell tests of the DRAM controller, with the protocol checker on every link.
// See models/dram/README.md.
#include "models/common/trace_events.h"
#include "models/dram/dram.h"
#include "test/support/stats_probe.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
using test::counter;
using test::stat;
constexpr std::uint64_t base = 0x100000; // module 1 of 1 MiB modules

/// tRCD = tCL = tRP = 10 ns, tRAS = 30 ns, tBURST = 1 ns, 64 GB/s (a 128 B line takes 2 ns),
/// pipeline latency 10 ns; 2 channels of 4 banks with 1 KiB rows (8 lines of a channel).
/// A read that finds its bank closed: 10 + 10 + transfer + 10 ns.
dram::dram_config dram_cfg()
{
    dram::dram_config c;
    c.size.bytes = 1 << 20;
    c.latency.ps = 10000;
    c.bandwidth_gbps = 64.0;
    c.channels = 2;
    c.banks = 4;
    c.row_bytes.bytes = 1024;
    c.tRCD.ps = 10000;
    c.tCL.ps = 10000;
    c.tRP.ps = 10000;
    c.tRAS.ps = 30000;
    c.tBURST.ps = 1000;
    c.queue_entries = 4;
    c.dmi = false;
    return c;
}

clock_params clocks(bool accurate = false)
{
    clock_params p;
    p.accurate = accurate;
    p.dram_ps = 1000;
    return p;
}

/// Initiators -> checkers -> dram.
struct bench {
    std::vector<std::unique_ptr<test::test_initiator>> inits;
    std::vector<std::unique_ptr<tlm_bus::protocol_checker>> pcs;
    dram::dram mem;
    test::test_initiator& init;
    explicit bench(const dram::dram_config& c = dram_cfg(), const clock_params& k = clocks(),
                   unsigned initiators = 1)
        : mem("mem", c, k, base, 128), init(add(0))
    {
        for (unsigned i = 1; i < initiators; ++i)
            add(i);
    }
    test::test_initiator& add(unsigned i)
    {
        const std::string n = std::to_string(i);
        inits.push_back(std::make_unique<test::test_initiator>(("init" + n).c_str()));
        pcs.push_back(std::make_unique<tlm_bus::protocol_checker>(("pc" + n).c_str()));
        tlm_bus::bind_checked(inits.back()->mem, *pcs.back(), mem.in);
        return *inits.back();
    }
    std::size_t violations() const
    {
        std::size_t v = 0;
        for (const auto& pc : pcs)
            v += pc->violations();
        return v;
    }
    bool done() const
    {
        for (const auto& i : inits)
            if (!i->done)
                return false;
        return true;
    }
};

/// Writes `len` bytes with a byte-enable mask through a hand-built payload.
tlm::tlm_response_status write_be(test::test_initiator& i, std::uint64_t addr, void* data,
                                  unsigned len, unsigned char* be, unsigned be_len, sc_time& delay)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(be_len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    i.mem->b_transport(gp, delay);
    return gp.get_response_status();
}
} // namespace

TEST_CASE("channels interleave by line, a read pays its bank timing, the exact transfer and the "
          "pipeline latency, a write is posted")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_time(32, SC_NS)); // closed bank: ACTIVATE 0, column 10, data 20..22, +10
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base + 128, line, 128, d); // channel 1: idle
        CHECK(d == sc_time(32, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        // Channel 0, same row: a row hit when the bank is ready (12 ns), data 22..24 ns.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 256, line, 128, d);
        CHECK(d == sc_time(34, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        // Channel 0, bank 1 (its 9th line): ACTIVATE 0, but the bus is busy until 24 ns; 4 bytes
        // take one 1 ns burst: data 24..25, +10.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 2048, line, 4, d);
        CHECK(d == sc_time(35, SC_NS));
        d = sc_time(100, SC_NS);
        // Channel 1, row 0 open: a posted write returns at once; it occupies the bank from 100
        // (column) to 101.563 ns (100 B at 64 GB/s) and the bus 110..111.563 ns.
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 640, line, 100, d);
        CHECK(d == sc_time(100, SC_NS));
        d = sc_time(100, SC_NS);
        i.mem.access(tlm::TLM_READ_COMMAND, base + 384, line, 128, d); // hit behind the write
        CHECK(d == sc_time(123563, sc_core::SC_PS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.mem.channel_of(base) == 0);
    CHECK(tb.mem.channel_of(base + 128) == 1);
    CHECK(tb.mem.channel_of(base + 255) == 1);
    CHECK(tb.mem.channel_of(base + 256) == 0);
    const auto a = tb.mem.decode(base + 2048);
    CHECK((a.channel == 0 && a.bank == 1 && a.row == 0 && a.column == 0));
    CHECK(tb.mem.transfer_ps(128) == 2000);
    CHECK(tb.mem.transfer_ps(100) == 1563);
    CHECK(tb.mem.transfer_ps(4) == 1000); // one burst
    CHECK(stat("mem.reads") == 5);
    CHECK(stat("mem.writes") == 1);
    CHECK(stat("mem.bytes_read") == 516);
    CHECK(stat("mem.bytes_written") == 100);
    CHECK(stat("mem.ch0.reads") == 3);
    CHECK(stat("mem.ch1.reads") == 2);
    CHECK(stat("mem.ch1.writes") == 1);
    CHECK(stat("mem.ch0.row_misses") == 2);
    CHECK(stat("mem.ch0.row_hits") == 1);
    CHECK(stat("mem.ch0.row_conflicts") == 0);
    CHECK(stat("mem.ch1.row_misses") == 1);
    CHECK(stat("mem.ch1.row_hits") == 2);
    CHECK(stat("mem.ch0.busy_ps") == 5000);
    CHECK(stat("mem.ch1.busy_ps") == 5563);
}

TEST_CASE("the transfer time is exact: at a 1.25 ns DRAM clock a 128-byte line takes 2 ns")
{
    auto k = clocks();
    k.dram_ps = 1250; // the old model rounded to 2 cycles = 2.5 ns
    bench tb(dram_cfg(), k);
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d);
        CHECK(d == sc_time(32, SC_NS)); // 10 + 10 + 2 + 10
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 80, d); // hit: column 12, data 22..23.25
        CHECK(d == sc_time(33250, sc_core::SC_PS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.ch0.busy_ps") == 3250);
}

TEST_CASE("a row conflict waits for tRAS since the activate, then precharges and activates")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d); // row 0 of bank 0, ACTIVATE 0
        CHECK(d == sc_time(32, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        // Row 1 of bank 0: PRECHARGE at max(bank ready 12, ACTIVATE 0 + tRAS 30) = 30,
        // ACTIVATE 40, column 50, data 60..62, +10.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 10240, line, 128, d);
        CHECK(d == sc_time(72, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        // Row 0 at 0 ns, before that PRECHARGE: still open, a row hit (column 12, data 22..24),
        // and row 0 can still close by 30 for the booked conflict.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 256, line, 128, d);
        CHECK(d == sc_time(34, SC_NS));
        d = sc_time(60, SC_NS);
        // Row 0 at 60 ns finds row 1 open: PRECHARGE at max(60, bank ready 52, ACTIVATE 40 +
        // tRAS 30) = 70, ACTIVATE 80, column 90, data 100..102, done 112.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 256, line, 128, d);
        CHECK(d == sc_time(112, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    const auto a = tb.mem.decode(base + 10240);
    CHECK((a.channel == 0 && a.bank == 0 && a.row == 1));
    CHECK(stat("mem.ch0.row_misses") == 1);
    CHECK(stat("mem.ch0.row_conflicts") == 2);
    CHECK(stat("mem.ch0.row_hits") == 1);
}

TEST_CASE("posted writes return at once, occupy bank and bus, and later reads see their data")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128], got[128];
        for (unsigned b = 0; b < 128; ++b)
            line[b] = static_cast<std::uint8_t>(b * 7 + 1);
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, base, line, 128, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_core::SC_ZERO_TIME);
        d = sc_core::SC_ZERO_TIME;
        // Bank 1: ACTIVATE 0, column 10, but the write's data holds the bus 20..22.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 2048, got, 128, d);
        CHECK(d == sc_time(34, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        // The written row is open: column when the bus is free (data 24..26).
        i.mem.access(tlm::TLM_READ_COMMAND, base, got, 128, d);
        CHECK(d == sc_time(36, SC_NS));
        CHECK(std::memcmp(got, line, 128) == 0);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.ch0.writes") == 1);
    CHECK(stat("mem.ch0.reads") == 2);
    CHECK(stat("mem.ch0.busy_ps") == 6000);
}

TEST_CASE("fast mode: a request waits for a free queue entry, a posted write is acknowledged "
          "when it gets one")
{
    auto c = dram_cfg();
    c.queue_entries = 1;
    bench tb(c);
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d); // leaves the queue at 0
        CHECK(d == sc_time(32, SC_NS));
        d = sc_time(1, SC_NS);
        // A conflict holds the entry from 1 ns until its PRECHARGE at 30 (tRAS).
        i.mem.access(tlm::TLM_READ_COMMAND, base + 10240, line, 128, d);
        CHECK(d == sc_time(72, SC_NS));
        d = sc_time(2, SC_NS);
        std::uint32_t v = 0xabcd;
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 2048, &v, 4, d); // enters at 30
        CHECK(d == sc_time(30, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.ch0.queue_full") == 1);
    CHECK(stat("mem.ch0.queue_max") == 1);
}

TEST_CASE("accesses outside the module's range get an address error and move no data")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        i.read32(base + (1 << 20), d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        i.read32(base - 4, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        i.read32(base + (1 << 20) - 2, d, &s); // crosses the end
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(i.write32(base + (1 << 20), 1, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(i.write32(base + (1 << 20) - 4, 0x55, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(base + (1 << 20) - 4, d, &s) == 0x55u);
        CHECK(s == tlm::TLM_OK_RESPONSE);
        std::uint32_t v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, base + (1 << 20), &v, 4) == 0u);
        std::uint8_t buf[8];
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, base + (1 << 20) - 4, buf, 8) == 4u);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.errors") == 4);
}

TEST_CASE("byte enables select the bytes a write changes, including a repeated short mask")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        std::uint8_t old[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 64, old, 8, d);
        std::uint8_t fresh[8] = {0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8};
        unsigned char be[8] = {0xff, 0, 0, 0xff, 0xff, 0xff, 0, 0};
        CHECK(write_be(i, base + 64, fresh, 8, be, 8, d) == tlm::TLM_OK_RESPONSE);
        std::uint8_t got[8];
        i.mem.access(tlm::TLM_READ_COMMAND, base + 64, got, 8, d);
        const std::uint8_t want[8] = {0xa1, 2, 3, 0xa4, 0xa5, 0xa6, 7, 8};
        CHECK(std::memcmp(got, want, 8) == 0);
        unsigned char be2[2] = {0, 0xff}; // applies to every other byte
        std::uint8_t zeros[8] = {};
        CHECK(write_be(i, base + 64, zeros, 8, be2, 2, d) == tlm::TLM_OK_RESPONSE);
        i.mem.access(tlm::TLM_READ_COMMAND, base + 64, got, 8, d);
        const std::uint8_t want2[8] = {0xa1, 0, 3, 0, 0xa5, 0, 7, 0};
        CHECK(std::memcmp(got, want2, 8) == 0);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("debug transport moves data without time, statistics or channel occupancy")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0xfeedf00d;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, base + 0x40, &v, 4) == 4u);
        v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, base + 0x40, &v, 4) == 4u);
        CHECK(v == 0xfeedf00du);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(base + 0x40, d) == 0xfeedf00du);
        CHECK(d == sc_time(31, SC_NS)); // a closed bank, one 1 ns burst: debug used none of it
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.reads") == 1);
    CHECK(stat("mem.writes") == 0);
}

TEST_CASE("DMI is granted page by page in fast mode and withdrawn by invalidate_dmi")
{
    auto c = dram_cfg();
    c.dmi = true;
    bench tb(c);
    tb.init.mem.set_dmi_enabled(true);
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(base + 0x1010, 0x77, d);
        CHECK(i.mem.transactions() == 1);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(base + 0x1010, d) == 0x77u);
        CHECK(i.mem.dmi_accesses() == 1);
        // DMI: a read that finds its bank closed (latency + tRCD + tCL + a burst), no contention.
        CHECK(d == sc_time(31, SC_NS));
        CHECK(i.write32(base + 0x1ffc, 0x99, d) == tlm::TLM_OK_RESPONSE); // same page: DMI
        CHECK(i.mem.dmi_accesses() == 2);
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(base + 0x1234);
        CHECK(i.mem->get_direct_mem_ptr(gp, dmi));
        CHECK(dmi.get_start_address() == base + 0x1000);
        CHECK(dmi.get_end_address() == base + 0x1fff);
        tb.mem.invalidate_dmi();
        CHECK(i.mem.dmi_invalidations() == 1);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(base + 0x1ffc, d) == 0x99u);
        CHECK(i.mem.transactions() == 2); // back through b_transport
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(stat("mem.dmi_grants") >= 2);
}

TEST_CASE("accurate mode grants no DMI, of two reads of one row, the second is a row hit")
{
    auto c = dram_cfg();
    c.dmi = true; // ignored: accurate mode never grants DMI
    bench tb(c, clocks(true), 2);
    tb.init.mem.set_dmi_enabled(true);
    sc_time end[2];
    for (unsigned n = 0; n < 2; ++n)
        tb.inits[n]->body = [&end, n](test::test_initiator& i) {
            std::uint8_t line[128] = {};
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d) == tlm::TLM_OK_RESPONSE);
            sc_core::wait(d);
            end[n] = sc_core::sc_time_stamp();
            CHECK(i.mem.dmi_accesses() == 0);
        };
    sc_core::sc_start();
    REQUIRE(tb.done());
    REQUIRE(tb.violations() == 0);
    // Both arrive at 0: the older one opens the row (data 20..22, done 32); the other is a row
    // hit whose column command waits for the bank (12 ns): data 22..24, done 34.
    CHECK(std::min(end[0], end[1]) == sc_time(32, SC_NS));
    CHECK(std::max(end[0], end[1]) == sc_time(34, SC_NS));
    CHECK(stat("mem.dmi_grants") == 0);
    CHECK(stat("mem.ch0.row_misses") == 1);
    CHECK(stat("mem.ch0.row_hits") == 1);
}

TEST_CASE("accurate mode, FR-FCFS: a younger row hit is served before an older row conflict")
{
    auto c = dram_cfg();
    c.tRAS.ps = 10000; // the conflict is held by its bank, not by tRAS
    bench tb(c, clocks(true), 3);
    sc_time end[3];
    // 0: row 0 of bank 0 at 0 ns; 1: row 1 of bank 0 at 1 ns; 2: row 0 of bank 0 at 2 ns.
    const std::uint64_t addr[3] = {base, base + 10240, base + 256};
    for (unsigned n = 0; n < 3; ++n)
        tb.inits[n]->body = [&end, &addr, n](test::test_initiator& i) {
            std::uint8_t line[128];
            sc_time d(n, SC_NS);
            i.mem.access(tlm::TLM_READ_COMMAND, addr[n], line, 128, d);
            sc_core::wait(d);
            end[n] = sc_core::sc_time_stamp();
        };
    sc_core::sc_start();
    REQUIRE(tb.done());
    REQUIRE(tb.violations() == 0);
    // 0: ACTIVATE 0, column 10, data 20..22, done 32; bank ready at 12. At the 12 ns edge both
    // queued requests can start; the hit (2) goes first: column 12, data 22..24, done 34. The
    // conflict (1) then precharges at 14, activates at 24, column 34, data 44..46, done 56.
    // In arrival order it would be 54 and 76 (the hit would find row 1 open).
    CHECK(end[0] == sc_time(32, SC_NS));
    CHECK(end[2] == sc_time(34, SC_NS));
    CHECK(end[1] == sc_time(56, SC_NS));
    CHECK(stat("mem.ch0.row_hits") == 1);
    CHECK(stat("mem.ch0.row_conflicts") == 1);
}

TEST_CASE("accurate mode: a full queue holds a posted write back until an entry frees, the "
          "write's data is visible to a later read")
{
    auto c = dram_cfg();
    c.queue_entries = 1;
    c.tRAS.ps = 10000;
    bench tb(c, clocks(true), 3);
    sc_time end[3];
    std::uint32_t back = 0;
    tb.inits[0]->body = [&](test::test_initiator& i) { // row 0 of bank 0, issued at 0
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d);
        sc_core::wait(d);
        end[0] = sc_core::sc_time_stamp();
    };
    tb.inits[1]->body = [&](test::test_initiator& i) { // conflict: holds the entry 1..12 ns
        std::uint8_t line[128];
        sc_time d(1, SC_NS);
        i.mem.access(tlm::TLM_READ_COMMAND, base + 10240, line, 128, d);
        sc_core::wait(d);
        end[1] = sc_core::sc_time_stamp();
    };
    tb.inits[2]->body = [&](test::test_initiator& i) { // write to bank 1 at 2 ns: queue full
        sc_time d(2, SC_NS);
        CHECK(i.write32(base + 2048, 0xabcd, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(d);
        end[2] = sc_core::sc_time_stamp();
        d = sc_core::SC_ZERO_TIME;
        back = i.read32(base + 2048, d); // row hit, column at 23 (bank ready), data 33..34
        sc_core::wait(d);
        CHECK(sc_core::sc_time_stamp() == sc_time(44, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.done());
    REQUIRE(tb.violations() == 0);
    // At 12 ns the conflict issues (PRECHARGE 12, ACTIVATE 22, column 32, data 42..44, done
    // 54) and frees the entry: the write enters and is acknowledged at 12 ns; it is issued at
    // once (ACTIVATE 12, column 22, data 32..33).
    CHECK(end[0] == sc_time(32, SC_NS));
    CHECK(end[1] == sc_time(54, SC_NS));
    CHECK(end[2] == sc_time(12, SC_NS));
    CHECK(back == 0xabcdu);
    CHECK(stat("mem.ch0.queue_full") == 1);
    CHECK(stat("mem.ch0.queue_max") == 1);
    CHECK(stat("mem.ch0.writes") == 1);
}

TEST_CASE("channel busy follows the data-bus transfers booked ahead in fast mode")
{
    trace::recorder::instance().enable(true);
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        // Line 0: ch0, bank closed: ACTIVATE 0, column 10, data [20, 22 ns).
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d);
        d = sc_core::SC_ZERO_TIME;
        // Line 1: ch1, bank closed: data [20, 22 ns) on ch1.
        i.mem.access(tlm::TLM_READ_COMMAND, base + 128, line, 128, d);
        d = sc_time(100, SC_NS);
        // Line 0 again at 100 ns: row hit, column 100, data [110, 112 ns).
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d);
        d = sc_time(200, SC_NS);
        // A posted write of line 4 (ch0, same row) at 200 ns: data [210, 212 ns).
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 512, line, 128, d);
        // Fast mode: nothing waited, the channels are only booked.
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    using changes = std::vector<std::pair<std::uint64_t, double>>;
    CHECK(counter("mem", "ch0_busy") ==
          changes{
              {0, 0}, {20000, 1}, {22000, 0}, {110000, 1}, {112000, 0}, {210000, 1}, {212000, 0}});
    CHECK(counter("mem", "ch1_busy") == changes{{0, 0}, {20000, 1}, {22000, 0}});
}

TEST_CASE("channel busy in accurate mode: two initiators' transfers back to back, then idle")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    trace::recorder::instance().enable(true);
    bench tb(dram_cfg(), clocks(true), 2);
    auto body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, base, line, 128, d);
        sc_core::wait(d);
    };
    tb.inits[0]->body = body;
    tb.inits[1]->body = body;
    sc_core::sc_start();
    REQUIRE(tb.done());
    using changes = std::vector<std::pair<std::uint64_t, double>>;
    // ACTIVATE 0, columns 10 and then the row hit; data [20, 22) and [22, 24): busy throughout.
    CHECK(counter("mem", "ch0_busy") == changes{{0, 0}, {20000, 1}, {24000, 0}});
    CHECK(counter("mem", "ch1_busy") == changes{{0, 0}});
}
