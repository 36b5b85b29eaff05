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

// Issue 35: the heads of every SM's queue compete, not only the head of each input. Input 0
// is a cluster carrying SM 0 and SM 1, input 1 a cluster carrying SM 2; one grant per cycle
// (1 ns), every request one cycle, all queued before the first edge (1 ns), in this order:
//   input 0: A1 (SM 0, count 0) 0.10 ns, A2 (SM 0, count 6) 0.15, B1 (SM 1, count 5) 0.20,
//            B2 (SM 1, count 5) 0.25;
//   input 1: C1 (SM 2, count 2) 0.10, C2 (SM 2, count 2) 0.15.
// By hand, barrier_aware (each input offers the best head of its SM queues: SM 0's head is
// A1, count 0; A2 may not pass A1, an SM's order is kept):
//   edge 1: heads A1 0, B1 5 | C1 2 -> B1;  edge 2: A1 0, B2 5 | C1 2 -> B2;
//   edge 3: A1 0 | C1 2 -> C1;  edge 4: A1 0 | C2 2 -> C2;  edge 5: A1;  edge 6: A2.
// Ranking only each input's head (before issue 35): C1 1, C2 2, A1 3, A2 4, B1 5, B2 6: SM 1,
// with 5 warps at its barrier, waited behind SM 0's count-0 request.
// round_robin (input 0 first, each input in arrival order): A1 1, C1 2, A2 3, C2 4, B1 5, B2 6.
namespace {
struct toy_request {
    const char* name;
    unsigned input;
    int sm;
    unsigned count;
    double at_ns;
};
constexpr toy_request queued[] = {{"A1", 0, 0, 0, 0.10}, {"A2", 0, 0, 6, 0.15},
                                  {"B1", 0, 1, 5, 0.20}, {"B2", 0, 1, 5, 0.25},
                                  {"C1", 1, 2, 2, 0.10}, {"C2", 1, 2, 2, 0.15}};

/// Grant cycle of each of `queued` on one accurate-mode port under policy k.
std::vector<unsigned> run_sm_queues(noc::arbiter_kind k, unsigned max_wait = 0)
{
    noc::resource_params p;
    p.accurate = true;
    p.cycle = sc_time(1, SC_NS);
    p.inputs = 2;
    p.policy = k;
    p.max_wait_cycles = max_wait;
    noc::shared_resource port("port", p);
    constexpr std::size_t n = std::size(queued);
    std::vector<tlm_bus::gpu_extension> ext(n);
    std::vector<unsigned> cycle(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        ext[i].sm = static_cast<std::int16_t>(queued[i].sm);
        ext[i].barrier_waiting = static_cast<std::uint16_t>(queued[i].count);
        sc_core::sc_spawn([&, i] {
            sc_time d(queued[i].at_ns, SC_NS);
            port.use(queued[i].input, &ext[i], 1, d);
            cycle[i] =
                static_cast<unsigned>(sc_core::sc_time_stamp().value() / sc_time(1, SC_NS).value());
        });
    }
    sc_core::sc_start();
    return cycle;
}
} // namespace

TEST_CASE("barrier toy, SM queues: a high-count SM behind another SM's request goes first")
{
    //                                A1 A2 B1 B2 C1 C2
    const std::vector<unsigned> hand{5, 6, 1, 2, 3, 4};
    CHECK(run_sm_queues(noc::arbiter_kind::barrier_aware) == hand);
}

TEST_CASE("barrier toy, SM queues: round-robin keeps each input's arrival order")
{
    //                                A1 A2 B1 B2 C1 C2
    const std::vector<unsigned> hand{1, 3, 5, 6, 2, 4};
    CHECK(run_sm_queues(noc::arbiter_kind::round_robin) == hand);
}

TEST_CASE("barrier toy, SM queues: ageing (an addition) lets the input's oldest win")
{
    // max_wait_cycles 2 (age = whole cycles since arrival): edges 1 and 2 as above, B1 and
    // B2 (A1 has waited 0, then 1 cycle). Edge 3: input 0's oldest A1 (2.9 ns waited: 2) and
    // C1 (2) have aged; round-robin among the aged, input 0 was granted last -> C1. Edge 4:
    // A1 (aged, count 0) beats C2 (aged too; input 1 was granted last) -> A1, where without
    // ageing C2's count 2 won. Edge 5: A2 and C2 aged -> C2. Edge 6: A2.
    //                                A1 A2 B1 B2 C1 C2
    const std::vector<unsigned> hand{4, 6, 1, 2, 3, 5};
    CHECK(run_sm_queues(noc::arbiter_kind::barrier_aware, 2) == hand);
}
