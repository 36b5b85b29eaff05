// Per-lane results of the division, SFU, conversion, float-compare, multiply-high, bit and
// byte-permute instructions (docs/isa.md), used by warp.cpp.
#include "models/sm/core/lane_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace vgpu::sm::lane_ops {

namespace {

constexpr std::uint32_t sign_bit = 0x80000000u;
constexpr std::uint32_t canonical_nan = 0x7fffffffu;

float f32(std::uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

std::uint32_t u32(float f)
{
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

std::int32_t s32(std::uint32_t v)
{
    std::int32_t s;
    std::memcpy(&s, &v, sizeof s);
    return s;
}

// --- Division, SFU functions, conversions and float compares (docs/isa.md) ----------------

bool is_subnormal(std::uint32_t bits)
{
    return (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0;
}

/// .ftz: a subnormal becomes a zero of the same sign.

std::uint32_t flush(std::uint32_t bits)
{
    return is_subnormal(bits) ? bits & sign_bit : bits;
}

/// A result: NaNs become the canonical NaN, subnormals are flushed with ftz.

std::uint32_t fp_result(float f, bool ftz)
{
    if (std::isnan(f))
        return canonical_nan;
    const std::uint32_t r = u32(f);
    return ftz ? flush(r) : r;
}

double round_integral(double x, mods::rounding m)
{
    switch (m) {
    case mods::rounding::RN:
        return std::nearbyint(x); // the default environment rounds to nearest even
    case mods::rounding::RZ:
        return std::trunc(x);
    case mods::rounding::RM:
        return std::floor(x);
    case mods::rounding::RP:
        return std::ceil(x);
    }
    return x;
}

/// The exact integer x as fp32 rounded in mode m.

float int_to_float(double x, mods::rounding m)
{
    float f = static_cast<float>(x); // to nearest even
    const double back = f;
    switch (m) {
    case mods::rounding::RN:
        break;
    case mods::rounding::RZ:
        if (std::fabs(back) > std::fabs(x))
            f = std::nextafter(f, 0.0f);
        break;
    case mods::rounding::RM:
        if (back > x)
            f = std::nextafter(f, -INFINITY);
        break;
    case mods::rounding::RP:
        if (back < x)
            f = std::nextafter(f, INFINITY);
        break;
    }
    return f;
}

} // namespace

std::uint32_t fdiv(std::uint32_t a, std::uint32_t b, unsigned mod)
{
    const bool ftz = (mod & mods::ftz) != 0;
    if (ftz) {
        a = flush(a);
        b = flush(b);
    }
    return fp_result(f32(a) / f32(b), ftz);
}

std::uint32_t idiv(std::uint32_t a, std::uint32_t b, unsigned mod)
{
    const bool rem = (mod & mods::idiv_rem) != 0;
    if (b == 0) // PTX leaves it unspecified: all ones, and the dividend as remainder
        return rem ? a : ~0u;
    if ((mod & mods::idiv_signed) == 0)
        return rem ? a % b : a / b;
    if (a == sign_bit && b == ~0u) // INT_MIN / -1 wraps
        return rem ? 0 : sign_bit;
    const std::int32_t x = s32(a), y = s32(b);
    return static_cast<std::uint32_t>(rem ? x % y : x / y);
}

std::uint32_t mufu(std::uint32_t a, unsigned mod)
{
    const bool ftz = (mod & mods::mufu_ftz) != 0;
    if (ftz)
        a = flush(a);
    const float x = f32(a);
    const double v = x;
    double r = 0;
    switch (static_cast<mods::mufu>(mod & 15)) {
    case mods::mufu::EX2:
        r = std::exp2(v);
        break;
    case mods::mufu::LG2:
        r = std::log2(v);
        break;
    case mods::mufu::RCP:
        r = 1.0 / v;
        break;
    case mods::mufu::RSQ:
        r = 1.0 / std::sqrt(v);
        break;
    case mods::mufu::SQRT:
        r = std::sqrt(v);
        break;
    case mods::mufu::SIN:
        r = std::sin(v);
        break;
    case mods::mufu::COS:
        r = std::cos(v);
        break;
    case mods::mufu::RCP_RN: // IEEE: one rounding of the exact quotient
        return fp_result(1.0f / x, ftz);
    case mods::mufu::SQRT_RN:
        return fp_result(std::sqrt(x), ftz);
    }
    return fp_result(static_cast<float>(r), ftz);
}

/// x rounded to an integral value in mode m.

std::uint32_t cvt(std::uint32_t a, unsigned mod)
{
    const auto kind = static_cast<mods::cvt_kind>(mod & 3);
    const auto round = static_cast<mods::rounding>((mod >> 2) & 3);
    const bool sgn = (mod & mods::cvt_signed) != 0;
    const bool ftz = (mod & mods::cvt_ftz) != 0;
    const bool sat = (mod & mods::cvt_sat) != 0;
    if (kind == mods::cvt_kind::I2F)
        return u32(int_to_float(sgn ? static_cast<double>(s32(a)) : static_cast<double>(a), round));
    if (ftz)
        a = flush(a);
    const float x = f32(a);
    if (kind == mods::cvt_kind::F2I) { // saturating; NaN gives 0
        if (std::isnan(x))
            return 0;
        const double r = round_integral(x, round);
        if (sgn)
            return static_cast<std::uint32_t>(
                static_cast<std::int32_t>(std::clamp(r, -2147483648.0, 2147483647.0)));
        return static_cast<std::uint32_t>(std::clamp(r, 0.0, 4294967295.0));
    }
    float f = x;
    if (kind == mods::cvt_kind::FRND && std::isfinite(x))
        f = static_cast<float>(round_integral(x, round));
    if (sat) // [0, 1]; NaN and -0 give +0
        return std::isnan(f) || f <= 0.0f ? 0 : f >= 1.0f ? u32(1.0f) : u32(f);
    return fp_result(f, ftz);
}

bool fsetpx(std::uint32_t a, std::uint32_t b, unsigned mod)
{
    if (mod & mods::fsetp_ftz) {
        a = flush(a);
        b = flush(b);
    }
    return fcmp_holds(f32(a), f32(b), mod);
}

// --- Multiply high and 24-bit, bit counts and fields, byte permute (docs/isa.md) ---------

std::uint32_t imadx(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod)
{
    const bool sgn = (mod & mods::imadx_signed) != 0;
    std::int64_t x = sgn ? std::int64_t{s32(a)} : std::int64_t{a};
    std::int64_t y = sgn ? std::int64_t{s32(b)} : std::int64_t{b};
    if (mod & mods::imadx_24) { // the low 24 bits, sign- or zero-extended; a 48-bit product
        x = sgn ? ((x & 0xffffff) ^ 0x800000) - 0x800000 : x & 0xffffff;
        y = sgn ? ((y & 0xffffff) ^ 0x800000) - 0x800000 : y & 0xffffff;
        const auto p = static_cast<std::uint64_t>(x * y);
        return static_cast<std::uint32_t>((mod & mods::imadx_hi) ? p >> 16 : p) + c;
    }
    // Unsigned 32 x 32 fits in uint64; signed in int64.
    const std::uint64_t p = sgn ? static_cast<std::uint64_t>(x * y)
                                : static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y);
    return static_cast<std::uint32_t>((mod & mods::imadx_hi) ? p >> 32 : p) + c;
}

std::uint32_t bits_op(std::uint32_t a, unsigned mod)
{
    switch (static_cast<mods::bits_fn>(mod & 7)) {
    case mods::bits_fn::POPC:
        return static_cast<std::uint32_t>(__builtin_popcount(a));
    case mods::bits_fn::CLZ:
        return a == 0 ? 32 : static_cast<std::uint32_t>(__builtin_clz(a));
    case mods::bits_fn::BREV: {
        std::uint32_t r = 0;
        for (unsigned k = 0; k < 32; ++k)
            r |= ((a >> k) & 1u) << (31 - k);
        return r;
    }
    case mods::bits_fn::FINDU:
    case mods::bits_fn::FINDS: {
        // The most significant 1 (unsigned) or the most significant bit unlike the sign.
        const std::uint32_t v =
            (mod & 7) == static_cast<unsigned>(mods::bits_fn::FINDS) && (a & sign_bit) ? ~a : a;
        if (v == 0)
            return ~0u;
        const std::uint32_t msb = 31 - static_cast<std::uint32_t>(__builtin_clz(v));
        return (mod & mods::bits_shiftamt) ? 31 - msb : msb;
    }
    }
    return 0;
}

/// PTX bfe/bfi: pos and len are the low 8 bits of b and c (BFX.INS: c = pos | len << 8).

std::uint32_t bfx(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod)
{
    if (static_cast<mods::bfx_mode>(mod) == mods::bfx_mode::INS) { // insert a into b
        const unsigned pos = c & 0xff, len = (c >> 8) & 0xff;
        std::uint32_t r = b;
        for (unsigned i = 0; i < len && pos + i <= 31; ++i)
            r = (r & ~(1u << (pos + i))) | (((a >> i) & 1u) << (pos + i));
        return r;
    }
    const unsigned pos = b & 0xff, len = c & 0xff;
    const bool sgn = static_cast<mods::bfx_mode>(mod) == mods::bfx_mode::S;
    const unsigned top = std::min(pos + len - 1, 31u);
    const std::uint32_t sbit = (sgn && len != 0) ? (a >> top) & 1u : 0;
    std::uint32_t r = 0;
    for (unsigned i = 0; i < 32; ++i) {
        const std::uint32_t bit = (i < len && pos + i <= 31) ? (a >> (pos + i)) & 1u : sbit;
        r |= bit << i;
    }
    return r;
}

std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t c, unsigned mod)
{
    const std::uint64_t bytes = std::uint64_t{b} << 32 | a; // bytes 0-3 of a, 4-7 of b
    auto byte = [&](unsigned i) { return static_cast<std::uint32_t>((bytes >> (8 * i)) & 0xff); };
    // The modes' selectors of result bytes 0..3 for c[1:0] (PTX ISA, prmt).
    static const unsigned char table[6][4][4] = {
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
    };
    std::uint32_t r = 0;
    for (unsigned n = 0; n < 4; ++n) {
        std::uint32_t v;
        if (mod == 0) {
            const unsigned sel = (c >> (4 * n)) & 0xf;
            v = byte(sel & 7);
            if (sel & 8) // replicate the byte's sign
                v = (v & 0x80) ? 0xff : 0;
        } else {
            v = byte(table[mod - 1][c & 3][n]);
        }
        r |= v << (8 * n);
    }
    return r;
}

} // namespace vgpu::sm::lane_ops
