// The TLB block joined to the GPU platform: the fault unit and its window and interrupt, every
// SM's L1 TLB (a stage of its memory path) and every cluster's TLB tied to it and to the CP's
// shootdown, and the GPU's TLB and page-fault figures. See models/tlb/README.md.
#include "models/tlb/tlb.h"
#include "models/common/stats.h"
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/host/fault_part.h"
#include "models/l1/l1.h"
#include "models/tlb/cluster_tlb.h"
#include "models/tlb/fault_unit.h"
#include "platforms/attach/attachment.h"
#include "platforms/gpu_units.h"
#include "platforms/mmio_map.h"
#include "tlm_bus/router.h"

#include <vector>

namespace vgpu::platforms::attach {

namespace {
/// The fault unit, its interrupt line and the TLB figures.
struct tlb_parts {
    tlb_parts(gpu_view& gpu, const vgpu_config& cfg, const std::vector<tlb::tlb*>& tlbs)
        : faults("faults", cfg.tlb.fault_buffer, cfg.memory.page_bytes.bytes,
                 cfg.host.fault_timeout.ps),
          fault_irq("fault_irq"), tlbs(tlbs),
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
    const std::vector<tlb::tlb*>& tlbs; ///< every SM's L1 TLB (owned by the clusters' stages)
    stats::formula tlb_hits, tlb_misses, page_faults, fault_services, fault_batches,
        fault_stall_cycles;
};

/// One cluster's TLB, which its SMs' L1 TLBs miss to, each a stage of its SM's memory path.
class cluster_tlbs : public cluster_part {
public:
    cluster_tlbs(const std::string& cluster, const vgpu_config& cfg, const clock_params& clk,
                 std::vector<tlb::tlb*>& tlbs)
        : tlb(cluster + ".tlb", cfg.tlb, clk, cfg.memory.page_bytes.bytes), m_cfg(cfg), m_clk(clk),
          m_tlbs(tlbs)
    {
    }
    /// SM `sm_name`'s L1 TLB (`<sm>_tlb`), missing to the cluster's TLB.
    std::unique_ptr<tlm_bus::path_stage> path_stage(unsigned i, const std::string& sm_name) override
    {
        (void)i;
        auto t = std::make_unique<tlb::tlb>((sm_name + "_tlb").c_str(), m_cfg.tlb, m_clk,
                                            m_cfg.memory.page_bytes.bytes, tlb);
        m_tlbs.push_back(t.get());
        return t;
    }
    /// The cluster's shared L2 TLB, page-walk cache and walkers (stats `<cluster>.tlb.*`).
    tlb::cluster_tlb tlb;

private:
    const vgpu_config& m_cfg;
    const clock_params m_clk;
    std::vector<tlb::tlb*>& m_tlbs;
};

/// The TLB block: a part of every cluster; after the modules are built, the fault unit
/// (`gpu.faults`, MMIO window `faults`, fault_irq to the host), given with one set of ideal
/// translations to every SM's L1 TLB, the CP's TLB_INVALIDATE wired to every TLB (and its
/// L1_INVALIDATE to every L1), and the
/// figures tlb_hits, tlb_misses, page_faults, fault_services, fault_batches and
/// fault_stall_cycles.
class tlb_attach : public block {
public:
    tlb_attach(const vgpu_config& cfg, const clock_params& clk) : m_cfg(cfg), m_clk(clk) {}
    std::unique_ptr<cluster_part> begin_cluster(const std::string& cluster,
                                                const std::vector<std::unique_ptr<sm::sm>>& sms,
                                                unsigned first_id) override
    {
        (void)sms;
        (void)first_id;
        auto part = std::make_unique<cluster_tlbs>(cluster, m_cfg, m_clk, m_tlbs);
        m_clusters.push_back(&part->tlb);
        return part;
    }
    /// The fault part: its statistics on every host; the shadow thread on the native host (the
    /// firmware services faults itself).
    void add_driver_part(host::driver& drv) override
    {
        drv.add_part<host::fault_part>(host::fault_facts{mmio_map::FAULT_BASE}, drv.fault_irq,
                                       m_cfg.host.kind != host::host_kind::riscv);
    }
    void attach(gpu_view& gpu) override;
    /// Timed TLBs (seed 004) and their index; under ideal translations, only the page faults.
    std::string active() const override
    {
        const auto& t = m_cfg.tlb;
        if (t.model == tlb::model_kind::ideal)
            return "tlb (ideal: page faults only)";
        return "tlb (timed, " + std::string(name_of(t.index)) + " index, " +
               (t.l2.sets == 0
                    ? std::string("no L2 TLB")
                    : "L2 TLB " + std::to_string(t.l2.sets) + "x" + std::to_string(t.l2.ways)) +
               ", " + std::to_string(t.walkers) + " walkers)";
    }

private:
    const vgpu_config& m_cfg;
    const clock_params m_clk;
    std::vector<tlb::tlb*> m_tlbs;             ///< every SM's L1 TLB, in SM id order
    std::vector<tlb::cluster_tlb*> m_clusters; ///< every cluster's TLB, module by module
    std::unique_ptr<tlb_parts> m_parts;
};

void tlb_attach::attach(gpu_view& gpu)
{
    m_parts = std::make_unique<tlb_parts>(gpu, m_cfg, m_tlbs);
    tlb_parts* parts = m_parts.get();
    gpu.mmio_bus.bind("faults", parts->faults.mmio, tlb::fault_reg::WINDOW_BYTES);
    parts->faults.irq(parts->fault_irq);
    gpu.host.fault_irq(parts->fault_irq);
    // TLB shootdown (the CP's TLB_INVALIDATE register): every SM's L1 TLB and every cluster's.
    // The ideal model's translations are one set for the GPU (one page table per run).
    const auto ideal = std::make_shared<tlb::ideal_translations>();
    // First-touch placement by the native driver (the firmware host places in its fault
    // handler): models/page_alloc/README.md.
    host::driver& host = gpu.host;
    const bool native = m_cfg.host.kind != host::host_kind::riscv;
    for (tlb::tlb* t : m_tlbs) {
        t->set_fault_unit(&parts->faults);
        t->share_ideal(ideal);
        if (native)
            t->set_first_touch([&host](std::uint64_t va, int sm, std::uint64_t at_ps,
                                       bool can_wait) {
                const host::driver::touch_answer a = host.place_at_touch(va, sm, at_ps, can_wait);
                return tlb::tlb::touch_answer{a.pte, a.wait};
            });
    }
    // Fast mode: each cluster's walk thread runs at one simulated time before the SMs (an early
    // member; keys after the SMs', in cluster order), whatever SystemC's process order.
    if (gpu.sm_order && m_cfg.tlb.model == tlb::model_kind::timed)
        for (std::size_t i = 0; i < m_clusters.size(); ++i)
            m_clusters[i]->join_gate(*gpu.sm_order, static_cast<unsigned>(m_tlbs.size() + i));
    gpu.cp.tlb_invalidate = [this](std::uint64_t va, std::uint64_t bytes) {
        for (tlb::cluster_tlb* c : m_clusters)
            c->invalidate(va, bytes);
        for (tlb::tlb* t : m_tlbs)
            t->invalidate(va, bytes);
    };
    // L1 invalidation by range (the CP's L1_INVALIDATE, written by the host after an
    // eviction's shootdown): every SM's L1.
    std::vector<l1::l1*> l1s;
    for (const auto& m : gpu.modules)
        for (const auto& c : m->clusters)
            for (const auto& l : c->l1s)
                l1s.push_back(l.get());
    gpu.cp.on_l1_invalidate([l1s](std::uint64_t pa, std::uint64_t bytes) {
        for (l1::l1* l : l1s)
            l->invalidate_range(pa, bytes);
    });
}
} // namespace

std::unique_ptr<block> tlb_block(const vgpu_config& cfg, const clock_params& clk)
{
    return std::make_unique<tlb_attach>(cfg, clk);
}

} // namespace vgpu::platforms::attach
