// Shell tests of the initiator port: quantum keeping in lock-step and decoupled modes.
// See docs/tlm-bus.md.
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <utility>

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

namespace {
/// Records what each debug access looked like on arrival, then spoils the payload's attributes
/// (as a careless target might); `nested` re-enters the initiator's port once.
struct debug_recorder : sc_core::sc_module {
    tlm_utils::simple_target_socket<debug_recorder> in{"in"};
    struct seen {
        std::uint64_t addr;
        unsigned len;
        bool dmi_allowed, has_be;
        tlm::tlm_response_status status;
        tlm_bus::access_kind kind;
        std::int16_t sm;
    };
    std::vector<seen> log;
    std::function<void()> nested;

    explicit debug_recorder(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_transport_dbg(this, &debug_recorder::transport_dbg);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp)
    {
        const auto& e = tlm_bus::ext(gp);
        log.push_back({gp.get_address(), gp.get_data_length(), gp.is_dmi_allowed(),
                       gp.get_byte_enable_ptr() != nullptr, gp.get_response_status(), e.kind,
                       e.sm});
        if (auto f = std::exchange(nested, nullptr))
            f();
        static std::uint8_t be = 0xff;
        gp.set_dmi_allowed(true);
        gp.set_byte_enable_ptr(&be);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        tlm_bus::ext(gp).kind = tlm_bus::access_kind::atomic;
        return gp.get_data_length();
    }
};
} // namespace

TEST_CASE("debug: every access starts from fresh attributes, also when nested")
{
    test::test_initiator init("init");
    debug_recorder target("target");
    init.mem.bind(target.in);
    init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0;
        tlm_bus::gpu_extension attrs;
        attrs.kind = tlm_bus::access_kind::host;
        attrs.sm = 3;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x40, &v, 4, &attrs) == 4u);
        target.nested = [&] {
            std::uint64_t w = 0;
            CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x80, &w, 8) == 8u);
        };
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x44, &v, 4) == 4u);
    };
    sc_core::sc_start();
    REQUIRE(init.done);
    REQUIRE(target.log.size() == 3);
    for (const auto& s : target.log) {
        CHECK_FALSE(s.dmi_allowed);
        CHECK_FALSE(s.has_be);
        CHECK(s.status == tlm::TLM_INCOMPLETE_RESPONSE);
    }
    CHECK(target.log[0].kind == tlm_bus::access_kind::host);
    CHECK(target.log[0].sm == 3);
    // The second access (0x44) arrived first, then the one issued from inside it (0x80).
    CHECK(target.log[1].addr == 0x44);
    CHECK(target.log[1].kind == tlm_bus::access_kind::other);
    CHECK(target.log[1].sm == -1);
    CHECK(target.log[2].addr == 0x80);
    CHECK(target.log[2].len == 8u);
    CHECK(target.log[2].kind == tlm_bus::access_kind::other);
}
