// The CDL block joined to the GPU platform. See models/cdl/README.md.
#include "platforms/attach/cdl.h"

#include "models/cdl/cbv_table.h"
#include "models/cdl/cdl_unit.h"
#include "platforms/gpu_units.h"
#include "tlm_bus/router.h"

namespace vgpu::platforms::attach {

namespace {
/// The CBV table.
struct cdl_parts : attachment {
    explicit cdl_parts(const vgpu_config& cfg) : cbvs("cbvs", cfg.cdl.cbv_slots) {}
    cdl::cbv_table cbvs; ///< CBV table read by every SM's CDL controller
};
} // namespace

std::unique_ptr<attachment> attach_cdl(gpu_view& gpu, const vgpu_config& cfg)
{
    auto parts = std::make_unique<cdl_parts>(cfg);
    gpu.mmio_bus.bind("cbvs", parts->cbvs.mmio, parts->cbvs.window_bytes());
    for (auto& mod : gpu.modules)
        for (auto& cl : mod->clusters)
            for (auto& s : cl->sms)
                s->attach_unit(cdl::cdl_unit::factory(parts->cbvs, cfg.cdl));
    return parts;
}

} // namespace vgpu::platforms::attach
