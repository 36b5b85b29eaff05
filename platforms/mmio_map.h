// generated from platforms/mmio_map.yaml by scripts/gen-regs; do not edit
// The GPU's register windows on the MMIO bus. See docs/registers.md ("MMIO map").
#pragma once

#include "tlm_bus/router.h"

#include <cstdint>
#include <vector>

namespace vgpu::platforms {

/// Base addresses of the register windows (docs/registers.md, "MMIO map").
namespace mmio_map {
/// command processor (models/cp/cp_regs.yaml)
inline constexpr std::uint64_t CP_BASE = 0x40000000;
/// fault unit (page faults of every TLB) (models/tlb/fault_regs.yaml)
inline constexpr std::uint64_t FAULT_BASE = 0x40010000;
/// CBV table read by every SM's CDL controller (models/cdl/cbv_regs.yaml)
inline constexpr std::uint64_t CBV_BASE = 0x40020000;
/// shader-trace unit (with `shader_trace.enable`) (models/shader_trace/trace_regs.yaml)
inline constexpr std::uint64_t TRACE_BASE = 0x40030000;
/// LLC switcher (GPUs of more than one module) (models/llc/switch_regs.yaml)
inline constexpr std::uint64_t LLC_SWITCH_BASE = 0x40040000;
} // namespace mmio_map

/// Every window by the name its block binds it with (tlm_bus::router::bind).
inline const std::vector<tlm_bus::window_base>& mmio_windows()
{
    static const std::vector<tlm_bus::window_base> windows = {
        {"cp", mmio_map::CP_BASE},
        {"faults", mmio_map::FAULT_BASE},
        {"cbvs", mmio_map::CBV_BASE},
        {"trace_unit", mmio_map::TRACE_BASE},
        {"llc_switch", mmio_map::LLC_SWITCH_BASE},
    };
    return windows;
}

} // namespace vgpu::platforms
