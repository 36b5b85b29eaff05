// Per-lane results of the division, SFU, conversion, float-compare, multiply-high, bit and
// byte-permute instructions (docs/isa.md): `mod` is the instruction's modifier. Pure C++.
#pragma once

#include "models/sm/core/isa.h"

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

} // namespace vgpu::sm::lane_ops
