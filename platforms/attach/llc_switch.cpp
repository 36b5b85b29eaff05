// The LLC switcher joined to a multi-module GPU. See models/llc/README.md ("LLC switcher").
#include "platforms/attach/llc_switch.h"

#include "models/cp/cp.h"
#include "models/llc/llc_route.h"
#include "models/llc/llc_switcher.h"
#include "platforms/gpu_units.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The switcher.
struct llc_switch_parts : attachment {
    llc_switch_parts(const vgpu_config& cfg, const clock_params& clk, const noc::address_map& map,
                     const llc::path_costs& costs)
        : llc_switch("llc_switch", cfg.llc, clk, map, costs, cfg.platform.seed)
    {
    }
    /// The LLC organisation flags and switch engine (llc.mode).
    llc::llc_switcher llc_switch;
};
} // namespace

std::unique_ptr<attachment> attach_llc_switch(gpu_view& gpu, const vgpu_config& cfg,
                                              const clock_params& clk)
{
    const auto& p = cfg.platform;
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    // The LLC organisation: one switcher for every module's slices (they switch together).
    llc::path_costs costs;
    costs.llc = cfg.llc.hit_latency;
    costs.dram = static_cast<double>(cfg.dram.latency.ps + cfg.dram.tRCD.ps + cfg.dram.tCL.ps) /
                 static_cast<double>(clk.noc_ps);
    costs.link = static_cast<double>(cfg.noc.link_latency.ps) / static_cast<double>(clk.noc_ps);
    auto parts = std::make_unique<llc_switch_parts>(cfg, clk, map, costs);
    llc::llc_switcher& sw = parts->llc_switch;
    for (unsigned m = 0; m < p.modules; ++m)
        for (auto& l : gpu.modules[m]->llcs)
            l->attach(sw, m, map);
    gpu.mmio_bus.bind("llc_switch", sw.mmio, llc::switch_reg::WINDOW_BYTES);
    gpu.cp.on_kernel_end([&sw] { return sw.kernel_boundary(); });
    for (unsigned m = 0; m < p.modules; ++m)
        gpu.modules[m]->noc->set_route(
            llc::private_route(map, m, *gpu.modules[m]->noc, sw, cfg.llc.remote_ways > 0));
    return parts;
}

} // namespace vgpu::platforms::attach
