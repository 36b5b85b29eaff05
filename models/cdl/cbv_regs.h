// generated from models/cdl/cbv_regs.yaml by scripts/gen-regs; do not edit
// Register map of the CBV table (the driver's and firmware's view). See docs/registers.md ("CBV
// table") and models/cdl/cbv_table.h.
#pragma once

#include <cstdint>

namespace vgpu::cdl {

/// Register offsets in the window (docs/registers.md, "CBV table").
namespace cbv_reg {
// Per-slot block (offset `i * 0x10 +`)
/// Bytes between the blocks of two slots.
inline constexpr std::uint64_t SLOT_STRIDE = 0x10;
/// RW CBV base (virtual), bits 0..31
inline constexpr std::uint64_t BASE_LO = 0x00;
/// RW bits 32..63
inline constexpr std::uint64_t BASE_HI = 0x04;
/// RW size in bytes (0: not programmed)
inline constexpr std::uint64_t SIZE = 0x08;
/// Offset of register `off` of slot `i`.
constexpr std::uint64_t slot(unsigned i, std::uint64_t off)
{
    return i * SLOT_STRIDE + off;
}
} // namespace cbv_reg

} // namespace vgpu::cdl
