// The virtual GPU: host driver, command processor, M modules of clusters of SMs with L1s,
// cluster crossbars, a module NoC, LLC slices and DRAM, joined by inter-module links.
// See docs/architecture.md.
#pragma once

#include "models/cdl/cbv_table.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/cp/cp.h"
#include "models/dram/dram.h"
#include "models/host/driver.h"
#include "models/host/workload.h"
#include "models/l1/l1.h"
#include "models/l1_share/adaptive_policy.h"
#include "models/llc/home_router.h"
#include "models/llc/llc.h"
#include "models/llc/llc_switcher.h"
#include "models/noc/interconnect.h"
#include "models/noc/link.h"
#include "models/shader_trace/shader_trace.h"
#include "models/sm/sm.h"
#include "models/tlb/cluster_tlb.h"
#include "models/tlb/fault_unit.h"
#include "models/tlb/tlb.h"
#include "platforms/builder.h"
#include "platforms/window_figures.h"
#include "tlm_bus/path_stage.h"
#include "tlm_bus/router.h"

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace vgpu::platforms {

class cluster_unit;

/// The stages between SM `sm_name` of `cluster` and its L1, SM side first: the one place where
/// a block that sits on the per-SM memory path (TLB, CDL controller, trace unit) is inserted;
/// what a block's stages share within the cluster lives in the cluster_unit.
std::vector<std::unique_ptr<tlm_bus::path_stage>> memory_path_stages(const std::string& sm_name,
                                                                     const vgpu_config& cfg,
                                                                     const clock_params& clk,
                                                                     cluster_unit& cluster);

/// One cluster: SMs with their memory-path stages and L1, and the cluster crossbar.
class cluster_unit : public sc_core::sc_module {
public:
    cluster_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                 const clock_params& clk, unsigned module, unsigned cluster);
    /// The cluster's shared L2 TLB, page-walk cache and walkers (stats `<cluster>.tlb.*`).
    tlb::cluster_tlb tlb;
    std::vector<std::unique_ptr<sm::sm>> sms;
    std::vector<std::vector<std::unique_ptr<tlm_bus::path_stage>>> stages; ///< per SM
    std::vector<std::unique_ptr<l1::l1>> l1s;
    /// Inputs `sm<i>_l1` and each stage's side ports (`sm<i>_tlb_walk`); output `noc`.
    std::unique_ptr<noc::interconnect> xbar;
    /// l1.sharing shared: the L1 index routing crossbar, inputs `sm<i>` (each SM's memory
    /// path), outputs `sm<i>_l1` (the home L1s). adaptive: the crossbar between the L1s,
    /// inputs `sm<i>_peer` (each L1's `peer`), outputs `sm<i>_l1` (each L1's `remote_in`),
    /// routed by the L1 address window. Null when private.
    std::unique_ptr<noc::interconnect> l1_route;
    /// l1.sharing adaptive: the SMs' classes and partners (stats `<cluster>.l1_share.*`).
    std::unique_ptr<l1_share::cluster_classes> classes;
};

/// One module (chiplet): clusters, the module NoC, LLC slices and the DRAM controller.
class module_unit : public sc_core::sc_module {
public:
    module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                const clock_params& clk, unsigned module);
    std::vector<std::unique_ptr<cluster_unit>> clusters;
    /// Inputs `c<c>`, `host` (module 0), `link_<a>_<m>`; outputs `llc<k>`, `link_<m>_<b>`.
    std::unique_ptr<noc::interconnect> noc;
    std::vector<std::unique_ptr<llc::llc>> llcs;
    /// Multi-module GPUs: per slice, its fills and write-backs to the home of their line.
    std::vector<std::unique_ptr<llc::home_router>> homes;
    ::vgpu::dram::dram dram; ///< this module's memory
};

/// The GPU platform driven by the native host driver running one workload.
class gpu_platform : public sc_core::sc_module, public platform {
    const host::workload m_workload; ///< owned here: the driver refers to it for the whole run

public:
    gpu_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                 const host::workload& wl);
    bool finished() const override;
    std::vector<std::string> failures() const override;
    void summary(std::ostream& os) const override;
    std::string progress() const override;
    /// `kernels` (one record per launch) and `phases` (one per schedule phase), each with the
    /// figures of its own window (docs/outputs.md).
    nlohmann::json records() const override;
    /// Host seconds between each phase's start and end marks, summed over the phases.
    double kernel_host_seconds() const override;
    const host::workload* workload() const override { return &m_workload; }
    /// Registers irq, the CP's queues, every SM, LLC slice and DRAM controller (docs/outputs.md).
    void trace(sc_core::sc_trace_file* tf) const override;

    /// Physical address of the command processor's register window on the MMIO bus.
    static constexpr std::uint64_t cp_base = 0x40000000;
    /// Physical address of the fault unit's register window on the MMIO bus.
    static constexpr std::uint64_t fault_base = 0x40010000;
    /// Physical address of the CBV table's register window on the MMIO bus.
    static constexpr std::uint64_t cbv_base = 0x40020000;
    /// Physical address of the shader-trace unit's register window on the MMIO bus.
    static constexpr std::uint64_t trace_base = 0x40030000;
    /// OUTDIR/shader_trace.bin when the platform has a shader-trace unit, and
    /// OUTDIR/instrumented_trace.csv when the workload instruments a kernel.
    std::map<std::string, std::vector<std::uint8_t>> files() const override;

    ::vgpu::host::driver host;          ///< native driver running the workload
    ::vgpu::cp::cp cp;                  ///< command processor
    tlm_bus::router mmio_bus;           ///< host MMIO -> register windows
    sc_core::sc_signal<bool> irq;       ///< CP -> host interrupt line
    tlb::fault_unit faults;             ///< page faults of every TLB -> the host's shadow thread
    sc_core::sc_signal<bool> fault_irq; ///< fault unit -> host interrupt line
    cdl::cbv_table cbvs;                ///< CBV table read by every SM's CDL controller
    /// The shader-trace unit (shader_trace.enable), or null.
    std::unique_ptr<::vgpu::shader_trace::trace_unit> trace_unit;
    sc_core::sc_signal<bool> trace_irq;                ///< trace unit -> host (watermark)
    std::vector<std::unique_ptr<module_unit>> modules; ///< m0, m1, ...
    std::vector<std::unique_ptr<noc::link>> links;     ///< link_<a>_<b>: module a -> module b
    /// Multi-module GPUs: the LLC organisation flags and switch engine (llc.mode).
    std::unique_ptr<llc::llc_switcher> llc_switch;
    static constexpr std::uint64_t llc_switch_base = 0x40040000;

private:
    /// Sets the budget of on-demand SystemC threads (platform.max_host_threads; when 0, what
    /// the platform's own threads leave of Linux's default vm.max_map_count).
    void start_of_simulation() override;
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
    std::vector<bool> sm_set(unsigned first, unsigned count) const;
    std::vector<const sm::sm*> all_sms() const;
    std::vector<const l1::l1*> all_l1s() const;

    std::vector<snapshot> m_marks;
    std::vector<std::string> m_mark_names;                     ///< every name a mark has held
    std::unordered_map<std::string, std::size_t> m_mark_index; ///< m_mark_names' indices
    /// For stats::collect_values() while stats::layout_version() is m_layout_version: the
    /// index in m_mark_names of each value.
    std::vector<std::size_t> m_layout;
    std::uint64_t m_layout_version = ~std::uint64_t{0};
    std::vector<double> m_mark_host_seconds; ///< host (steady) clock at each mark, seconds

    /// Sum of one SM statistic over every SM.
    double sum_over_sms(std::uint64_t (sm::sm::*stat)() const) const;
    /// The sum of `stat` over every SM's L1 TLB.
    double sum_over_tlbs(std::uint64_t (tlb::tlb::*stat)() const) const;
    /// sum_over_sms(stat) as a share of all SMs' active cycles.
    double share(std::uint64_t (sm::sm::*stat)() const) const;

    const vgpu_config m_cfg;
    stats::group m_stats;
    stats::formula m_instructions, m_mem_requests, m_lsu_budget_waits, m_line_limit_waits,
        m_tlb_hits, m_tlb_misses, m_page_faults, m_fault_services, m_fault_batches,
        m_fault_stall_cycles, m_kernel_time;
    std::vector<tlb::tlb*> m_tlbs; ///< every SM's L1 TLB (owned by the clusters' stages)
    stats::formula m_active, m_issue_share, m_memory_share, m_alu_share, m_barrier_share;

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
