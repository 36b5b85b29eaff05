// fp64 and 64-bit integer instructions on register pairs: modifiers, operand widths and the
// per-lane semantics (docs/isa.md, "fp64 and 64-bit integers"). Pure C++.
#pragma once

#include "models/sm/core/isa.h"

#include <cstdint>
#include <optional>
#include <string>

namespace vgpu::sm {

namespace mods {
/// DADD, DMUL, DFMA: the rounding (mods::rounding, RN written as no suffix).
/// DFN function (bits 2:0) and rounding (bits 4:3; DIV, SQRT, RCP only).
enum class dfn : std::uint8_t { MIN, MAX, DIV, SQRT, RCP, ABS, NEG };
constexpr unsigned num_dfn = 7;
/// DCVT kind (bits 2:0), rounding (bits 4:3), signed integer (bit 5), 64-bit integer (bit 6).
/// F2D f32 -> f64 (exact), D2F f64 -> f32, I2D integer -> f64, D2I f64 -> integer (saturating,
/// NaN -> 0), DRND f64 -> integral f64, I2F 64-bit integer -> f32, F2I f32 -> 64-bit integer.
enum class dcvt : std::uint8_t { F2D, D2F, I2D, D2I, DRND, I2F, F2I };
constexpr unsigned num_dcvt = 7;
constexpr unsigned dcvt_signed = 32;
constexpr unsigned dcvt_64 = 64;
/// I64 function (bits 4:0).
// clang-format off
enum class i64 : std::uint8_t {
    ADD, SUB, MUL, MULHI_U, MULHI_S, AND, OR, XOR, NOT, SHL, SHR, SAR, MIN, MAX, UMIN, UMAX,
    DIV_S, DIV_U, REM_S, REM_U, POPC, CLZ, BREV, PACK, WIDE_U, WIDE_S, SEXT, MOV
};
// clang-format on
constexpr unsigned num_i64 = 28;
/// I64SETP: the comparison (cmp_op, bits 2:0) and unsigned (bit 3).
constexpr unsigned lsetp_unsigned = 8;
inline unsigned dfn_mod(dfn f, rounding r = rounding::RN)
{
    return static_cast<unsigned>(f) | static_cast<unsigned>(r) << 3;
}
inline unsigned dcvt_mod(dcvt k, rounding r = rounding::RN, unsigned flags = 0)
{
    return static_cast<unsigned>(k) | static_cast<unsigned>(r) << 3 | flags;
}
} // namespace mods

/// True when source operands of op (with mod) are floating-point (an immediate is an fp32
/// value widened to f64) rather than integers (an immediate is sign-extended).
bool wide_float_sources(opcode op, unsigned mod);

namespace lane_ops {
/// The 64-bit value of a pair source given as a 32-bit immediate (see wide_float_sources).
std::uint64_t wide_imm(std::uint32_t bits, bool fp);
/// Per-lane results; a, b, c are the sources' 64-bit values (a 32-bit source zero-extended).
std::uint64_t dadd(std::uint64_t a, std::uint64_t b, unsigned mod);
std::uint64_t dmul(std::uint64_t a, std::uint64_t b, unsigned mod);
std::uint64_t dfma(std::uint64_t a, std::uint64_t b, std::uint64_t c, unsigned mod);
std::uint64_t dfn(std::uint64_t a, std::uint64_t b, unsigned mod);
bool dsetp(std::uint64_t a, std::uint64_t b, unsigned mod);
std::uint64_t dcvt(std::uint64_t a, unsigned mod);
std::uint64_t i64(std::uint64_t a, std::uint64_t b, unsigned mod);
bool i64setp(std::uint64_t a, std::uint64_t b, unsigned mod);
} // namespace lane_ops

} // namespace vgpu::sm
