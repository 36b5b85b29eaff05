// The shader-trace block joined to the GPU platform. See models/shader_trace/README.md.
#include "platforms/attach/shader_trace.h"

#include "models/cp/cp.h"
#include "models/shader_trace/shader_trace.h"
#include "platforms/gpu_units.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The trace unit and its interrupt line.
struct trace_parts : attachment {
    trace_parts(const vgpu_config& cfg, const clock_params& clk, unsigned sms)
        : trace_irq("trace_irq"), unit("trace_unit", cfg.shader_trace, clk, sms)
    {
    }
    sc_core::sc_signal<bool> trace_irq; ///< trace unit -> host (watermark)
    shader_trace::trace_unit unit;      ///< the shader-trace unit
};
} // namespace

std::unique_ptr<attachment> attach_shader_trace(gpu_view& gpu, const vgpu_config& cfg,
                                                const clock_params& clk)
{
    const auto& p = cfg.platform;
    auto parts = std::make_unique<trace_parts>(
        cfg, clk, p.modules * p.clusters_per_module * p.sms_per_cluster);
    gpu.cp.trace_events(parts->unit.events);
    for (auto& mod : gpu.modules)
        for (auto& cl : mod->clusters)
            for (auto& s : cl->sms)
                s->trace_events(parts->unit.events);
    gpu.modules[0]->noc->bind_input("trace_unit", parts->unit.mem);
    gpu.mmio_bus.bind("trace_unit", parts->unit.mmio, shader_trace::trace_reg::WINDOW_BYTES);
    parts->unit.irq(parts->trace_irq);
    return parts;
}

} // namespace vgpu::platforms::attach
