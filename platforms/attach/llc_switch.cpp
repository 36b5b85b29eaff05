// The LLC switcher joined to a multi-module GPU: the switcher, every slice attached to it, its
// MMIO window, the kernel-boundary hook and each module NoC's route (private organisation).
// See models/llc/README.md ("LLC switcher").
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/llc/llc_route.h"
#include "models/llc/llc_switch_part.h"
#include "models/llc/llc_switcher.h"
#include "models/noc/link.h"
#include "models/sm/sm.h"
#include "platforms/attach/attachment.h"
#include "platforms/gpu_units.h"
#include "platforms/mmio_map.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The switcher.
struct llc_switch_parts {
    llc_switch_parts(const vgpu_config& cfg, const clock_params& clk, const noc::address_map& map,
                     const llc::path_costs& costs)
        : llc_switch("llc_switch", cfg.llc, clk, map, costs, cfg.platform.seed)
    {
    }
    /// The LLC organisation flags and switch engine (llc.mode).
    llc::llc_switcher llc_switch;
};

/// Builds the LLC switcher (`gpu.llc_switch`, MMIO window `llc_switch`), attaches every
/// module's slices to it, ends each kernel with its kernel_boundary(), and sets each module
/// NoC's route (llc::private_route), after the links are bound.
class llc_switch_attach : public block {
public:
    llc_switch_attach(const vgpu_config& cfg, const clock_params& clk) : m_cfg(cfg), m_clk(clk) {}
    /// The LLC switch part: each kernel's `llc:` organisation before its launch.
    void add_driver_part(host::driver& drv) override
    {
        drv.add_part<llc::llc_switch_part>(llc::llc_switch_facts{mmio_map::LLC_SWITCH_BASE});
    }
    attach_step step() const override { return attach_step::links_bound; }
    /// Active unless the LLCs stay shared (the baseline) with no remote ways.
    std::string active() const override
    {
        const auto& l = m_cfg.llc;
        if (l.mode == llc::llc_mode::shared && l.remote_ways == 0 && l.forced_switch_ns == 0)
            return {};
        return "llc_switch (" + std::string(name_of(l.mode)) +
               (l.remote_ways > 0 ? ", " + std::to_string(l.remote_ways) + " remote ways" : "") +
               (l.forced_switch_ns > 0 ? ", forced switches" : "") + ")";
    }
    void attach(gpu_view& gpu) override;

private:
    const vgpu_config& m_cfg;
    const clock_params m_clk;
    std::unique_ptr<llc_switch_parts> m_parts;
};

void llc_switch_attach::attach(gpu_view& gpu)
{
    const vgpu_config& cfg = m_cfg;
    const clock_params& clk = m_clk;
    const auto& p = cfg.platform;
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    // The LLC organisation: one switcher with each module's flags (each module switches alone).
    llc::path_costs costs;
    costs.llc = cfg.llc.hit_latency;
    costs.dram = static_cast<double>(cfg.dram.latency.ps + cfg.dram.tRCD.ps + cfg.dram.tCL.ps) /
                 static_cast<double>(clk.noc_ps);
    costs.link = static_cast<double>(cfg.noc.link_latency.ps) / static_cast<double>(clk.noc_ps);
    m_parts = std::make_unique<llc_switch_parts>(cfg, clk, map, costs);
    llc::llc_switcher& sw = m_parts->llc_switch;
    for (unsigned m = 0; m < p.modules; ++m)
        for (auto& l : gpu.modules[m]->llcs)
            l->attach(sw, m, map);
    gpu.mmio_bus.bind("llc_switch", sw.mmio, llc::switch_reg::WINDOW_BYTES);
    // The inter-module links (link_<a>_<b>, the platform's children) the monitor measures.
    if (const sc_core::sc_object* top = gpu.cp.get_parent_object())
        for (const sc_core::sc_object* o : top->get_child_objects())
            if (const auto* l = dynamic_cast<const noc::link*>(o))
                sw.add_link(*l);
    gpu.cp.on_kernel_end([&sw] { return sw.kernel_boundary(); });
    // A frame about to be reused (the host's L1_INVALIDATE after an eviction's shootdown): the
    // slices drop their copies of its lines homed elsewhere.
    gpu.cp.on_l1_invalidate(
        [&sw](std::uint64_t pa, std::uint64_t bytes) { sw.invalidate_range(pa, bytes); });
    for (unsigned m = 0; m < p.modules; ++m)
        gpu.modules[m]->noc->set_route(
            llc::private_route(map, m, *gpu.modules[m]->noc, sw, cfg.llc.remote_ways > 0));
    // An organisation that can switch within a kernel (adaptive, or forced switches) may send a
    // warp's store and its later access to a line different ways (the home slice, a private
    // copy): there the access waits for the store's completion (models/sm/README.md).
    if (cfg.llc.mode == llc::llc_mode::adaptive || cfg.llc.forced_switch_ns != 0)
        for (auto& mod : gpu.modules)
            for (auto& cl : mod->clusters)
                for (auto& s : cl->sms)
                    s->stores_wait_for_completion();
}
} // namespace

std::unique_ptr<block> llc_switch_block(const vgpu_config& cfg, const clock_params& clk)
{
    if (cfg.platform.modules <= 1)
        return nullptr;
    return std::make_unique<llc_switch_attach>(cfg, clk);
}

} // namespace vgpu::platforms::attach
