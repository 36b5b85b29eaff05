// The virtual GPU: host driver, command processor, M modules of clusters of SMs with L1s,
// cluster crossbars, a module NoC, LLC slices and DRAM, joined by inter-module links.
// See docs/architecture.md.
#pragma once

#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/host/workload.h"
#include "models/noc/link.h"
#include "platforms/attach/attachment.h"
#include "platforms/gpu_figures.h"
#include "platforms/gpu_units.h"
#include "platforms/link_checks.h"
#include "platforms/platform.h"
#include "platforms/window_figures.h"
#include "tlm_bus/router.h"

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace vgpu::platforms {

/// The GPU platform driven by the native host driver running one workload.
class gpu_platform : public sc_core::sc_module, public platform {
    /// Every link of the platform is bound through it (platform.check_protocol); declared first,
    /// so that its checkers outlive every module they are bound to.
    link_checks m_link_checks;
    const host::workload m_workload; ///< owned here: the driver refers to it for the whole run
    const vgpu_config m_cfg;
    /// The blocks of the block table (platforms/attach/blocks.cpp) and what they made;
    /// declared before the host and the modules, which refer to it, so that it outlives them.
    block_list m_blocks;

public:
    /// `extra_blocks` join after the block table's (run_options::extra_blocks).
    gpu_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                 const host::workload& wl,
                 const std::vector<attach::block_maker>& extra_blocks = {});
    bool finished() const override;
    std::vector<std::string> failures() const override;
    void summary(std::ostream& os) const override;
    /// The patents' platform-wide settings in effect, for the summary's block line: ", noc
    /// (barrier_aware arbiter)", ", page_alloc (adaptive)", ", faults (shadow, 8 threads)".
    std::string mechanisms() const;
    std::string progress() const override;
    /// `kernels` (one record per launch) and `phases` (one per schedule phase), each with the
    /// figures of its own window (docs/outputs.md).
    nlohmann::json records() const override;
    /// Host seconds between each phase's start and end marks, summed over the phases.
    double kernel_host_seconds() const override;
    std::optional<sim_counts> run_counts() const override;
    std::optional<sim_counts> kernel_counts() const override;
    const host::workload* workload() const override { return &m_workload; }
    /// Registers irq, the CP's queues, every SM, LLC slice and DRAM controller (docs/outputs.md).
    void trace(sc_core::sc_trace_file* tf) const override;

    /// OUTDIR/shader_trace.bin when the platform has a shader-trace unit, and
    /// OUTDIR/instrumented_trace.csv when the workload instruments a kernel.
    std::map<std::string, std::vector<std::uint8_t>> files() const override;

    ::vgpu::host::driver host; ///< native driver running the workload
    ::vgpu::cp::cp cp;         ///< command processor
    /// Host MMIO -> register windows, each bound by name at its base in mmio_windows().
    tlm_bus::router mmio_bus;
    sc_core::sc_signal<bool> irq; ///< CP -> host interrupt line

    /// Fast mode: SMs resuming at one simulated time run in SM-id order (sm::same_time_gate).
    std::unique_ptr<sm::same_time_gate> sm_order;
    /// platform.host_threads > 1: the threads of the SMs' local cycles (sm_order's batches).
    std::unique_ptr<work_pool> host_pool;
    std::vector<std::unique_ptr<module_unit>> modules; ///< m0, m1, ...
    std::vector<std::unique_ptr<noc::link>> links;     ///< link_<a>_<b>: module a -> module b

private:
    /// Every SM, in SM id order.
    std::vector<const sm::sm*> all_sms() const;
    /// Every SM's L1, in SM id order.
    std::vector<const l1::l1*> all_l1s() const;
    /// Sets the budget of on-demand SystemC threads (platform.max_host_threads; when 0, what
    /// the platform's own threads leave of Linux's default vm.max_map_count).
    void start_of_simulation() override;
    /// The links' checkers' statistics, once every link is bound (link_checks).
    void end_of_elaboration() override;
    /// Numeric statistics at one window boundary: [i] is the value of m_mark_names[i], NaN when
    /// it was not collected then. Each name is kept once for all marks, so a mark costs 8 bytes
    /// per statistic (a platform has tens of thousands; a workload may launch thousands of
    /// kernels, two marks each).
    using snapshot = std::vector<double>;
    /// Snapshots the statistics now (the driver's window marker); returns its index.
    int take_mark();
    /// Ends the simulation when the driver has finished with a failure (host.done).
    void stop_after_failure();
    /// Changes over [start_mark, end_mark] of the SMs [first, first + count) and of the memory
    /// side, as inputs of compute_figures().
    window_deltas deltas(int start_mark, int end_mark, const std::vector<bool>& sms,
                         sc_core::sc_time window) const;
    /// One `kernels` or `phases` record.
    nlohmann::json record(const std::string& name, int start_mark, int end_mark,
                          const std::vector<bool>& sms, sc_core::sc_time start,
                          sc_core::sc_time end, bool ended) const;
    /// The set of SMs [first, first + count), over all_sms().
    std::vector<bool> sm_set(unsigned first, unsigned count) const;

    std::vector<snapshot> m_marks;
    std::vector<std::string> m_mark_names;                     ///< every name a mark has held
    std::unordered_map<std::string, std::size_t> m_mark_index; ///< m_mark_names' indices
    /// For stats::collect_values() while stats::layout_version() is m_layout_version: the
    /// index in m_mark_names of each value.
    std::vector<std::size_t> m_layout;
    std::uint64_t m_layout_version = ~std::uint64_t{0};
    std::vector<double> m_mark_host_seconds; ///< host (steady) clock at each mark, seconds

    stats::group m_stats;
    gpu_figures m_figures; ///< the SMs' figures (instructions, shares, kernel time)

public:
    /// What bounds the workload: the largest share of active SM cycles among issuing
    /// ("issue"), waiting for memory ("memory"), for ALU results ("alu latency") and at
    /// barriers ("barriers").
    std::string bound_by() const;
};

/// What the host driver knows of the platform cfg describes (memory layout, SMs, register
/// windows).
host::platform_facts driver_facts(const vgpu_config& cfg);

/// Clock parameters of the models, from the platform section.
clock_params make_clock_params(const platform_config& p);

} // namespace vgpu::platforms
