// Shell tests of the router and the memory target, with the protocol checker on every link.
// See docs/tlm-bus.md.
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/router.h"

#include <catch2/catch.hpp>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
/// initiator -> checker -> router -> checker -> memory (and a second memory for decoding).
struct bench {
    test::test_initiator init{"init"};
    tlm_bus::protocol_checker pc_in{"pc_in"}, pc_a{"pc_a"}, pc_b{"pc_b"};
    tlm_bus::router bus{"bus"};
    tlm_bus::memory a, b;
    explicit bench(tlm_bus::memory_params pa = params(), tlm_bus::memory_params pb = params())
        : a("a", pa), b("b", pb)
    {
        tlm_bus::bind_checked(init.mem, pc_in, bus.in);
        tlm_bus::bind_checked(bus.out, pc_a, a.in);
        tlm_bus::bind_checked(bus.out, pc_b, b.in);
        bus.map({0x10000, 0x2000, 0, 0, "a"});
        bus.map({0x20000, 0x1000, 1, 0x100, "b"});
    }
    static tlm_bus::memory_params params()
    {
        tlm_bus::memory_params p;
        p.size = 0x4000;
        p.latency = sc_time(10, SC_NS);
        p.bytes_per_ns = 4.0;
        p.dmi = false;
        return p;
    }
    std::size_t violations() const
    {
        return pc_in.violations() + pc_a.violations() + pc_b.violations();
    }
};
} // namespace

TEST_CASE("memory starts zeroed, returns written data, and times latency plus transfer")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x10010, d) == 0u);
        CHECK(d == sc_time(11, SC_NS)); // 4 bytes at 4 B/ns + 10 ns
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x10010, 0xdeadbeef, d) == tlm::TLM_OK_RESPONSE);
        // The port was busy until 1 ns (the read's transfer): this write queues behind it.
        CHECK(d == sc_time(12, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x10010, d) == 0xdeadbeefu);
        CHECK(d == sc_time(11, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.a.reads() == 2);
    CHECK(tb.a.writes() == 1);
    CHECK(tb.a.queue_time() == sc_time(1, SC_NS));
}

TEST_CASE("router translates addresses per window and refuses unmapped ones")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x20004, 0x1234, d) == tlm::TLM_OK_RESPONSE);
        tlm::tlm_response_status s;
        CHECK(i.read32(0x30000, d, &s) == 0u);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        i.read32(0x11ffe, d, &s); // crosses the end of window a
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    std::uint32_t v = 0;
    tb.b.store().read(0x104, &v, 4); // window b maps 0x20000 to 0x100
    CHECK(v == 0x1234u);
    CHECK(tb.bus.unmapped_accesses() == 2);
}

TEST_CASE("debug transport moves data without time or statistics, and reports bytes")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0xcafe;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x10020, &v, 4) == 4u);
        v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x10020, &v, 4) == 4u);
        CHECK(v == 0xcafeu);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x50000, &v, 4) == 0u);
        std::uint8_t buf[16];
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x11ff8, buf, 16) == 8u); // clipped to the window
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.a.reads() + tb.a.writes() == 0);
}

TEST_CASE("DMI grants are translated, clipped to the window, used, and invalidated")
{
    auto p = bench::params();
    p.dmi = true;
    p.size = 0x4000;
    bench tb(p, p);
    tb.init.mem.set_dmi_enabled(true);
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(0x20ff0, 7, d); // window b: target 0x10f0, in page 0x1000..0x1fff of b
        CHECK(i.mem.transactions() == 1);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x20ff0, d) == 7u);
        CHECK(i.mem.dmi_accesses() == 1);
        CHECK(d == sc_time(10, SC_NS)); // DMI latency

        // 0x10ff, so the grant must not cover addresses outside 0x20000..0x20eff+.
        std::uint32_t v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x20ff0, &v, 4) == 4u);
        tb.b.invalidate_dmi();
        CHECK(i.mem.dmi_invalidations() == 1);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x20ff0, d) == 7u);
        CHECK(i.mem.transactions() == 2); // after invalidation back through b_transport
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("the router clips a DMI range to its window")
{
    auto p = bench::params();
    p.dmi = true;
    bench tb(p, p);
    bool checked = false;
    tb.init.body = [&](test::test_initiator& i) {
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(0x20000);
        REQUIRE(i.mem->get_direct_mem_ptr(gp, dmi));
        // b's page holding target 0x100 is 0x000..0xfff; the window maps 0x20000 -> 0x100,
        // so the usable part starts at 0x20000 and ends at 0x20eff.
        CHECK(dmi.get_start_address() == 0x20000u);
        CHECK(dmi.get_end_address() == 0x20effu);
        CHECK(dmi.get_dmi_ptr() == tb.b.store().page(0x100) + 0x100);
        checked = true;
    };
    sc_core::sc_start();
    REQUIRE(checked);
}

TEST_CASE("memory honours byte enables on writes and reads")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x10000, 0x11223344, d) == tlm::TLM_OK_RESPONSE);
        const std::uint8_t be[4] = {0xff, 0, 0xff, 0};
        std::uint32_t v = 0xaabbccdd;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, 0x10000, &v, 4, d, nullptr, be) ==
              tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x10000, d) == 0x11bb33ddu); // bytes 0 and 2 written, 1 and 3 kept
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.a.writes() == 2);
}

TEST_CASE("overlapping or empty windows are refused")
{
    tlm_bus::router r("r");
    r.map({0x1000, 0x1000, 0, 0, "x"});
    CHECK_THROWS_WITH(r.map({0x1800, 0x1000, 1, 0, "y"}), "r: window 'y' overlaps 'x'");
    CHECK_THROWS_WITH(r.map({0x8000, 0, 1, 0, "z"}), "r: window 'z' is empty or wraps");
    CHECK(r.decode(0x1fff) != nullptr);
    CHECK(r.decode(0x2000) == nullptr);
    CHECK(r.decode(0xfff) == nullptr);
}

TEST_CASE("router binds register banks by name at their bases in the address map")
{
    test::test_initiator init{"init"};
    tlm_bus::router bus{"bus"};
    tlm_bus::memory a("a", bench::params()), b("b", bench::params());
    init.mem.bind(bus.in);
    bus.set_address_map({{"a", 0x40000000}, {"b", 0x40010000}});
    // Bound in the other order than the table's: the name, not the bind order, picks the base.
    bus.bind("b", b.in, 0x100);
    bus.bind("a", a.in, 0x100);
    CHECK(bus.base("b") == 0x40010000);
    CHECK_THROWS_WITH(bus.base("c"), "bus: no window 'c' in the address map");
    CHECK_THROWS_WITH(bus.bind("c", a.in, 0x100), "bus: no window 'c' in the address map");
    REQUIRE(bus.decode(0x40010004) != nullptr);
    CHECK(bus.decode(0x40010004)->name == "b");
    CHECK(bus.decode(0x40000100) == nullptr); // past a's 0x100 bytes
    init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x40000010, 0x11, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.write32(0x40010010, 0x22, d) == tlm::TLM_OK_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(init.done);
    CHECK(a.writes() == 1);
    CHECK(b.writes() == 1);
}
