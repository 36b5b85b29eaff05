// Shell tests of the initiator port: quantum keeping in lock-step and decoupled modes.
// See docs/tlm-bus.md.
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <tlm_utils/tlm_quantumkeeper.h>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
tlm_bus::memory_params params()
{
    tlm_bus::memory_params p;
    p.size = 0x10000;
    p.latency = sc_time(10, SC_NS);
    p.bytes_per_ns = 4.0;
    p.dmi = false;
    return p;
}

/// Issues 10 reads through a quantum keeper; records the kernel time seen after each one.
std::vector<sc_time> run_reads(sc_time quantum)
{
    tlm::tlm_global_quantum::instance().set(quantum);
    test::test_initiator init("init");
    tlm_bus::protocol_checker pc("pc");
    tlm_bus::memory mem("mem", params());
    tlm_bus::bind_checked(init.mem, pc, mem.in);
    std::vector<sc_time> seen;
    init.body = [&](test::test_initiator& i) {
        tlm_utils::tlm_quantumkeeper qk;
        qk.reset();
        std::uint32_t v;
        for (int n = 0; n < 10; ++n) {
            i.mem.access(tlm::TLM_READ_COMMAND, 4 * n, &v, 4, qk);
            seen.push_back(sc_core::sc_time_stamp());
        }
        qk.sync();
    };
    sc_core::sc_start();
    CHECK(pc.violations() == 0);
    CHECK(init.done);
    CHECK(sc_core::sc_time_stamp() == sc_time(110, SC_NS));
    return seen;
}
} // namespace

TEST_CASE("lock-step: with a zero quantum every access synchronises")
{
    auto seen = run_reads(sc_core::SC_ZERO_TIME);
    for (int n = 0; n < 10; ++n)
        CHECK(seen[n] == sc_time(11 * (n + 1), SC_NS));
}

TEST_CASE("fast: with a 50 ns quantum the initiator runs ahead and syncs at quantum ends")
{
    auto seen = run_reads(sc_time(50, SC_NS));
    // local time reaches 55 ns after 5 reads (sync to 55), then 110 after 10 (sync).
    CHECK(seen[0] == sc_core::SC_ZERO_TIME);
    CHECK(seen[3] == sc_core::SC_ZERO_TIME);
    CHECK(seen[4] == sc_time(55, SC_NS));
    CHECK(seen[8] == sc_time(55, SC_NS));
    CHECK(seen[9] == sc_time(110, SC_NS));
}
