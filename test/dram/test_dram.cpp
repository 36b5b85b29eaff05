// Shell tests of the DRAM controller, with the protocol checker on every link.
// See models/dram/README.md.
#include "models/common/trace_events.h"
#include "models/dram/dram.h"
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
constexpr std::uint64_t base = 0x100000; // module 1 of 1 MiB modules

dram::dram_config dram_cfg()
{
    dram::dram_config c;
    c.size.bytes = 1 << 20;
    c.latency.ps = 10000;
    c.bandwidth_gbps = 64.0; // 64 B per 1 ns DRAM cycle
    c.channels = 2;
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

/// One or two initiators -> checker -> dram.
struct bench {
    test::test_initiator init{"init"};
    tlm_bus::protocol_checker pc{"pc"};
    dram::dram mem;
    std::unique_ptr<test::test_initiator> init2;
    std::unique_ptr<tlm_bus::protocol_checker> pc2;
    explicit bench(const dram::dram_config& c = dram_cfg(), const clock_params& k = clocks(),
                   bool two = false)
        : mem("mem", c, k, base, 128)
    {
        tlm_bus::bind_checked(init.mem, pc, mem.in);
        if (two) {
            init2 = std::make_unique<test::test_initiator>("init2");
            pc2 = std::make_unique<tlm_bus::protocol_checker>("pc2");
            tlm_bus::bind_checked(init2->mem, *pc2, mem.in);
        }
    }
    std::size_t violations() const { return pc.violations() + (pc2 ? pc2->violations() : 0); }
};

/// Current value of the statistic `name` (0 if absent).
double stat(const std::string& name)
{
    for (const auto& e : stats::collect_all())
        if (e.name == name)
            return e.value.get<double>();
    return 0;
}

/// (time in ps, value) of the trace.json counter `name` of process `process`.
std::vector<std::pair<std::uint64_t, double>> counter(const std::string& process,
                                                      const std::string& name)
{
    const auto doc = nlohmann::json::parse(trace::recorder::instance().to_json());
    int pid = -1;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == process)
            pid = e["pid"].get<int>();
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "C" && e["pid"] == pid && e["name"] == name)
            out.emplace_back(static_cast<std::uint64_t>(e["ts"].get<double>() * 1e6 + 0.5),
                             e["args"]["value"].get<double>());
    return out;
}

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

TEST_CASE("channels interleave by line and each transfers at its bandwidth, then the latency")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_time(12, SC_NS)); // 2 cycles of 64 B + 10 ns
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base + 128, line, 128, d); // channel 1: idle
        CHECK(d == sc_time(12, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base + 256, line, 128, d); // channel 0: busy to 2 ns
        CHECK(d == sc_time(14, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base + 512, line, 4, d); // 1 cycle, after 4 ns
        CHECK(d == sc_time(15, SC_NS));
        d = sc_time(100, SC_NS);
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 640, line, 100, d); // idle again: 2 cycles
        CHECK(d == sc_time(112, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.mem.channel_of(base) == 0);
    CHECK(tb.mem.channel_of(base + 128) == 1);
    CHECK(tb.mem.channel_of(base + 255) == 1);
    CHECK(tb.mem.channel_of(base + 256) == 0);
    CHECK(tb.mem.transfer_cycles(128) == 2);
    CHECK(tb.mem.transfer_cycles(129) == 3);
    CHECK(tb.mem.transfer_cycles(1) == 1);
    CHECK(stat("mem.reads") == 4);
    CHECK(stat("mem.writes") == 1);
    CHECK(stat("mem.bytes_read") == 388);
    CHECK(stat("mem.bytes_written") == 100);
    CHECK(stat("mem.ch0.busy_cycles") == 5);
    CHECK(stat("mem.ch1.busy_cycles") == 4);
}

TEST_CASE("a non-integral bytes-per-cycle rounds the occupancy up to whole DRAM cycles")
{
    auto c = dram_cfg();
    c.bandwidth_gbps = 64.0;
    auto k = clocks();
    k.dram_ps = 1250; // 80 B per cycle: a line takes 2 cycles = 2.5 ns
    bench tb(c, k);
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128];
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d);
        CHECK(d == sc_time(12500, sc_core::SC_PS));
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 80, d); // queued behind the first
        CHECK(d == sc_time(13750, sc_core::SC_PS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
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
        CHECK(d == sc_time(11, SC_NS)); // the channel was idle: debug used none of it
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
        CHECK(d == sc_time(10, SC_NS)); // DMI: the latency only, no channel timing
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

TEST_CASE("accurate mode grants no DMI and makes two initiators on one channel take turns")
{
    auto c = dram_cfg();
    c.dmi = true; // ignored: accurate mode never grants DMI
    bench tb(c, clocks(true), true);
    tb.init.mem.set_dmi_enabled(true);
    sc_time end1, end2;
    auto body = [&](test::test_initiator& i, sc_time& end) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, base, line, 128, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(d);
        end = sc_core::sc_time_stamp();
        CHECK(i.mem.dmi_accesses() == 0);
    };
    tb.init.body = [&](test::test_initiator& i) { body(i, end1); };
    tb.init2->body = [&](test::test_initiator& i) { body(i, end2); };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    REQUIRE(tb.violations() == 0);
    // Both arrive on the 0 ns edge and compete there; the first holds the channel 2 cycles.
    const sc_time first = std::min(end1, end2), second = std::max(end1, end2);
    CHECK(first == sc_time(12, SC_NS));
    CHECK(second == sc_time(14, SC_NS));
    CHECK(stat("mem.dmi_grants") == 0);
}

TEST_CASE("channel busy follows the transfers booked ahead in fast mode")
{
    trace::recorder::instance().enable(true);
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base, line, 128, d); // ch0 [0, 2 ns)
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, base + 256, line, 128, d); // ch0 [2, 4 ns)
        d = sc_time(10, SC_NS);
        i.mem.access(tlm::TLM_READ_COMMAND, base + 512, line, 4, d); // ch0 [10, 11 ns)
        d = sc_time(20, SC_NS);
        i.mem.access(tlm::TLM_WRITE_COMMAND, base + 128, line, 100, d); // ch1 [20, 22 ns)
        // Fast mode: nothing waited, the channels are only booked.
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    using changes = std::vector<std::pair<std::uint64_t, double>>;
    CHECK(counter("mem", "ch0_busy") == changes{{0, 1}, {4000, 0}, {10000, 1}, {11000, 0}});
    CHECK(counter("mem", "ch1_busy") == changes{{0, 0}, {20000, 1}, {22000, 0}});
}

TEST_CASE("channel busy in accurate mode: two initiators' transfers back to back, then idle")
{
    trace::recorder::instance().enable(true);
    bench tb(dram_cfg(), clocks(true), true);
    auto body = [&](test::test_initiator& i) {
        std::uint8_t line[128] = {};
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, base, line, 128, d);
        sc_core::wait(d);
    };
    tb.init.body = body;
    tb.init2->body = body;
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.init2->done);
    using changes = std::vector<std::pair<std::uint64_t, double>>;
    // The second transfer is granted in the instant the first ends: busy throughout.
    CHECK(counter("mem", "ch0_busy") == changes{{0, 1}, {4000, 0}});
    CHECK(counter("mem", "ch1_busy") == changes{{0, 0}});
}
