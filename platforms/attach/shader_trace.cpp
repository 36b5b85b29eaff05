// The shader-trace block joined to the GPU platform: the trace unit, fed by the CP and every
// SM, its memory writes on module 0's NoC, its MMIO window and interrupt line. See
// models/shader_trace/README.md.
#include "models/shader_trace/shader_trace.h"
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/shader_trace/trace_part.h"
#include "platforms/attach/attachment.h"
#include "platforms/gpu_units.h"
#include "platforms/mmio_map.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The trace unit and its interrupt line.
struct trace_parts {
    trace_parts(const vgpu_config& cfg, const clock_params& clk, unsigned sms)
        : trace_irq("trace_irq"), unit("trace_unit", cfg.shader_trace, clk, sms)
    {
    }
    sc_core::sc_signal<bool> trace_irq; ///< trace unit -> host (watermark)
    shader_trace::trace_unit unit;      ///< the shader-trace unit
};

/// Builds the shader-trace unit (`gpu.trace_unit`, MMIO window `trace_unit`, NoC input
/// `trace_unit` of module 0, trace_irq) and joins the CP's and every SM's trace events to it,
/// after the host's NoC input.
class shader_trace_attach : public block {
public:
    shader_trace_attach(const vgpu_config& cfg, const clock_params& clk) : m_cfg(cfg), m_clk(clk) {}
    /// The trace part: the region, the unit's set-up, OUTDIR/shader_trace.bin.
    void add_driver_part(host::driver& drv) override
    {
        const auto& t = m_cfg.shader_trace;
        drv.add_part<shader_trace::trace_part>(
            shader_trace::trace_facts{mmio_map::TRACE_BASE, t.region_bytes.bytes,
                                      t.mode == shader_trace::region_mode::wrap, t.watermark});
    }
    attach_step step() const override { return attach_step::host_bound; }
    /// Built only when enabled.
    std::string active() const override
    {
        return "shader_trace (" + std::string(name_of(m_cfg.shader_trace.full)) + ")";
    }
    void attach(gpu_view& gpu) override
    {
        const auto& p = m_cfg.platform;
        m_parts = std::make_unique<trace_parts>(
            m_cfg, m_clk, p.modules * p.clusters_per_module * p.sms_per_cluster);
        trace_parts* parts = m_parts.get();
        gpu.cp.events(parts->unit.events);
        for (auto& mod : gpu.modules)
            for (auto& cl : mod->clusters)
                for (auto& s : cl->sms)
                    s->events(parts->unit.events);
        gpu.modules[0]->noc->bind_input("trace_unit", parts->unit.mem);
        gpu.mmio_bus.bind("trace_unit", parts->unit.mmio, shader_trace::trace_reg::WINDOW_BYTES);
        parts->unit.irq(parts->trace_irq);
    }

private:
    const vgpu_config& m_cfg;
    const clock_params m_clk;
    std::unique_ptr<trace_parts> m_parts;
};
} // namespace

std::unique_ptr<block> shader_trace_block(const vgpu_config& cfg, const clock_params& clk)
{
    if (!cfg.shader_trace.enable)
        return nullptr;
    return std::make_unique<shader_trace_attach>(cfg, clk);
}

} // namespace vgpu::platforms::attach
