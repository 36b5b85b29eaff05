// Kernel and phase figures: every formula pinned with hand-computed values.
// See platforms/window_figures.h and docs/outputs.md.
#include "platforms/window_figures.h"

#include <catch2/catch.hpp>

using namespace vgpu::platforms;

namespace {
window_deltas base()
{
    window_deltas d;
    d.window_ps = 10'000'000; // 10 us
    d.core_ps = 1000;         // 1 GHz: 10,000 cycles
    d.sms = 8;
    d.sms_active = 4;
    d.instructions = 20'000;
    d.issue_cycles = 20'000; // one sub-core: one instruction per issuing cycle
    d.active_cycles = 40'000;
    d.stall_memory = 15'000;
    d.stall_scoreboard = 3'000;
    d.stall_barrier = 2'000;
    d.l1_hits = 60;
    d.l1_misses = 30;
    d.l1_merges = 10;
    d.llc_hits = 5;
    d.llc_misses = 15;
    d.llc_merges = 0;
    d.dram_read_bytes = 300'000;
    d.dram_write_bytes = 100'000;
    d.dram_peak_bytes_per_ps = 0.128; // 2 channels x 64 GB/s
    d.link_bytes = 4096;
    d.busiest_busy_ps = 7'500'000;
    d.busiest = "gpu.m0.dram.ch1";
    return d;
}
} // namespace

TEST_CASE("window figures: cycles, IPC, hit rates (merges count as hits), DRAM utilisation")
{
    const window_figures f = compute_figures(base());
    CHECK(f.cycles == 10'000);
    CHECK(f.instructions == 20'000);
    CHECK(f.ipc == Approx(2.0));         // 20,000 / 10,000
    CHECK(f.ipc_per_sm == Approx(0.5));  // over the 4 SMs that were active
    CHECK(f.l1_hit_rate == Approx(0.7)); // (60 + 10) / 100
    CHECK(f.llc_hit_rate == Approx(0.25));
    CHECK(f.dram_bw_util == Approx(400'000.0 / (0.128 * 10'000'000))); // 0.3125
    CHECK(f.link_bytes == 4096);
    CHECK(f.issue_share == Approx(0.5));
    CHECK(f.memory_share == Approx(0.375));
    CHECK(f.alu_share == Approx(0.075));
    CHECK(f.barrier_share == Approx(0.05));
    CHECK(f.busiest_busy_share == Approx(0.75));
    CHECK(f.bound == "issue");
}

TEST_CASE("window figures: memory stalls are bandwidth-bound at >= 70 % busy, else latency")
{
    window_deltas d = base();
    d.issue_cycles = 5'000; // issue share 0.125 < memory share 0.375
    d.busiest_busy_ps = 7'000'000;
    CHECK(compute_figures(d).bound == "memory_bandwidth"); // exactly 70 %
    d.busiest_busy_ps = 6'999'999;
    CHECK(compute_figures(d).bound == "memory_latency");
}

TEST_CASE("window figures: a saturated memory resource bounds the window whatever the split")
{
    window_deltas d = base();
    // Issue share 0.5 is the largest; the busiest resource busy 90 % of the window.
    d.busiest_busy_ps = 9'000'000;
    CHECK(compute_figures(d).bound == "memory_bandwidth");
    d.busiest_busy_ps = 8'999'999; // below 90 %: the largest share decides
    CHECK(compute_figures(d).bound == "issue");
    // Saturated, but issue took an even larger share of the cycles: issue.
    d.busiest_busy_ps = 9'600'000;
    d.issue_cycles = 39'000; // issue share 0.975
    CHECK(compute_figures(d).bound == "issue");
}

TEST_CASE("window figures: ALU latency and barriers win when they are the largest share")
{
    window_deltas d = base();
    d.issue_cycles = 1'000;
    d.stall_memory = 1'000;
    d.stall_scoreboard = 30'000;
    CHECK(compute_figures(d).bound == "alu_latency");
    d.stall_scoreboard = 1'000;
    d.stall_barrier = 30'000;
    CHECK(compute_figures(d).bound == "barriers");
}

TEST_CASE("window figures: cycles lost to a busy functional unit count toward issue")
{
    window_deltas d = base();
    // Four sub-cores: 20,000 instructions issued in 8,000 cycles; 12,000 cycles had ready
    // warps whose unit was busy. Issue share (8,000 + 12,000) / 40,000 = 0.5 > memory 0.375.
    d.issue_cycles = 8'000;
    d.stall_structural = 12'000;
    d.stall_memory = 15'000;
    d.busiest_busy_ps = 1'000'000; // memory latency, not bandwidth, when memory wins
    const window_figures f = compute_figures(d);
    CHECK(f.issue_share == Approx(0.5));
    CHECK(f.ipc == Approx(2.0)); // IPC still counts instructions
    CHECK(f.bound == "issue");
    d.stall_structural = 0; // without them: 0.2 < 0.375, memory
    CHECK(compute_figures(d).bound == "memory_latency");
}

TEST_CASE("window figures: an empty window divides by nothing")
{
    window_deltas d;
    const window_figures f = compute_figures(d);
    CHECK(f.cycles == 0);
    CHECK(f.ipc == 0);
    CHECK(f.l1_hit_rate == 0);
    CHECK(f.dram_bw_util == 0);
}
