// generated from models/llc/switch_regs.yaml by scripts/gen-regs; do not edit
// Register map of the LLC switcher (the driver's and firmware's view). See docs/registers.md ("LLC
// switcher") and models/llc/llc_switcher.h.
#pragma once

#include <cstdint>

namespace vgpu::llc {

/// Register offsets in the window (docs/registers.md, "LLC switcher").
namespace switch_reg {
/// RW target organisation of every module: 0 shared, 1 private
inline constexpr std::uint64_t ARCH = 0x00;
/// RW write 1: switch every module to ARCH; reads 1 while any is pending
inline constexpr std::uint64_t CHANGE = 0x04;
/// RO organisation in effect: 0 every module shared, 1 every module private, 2 mixed
inline constexpr std::uint64_t CUR = 0x08;
/// RO llc.mode: 0 shared, 1 private, 2 adaptive
inline constexpr std::uint64_t MODE = 0x0c;
/// RO module switches completed
inline constexpr std::uint64_t SWITCHES = 0x10;
/// RO NoC cycles spent switching
inline constexpr std::uint64_t SWITCH_CYCLES = 0x14;
/// RO modules (each with its flags)
inline constexpr std::uint64_t MODULES = 0x18;
/// RW MOD_ARCH0..MOD_ARCH15 at MOD_ARCH0 + 4 * i: module i's LLC-architecture flag: 0 shared, 1
/// private
inline constexpr std::uint64_t MOD_ARCH0 = 0x40;
/// RW MOD_CHANGE0..MOD_CHANGE15 at MOD_CHANGE0 + 4 * i: write 1: switch module i to MOD_ARCH i;
/// reads 1 while pending
inline constexpr std::uint64_t MOD_CHANGE0 = 0x80;
/// RO MOD_CUR0..MOD_CUR15 at MOD_CUR0 + 4 * i: module i's organisation in effect
inline constexpr std::uint64_t MOD_CUR0 = 0xc0;

/// Size to map.
inline constexpr std::uint64_t WINDOW_BYTES = 0x100;
} // namespace switch_reg

} // namespace vgpu::llc
