// Figures of one kernel or phase window (stats.json `kernels` and `phases`): pure arithmetic on
// the statistics' changes over the window, no SystemC. See docs/outputs.md.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace vgpu::platforms {

/// How much each statistic changed over a window, summed over the window's SMs (SM-side
/// figures) or over the whole GPU (memory-side figures).
struct window_deltas {
    double window_ps = 0;    ///< end - start of the window
    double core_ps = 1;      ///< core clock period
    unsigned sms = 0;        ///< SMs the kernel (or phase) was launched on
    unsigned sms_active = 0; ///< of those, SMs with at least one active cycle in the window
    double instructions = 0, active_cycles = 0; ///< SM-side
    double line_requests = 0; ///< SM-side: the SMs' line requests (`<sm>.mem_requests`)
    double stall_memory = 0, stall_scoreboard = 0, stall_barrier = 0; ///< SM-side
    double issue_cycles = 0, stall_structural = 0;       ///< SM-side: cycles that issued, unit busy
    double l1_hits = 0, l1_misses = 0, l1_merges = 0;    ///< the window's SMs' L1s
    double llc_hits = 0, llc_misses = 0, llc_merges = 0; ///< every LLC slice
    double dram_read_bytes = 0, dram_write_bytes = 0;    ///< every DRAM controller
    double dram_peak_bytes_per_ps = 0;                   ///< all channels of all modules
    double link_bytes = 0;                               ///< every inter-module link
    double busiest_busy_ps = 0; ///< busy time of the busiest memory-side shared resource
    std::string busiest;        ///< its name
};

/// Share of a window's busiest memory resource at or above which memory stalls are
/// `memory_bandwidth` rather than `memory_latency`.
constexpr double bandwidth_bound_busy_share = 0.7;
/// Share of a window's busiest memory resource at or above which that resource, when its share
/// is larger than every share of the SM cycles, bounds the window (`memory_bandwidth`): the
/// memory side ran at its limit however the SM cycles split (e.g. half issuing, half waiting).
/// 90 %: the share the microbenchmarks count as saturating a resource (a window includes the
/// ramp and the drain; testbenches/workloads/micro/README.md).
constexpr double saturated_busy_share = 0.9;

/// The figures of a window (field names as in stats.json).
struct window_figures {
    std::uint64_t cycles = 0; ///< core cycles of the window
    double instructions = 0, ipc = 0, ipc_per_sm = 0;
    double l1_hit_rate = 0, llc_hit_rate = 0;
    double dram_read_bytes = 0, dram_write_bytes = 0, dram_bw_util = 0, link_bytes = 0;
    double issue_share = 0, memory_share = 0, alu_share = 0, barrier_share = 0;
    double busiest_busy_share = 0; ///< busiest memory resource's busy time / window
    std::string busiest;           ///< its name
    /// issue | alu_latency | memory_bandwidth | memory_latency | barriers
    std::string bound;
};

/// Computes the figures; every rate divides by this window's own length.
window_figures compute_figures(const window_deltas& d);

/// Writes the figures into a record (adds the fields to `rec`).
void to_json(nlohmann::json& rec, const window_figures& f);

} // namespace vgpu::platforms
