// The TLB block joined to the GPU platform. See models/tlb/README.md.
#include "platforms/attach/tlb.h"

#include "models/common/stats.h"
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/tlb/cluster_tlb.h"
#include "models/tlb/fault_unit.h"
#include "models/tlb/tlb.h"
#include "platforms/gpu_units.h"
#include "tlm_bus/router.h"

#include <vector>

namespace vgpu::platforms::attach {

namespace {
/// The fault unit, its interrupt line, the L1 TLBs and the TLB figures.
struct tlb_parts : attachment {
    tlb_parts(gpu_view& gpu, const vgpu_config& cfg)
        : faults("faults", cfg.tlb.fault_buffer, cfg.memory.page_bytes.bytes,
                 cfg.host.fault_timeout.ps),
          fault_irq("fault_irq"),
          tlb_hits(gpu.figures, "tlb_hits", "count",
                   "L1 TLB lookups that found their page, all SMs (data and instruction fetch; "
                   "0 with tlb.model ideal)",
                   [this] { return sum_over_tlbs(&tlb::tlb::hits); }),
          tlb_misses(gpu.figures, "tlb_misses", "count",
                     "L1 TLB lookups that did not, all SMs (per level: <sm>_tlb.misses, "
                     "<cluster>.tlb.l2.misses)",
                     [this] { return sum_over_tlbs(&tlb::tlb::misses); }),
          page_faults(gpu.figures, "page_faults", "count",
                      "fault records the GPU wrote (one per faulting page, however many accesses "
                      "faulted on it; gpu.faults.faults counts the accesses)",
                      [this] { return static_cast<double>(faults.records()); }),
          fault_services(gpu.figures, "fault_services", "count",
                         "pages the host serviced (mapped after a fault)",
                         [&host = gpu.host] { return static_cast<double>(host.fault_services()); }),
          fault_batches(gpu.figures, "fault_batches", "count",
                        "service rounds of the host's shadow thread (each up to host.fault_batch "
                        "records)",
                        [&host = gpu.host] { return static_cast<double>(host.fault_batches()); }),
          fault_stall_cycles(
              gpu.figures, "fault_stall_cycles", "cycles",
              "cycles LD/ST instructions waited on page faults, all SMs (per SM: "
              "<sm>.fault_stall_cycles)",
              [&mods = gpu.modules] { return sum_over_sms(mods, &sm::sm::fault_stall_cycles); })
    {
    }
    /// The sum of `stat` over every SM's L1 TLB.
    double sum_over_tlbs(std::uint64_t (tlb::tlb::*stat)() const) const
    {
        double total = 0;
        for (const tlb::tlb* t : tlbs)
            total += static_cast<double>((t->*stat)());
        return total;
    }

    tlb::fault_unit faults;             ///< page faults of every TLB -> the host's shadow thread
    sc_core::sc_signal<bool> fault_irq; ///< fault unit -> host interrupt line
    std::vector<tlb::tlb*> tlbs;        ///< every SM's L1 TLB (owned by the clusters' stages)
    stats::formula tlb_hits, tlb_misses, page_faults, fault_services, fault_batches,
        fault_stall_cycles;
};
} // namespace

std::unique_ptr<tlm_bus::path_stage> tlb_stage(const std::string& sm_name, const vgpu_config& cfg,
                                               const clock_params& clk, tlb::cluster_tlb& cluster)
{
    return std::make_unique<tlb::tlb>((sm_name + "_tlb").c_str(), cfg.tlb, clk,
                                      cfg.memory.page_bytes.bytes, cluster);
}

std::unique_ptr<attachment> attach_tlb(gpu_view& gpu, const vgpu_config& cfg)
{
    auto parts = std::make_unique<tlb_parts>(gpu, cfg);
    gpu.mmio_bus.bind("faults", parts->faults.mmio, tlb::fault_reg::WINDOW_BYTES);
    parts->faults.irq(parts->fault_irq);
    gpu.host.fault_irq(parts->fault_irq);
    // TLB shootdown (the CP's TLB_INVALIDATE register): every SM's L1 TLB and every cluster's.
    // The ideal model's translations are one set for the GPU (one page table per run).
    const auto ideal = std::make_shared<tlb::ideal_translations>();
    for (auto& mod : gpu.modules)
        for (auto& cl : mod->clusters)
            for (auto& per_sm : cl->stages)
                for (auto& st : per_sm)
                    if (auto* t = dynamic_cast<tlb::tlb*>(st.get())) {
                        parts->tlbs.push_back(t);
                        t->set_fault_unit(&parts->faults);
                        t->share_ideal(ideal);
                    }
    gpu.cp.tlb_invalidate = [&mods = gpu.modules, p = parts.get()](std::uint64_t va,
                                                                   std::uint64_t bytes) {
        for (auto& mod : mods)
            for (auto& cl : mod->clusters)
                cl->tlb.invalidate(va, bytes);
        for (tlb::tlb* t : p->tlbs)
            t->invalidate(va, bytes);
    };
    return parts;
}

} // namespace vgpu::platforms::attach
