// The testbench can fail: the NoC arbiter's RTL verilated with VGPU_RTL_BREAK_TIE (ties among
// the highest barrier counts to the lowest index instead of round-robin) must be caught within
// its first thousand cycles. See models/noc/rtl/README.md.
#include "test/noc_rtl/testbench.h"
#include "test/seed.h"

#include <Vnoc_arbiter_broken.h>
#include <catch2/catch.hpp>

#include <iostream>

using namespace vgpu::noc;
using namespace vgpu::noc::rtl_test;

TEST_CASE("noc_arbiter RTL with a swapped tie-break: the comparison fails within 1000 cycles")
{
    const std::uint64_t base = vgpu::test::seed_or(1);
    for (std::uint64_t s = 0; s < 8; ++s) {
        run_config cfg;
        cfg.seed = base + s;
        cfg.cycles = 1000;
        cfg.inputs = 2 + static_cast<int>(s % 5) * 3;
        cfg.kind = static_cast<int>(arbiter_kind::barrier_aware);
        cfg.vcd_prefix = "noc_arbiter_broken";
        const run_result r = compare<Vnoc_arbiter_broken>(cfg);
        INFO("VGPU_TEST_SEED=" << cfg.seed << " (" << r.shape << ")");
        REQUIRE_FALSE(r.match);
        CHECK(r.mismatch_cycle < 1000);
        std::cout << "caught: " << r.report << "\n";
    }
}
