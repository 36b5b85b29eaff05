// The adaptive L1 sharing policy's `remote_in` (models/l1_share/adaptive_policy.h) behind the
// protocol checker: a debug access into a peer window reaches the host L1 at the address
// without the window bits and returns with the payload as it came. See models/l1_share/README.md.
#include "models/l1/l1.h"
#include "models/l1_share/adaptive_policy.h"
#include "models/l1_share/cluster_classes.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

using namespace vgpu;

namespace {
/// The host L1 as far as a debug access needs it: debug() records the address and fills the
/// data with 0xab; nothing else may be asked.
struct stub_host : l1::peer_host {
    std::vector<std::uint64_t> debug_addresses;
    [[noreturn]] static void unexpected() { std::abort(); }
    cache::cache_controller& core() override { unexpected(); }
    tlm_bus::initiator_port& below() override { unexpected(); }
    bool accurate() const override { return false; }
    sc_core::sc_time hit_latency() const override { return sc_core::SC_ZERO_TIME; }
    int owner() const override { return 1; }
    std::uint32_t epoch() const override { return 0; }
    std::uint64_t book_tag(std::uint64_t arrival_ps) override { return arrival_ps; }
    bool accept(tlm::tlm_generic_payload&) override { unexpected(); }
    void count_error() override { unexpected(); }
    void count_remote_read() override { unexpected(); }
    void count_remote_hit() override { unexpected(); }
    void apply_write(std::uint64_t, const std::uint8_t*, unsigned, const std::uint8_t*,
                     unsigned) override
    {
        unexpected();
    }
    unsigned debug(tlm::tlm_generic_payload& gp) override
    {
        debug_addresses.push_back(gp.get_address());
        for (unsigned i = 0; i < gp.get_data_length(); ++i)
            gp.get_data_ptr()[i] = 0xab;
        return gp.get_data_length();
    }
};

/// Where the policy's own `peer` port goes: nowhere in this test.
struct sink : sc_core::sc_module {
    tlm_utils::simple_target_socket<sink> in{"in"};
    explicit sink(const sc_core::sc_module_name& n) : sc_module(n) {}
};
} // namespace

TEST_CASE("adaptive policy: a debug access into a peer window leaves the payload's address as "
          "it came")
{
    stub_host host;
    stats::group g("l1");
    l1_share::share_stats counts(g);
    l1_share::cluster_classes classes("c0.l1_share", 2, 0, 1000000, {});
    l1::l1_config cfg;
    l1_share::adaptive_policy policy("policy", host, classes, 1, 2, cfg, counts);
    test::test_initiator init("init");
    tlm_bus::protocol_checker checker("checker", tlm_bus::report_mode::count);
    sink s("sink");
    tlm_bus::bind_checked(init.mem, checker, policy.remote_in);
    policy.peer.bind(s.in);

    const std::uint64_t line = 0x1240;
    const std::uint64_t window = l1_share::adaptive_policy::peer_address(1, line);
    REQUIRE(window != line);
    std::uint32_t value = 0;
    unsigned bytes = 0;
    init.body = [&](test::test_initiator& t) {
        bytes = t.mem.debug(tlm::TLM_READ_COMMAND, window, &value, 4);
    };
    sc_core::sc_start();
    REQUIRE(init.done);
    CHECK(bytes == 4);
    CHECK(value == 0xababababu);
    CHECK(host.debug_addresses == std::vector<std::uint64_t>{line});
    INFO((checker.messages().empty() ? std::string() : checker.messages().front()));
    CHECK(checker.calls() == 1);
    CHECK(checker.violations() == 0);
}
