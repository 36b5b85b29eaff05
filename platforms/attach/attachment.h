// What a block's attach function reaches of the GPU under construction, and what it leaves
// there (platforms/attach/<block>.h). See docs/architecture.md ("Adding a block").
#pragma once

#include <memory>
#include <vector>

namespace vgpu::cp {
class cp;
}
namespace vgpu::host {
class driver;
}
namespace vgpu::stats {
class group;
}
namespace vgpu::tlm_bus {
class router;
}
namespace vgpu::platforms {
class module_unit;
}

namespace vgpu::platforms::attach {

/// The parts of the GPU an attach function may join its block to (the platform owns them for
/// the whole run; the structure below the platform is platforms/gpu_units.h).
struct gpu_view {
    std::vector<std::unique_ptr<module_unit>>& modules; ///< m0, m1, ...
    tlm_bus::router& mmio_bus; ///< register windows, bound by name (platforms/mmio_map.h)
    cp::cp& cp;                ///< the command processor
    host::driver& host;        ///< the host driver
    stats::group& figures;     ///< the platform's group (stats `gpu.*`): GPU-wide figures
};

/// The modules, signals and figures one block's attach function made, owned by the platform
/// for the whole run; each block's own parts derive from it in the block's attach file.
class attachment {
public:
    virtual ~attachment() = default;
};

} // namespace vgpu::platforms::attach
