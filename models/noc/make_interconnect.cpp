// The topology factory: the one place that knows every interconnect class (noc.topology).
// See models/noc/README.md.
#include "models/noc/crossbar.h"
#include "models/noc/interconnect.h"
#include "models/noc/mesh.h"

namespace vgpu::noc {

std::unique_ptr<interconnect> make_interconnect(const sc_core::sc_module_name& name,
                                                const noc_config& cfg, const clock_params& clocks,
                                                const path_params& path)
{
    // The path's topology, not cfg.topology: only the module NoC becomes a mesh.
    switch (path.topology) {
    case topology_kind::mesh:
        return std::make_unique<mesh>(name, cfg, clocks, path);
    case topology_kind::crossbar:
        break;
    }
    return std::make_unique<crossbar>(name, cfg, clocks, path);
}

} // namespace vgpu::noc
