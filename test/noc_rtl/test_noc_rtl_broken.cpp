// The testbench can fail: the NoC arbiter's RTL verilated with VGPU_RTL_BREAK_TIE (ties among
// the highest barrier counts to the lowest index instead of round-robin) must be caught within
// its first thousand cycles. See models/noc/rtl/README.md.
#include "test/noc_rtl/testbench.h"
#include "test/seed.h"

#include <Vnoc_arbiter_broken.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

using namespace vgpu::noc;
using namespace vgpu::noc::rtl_test;

TEST_CASE("noc_arbiter RTL with a swapped tie-break: the comparison fails within 1000 cycles")
{
    const std::uint64_t base = vgpu::test::seed_or(1);
    std::uint64_t latest = 0;
    for (std::uint64_t s = 0; s < 64; ++s) {
        run_config cfg;
        cfg.seed = base + s;
        cfg.cycles = 1000;
        static const int sizes[] = {2, 3, 4, 5, 8, 16, 41, 64};
        cfg.inputs = sizes[s % 8];
        cfg.kind = static_cast<int>(arbiter_kind::barrier_aware);
        cfg.max_wait = 0;
        cfg.vcd_last = s == 0 ? 32 : 0;
        cfg.vcd_prefix = "noc_arbiter_broken";
        const run_result r = compare<Vnoc_arbiter_broken>(cfg);
        INFO("VGPU_TEST_SEED=" << cfg.seed << " (" << r.shape << ")");
        REQUIRE_FALSE(r.match);
        CHECK(r.mismatch_cycle < 1000);
        latest = std::max(latest, r.mismatch_cycle);
        if (s == 0) {
            std::cout << "caught: " << r.report << "\n";
            // The replay left the waveform of the cycles up to the mismatch.
            CHECK(std::filesystem::file_size(r.vcd) > 1000);
        }
    }
    std::cout << "64 seeds: the swapped tie-break caught by cycle " << latest << " at the latest\n";
}
