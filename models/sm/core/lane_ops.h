// Per-lane results of the division, SFU, conversion, float-compare, multiply-high, bit and
// byte-permute instructions (docs/isa.md): `mod` is the instruction's modifier. Pure C++.
#pragma once

#include "models/sm/core/isa.h"

#include <cmath>
#include <cstdint>

namespace vgpu::sm::lane_ops {

std::uint32_t fdiv(std::uint32_t a, std::uint32_t b, unsigned mod);                   ///< FDIV
std::uint32_t idiv(std::uint32_t a, std::uint32_t b, unsigned mod);                   ///< IDIV
std::uint32_t mufu(std::uint32_t a, unsigned mod);                                    ///< MUFU
std::uint32_t cvt(std::uint32_t a, unsigned mod);                                     ///< CVT
bool fsetpx(std::uint32_t a, std::uint32_t b, unsigned mod);                          ///< FSETPX
std::uint32_t imadx(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod); ///< IMADX
std::uint32_t bits_op(std::uint32_t a, unsigned mod);                                 ///< BITS
std::uint32_t bfx(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod);   ///< BFX
std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod);  ///< PRMT

/// Whether comparison mod (mods::fcmp, bits 4:0) holds for x and y (FSETPX, DSETP).
template <typename T> bool fcmp_holds(T x, T y, unsigned mod)
{
    const bool nan = std::isnan(x) || std::isnan(y);
    switch (static_cast<mods::fcmp>(mod & 31)) {
    case mods::fcmp::EQ:
        return x == y;
    case mods::fcmp::NE:
        return !nan && x != y;
    case mods::fcmp::LT:
        return x < y;
    case mods::fcmp::LE:
        return x <= y;
    case mods::fcmp::GT:
        return x > y;
    case mods::fcmp::GE:
        return x >= y;
    case mods::fcmp::EQU:
        return nan || x == y;
    case mods::fcmp::NEU:
        return x != y;
    case mods::fcmp::LTU:
        return nan || x < y;
    case mods::fcmp::LEU:
        return nan || x <= y;
    case mods::fcmp::GTU:
        return nan || x > y;
    case mods::fcmp::GEU:
        return nan || x >= y;
    case mods::fcmp::NUM:
        return !nan;
    case mods::fcmp::NAN_:
        return nan;
    case mods::fcmp::FINITE:
        return std::isfinite(x);
    case mods::fcmp::INFINITE:
        return std::isinf(x);
    case mods::fcmp::NUMBER:
        return !std::isnan(x);
    case mods::fcmp::NOTANUMBER:
        return std::isnan(x);
    case mods::fcmp::NORMAL:
        return std::isnormal(x);
    case mods::fcmp::SUBNORMAL:
        return std::fpclassify(x) == FP_SUBNORMAL;
    }
    return false;
}

} // namespace vgpu::sm::lane_ops
