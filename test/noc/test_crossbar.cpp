// Shell tests of noc::crossbar: routing, address errors, output-port contention in both timing
// modes, debug transport, DMI and random data against a reference. See models/noc/README.md.
#include "models/noc/crossbar.h"
#include "test/seed.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr std::uint64_t window = 0x10000; ///< output 0 serves [0, window), output 1 the next

noc::noc_config noc_cfg()
{
    noc::noc_config c;
    c.width_bytes = 32;
    return c;
}

clock_params clocks(bool accurate)
{
    clock_params c;
    c.accurate = accurate;
    c.noc_ps = 1000;
    return c;
}

tlm_bus::memory_params mem_params(std::uint64_t size, bool dmi)
{
    tlm_bus::memory_params p;
    p.size = size;
    p.latency = sc_time(10, SC_NS);
    p.bytes_per_ns = 1e9; // no transfer time: only the crossbar's contention is measured
    p.dmi = dmi;
    return p;
}

/// i0, i1 -> checkers -> xbar (2-cycle request hop, 1-cycle response hop, 32-byte channels;
/// read headers and write acknowledgements on command channels, or `header_bytes` of the data
/// channels) -> checkers -> a [0, window), b [window, 2 window).
/// No address translation: b is twice as large and sees global addresses.
struct bench {
    test::test_initiator i0{"i0"}, i1{"i1"};
    tlm_bus::protocol_checker pc_i0{"pc_i0"}, pc_i1{"pc_i1"}, pc_a{"pc_a"}, pc_b{"pc_b"};
    noc::crossbar xbar;
    tlm_bus::memory a, b;
    explicit bench(bool accurate = false, bool dmi = false, unsigned header_bytes = 0)
        : xbar("xbar", noc_cfg(), clocks(accurate), noc::path_params{32, 32, 2, 1, header_bytes}),
          a("a", mem_params(window, dmi)), b("b", mem_params(2 * window, dmi))
    {
        tlm_bus::bind_checked(i0.mem, pc_i0, xbar.in);
        tlm_bus::bind_checked(i1.mem, pc_i1, xbar.in);
        tlm_bus::bind_checked(xbar.out, pc_a, a.in);
        tlm_bus::bind_checked(xbar.out, pc_b, b.in);
        xbar.set_route([](const tlm::tlm_generic_payload& gp) {
            const std::uint64_t addr = gp.get_address();
            return addr < window ? 0 : addr < 2 * window ? 1 : -1;
        });
        i0.body = i1.body = [](test::test_initiator&) {};
    }
    std::size_t violations() const
    {
        return pc_i0.violations() + pc_i1.violations() + pc_a.violations() + pc_b.violations();
    }
};

/// Dumped statistics by name.
std::map<std::string, double> stats_by_name()
{
    std::map<std::string, double> m;
    for (const auto& e : stats::collect_all())
        if (e.value.is_number())
            m[e.name] = e.value.get<double>();
    return m;
}

/// A configuration root holding only the `noc` section.
struct noc_root {
    noc::noc_config noc;
    void declare(config::visitor& v) { v.section("noc", noc, "NoC"); }
    void validate(config::checker& c) const { noc.validate(c); }
};

/// Errors of loading `yaml` onto `root`.
std::vector<std::string> load(noc_root& root, const std::string& yaml)
{
    config::loader l;
    l.add_text(yaml, "t.yaml");
    l.apply(root);
    return l.errs().messages();
}

} // namespace

TEST_CASE("noc config: defaults, YAML values, and range and name errors")
{
    noc_root r;
    CHECK(r.noc.hop_latency == 2);
    CHECK(r.noc.width_bytes == 32);
    CHECK(r.noc.link_latency.ps == 20000);
    CHECK(r.noc.link_bytes_per_cycle(1000) == Approx(64.0));
    CHECK(r.noc.link_bytes_per_cycle(1250) == Approx(80.0));
    CHECK(r.noc.module_noc().header_bytes == 0);
    CHECK(r.noc.cluster_xbar().header_bytes == 0);
    REQUIRE(load(r, "noc: {hop_latency: 3, width_bytes: 64, link_latency: 15 ns, "
                    "link_bandwidth_gbps: 32, arbiter: round_robin, topology: crossbar, "
                    "header_bytes: 8, xbar_header_bytes: 16}")
                .empty());
    CHECK(r.noc.module_noc().header_bytes == 8);
    CHECK(r.noc.cluster_xbar().header_bytes == 16);
    CHECK(r.noc.hop_latency == 3);
    CHECK(r.noc.width_bytes == 64);
    CHECK(r.noc.link_latency.ps == 15000);
    CHECK(r.noc.link_bandwidth_gbps == 32.0);
    noc_root bad;
    auto errs = load(bad, "noc: {width_bytes: 0, arbiter: lottery, topology: ring, hops: 1}");
    CHECK(errs.size() == 4);
}

TEST_CASE("crossbar routes by the route function and answers unmapped addresses with an error")
{
    bench tb;
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x100, 0x11111111, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.write32(window + 0x100, 0x22222222, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x100, d) == 0x11111111u);
        CHECK(i.read32(window + 0x100, d) == 0x22222222u);
        tlm::tlm_response_status s = tlm::TLM_OK_RESPONSE;
        i.read32(2 * window + 0x100, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.violations() == 0);
    std::uint32_t v = 0;
    tb.a.store().read(0x100, &v, 4);
    CHECK(v == 0x11111111u);
    tb.b.store().read(window + 0x100, &v, 4); // global address, untranslated
    CHECK(v == 0x22222222u);
    CHECK(tb.xbar.inputs() == 2);
    CHECK(tb.xbar.outputs() == 2);
    CHECK(tb.xbar.requests(0) == 2);
    CHECK(tb.xbar.requests(1) == 2);
    CHECK(tb.xbar.unmapped() == 1);
    auto s = stats_by_name();
    CHECK(s["xbar.in0.requests"] == 5);
    CHECK(s["xbar.in1.requests"] == 0);
    CHECK(s["xbar.out0.requests"] == 2);
    CHECK(s["xbar.out1.bytes"] == 4);         // write data only: a read sends a header
    CHECK(s["xbar.in0.response_bytes"] == 8); // the two reads' data came back to input 0
    CHECK(s["xbar.unmapped"] == 1);
    CHECK(s["xbar.out0.grants"] == 1);     // the write's data on the output's data channel
    CHECK(s["xbar.out0_cmd.grants"] == 1); // the read's header on its command channel
    CHECK(s["xbar.in0.grants"] == 2);      // the reads' data back to input 0
    CHECK(s["xbar.in0_cmd.grants"] == 2);  // the writes' acknowledgements
}

TEST_CASE("crossbar fast mode: two inputs on one output, the second waits for the occupancy")
{
    bench tb(false, false, 8); // headers and acknowledgements take a data-channel flit
    std::uint8_t line[64] = {};
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, line, 64, d);
        // Request hop, 64 B at 32 B/cycle, memory, response hop, an 8-byte acknowledgement.
        CHECK(d == sc_time(2 + 2 + 10 + 1 + 1, SC_NS));
    };
    tb.i1.body = [&](test::test_initiator& i) {
        sc_core::wait(sc_core::SC_ZERO_TIME); // after i0, at the same time
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x40, line, 64, d);
        CHECK(d == sc_time(2 + 2 + 2 + 10 + 1 + 1, SC_NS)); // behind i0's two cycles on output 0
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, window, line, 64, d);
        CHECK(d == sc_time(2 + 2 + 10 + 1 + 1, SC_NS)); // output 1 is free
        d = sc_core::SC_ZERO_TIME;
        std::uint32_t v;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x0, &v, 4, d);
        // Output 0 is busy until 6 ns; the read's header takes one cycle, its 4 bytes of data
        // one cycle of input 1's response channel, which its writes' acks left free at 18 ns.
        CHECK(d == sc_time(6 + 1 + 10 + 1 + 1, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.xbar.occupancy_cycles(0) == 1);
    CHECK(tb.xbar.occupancy_cycles(33) == 2);
    auto s = stats_by_name();
    CHECK(s["xbar.latency"] == Approx((4 + 6 + 4 + 7) / 4.0));
    CHECK(s["xbar.latency.max"] == Approx(7));
    CHECK(s["xbar.response_latency"] == Approx(2)); // hop + one cycle each
    CHECK(tb.xbar.response_cycles(64) == 2);
}

TEST_CASE("crossbar fast mode: read headers and write acknowledgements take command channels")
{
    bench tb;
    std::uint8_t line[64] = {};
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, line, 64, d);
        // Request hop, 64 B at 32 B/cycle, memory, response hop, the acknowledgement's cycle
        // on input 0's command channel.
        CHECK(d == sc_time(2 + 2 + 10 + 1 + 1, SC_NS));
    };
    tb.i1.body = [&](test::test_initiator& i) {
        sc_core::wait(sc_core::SC_ZERO_TIME); // after i0, at the same time
        sc_time d = sc_core::SC_ZERO_TIME;
        std::uint8_t data[64];
        i.mem.access(tlm::TLM_READ_COMMAND, 0x40, data, 64, d);
        // Output 0's data channel is busy with i0's write until 4 ns, but the read's header
        // takes the output's command channel at 2 ns; its 64 bytes of data two cycles of
        // input 1's response channel.
        CHECK(d == sc_time(2 + 1 + 10 + 1 + 2, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, window, line, 64, d);
        // Output 1 is free; the acknowledgement reaches input 1 at 15 ns, while the read's data
        // holds its response data channel (14..16 ns), and takes the command channel at once.
        CHECK(d == sc_time(2 + 2 + 10 + 1 + 1, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    auto s = stats_by_name();
    CHECK(s["xbar.out0.grants"] == 1);
    CHECK(s["xbar.out0.busy_cycles"] == 2); // i0's write data only
    CHECK(s["xbar.out0_cmd.grants"] == 1);
    CHECK(s["xbar.out0_cmd.busy_cycles"] == 1);
    CHECK(s["xbar.in1.busy_cycles"] == 2); // the read's data
    CHECK(s["xbar.in1_cmd.busy_cycles"] == 1);
}

TEST_CASE("crossbar accurate mode: a read header and a write meet at one output in one cycle")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(true);
    sc_time done[2];
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.write32(0x10, 1, d) == tlm::TLM_OK_RESPONSE);
        done[0] = sc_core::sc_time_stamp() + d;
    };
    tb.i1.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x20, d);
        done[1] = sc_core::sc_time_stamp() + d;
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    // Both reach output 0 at the 2 ns edge and are granted there, the write on the data
    // channel, the read's header on the command channel: neither waits for the other.
    CHECK(done[0] == sc_time(2 + 1 + 10 + 1 + 1, SC_NS));
    CHECK(done[1] == sc_time(2 + 1 + 10 + 1 + 1, SC_NS));
}

TEST_CASE("crossbar accurate mode: requests of the same cycle on one output are granted in turn")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(true);
    sc_time done[2];
    auto body = [&](unsigned n) {
        return [&, n](test::test_initiator& i) {
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(i.write32(0x10 * n, n, d) == tlm::TLM_OK_RESPONSE);
            done[n] = sc_core::sc_time_stamp() + d;
        };
    };
    tb.i0.body = body(0);
    tb.i1.body = body(1);
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    // Both reach output 0 after the 2-cycle hop and compete at that 2 ns edge: input 0 wins,
    // input 1 is granted one cycle later; then 1 cycle of transfer and 10 ns of memory; then
    // the response hop and one cycle of acknowledgement on each input's own channel.
    CHECK(done[0] == sc_time(2 + 1 + 10 + 1 + 1, SC_NS));
    CHECK(done[1] == sc_time(3 + 1 + 10 + 1 + 1, SC_NS));
}

namespace {
/// Two inputs read 64 bytes each from output 0 at time 0: their responses leave by output 0's
/// response channel one after the other, although each returns on its own input's channel.
void target_port_case(bool accurate)
{
    if (accurate)
        tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(accurate);
    sc_time done[2];
    auto body = [&](unsigned n) {
        return [&, n](test::test_initiator& i) {
            if (n == 1)
                sc_core::wait(sc_core::SC_ZERO_TIME); // after i0, at the same time
            std::uint8_t data[64];
            sc_time d = sc_core::SC_ZERO_TIME;
            i.mem.access(tlm::TLM_READ_COMMAND, 0x40 * n, data, 64, d);
            done[n] = sc_core::sc_time_stamp() + d;
        };
    };
    tb.i0.body = body(0);
    tb.i1.body = body(1);
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    // i0: header at 2 ns (command channel), memory 3..13, response hop, 2 cycles on output 0's
    // response channel and, cut through, on input 0's: 16 ns. i1's header follows at 3 ns,
    // memory until 14, hop: output 0's response channel is busy until 16, so 16..18 (on its
    // own input's channel alone it would have been 15..17).
    CHECK(done[0] == sc_time(2 + 1 + 10 + 1 + 2, SC_NS));
    CHECK(done[1] == sc_time(3 + 1 + 10 + 1 + 1 + 2, SC_NS));
    auto s = stats_by_name();
    CHECK(s["xbar.out0_rsp.grants"] == 2);
    CHECK(s["xbar.out0_rsp.busy_cycles"] == 4);
    CHECK(s["xbar.in0.busy_cycles"] == 2);
    CHECK(s["xbar.in1.busy_cycles"] == 2);
}
} // namespace

TEST_CASE("crossbar fast mode: responses of one target share its port's response channel")
{
    target_port_case(false);
}

TEST_CASE("crossbar accurate mode: responses of one target share its port's response channel")
{
    target_port_case(true);
}

TEST_CASE("crossbar debug transport moves data without time or statistics")
{
    bench tb;
    tb.i0.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0xcafe;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x20, &v, 4) == 4u);
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, window + 0x20, &v, 4) == 4u);
        v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, window + 0x20, &v, 4) == 4u);
        CHECK(v == 0xcafeu);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 2 * window, &v, 4) == 0u); // unmapped
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.xbar.requests(0) + tb.xbar.requests(1) == 0);
    CHECK(tb.xbar.unmapped() == 0);
    CHECK(tb.a.reads() + tb.a.writes() + tb.b.reads() + tb.b.writes() == 0);
    std::uint32_t v = 0;
    tb.a.store().read(0x20, &v, 4);
    CHECK(v == 0xcafeu);
}

TEST_CASE("crossbar forwards DMI requests and invalidations to every input")
{
    bench tb(false, true);
    tb.i0.mem.set_dmi_enabled(true);
    tb.i1.mem.set_dmi_enabled(true);
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.write32(window + 0x40, 7, d); // b grants its page, in global addresses
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(window + 0x40, d) == 7u);
        CHECK(i.mem.dmi_accesses() == 1);
        CHECK(d == sc_time(2 + 1 + 10, SC_NS)); // both hops are added to the DMI latency
        tlm::tlm_generic_payload gp;
        tlm::tlm_dmi dmi;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(2 * window + 8);
        CHECK_FALSE(i.mem->get_direct_mem_ptr(gp, dmi)); // unmapped: denied for the address
        CHECK(dmi.get_start_address() == 2 * window + 8);
        CHECK(dmi.get_end_address() == 2 * window + 8);
        tb.b.invalidate_dmi();
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(window + 0x40, d) == 7u);
        CHECK(i.mem.transactions() == 2); // back through b_transport
    };
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.i0.mem.dmi_invalidations() == 1);
    CHECK(tb.i1.mem.dmi_invalidations() == 1);
}

TEST_CASE("crossbar random writes and reads from two inputs match a reference memory")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "crossbar random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    bench tb(false, true);
    tb.i1.mem.set_dmi_enabled(true); // one input through DMI, the other through b_transport
    std::vector<std::uint8_t> ref(2 * window, 0);
    unsigned errors_seen = 0;
    auto body = [&](std::uint64_t s) {
        return [&, s](test::test_initiator& i) {
            std::mt19937_64 rng(s);
            std::uint8_t buf[64];
            for (int n = 0; n < 3000; ++n) {
                const unsigned len = 1 + rng() % 64;
                const bool unmapped = rng() % 50 == 0;
                std::uint64_t addr = rng() % (window - len);
                addr += rng() % 2 ? window : 0;
                if (unmapped)
                    addr += 2 * window;
                sc_time d = sc_core::SC_ZERO_TIME;
                if (rng() % 2) {
                    for (unsigned k = 0; k < len; ++k)
                        buf[k] = static_cast<std::uint8_t>(rng());
                    auto st = i.mem.access(tlm::TLM_WRITE_COMMAND, addr, buf, len, d);
                    if (unmapped) {
                        CHECK(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
                        ++errors_seen;
                    } else {
                        CHECK(st == tlm::TLM_OK_RESPONSE);
                        std::memcpy(&ref[addr], buf, len);
                    }
                } else {
                    auto st = i.mem.access(tlm::TLM_READ_COMMAND, addr, buf, len, d);
                    if (unmapped) {
                        CHECK(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
                        ++errors_seen;
                    } else {
                        CHECK(st == tlm::TLM_OK_RESPONSE);
                        CHECK(std::memcmp(&ref[addr], buf, len) == 0);
                    }
                }
                sc_core::wait(d); // interleave the two inputs
            }
        };
    };
    tb.i0.body = body(seed);
    tb.i1.body = body(seed + 1);
    sc_core::sc_start();
    REQUIRE(tb.i0.done);
    REQUIRE(tb.i1.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.xbar.unmapped() == errors_seen);
    CHECK(errors_seen > 0);
    CHECK(tb.i1.mem.dmi_accesses() > 0);
    std::vector<std::uint8_t> got(2 * window);
    tb.a.store().read(0, got.data(), window);
    tb.b.store().read(window, got.data() + window, window);
    CHECK(got == ref);
}

TEST_CASE("crossbar: a route to a missing output is a model error that fails the run")
{
    bench tb;
    tb.xbar.set_route([](const tlm::tlm_generic_payload&) { return 2; });
    tb.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.read32(0x0, d);
    };
    REQUIRE_THROWS_WITH(sc_core::sc_start(), Catch::Contains("route function returned output 2"));
    CHECK(tb.a.reads() + tb.b.reads() == 0);
}

TEST_CASE("crossbar: elaboration fails without a route function")
{
    bench tb;
    tb.xbar.set_route(nullptr);
    REQUIRE_THROWS_WITH(sc_core::sc_start(), Catch::Contains("no route function set"));
}

namespace {
/// Two crossbars, x (input p -> output a) and y (input q -> output b), where y's input q shares
/// x's input p (share_input: one requester port reached through two switches, as an SM's port
/// under l1.sharing shared). i0 reads 64 bytes through x, i1 through y, both at time 0: each
/// header takes its own output's command channel (2..3 ns), each memory 3..13, the response hop
/// 13..14, its target's port 14..16; cut through into the one shared input channel, i0's goes
/// 14..16 and i1's waits: 16..18 (18 ns, where two ports would give 16).
void shared_input_case(bool accurate, bool shared)
{
    if (accurate)
        tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    test::test_initiator i0{"i0"}, i1{"i1"};
    const noc::path_params path{32, 32, 2, 1, 0};
    noc::crossbar x("x", noc_cfg(), clocks(accurate), path);
    noc::crossbar y("y", noc_cfg(), clocks(accurate), path);
    tlm_bus::memory a("a", mem_params(window, false)), b("b", mem_params(window, false));
    x.bind_input("p", i0.mem);
    x.bind_output("a", a.in);
    y.bind_input("q", i1.mem);
    y.bind_output("b", b.in);
    x.set_route([](const tlm::tlm_generic_payload&) { return 0; });
    y.set_route([](const tlm::tlm_generic_payload&) { return 0; });
    if (shared)
        y.share_input("q", x, "p");
    sc_time done[2];
    auto body = [&](unsigned n) {
        return [&, n](test::test_initiator& i) {
            if (n == 1)
                sc_core::wait(sc_core::SC_ZERO_TIME); // after i0, at the same time
            std::uint8_t data[64];
            sc_time d = sc_core::SC_ZERO_TIME;
            i.mem.access(tlm::TLM_READ_COMMAND, 0x40 * n, data, 64, d);
            done[n] = sc_core::sc_time_stamp() + d;
        };
    };
    i0.body = body(0);
    i1.body = body(1);
    sc_core::sc_start();
    REQUIRE(i0.done);
    REQUIRE(i1.done);
    CHECK(done[0] == sc_time(2 + 1 + 10 + 1 + 2, SC_NS));
    auto s = stats_by_name();
    if (shared) {
        CHECK(done[1] == sc_time(2 + 1 + 10 + 1 + 2 + 2, SC_NS));
        CHECK(s["x.p.grants"] == 2); // both responses on x's channel of p
        CHECK(s["x.p.busy_cycles"] == 4);
        CHECK(s.count("y.q.grants") == 0); // y's input has no channel of its own
    } else {
        CHECK(done[1] == sc_time(2 + 1 + 10 + 1 + 2, SC_NS));
        CHECK(s["x.p.grants"] == 1);
        CHECK(s["y.q.grants"] == 1);
    }
    CHECK(s["y.q.requests"] == 1);
    CHECK(s["y.q.response_bytes"] == 64);
}
} // namespace

TEST_CASE("crossbar fast mode: an input sharing another crossbar's port shares its channel")
{
    shared_input_case(false, true);
}

TEST_CASE("crossbar accurate mode: an input sharing another crossbar's port shares its channel")
{
    shared_input_case(true, true);
}

TEST_CASE("crossbar fast mode: without sharing, the two inputs' channels are apart")
{
    shared_input_case(false, false);
}
