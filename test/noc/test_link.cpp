// Shell tests of noc::link: exact latency and bandwidth in both timing modes, debug transport,
// DMI and random data against a reference. See models/noc/README.md.
#include "models/noc/link.h"
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

constexpr std::uint64_t mem_size = 0x10000;

/// 20 ns flight time; 64 GB/s at a 1 ns NoC clock is 64 bytes per cycle; read headers and
/// write acknowledgements of `header` bytes on the data channels (one flit).
noc::noc_config link_cfg(double gbps = 64.0, unsigned header = 8)
{
    noc::noc_config c;
    c.link_latency = duration{20000};
    c.link_bandwidth_gbps = gbps;
    c.link_header_bytes = header;
    return c;
}

clock_params clocks(bool accurate)
{
    clock_params c;
    c.accurate = accurate;
    c.noc_ps = 1000;
    return c;
}

tlm_bus::memory_params mem_params(bool dmi)
{
    tlm_bus::memory_params p;
    p.size = mem_size;
    p.latency = sc_time(10, SC_NS);
    p.bytes_per_ns = 1e9; // no transfer time: only the link's bandwidth is measured
    p.dmi = dmi;
    return p;
}

/// init -> checker -> link -> checker -> memory.
struct bench {
    test::test_initiator init{"init"};
    tlm_bus::protocol_checker pc_in{"pc_in"}, pc_out{"pc_out"};
    noc::link link;
    tlm_bus::memory mem;
    explicit bench(const noc::noc_config& cfg = link_cfg(), bool accurate = false, bool dmi = false)
        : link("link", cfg, clocks(accurate)), mem("mem", mem_params(dmi))
    {
        tlm_bus::bind_checked(init.mem, pc_in, link.in);
        tlm_bus::bind_checked(link.out, pc_out, mem.in);
    }
    std::size_t violations() const { return pc_in.violations() + pc_out.violations(); }
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

} // namespace

TEST_CASE("link fast mode: latency twice, requests and responses on their own channels")
{
    bench tb;
    std::uint8_t buf[256] = {};
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 64, d) == tlm::TLM_OK_RESPONSE);
        // 64 B at 64 B/cycle out, flight, memory, an 8-byte acknowledgement back, flight.
        CHECK(d == sc_time(1 + 20 + 10 + 1 + 20, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x0, buf, 256, d) == tlm::TLM_OK_RESPONSE);
        // The header waits one cycle behind the write's data; the 256 B come back in 4 cycles
        // on the response channel (free at 32 ns: the ack used [31, 32)).
        CHECK(d == sc_time(1 + 1 + 20 + 10 + 4 + 20, SC_NS));
        d = sc_time(30, SC_NS);
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x0, buf, 4, d) == tlm::TLM_OK_RESPONSE);
        CHECK(d == sc_time(30 + 1 + 20 + 10 + 1 + 20, SC_NS)); // both channels idle: one flit each
        sc_core::wait(100, SC_NS);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.link.requests() == 3);
    CHECK(tb.link.bytes() == 64 + 256 + 4);
    CHECK(tb.link.channel.grants() == 3);
    CHECK(tb.link.response.grants() == 3);
    auto s = stats_by_name();
    CHECK(s["link.busy_cycles"] == 3);          // write data 1 + two read headers
    CHECK(s["link.response_busy_cycles"] == 6); // ack 1 + read data 4 + 1
    CHECK(s["link.utilisation"] == Approx(6.0 / 100.0));
    CHECK(s["link.bandwidth"] == Approx(324.0 / 100.0));
}

TEST_CASE("link bandwidth: bytes per cycle come from GB/s and the NoC clock")
{
    bench tb(link_cfg(12.8)); // 12.8 B per 1 ns cycle
    std::uint8_t buf[64] = {};
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 64, d);
        CHECK(d == sc_time(5 + 20 + 10 + 1 + 20, SC_NS)); // exactly 5 cycles, not 6
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 13, d);
        CHECK(d == sc_time(5 + 2 + 20 + 10 + 1 + 20, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.link.occupancy_cycles(0) == 0);
    CHECK(tb.link.occupancy_cycles(8) == 1);
    CHECK(tb.link.occupancy_cycles(64) == 5);
    CHECK(tb.link.occupancy_cycles(65) == 6);
}

TEST_CASE("link with headers on the command sideband: a read and a write share no channel time")
{
    bench tb(link_cfg(64.0, 0)); // noc.link_header_bytes = 0, the default
    std::uint8_t buf[256] = {};
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 256, d) == tlm::TLM_OK_RESPONSE);
        // 4 cycles of data out, flight, memory, the acknowledgement on the sideband, flight.
        CHECK(d == sc_time(4 + 20 + 10 + 20, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.mem.access(tlm::TLM_READ_COMMAND, 0x0, buf, 256, d) == tlm::TLM_OK_RESPONSE);
        // Issued at the same time: the header does not wait behind the write's data, and the
        // data comes back on the response channel the write never used.
        CHECK(d == sc_time(20 + 10 + 4 + 20, SC_NS));
        sc_core::wait(100, SC_NS);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.link.channel.grants() == 1);  // the write's data only
    CHECK(tb.link.response.grants() == 1); // the read's data only
}

TEST_CASE("link accurate mode: the channel grants on the arrival edge, then the flights")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(link_cfg(), true);
    std::uint8_t buf[128] = {};
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 128, d);
        // Granted on the arrival edge: 2 cycles of data, the flight, memory; the ack is
        // granted on its arrival edge (32 ns) on the response channel, then flies back.
        CHECK(sc_core::sc_time_stamp() == sc_time(32, SC_NS));
        CHECK(sc_core::sc_time_stamp() + d == sc_time(2 + 20 + 10 + 1 + 20, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("link forwards debug transport untimed, and DMI with its latency and invalidation")
{
    bench tb(link_cfg(), false, true);
    tb.init.mem.set_dmi_enabled(true);
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0x5a5a;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x80, &v, 4) == 4u);
        v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x80, &v, 4) == 4u);
        CHECK(v == 0x5a5au);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, mem_size, &v, 4) == 0u);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        CHECK(tb.link.requests() == 0);

        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x80, d) == 0x5a5au); // b_transport; the memory allows DMI
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x80, d) == 0x5a5au);
        CHECK(i.mem.dmi_accesses() == 1);
        CHECK(d == sc_time(20 + 10 + 20, SC_NS)); // DMI still pays the round trip
        tb.mem.invalidate_dmi();
        CHECK(i.mem.dmi_invalidations() == 1);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x80, d) == 0x5a5au);
        CHECK(i.mem.transactions() == 2);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
}

TEST_CASE("link random writes and reads match a reference memory")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "link random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    bench tb;
    std::vector<std::uint8_t> ref(mem_size, 0);
    tb.init.body = [&](test::test_initiator& i) {
        std::mt19937_64 rng(seed);
        std::uint8_t buf[128];
        for (int n = 0; n < 3000; ++n) {
            const unsigned len = 1 + rng() % 128;
            const std::uint64_t addr = rng() % (mem_size - len);
            sc_time d = sc_core::SC_ZERO_TIME;
            if (rng() % 2) {
                for (unsigned k = 0; k < len; ++k)
                    buf[k] = static_cast<std::uint8_t>(rng());
                CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, addr, buf, len, d) ==
                      tlm::TLM_OK_RESPONSE);
                std::memcpy(&ref[addr], buf, len);
            } else {
                CHECK(i.mem.access(tlm::TLM_READ_COMMAND, addr, buf, len, d) ==
                      tlm::TLM_OK_RESPONSE);
                CHECK(std::memcmp(&ref[addr], buf, len) == 0);
            }
            sc_core::wait(d);
        }
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    std::vector<std::uint8_t> got(mem_size);
    tb.mem.store().read(0, got.data(), mem_size);
    CHECK(got == ref);
}
