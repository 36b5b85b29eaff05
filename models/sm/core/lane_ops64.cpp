// Per-lane semantics of the fp64 and 64-bit integer instructions (isa64.h, docs/isa.md "fp64
// and 64-bit integers"). fp64 results are the host's IEEE double arithmetic in the
// instruction's rounding mode (this file is compiled with -frounding-math; operands go through
// volatile so that no operation moves across the mode switch). Pure C++.
#include "models/sm/core/isa64.h"
#include "models/sm/core/lane_ops.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

namespace vgpu::sm::lane_ops {

namespace {

constexpr std::uint64_t canonical_nan = 0x7fffffffffffffffull;
constexpr std::uint64_t sign64 = 0x8000000000000000ull;

double f64(std::uint64_t bits)
{
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

std::uint64_t u64(double d)
{
    if (std::isnan(d))
        return canonical_nan;
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

std::uint32_t f32_bits(float f)
{
    if (std::isnan(f))
        return 0x7fffffffu; // the ISA's canonical fp32 NaN (docs/isa.md)
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

/// Sets the host's rounding mode for the lifetime of the object.
class rounding_scope {
public:
    explicit rounding_scope(unsigned r) : m_old(std::fegetround())
    {
        static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
        std::fesetround(modes[r & 3]);
    }
    ~rounding_scope() { std::fesetround(m_old); }
    rounding_scope(const rounding_scope&) = delete;
    rounding_scope& operator=(const rounding_scope&) = delete;

private:
    int m_old;
};

double round_integral(double x, unsigned r)
{
    switch (static_cast<mods::rounding>(r & 3)) {
    case mods::rounding::RN:
        return std::nearbyint(x); // called in round-to-nearest-even
    case mods::rounding::RZ:
        return std::trunc(x);
    case mods::rounding::RM:
        return std::floor(x);
    case mods::rounding::RP:
        return std::ceil(x);
    }
    return x;
}

/// x (not NaN) rounded to an integer in mode r, saturated to the 32- or 64-bit, signed or
/// unsigned range.
std::uint64_t to_int(double x, unsigned r, bool sgn, bool wide)
{
    if (std::isnan(x))
        return 0;
    const double v = round_integral(x, r);
    if (wide && sgn) {
        if (v >= 9223372036854775808.0)
            return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (v < -9223372036854775808.0)
            return sign64;
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
    if (wide) {
        if (v >= 18446744073709551616.0)
            return ~0ull;
        return v <= 0 ? 0 : static_cast<std::uint64_t>(v);
    }
    if (sgn) {
        const double c = v < -2147483648.0 ? -2147483648.0 : v > 2147483647.0 ? 2147483647.0 : v;
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(c));
    }
    return static_cast<std::uint32_t>(v <= 0 ? 0.0 : v > 4294967295.0 ? 4294967295.0 : v);
}

std::uint64_t dmin_max(std::uint64_t a, std::uint64_t b, bool max)
{
    const double x = f64(a), y = f64(b);
    if (std::isnan(x) && std::isnan(y))
        return canonical_nan;
    if (std::isnan(x))
        return b;
    if (std::isnan(y))
        return a;
    if (x == y) // -0 < +0
        return max ? ((a & sign64) ? b : a) : ((a & sign64) ? a : b);
    return (x < y) != max ? a : b;
}

std::uint64_t brev64(std::uint64_t a)
{
    std::uint64_t r = 0;
    for (unsigned k = 0; k < 64; ++k)
        r |= ((a >> k) & 1u) << (63 - k);
    return r;
}

} // namespace

std::uint64_t wide_imm(std::uint32_t bits, bool fp)
{
    if (!fp)
        return static_cast<std::uint64_t>(
            static_cast<std::int64_t>(static_cast<std::int32_t>(bits)));
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return u64(static_cast<double>(f));
}

std::uint64_t dadd(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    volatile double x = f64(a), y = f64(b);
    double r;
    {
        rounding_scope scope(mod);
        volatile double t = x + y;
        r = t;
    }
    return u64(r);
}

std::uint64_t dmul(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    volatile double x = f64(a), y = f64(b);
    double r;
    {
        rounding_scope scope(mod);
        volatile double t = x * y;
        r = t;
    }
    return u64(r);
}

std::uint64_t dfma(std::uint64_t a, std::uint64_t b, std::uint64_t c, unsigned mod)
{
    volatile double x = f64(a), y = f64(b), z = f64(c);
    double r;
    {
        rounding_scope scope(mod);
        volatile double t = std::fma(x, y, z);
        r = t;
    }
    return u64(r);
}

std::uint64_t dfn(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    volatile double x = f64(a), y = f64(b);
    double r = 0;
    switch (static_cast<mods::dfn>(mod & 7)) {
    case mods::dfn::MIN:
        return dmin_max(a, b, false);
    case mods::dfn::MAX:
        return dmin_max(a, b, true);
    case mods::dfn::ABS:
        return a & ~sign64; // NaNs too, as FABS
    case mods::dfn::NEG:
        return a ^ sign64;
    case mods::dfn::DIV: {
        rounding_scope scope(mod >> 3);
        volatile double t = x / y;
        r = t;
        break;
    }
    case mods::dfn::SQRT: {
        rounding_scope scope(mod >> 3);
        volatile double t = std::sqrt(x);
        r = t;
        break;
    }
    case mods::dfn::RCP: {
        rounding_scope scope(mod >> 3);
        volatile double t = 1.0 / x;
        r = t;
        break;
    }
    }
    return u64(r);
}

bool dsetp(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    return fcmp_holds(f64(a), f64(b), mod);
}

std::uint64_t dcvt(std::uint64_t a, unsigned mod)
{
    const unsigned r = (mod >> 3) & 3;
    const bool sgn = mod & mods::dcvt_signed, wide = mod & mods::dcvt_64;
    switch (static_cast<mods::dcvt>(mod & 7)) {
    case mods::dcvt::F2D: {
        float f;
        const auto lo = static_cast<std::uint32_t>(a);
        std::memcpy(&f, &lo, sizeof f);
        return u64(static_cast<double>(f)); // exact
    }
    case mods::dcvt::D2F: {
        volatile double x = f64(a);
        float f;
        {
            rounding_scope scope(r);
            volatile float t = static_cast<float>(x);
            f = t;
        }
        return f32_bits(f);
    }
    case mods::dcvt::I2D: {
        double d;
        rounding_scope scope(r);
        if (wide && sgn) {
            volatile std::int64_t v = static_cast<std::int64_t>(a);
            volatile double t = static_cast<double>(v);
            d = t;
        } else if (wide) {
            volatile std::uint64_t v = a;
            volatile double t = static_cast<double>(v);
            d = t;
        } else { // exact
            d = sgn ? static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(a)))
                    : static_cast<double>(static_cast<std::uint32_t>(a));
        }
        return u64(d);
    }
    case mods::dcvt::D2I:
        return to_int(f64(a), r, sgn, wide);
    case mods::dcvt::DRND: {
        const double x = f64(a);
        return u64(std::isfinite(x) ? round_integral(x, r) : x);
    }
    case mods::dcvt::I2F: { // 64-bit integer -> f32
        float f;
        rounding_scope scope(r);
        if (sgn) {
            volatile std::int64_t v = static_cast<std::int64_t>(a);
            volatile float t = static_cast<float>(v);
            f = t;
        } else {
            volatile std::uint64_t v = a;
            volatile float t = static_cast<float>(v);
            f = t;
        }
        return f32_bits(f);
    }
    case mods::dcvt::F2I: { // f32 -> 64-bit integer
        float f;
        const auto lo = static_cast<std::uint32_t>(a);
        std::memcpy(&f, &lo, sizeof f);
        return to_int(static_cast<double>(f), r, sgn, true);
    }
    }
    return 0;
}

std::uint64_t i64(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    const unsigned sh = static_cast<std::uint32_t>(b) > 63 ? 64 : static_cast<unsigned>(b);
    switch (static_cast<mods::i64>(mod)) {
    case mods::i64::ADD:
        return a + b;
    case mods::i64::SUB:
        return a - b;
    case mods::i64::MUL:
        return a * b;
    case mods::i64::MULHI_U:
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
    case mods::i64::MULHI_S:
        return static_cast<std::uint64_t>((static_cast<__int128>(sa) * sb) >> 64);
    case mods::i64::AND:
        return a & b;
    case mods::i64::OR:
        return a | b;
    case mods::i64::XOR:
        return a ^ b;
    case mods::i64::NOT:
        return ~a;
    case mods::i64::SHL: // the 32-bit amount b clamped to 64, as PTX
        return sh >= 64 ? 0 : a << sh;
    case mods::i64::SHR:
        return sh >= 64 ? 0 : a >> sh;
    case mods::i64::SAR:
        return static_cast<std::uint64_t>(sa >> (sh >= 64 ? 63 : sh));
    case mods::i64::MIN:
        return sa < sb ? a : b;
    case mods::i64::MAX:
        return sa > sb ? a : b;
    case mods::i64::UMIN:
        return a < b ? a : b;
    case mods::i64::UMAX:
        return a > b ? a : b;
    case mods::i64::DIV_S: // by zero: all ones; INT64_MIN / -1 wraps (as IDIV)
        if (b == 0)
            return ~0ull;
        return (a == sign64 && b == ~0ull) ? sign64 : static_cast<std::uint64_t>(sa / sb);
    case mods::i64::DIV_U:
        return b == 0 ? ~0ull : a / b;
    case mods::i64::REM_S: // by zero: the dividend
        if (b == 0)
            return a;
        return (a == sign64 && b == ~0ull) ? 0 : static_cast<std::uint64_t>(sa % sb);
    case mods::i64::REM_U:
        return b == 0 ? a : a % b;
    case mods::i64::POPC:
        return static_cast<std::uint64_t>(__builtin_popcountll(a));
    case mods::i64::CLZ:
        return a == 0 ? 64 : static_cast<std::uint64_t>(__builtin_clzll(a));
    case mods::i64::BREV:
        return brev64(a);
    case mods::i64::PACK: // low word a, high word b
        return (b << 32) | (a & 0xffffffffull);
    case mods::i64::WIDE_U:
        return (a & 0xffffffffull) * (b & 0xffffffffull);
    case mods::i64::WIDE_S:
        return static_cast<std::uint64_t>(
            std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(a))} *
            std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(b))});
    case mods::i64::SEXT:
        return static_cast<std::uint64_t>(
            std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(a))});
    case mods::i64::MOV:
        return a;
    }
    return 0;
}

bool i64setp(std::uint64_t a, std::uint64_t b, unsigned mod)
{
    const bool u = mod & mods::lsetp_unsigned;
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    switch (static_cast<cmp_op>(mod & 7)) {
    case cmp_op::EQ:
        return a == b;
    case cmp_op::NE:
        return a != b;
    case cmp_op::LT:
        return u ? a < b : sa < sb;
    case cmp_op::LE:
        return u ? a <= b : sa <= sb;
    case cmp_op::GT:
        return u ? a > b : sa > sb;
    case cmp_op::GE:
        return u ? a >= b : sa >= sb;
    }
    return false;
}

} // namespace vgpu::sm::lane_ops
