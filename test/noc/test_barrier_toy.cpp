// The barrier-aware arbiter's toy case (seed 004) as a testbench on one accurate-mode output
// port that grants one request per cycle: SM A has 7 of 8 warps at a barrier and its last warp
// needs 4 replies; SM B has 32 requests queued ahead. A reference model computes when A's
// barrier can release under each policy; the port must agree (36 FIFO, 7 round-robin, 4
// barrier-aware). See models/noc/README.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, before the first <systemc>
#include "models/noc/shared_resource.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr unsigned a_replies = 4, b_queued = 32, a_waiting = 7;

/// Reference: one grant per cycle from cycle 1; A's requests (input 0, count 7) arrived after
/// B's (input 1, count 0). Returns the cycle of A's last grant. Written from the policies'
/// definitions, not from the arbiter classes.
unsigned reference(noc::arbiter_kind k)
{
    unsigned a = a_replies, b = b_queued, last = 1; // last: input granted last (start: 1, so
                                                    // round-robin begins with input 0)
    for (unsigned cycle = 1;; ++cycle) {
        bool grant_a = false;
        if (k == noc::arbiter_kind::fifo)
            grant_a = b == 0; // every B request arrived first
        else if (k == noc::arbiter_kind::barrier_aware)
            grant_a = a > 0; // 7 waiting warps beat 0
        else
            grant_a = a > 0 && (last == 1 || b == 0);
        if (grant_a) {
            --a;
            last = 0;
            if (a == 0)
                return cycle;
        } else {
            --b;
            last = 1;
        }
    }
}

/// The port with B's 32 and A's 4 requests; returns the cycle of A's last grant.
unsigned run_port(noc::arbiter_kind k)
{
    noc::resource_params p;
    p.accurate = true;
    p.cycle = sc_time(1, SC_NS);
    p.inputs = 2;
    p.policy = k;
    p.max_wait_cycles = 256; // far beyond the case: no ageing
    noc::shared_resource port("port", p);
    tlm_bus::gpu_extension ext_a, ext_b;
    ext_a.barrier_waiting = a_waiting;
    unsigned last_a = 0;
    for (unsigned i = 0; i < b_queued; ++i)
        sc_core::sc_spawn([&] {
            sc_time d(0.1, SC_NS); // B's requests are queued first
            port.use(1, &ext_b, 1, d);
        });
    for (unsigned i = 0; i < a_replies; ++i)
        sc_core::sc_spawn([&] {
            sc_time d(0.2, SC_NS);
            port.use(0, &ext_a, 1, d);
            // Resumed at the grant edge: cycle n is n ns.
            last_a = std::max(last_a, static_cast<unsigned>(sc_core::sc_time_stamp().value() /
                                                            sc_time(1, SC_NS).value()));
        });
    sc_core::sc_start();
    return last_a;
}
} // namespace

TEST_CASE("barrier toy: FIFO releases A's barrier at cycle 36")
{
    CHECK(reference(noc::arbiter_kind::fifo) == 36);
    CHECK(run_port(noc::arbiter_kind::fifo) == reference(noc::arbiter_kind::fifo));
}

TEST_CASE("barrier toy: round-robin releases A's barrier at cycle 7")
{
    CHECK(reference(noc::arbiter_kind::round_robin) == 7);
    CHECK(run_port(noc::arbiter_kind::round_robin) == reference(noc::arbiter_kind::round_robin));
}

TEST_CASE("barrier toy: barrier-aware releases A's barrier at cycle 4")
{
    CHECK(reference(noc::arbiter_kind::barrier_aware) == 4);
    CHECK(run_port(noc::arbiter_kind::barrier_aware) ==
          reference(noc::arbiter_kind::barrier_aware));
}
