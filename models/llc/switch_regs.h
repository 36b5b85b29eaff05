// generated from models/llc/switch_regs.yaml by scripts/gen-regs; do not edit
// Register map of the LLC switcher (the driver's and firmware's view). See docs/registers.md ("LLC
// switcher") and models/llc/llc_switcher.h.
#pragma once

#include <cstdint>

namespace vgpu::llc {

/// Register offsets in the window (docs/registers.md, "LLC switcher").
namespace switch_reg {
/// RW target organisation: 0 shared, 1 private
inline constexpr std::uint64_t ARCH = 0x00;
/// RW write 1: switch to ARCH; reads 1 while pending
inline constexpr std::uint64_t CHANGE = 0x04;
/// RO organisation in effect
inline constexpr std::uint64_t CUR = 0x08;
/// RO llc.mode: 0 shared, 1 private, 2 adaptive
inline constexpr std::uint64_t MODE = 0x0c;
/// RO switches completed
inline constexpr std::uint64_t SWITCHES = 0x10;
/// RO NoC cycles spent switching
inline constexpr std::uint64_t SWITCH_CYCLES = 0x14;

/// Size to map.
inline constexpr std::uint64_t WINDOW_BYTES = 0x100;
} // namespace switch_reg

} // namespace vgpu::llc
