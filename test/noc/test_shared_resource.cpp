// Shell tests of noc::shared_resource: busy-until delays in fast mode, per-cycle round-robin
// arbitration in accurate mode. See models/noc/README.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, before the first <systemc>
#include "models/noc/shared_resource.h"

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

/// Runs each body in its own SC_THREAD (spawned in creation order).
struct stimulus : sc_core::sc_module {
    std::vector<std::function<void()>> bodies;
    unsigned finished = 0;
    explicit stimulus(const sc_core::sc_module_name& n) : sc_module(n) {}
    void before_end_of_elaboration() override
    {
        for (auto& b : bodies)
            sc_core::sc_spawn([this, &b] {
                b();
                ++finished;
            });
    }
};

noc::resource_params params(bool accurate, unsigned inputs)
{
    noc::resource_params p;
    p.accurate = accurate;
    p.cycle = sc_time(1, SC_NS);
    p.inputs = inputs;
    return p;
}

} // namespace

TEST_CASE("fast mode: busy-until gives exact delays for back-to-back and overlapping requests")
{
    noc::shared_resource res("res", params(false, 2));
    stimulus stim("stim");
    stim.bodies.push_back([&] {
        sc_time d = sc_core::SC_ZERO_TIME;
        res.use(0, nullptr, 2, d); // idle: 2 cycles of occupancy
        CHECK(d == sc_time(2, SC_NS));
        res.use(0, nullptr, 2, d); // back to back: arrives at 2 ns as the port frees
        CHECK(d == sc_time(4, SC_NS));
        sc_time o(1, SC_NS);
        res.use(1, nullptr, 3, o); // arrives at 1 ns, busy until 4 ns: 3 ns queueing
        CHECK(o == sc_time(1 + 3 + 3, SC_NS));
        sc_time late(20, SC_NS);
        res.use(1, nullptr, 1, late); // after an idle gap: no queueing
        CHECK(late == sc_time(21, SC_NS));
        // The kernel did not advance: fast-mode resources never wait.
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    });
    sc_core::sc_start();
    REQUIRE(stim.finished == 1);
    REQUIRE(res.grants() == 4);
}

TEST_CASE("accurate mode: two requests of the same cycle get one grant per cycle")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    noc::shared_resource res("res", params(true, 2));
    stimulus stim("stim");
    sc_time granted[2];
    for (unsigned i = 0; i < 2; ++i)
        stim.bodies.push_back([&, i] {
            sc_time d = sc_core::SC_ZERO_TIME;
            res.use(i, nullptr, 1, d);
            granted[i] = sc_core::sc_time_stamp();
            CHECK(d == sc_time(1, SC_NS)); // the occupancy, still to be spent by the caller
        });
    sc_core::sc_start();
    REQUIRE(stim.finished == 2);
    // Both arrive on the 0 ns edge and compete there; round-robin starts at input 0.
    CHECK(granted[0] == sc_time(0, SC_NS));
    CHECK(granted[1] == sc_time(1, SC_NS));
}

TEST_CASE("accurate mode: a multi-cycle grant holds the resource")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    noc::shared_resource res("res", params(true, 2));
    stimulus stim("stim");
    sc_time granted[2];
    for (unsigned i = 0; i < 2; ++i)
        stim.bodies.push_back([&, i] {
            sc_time d = sc_core::SC_ZERO_TIME;
            res.use(i, nullptr, 3, d);
            granted[i] = sc_core::sc_time_stamp();
            CHECK(d == sc_time(3, SC_NS));
        });
    sc_core::sc_start();
    REQUIRE(stim.finished == 2);
    CHECK(granted[0] == sc_time(0, SC_NS));
    CHECK(granted[1] == sc_time(3, SC_NS));
}

TEST_CASE("accurate mode: a request alone is granted at its edge, mid-cycle ones at the next")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    noc::shared_resource res("res", params(true, 1));
    stimulus stim("stim");
    stim.bodies.push_back([&] {
        sc_time d(3500, sc_core::SC_PS); // mid-cycle: the annotated delay is waited first
        res.use(0, nullptr, 1, d);
        CHECK(sc_core::sc_time_stamp() == sc_time(4, SC_NS));
        CHECK(d == sc_time(1, SC_NS));
        sc_core::wait(sc_time(2, SC_NS)); // exactly on an edge of a free resource: no wait
        d = sc_core::SC_ZERO_TIME;
        res.use(0, nullptr, 1, d);
        CHECK(sc_core::sc_time_stamp() == sc_time(6, SC_NS));
        sc_core::wait(sc_time(10, SC_NS)); // long idle gap: still no wait
        d = sc_core::SC_ZERO_TIME;
        res.use(0, nullptr, 2, d);
        CHECK(sc_core::sc_time_stamp() == sc_time(16, SC_NS));
        CHECK(d == sc_time(2, SC_NS));
    });
    sc_core::sc_start();
    REQUIRE(stim.finished == 1);
    REQUIRE(res.grants() == 3);
}

// The requests an MSHR merged resume together when its fill arrives, in an order the kernel
// does not specify; the response channel serves them in request order.
TEST_CASE("accurate mode: requests of one input that arrive together go oldest first")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    noc::shared_resource res("res", params(true, 2));
    stimulus stim("stim");
    sc_core::sc_event fill;
    constexpr unsigned n = 4;
    sc_time granted[n + 1];
    for (unsigned i = 0; i < n; ++i)
        stim.bodies.push_back([&, i] {
            sc_core::wait(fill); // all resume at 2 ns
            sc_time d = sc_core::SC_ZERO_TIME;
            res.use(0, nullptr, 1, d, 10 * (n - i)); // ages 40, 30, 20, 10 ps
            granted[i] = sc_core::sc_time_stamp();
        });
    stim.bodies.push_back([&] {
        // Arrived a cycle earlier: younger, yet not passed by the older ones.
        sc_time d(1, SC_NS);
        res.use(0, nullptr, 2, d, 1000);
        granted[n] = sc_core::sc_time_stamp();
    });
    stim.bodies.push_back([&] { fill.notify(sc_time(2, SC_NS)); });
    sc_core::sc_start();
    REQUIRE(stim.finished == n + 2);
    CHECK(granted[n] == sc_time(1, SC_NS));
    for (unsigned i = 0; i < n; ++i)
        CHECK(granted[i] == sc_time(3 + (n - 1 - i), SC_NS)); // age 10 at 3 ns ... 40 at 6 ns
}

TEST_CASE("accurate mode: round-robin is fair among 4 always-requesting inputs")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    constexpr unsigned n = 4, rounds = 250;
    noc::shared_resource res("res", params(true, n));
    stimulus stim("stim");
    std::vector<unsigned> grants(n, 0);
    std::vector<sc_time> max_wait(n, sc_core::SC_ZERO_TIME);
    std::vector<unsigned> order;
    for (unsigned i = 0; i < n; ++i)
        stim.bodies.push_back([&, i] {
            for (unsigned r = 0; r < rounds; ++r) {
                // Re-request at once: the input always has a request waiting.
                const sc_time asked = sc_core::sc_time_stamp();
                sc_time d = sc_core::SC_ZERO_TIME;
                res.use(i, nullptr, 1, d);
                const sc_time waited = sc_core::sc_time_stamp() - asked;
                if (waited > max_wait[i])
                    max_wait[i] = waited;
                ++grants[i];
                order.push_back(i);
            }
        });
    sc_core::sc_start();
    REQUIRE(stim.finished == n);
    REQUIRE(order.size() == n * rounds);
    for (unsigned i = 0; i < n; ++i) {
        CHECK(grants[i] == rounds);
        CHECK(max_wait[i] <= sc_time(n, SC_NS)); // granted within N cycles
    }
    // One grant per cycle, in rotation.
    for (std::size_t k = 0; k < order.size(); ++k)
        CHECK(order[k] == k % n);
    CHECK(sc_core::sc_time_stamp() == sc_time(n * rounds - 1, SC_NS)); // grants at 0..999 ns
}

TEST_CASE("accurate mode with credits: no grant while the buffer fed is full, a returned "
          "credit lets the next request compete at that edge")
{
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    noc::resource_params p = params(true, 2);
    p.credits = 1;
    noc::shared_resource res("res", p);
    stimulus stim("stim");
    sc_time granted[2];
    for (unsigned i = 0; i < 2; ++i)
        stim.bodies.push_back([&, i] {
            sc_time d = sc_core::SC_ZERO_TIME;
            res.use(i, nullptr, 1, d);
            granted[i] = sc_core::sc_time_stamp();
        });
    stim.bodies.push_back([&] {
        sc_core::wait(sc_time(5, SC_NS)); // the downstream slot frees at 5 ns
        res.return_credit();
    });
    sc_core::sc_start();
    REQUIRE(stim.finished == 3);
    CHECK(granted[0] == sc_time(0, SC_NS));
    CHECK(granted[1] == sc_time(5, SC_NS)); // not at 1 ns: the only slot was taken
    CHECK(res.credit_stalls() == 1);
}
