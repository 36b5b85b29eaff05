// The GPU's MMIO address map: every register window's name and base, the one table the MMIO
// router binds register banks by. See docs/registers.md (platforms/firmware/gpu.h reads the
// bases from the launch table the driver fills from here).
#pragma once

#include "tlm_bus/router.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace vgpu::platforms {

/// Register windows on the MMIO bus, by the name their block binds them with.
inline const std::vector<tlm_bus::window_base>& mmio_map()
{
    static const std::vector<tlm_bus::window_base> map = {
        {"cp", 0x40000000},         ///< command processor
        {"faults", 0x40010000},     ///< fault unit
        {"cbvs", 0x40020000},       ///< CBV table
        {"trace_unit", 0x40030000}, ///< shader-trace unit
        {"llc_switch", 0x40040000}, ///< LLC switcher (multi-module GPUs)
    };
    return map;
}

/// The base of window `name` in mmio_map(); throws std::invalid_argument when it has none.
inline std::uint64_t mmio_base(const std::string& name)
{
    for (const auto& w : mmio_map())
        if (w.name == name)
            return w.base;
    throw std::invalid_argument("no window '" + name + "' in the MMIO map");
}

} // namespace vgpu::platforms
