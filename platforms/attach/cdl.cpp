// The CDL block joined to the GPU platform: the CBV table, its MMIO window, and every SM's CDL
// controller reading it. See models/cdl/README.md.
#include "models/cdl/cbv_part.h"
#include "models/cdl/cbv_table.h"
#include "models/cdl/cdl_unit.h"
#include "models/host/driver.h"
#include "platforms/attach/attachment.h"
#include "platforms/gpu_units.h"
#include "platforms/mmio_map.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The CBV table.
struct cdl_parts {
    explicit cdl_parts(const vgpu_config& cfg) : cbvs("cbvs", cfg.cdl.cbv_slots) {}
    cdl::cbv_table cbvs; ///< CBV table read by every SM's CDL controller
};

/// Builds the CBV table (`gpu.cbvs`, MMIO window `cbvs`) and hands it to every SM's CDL
/// controller, after the modules are built.
class cdl_attach : public block {
public:
    explicit cdl_attach(const vgpu_config& cfg) : m_cfg(cfg) {}
    /// The CBV part: each kernel's `cbvs:` bindings into the table before its launch.
    void add_driver_part(host::driver& drv) override
    {
        drv.add_part<cdl::cbv_part>(cdl::cbv_facts{mmio_map::CBV_BASE, m_cfg.cdl.cbv_slots});
    }
    /// Always built: its CBV table serves every CDL instruction.
    std::string active() const override { return "cdl"; }
    void attach(gpu_view& gpu) override
    {
        m_parts = std::make_unique<cdl_parts>(m_cfg);
        gpu.mmio_bus.bind("cbvs", m_parts->cbvs.mmio, m_parts->cbvs.window_bytes());
        for (auto& mod : gpu.modules)
            for (auto& cl : mod->clusters)
                for (auto& s : cl->sms)
                    s->attach_unit(cdl::cdl_unit::factory(m_parts->cbvs, m_cfg.cdl));
    }

private:
    const vgpu_config& m_cfg;
    std::unique_ptr<cdl_parts> m_parts;
};
} // namespace

std::unique_ptr<block> cdl_block(const vgpu_config& cfg, const clock_params& clk)
{
    (void)clk;
    return std::make_unique<cdl_attach>(cfg);
}

} // namespace vgpu::platforms::attach
