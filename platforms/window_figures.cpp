// Figures of one kernel or phase window. See docs/outputs.md ("Kernel and phase records").
#include "platforms/window_figures.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace vgpu::platforms {

namespace {
double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}
} // namespace

window_figures compute_figures(const window_deltas& d)
{
    window_figures f;
    f.cycles = static_cast<std::uint64_t>(std::llround(ratio(d.window_ps, d.core_ps)));
    f.instructions = d.instructions;
    f.ipc = ratio(d.instructions, static_cast<double>(f.cycles));
    f.ipc_per_sm = ratio(f.ipc, d.sms_active);
    // A request merged into a miss already in flight counts as a hit (as MSHR hits are
    // counted by cycle-level simulators); the split stays in the per-cache statistics.
    f.l1_hit_rate = ratio(d.l1_hits + d.l1_merges, d.l1_hits + d.l1_misses + d.l1_merges);
    f.llc_hit_rate = ratio(d.llc_hits + d.llc_merges, d.llc_hits + d.llc_misses + d.llc_merges);
    f.dram_read_bytes = d.dram_read_bytes;
    f.dram_write_bytes = d.dram_write_bytes;
    f.dram_bw_util =
        ratio(d.dram_read_bytes + d.dram_write_bytes, d.dram_peak_bytes_per_ps * d.window_ps);
    f.link_bytes = d.link_bytes;
    // A cycle lost to a busy functional unit is the issue side's limit, not a wait.
    f.issue_share = ratio(d.issue_cycles + d.stall_structural, d.active_cycles);
    f.memory_share = ratio(d.stall_memory, d.active_cycles);
    f.alu_share = ratio(d.stall_scoreboard, d.active_cycles);
    f.barrier_share = ratio(d.stall_barrier, d.active_cycles);
    f.busiest_busy_share = ratio(d.busiest_busy_ps, d.window_ps);
    f.busiest = d.busiest;
    const std::pair<double, const char*> shares[] = {
        {f.issue_share, "issue"},
        {f.memory_share, "memory"},
        {f.alu_share, "alu_latency"},
        {f.barrier_share, "barriers"},
    };
    const auto largest =
        std::max_element(std::begin(shares), std::end(shares),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
    f.bound = largest->second;
    if (f.busiest_busy_share >= saturated_busy_share && f.busiest_busy_share > largest->first)
        f.bound = "memory_bandwidth";
    else if (f.bound == "memory")
        f.bound = f.busiest_busy_share >= bandwidth_bound_busy_share ? "memory_bandwidth"
                                                                     : "memory_latency";
    return f;
}

void to_json(nlohmann::json& rec, const window_figures& f)
{
    rec["cycles"] = f.cycles;
    rec["instructions"] = static_cast<std::uint64_t>(std::llround(f.instructions));
    rec["ipc"] = f.ipc;
    rec["ipc_per_sm"] = f.ipc_per_sm;
    rec["l1_hit_rate"] = f.l1_hit_rate;
    rec["llc_hit_rate"] = f.llc_hit_rate;
    rec["dram_read_bytes"] = static_cast<std::uint64_t>(std::llround(f.dram_read_bytes));
    rec["dram_write_bytes"] = static_cast<std::uint64_t>(std::llround(f.dram_write_bytes));
    rec["dram_bw_util"] = f.dram_bw_util;
    rec["link_bytes"] = static_cast<std::uint64_t>(std::llround(f.link_bytes));
    rec["bound"] = f.bound;
    rec["shares"] = {{"issue", f.issue_share},
                     {"memory", f.memory_share},
                     {"alu_latency", f.alu_share},
                     {"barriers", f.barrier_share}};
    rec["busiest_resource"] = {{"name", f.busiest}, {"busy_share", f.busiest_busy_share}};
}

} // namespace vgpu::platforms
