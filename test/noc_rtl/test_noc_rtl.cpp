// The verilated NoC arbiter (models/noc/rtl/noc_arbiter.sv) against its C++ core, cycle by cycle
// over seeded constrained-random stimulus (testbench.h). See models/noc/rtl/README.md.
#include "test/noc_rtl/testbench.h"
#include "test/seed.h"

#include <Vnoc_arbiter.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

using namespace vgpu::noc;
using namespace vgpu::noc::rtl_test;

TEST_CASE("noc_arbiter RTL: every grant and reason equals the core's over 1.2 M cycles of 12 seeds")
{
    const std::uint64_t base = vgpu::test::seed_or(1);
    std::uint64_t compared = 0, idle = 0, ties = 0, saturated = 0;
    std::array<std::uint64_t, 4> by_reason{};
    const auto t0 = std::chrono::steady_clock::now();
    // The ports' shapes (inputs, policy, ageing) are fixed so that every seed reaches the
    // coverage plan (testbench.h); the seed draws the traffic.
    struct shape {
        int inputs;
        arbiter_kind kind;
        std::int64_t max_wait;
    };
    const auto rr = arbiter_kind::round_robin, ba = arbiter_kind::barrier_aware;
    const shape shapes[12] = {{64, rr, 0},    {64, ba, 0},  {64, ba, 16}, {8, ba, 5},
                              {5, ba, 65535}, {16, ba, 64}, {41, ba, 0},  {3, rr, 0},
                              {10, ba, 2},    {2, ba, 300}, {64, ba, 1},  {7, ba, 0}};
    for (std::uint64_t s = 0; s < 12; ++s) {
        run_config cfg;
        cfg.seed = base + s;
        cfg.cycles = 100000;
        cfg.inputs = shapes[s].inputs;
        cfg.kind = static_cast<int>(shapes[s].kind);
        cfg.max_wait = shapes[s].max_wait;
        cfg.cover = true;
        const run_result r = compare<Vnoc_arbiter>(cfg);
        INFO("VGPU_TEST_SEED=" << cfg.seed << " reruns this seed first");
        INFO(r.report);
        REQUIRE(r.match);
        compared += r.compared;
        idle += r.idle;
        ties += r.ties;
        saturated += r.saturated;
        for (unsigned k = 0; k < 4; ++k)
            by_reason[k] += r.by_reason[k];
        std::cout << r.shape << ": " << r.compared << " cycles compared, VCD " << r.vcd << "\n";
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "noc_arbiter RTL vs core: " << 12 * 100000 << " cycles, " << compared
              << " arbitrated (" << idle << " idle), "
              << static_cast<std::uint64_t>(compared / secs)
              << " compared per host second; grants by rotation " << by_reason[1] << ", priority "
              << by_reason[2] << ", age " << by_reason[3] << "; ties " << ties
              << "; saturated ages " << saturated << "\n";
    // The stimulus reaches every kind of decision.
    CHECK(by_reason[1] > 1000);
    CHECK(by_reason[2] > 1000);
    CHECK(by_reason[3] > 1000);
    CHECK(ties > 1000);
}

TEST_CASE("noc_arbiter RTL: the adversarial stream is served by ageing, as by the core")
{
    // 64 inputs (every requester of the RTL used), barrier_aware with ageing at 8 cycles.
    run_config cfg;
    cfg.seed = vgpu::test::seed_or(1) + 100; // apart from the first case's seeds
    cfg.cycles = 50000;
    cfg.inputs = 64;
    cfg.kind = static_cast<int>(arbiter_kind::barrier_aware);
    cfg.max_wait = 8;
    cfg.cover = true;
    const run_result r = compare<Vnoc_arbiter>(cfg);
    INFO("VGPU_TEST_SEED=" << cfg.seed << "\n" << r.report);
    REQUIRE(r.match);
    CHECK(r.by_reason[3] > 100);
}

TEST_CASE("noc_arbiter RTL: both policies on a port of every size from 1 to 64 inputs")
{
    const std::uint64_t base = vgpu::test::seed_or(100);
    for (int n = 1; n <= 64; ++n)
        for (int kind : {0, 1}) {
            run_config cfg;
            cfg.seed = base + static_cast<std::uint64_t>(2 * n + kind);
            cfg.cycles = 2000;
            cfg.inputs = n;
            cfg.kind = kind;
            cfg.vcd_last = 0;
            const run_result r = compare<Vnoc_arbiter>(cfg);
            INFO("VGPU_TEST_SEED=" << base << " reruns this case\n" << r.report);
            REQUIRE(r.match);
        }
}

TEST_CASE("noc_arbiter RTL adapter: a port the RTL cannot serve is refused")
{
    using rtl = verilated_arbiter<Vnoc_arbiter>;
    CHECK_THROWS_AS(rtl(65, arbiter_kind::barrier_aware, 0), std::invalid_argument);
    CHECK_THROWS_AS(rtl(4, arbiter_kind::fifo, 0), std::invalid_argument);
    CHECK_THROWS_AS(rtl(4, arbiter_kind::barrier_aware, 65536), std::invalid_argument);
    rtl a(4, arbiter_kind::barrier_aware, 0);
    std::vector<candidate> c(4);
    c[1] = {true, 256, 0, 0};
    CHECK_THROWS_AS(a.grant(c), std::invalid_argument);
    // No request: no grant and no clock.
    c[1] = {};
    CHECK(a.grant(c) == -1);
    CHECK(a.clocks() == 0);
}

// scripts/bench rtl: the comparison at length (VGPU_RTL_CYCLES, default 10 M, over 16 seeds)
// and the host cost of a grant by the core alone, by the RTL alone and by both compared.
TEST_CASE("noc_arbiter RTL: long comparison and host cost against the core", "[.][bench]")
{
    const char* env = std::getenv("VGPU_RTL_CYCLES");
    const std::uint64_t total = env && *env ? std::strtoull(env, nullptr, 0) : 10000000;
    const std::uint64_t base = vgpu::test::seed_or(1000);
    std::printf("%-22s %12s %12s %12s %9s %14s\n", "side", "cycles", "arbitrated", "with work",
                "host s", "ns / arb. call");
    for (auto side : {run_config::both, run_config::core_only, run_config::rtl_only}) {
        std::uint64_t compared = 0, idle = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (std::uint64_t s = 0; s < 16; ++s) {
            run_config cfg;
            cfg.seed = base + s;
            cfg.cycles = total / 16;
            cfg.vcd_last = side == run_config::both && s == 0 ? 32 : 0;
            cfg.side = side;
            const run_result r = compare<Vnoc_arbiter>(cfg);
            INFO("VGPU_TEST_SEED=" << base << ": seed " << cfg.seed << "\n" << r.report);
            REQUIRE(r.match);
            compared += r.compared;
            idle += r.idle;
        }
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        static const char* const names[] = {"core and RTL compared", "core only", "RTL only"};
        std::printf("%-22s %12llu %12llu %12llu %9.3f %14.1f\n", names[side],
                    static_cast<unsigned long long>(total / 16 * 16),
                    static_cast<unsigned long long>(compared),
                    static_cast<unsigned long long>(compared - idle), secs,
                    1e9 * secs / static_cast<double>(compared));
    }
}
