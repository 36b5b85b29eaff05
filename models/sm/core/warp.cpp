// Functional execution of one warp: a switch over opcodes applied to the active lanes.
// See docs/isa.md.
#include "models/sm/core/warp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace vgpu::sm {

namespace {

const lane_values zero_lanes{};

/// Calls f(lane) for every set bit of mask, lowest lane first.
template <typename F> void for_lanes(std::uint32_t mask, F f)
{
    // The common full-warp case as a plain loop, which the compiler can vectorise.
    if (mask == ~0u) {
        for (unsigned l = 0; l < warp_size; ++l)
            f(l);
        return;
    }
    while (mask != 0) {
        f(static_cast<unsigned>(__builtin_ctz(mask)));
        mask &= mask - 1;
    }
}

unsigned popcount(std::uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

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

/// FFMA of the lanes in exec: d = a * b + c rounded once (IEEE 754 fusedMultiplyAdd).
void ffma_lanes(std::uint32_t exec, const std::uint32_t* a, const std::uint32_t* b,
                const std::uint32_t* c, std::uint32_t* d)
{
    for_lanes(exec, [&](unsigned l) { d[l] = u32(std::fma(f32(a[l]), f32(b[l]), f32(c[l]))); });
}

#if defined(__x86_64__) && defined(__GNUC__)
// Why a second FFMA: std::fma(float) is a library call per lane on baseline x86-64, a large
// part of an FFMA-bound run. Compiled for FMA3 (used only where the CPU has it), the lanes run
// through the fused multiply-add instruction, whose result is the same single rounding (glibc's
// fmaf uses that instruction on such CPUs). Lanes are computed into r (d may be a source) and
// copied for the lanes in exec. A NaN operand in any lane leaves the warp to ffma_lanes, so
// which NaN comes out never depends on the instruction's operand order. False then.
__attribute__((target("avx2,fma"))) bool ffma_lanes_fma3(std::uint32_t exec, const std::uint32_t* a,
                                                         const std::uint32_t* b,
                                                         const std::uint32_t* c, std::uint32_t* d)
{
    // Eight lanes per instruction, written out: the NaN test stops the compiler from
    // vectorising a lane loop. The packed FMA rounds each lane once, as the scalar one does.
    alignas(32) std::uint32_t r[warp_size];
    __m256 nan = _mm256_setzero_ps();
    for (unsigned l = 0; l < warp_size; l += 8) {
        const __m256 x =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + l)));
        const __m256 y =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + l)));
        const __m256 z =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + l)));
        // An unordered comparison is true where either operand is a NaN.
        nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q),
                                             _mm256_cmp_ps(z, z, _CMP_UNORD_Q)));
        _mm256_store_si256(reinterpret_cast<__m256i*>(r + l),
                           _mm256_castps_si256(_mm256_fmadd_ps(x, y, z)));
    }
    if (_mm256_movemask_ps(nan) != 0)
        return false;
    for_lanes(exec, [&](unsigned l) { d[l] = r[l]; });
    return true;
}

bool cpu_has_fma3()
{
    static const bool has = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
    return has;
}
#endif

std::int32_t s32(std::uint32_t v)
{
    std::int32_t s;
    std::memcpy(&s, &v, sizeof s);
    return s;
}

std::uint32_t sar(std::uint32_t v, std::uint32_t shift)
{
    const unsigned s = shift & 31;
    const std::uint32_t sign_fill = (v & 0x80000000u) != 0 ? ~(~0u >> s) : 0;
    return (v >> s) | sign_fill;
}

std::uint32_t f2i(std::uint32_t bits)
{
    const float f = f32(bits);
    if (std::isnan(f))
        return 0;
    if (f >= 2147483648.0f)
        return 0x7fffffffu;
    if (f < -2147483648.0f)
        return 0x80000000u;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
}

constexpr std::uint32_t sign_bit = 0x80000000u;
constexpr std::uint32_t canonical_nan = 0x7fffffffu;

/// fp32 minimum: a NaN operand yields the other one, and -0 is below +0 (std::fmin leaves the
/// sign of zero unspecified, which would make results depend on the build).
std::uint32_t fmin_bits(std::uint32_t a, std::uint32_t b)
{
    const float x = f32(a);
    const float y = f32(b);
    if (std::isnan(x))
        return std::isnan(y) ? canonical_nan : b;
    if (std::isnan(y))
        return a;
    if (x == y)
        return (a & sign_bit) != 0 ? a : b;
    return x < y ? a : b;
}

/// fp32 maximum: a NaN operand yields the other one, and +0 is above -0.
std::uint32_t fmax_bits(std::uint32_t a, std::uint32_t b)
{
    const float x = f32(a);
    const float y = f32(b);
    if (std::isnan(x))
        return std::isnan(y) ? canonical_nan : b;
    if (std::isnan(y))
        return a;
    if (x == y)
        return (a & sign_bit) != 0 ? b : a;
    return x > y ? a : b;
}

/// x cmp y; for floats every comparison with a NaN is false except NE.
template <typename T> bool compare(T x, T y, cmp_op c)
{
    switch (c) {
    case cmp_op::EQ:
        return x == y;
    case cmp_op::NE:
        return x != y;
    case cmp_op::LT:
        return x < y;
    case cmp_op::LE:
        return x <= y;
    case cmp_op::GT:
        return x > y;
    case cmp_op::GE:
        return x >= y;
    }
    return false;
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
    const float x = f32(a), y = f32(b);
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
        return is_subnormal(a);
    }
    return false;
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
        return popcount(a);
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

std::string hex(std::uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

unsigned checked_nregs(unsigned nregs)
{
    if (nregs == 0 || nregs > max_registers)
        throw std::invalid_argument("warp: register count must be 1.." +
                                    std::to_string(max_registers));
    return nregs;
}

} // namespace

const char* name(step_kind k)
{
    static const char* const names[] = {"alu",  "branch", "load", "store",  "barrier",
                                        "exit", "trace",  "cdl",  "atomic", "error"};
    const auto i = static_cast<unsigned>(k);
    return i < sizeof names / sizeof names[0] ? names[i] : "??";
}

warp::warp(const program& prog, const launch_context& ctx, unsigned warp_in_cta, unsigned nregs)
    : warp(prog, ctx, warp_in_cta, nregs, std::vector<std::uint32_t>{})
{
}

warp::warp(const program& prog, const launch_context& ctx, unsigned warp_in_cta, unsigned nregs,
           std::vector<std::uint32_t>&& storage, bool checked)
    : m_prog(&prog), m_ctx(&ctx), m_warp_in_cta(warp_in_cta), m_nregs(checked_nregs(nregs)),
      m_checked(checked), m_regs(std::move(storage))
{
    // Registers are added (zero) as they are written, see writable(); the capacity stays.
    m_regs.clear();
    if (ctx.ntid_x == 0 || ctx.ntid_y == 0)
        throw std::invalid_argument("warp: CTA dimensions must not be zero");
    m_preds[pred_true] = ~0u;
    const std::uint64_t threads = std::uint64_t{ctx.ntid_x} * ctx.ntid_y;
    for (unsigned lane = 0; lane < warp_size; ++lane)
        if (std::uint64_t{warp_in_cta} * warp_size + lane < threads)
            m_live |= 1u << lane;
    select_next();
}

const instruction* warp::next() const
{
    if (done() || m_pc >= m_prog->size())
        return nullptr;
    return &(*m_prog)[m_pc];
}

bool warp::ready() const
{
    if (done())
        return false;
    if (m_pending.none())
        return true;
    const instruction* inst = next();
    if (inst == nullptr)
        return true;
    auto busy = [this](std::uint32_t r) { return r < m_nregs && m_pending[r]; };
    for (const operand& s : inst->src)
        if (s.kind == operand_kind::reg && busy(s.value))
            return false;
    if (!writes_register(info(inst->op).form))
        return true;
    std::uint32_t count = 1;
    if (inst->op == opcode::CDL && inst->src[2].kind == operand_kind::imm)
        count = (inst->src[2].value + 31) / 32;
    for (std::uint32_t r = inst->dst; r < inst->dst + std::uint64_t{count} && r < m_nregs; ++r)
        if (m_pending[r])
            return false;
    return true;
}

step_result warp::step()
{
    step_result r;
    r.pc = m_pc;
    if (m_faulted) {
        r.kind = step_kind::error;
        r.message = m_error;
        return r;
    }
    if (m_live == 0) {
        r.kind = step_kind::error;
        r.message = "step() on a warp that has exited";
        return r;
    }
    if (m_pc >= m_prog->size())
        return fault(r, "PC " + std::to_string(m_pc) + " is outside the program (" +
                            std::to_string(m_prog->size()) + " instructions)");
    const instruction& inst = (*m_prog)[m_pc];
    r.inst = &inst;
    if (!m_checked) {
        if (auto why = check(inst, m_nregs))
            return fault(r, *why);
    }

    const std::uint32_t guard = m_preds[inst.guard];
    const std::uint32_t exec = m_active & (inst.guard_neg ? ~guard : guard);
    r.lane_mask = exec;
    std::uint32_t taken = 0;  // lanes that branch
    std::uint32_t exited = 0; // lanes that leave

    if (exec != 0) {
        // The destination first: adding it to m_regs may move the sources' storage.
        std::uint32_t* d = dest(inst.dst);
        const std::uint32_t* a = source(inst.src[0], m_scratch[0]);
        const std::uint32_t* b = source(inst.src[1], m_scratch[1]);
        const std::uint32_t* c = source(inst.src[2], m_scratch[2]);
        const auto cond = inst.cond;
        std::uint32_t p = 0; // *SETP result bits
        switch (inst.op) {
        case opcode::NOP:
        case opcode::MEMBAR: // its ordering is the SM's (the scoreboard holds it)
            break;
        case opcode::MOV:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l]; });
            break;
        case opcode::S2R:
            for_lanes(exec, [&](unsigned l) { d[l] = special(inst.sreg, l); });
            break;
        case opcode::LDP: {
            const std::uint32_t index = inst.src[0].value;
            if (index >= m_ctx->params.size())
                return fault(r, "parameter index " + std::to_string(index) + " out of range (" +
                                    std::to_string(m_ctx->params.size()) + " parameters)");
            const std::uint32_t v = m_ctx->params[index];
            for_lanes(exec, [&](unsigned l) { d[l] = v; });
            break;
        }
        case opcode::IADD:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] + b[l]; });
            break;
        case opcode::ISUB:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] - b[l]; });
            break;
        case opcode::IMUL:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] * b[l]; });
            break;
        case opcode::IMAD:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] * b[l] + c[l]; });
            break;
        case opcode::IMIN:
            for_lanes(exec, [&](unsigned l) { d[l] = s32(a[l]) < s32(b[l]) ? a[l] : b[l]; });
            break;
        case opcode::IMAX:
            for_lanes(exec, [&](unsigned l) { d[l] = s32(a[l]) > s32(b[l]) ? a[l] : b[l]; });
            break;
        case opcode::UMIN:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] < b[l] ? a[l] : b[l]; });
            break;
        case opcode::UMAX:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] > b[l] ? a[l] : b[l]; });
            break;
        case opcode::AND:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] & b[l]; });
            break;
        case opcode::OR:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] | b[l]; });
            break;
        case opcode::XOR:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] ^ b[l]; });
            break;
        case opcode::NOT:
            for_lanes(exec, [&](unsigned l) { d[l] = ~a[l]; });
            break;
        case opcode::SHL:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] << (b[l] & 31); });
            break;
        case opcode::SHR:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] >> (b[l] & 31); });
            break;
        case opcode::SAR:
            for_lanes(exec, [&](unsigned l) { d[l] = sar(a[l], b[l]); });
            break;
        case opcode::FADD:
            for_lanes(exec, [&](unsigned l) { d[l] = u32(f32(a[l]) + f32(b[l])); });
            break;
        case opcode::FSUB:
            for_lanes(exec, [&](unsigned l) { d[l] = u32(f32(a[l]) - f32(b[l])); });
            break;
        case opcode::FMUL:
            for_lanes(exec, [&](unsigned l) { d[l] = u32(f32(a[l]) * f32(b[l])); });
            break;
        case opcode::FFMA:
#if defined(__x86_64__) && defined(__GNUC__)
            if (cpu_has_fma3() && ffma_lanes_fma3(exec, a, b, c, d))
                break;
#endif
            ffma_lanes(exec, a, b, c, d);
            break;
        case opcode::FMIN:
            for_lanes(exec, [&](unsigned l) { d[l] = fmin_bits(a[l], b[l]); });
            break;
        case opcode::FMAX:
            for_lanes(exec, [&](unsigned l) { d[l] = fmax_bits(a[l], b[l]); });
            break;
        case opcode::FNEG:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] ^ sign_bit; });
            break;
        case opcode::FABS:
            for_lanes(exec, [&](unsigned l) { d[l] = a[l] & ~sign_bit; });
            break;
        case opcode::I2F:
            for_lanes(exec, [&](unsigned l) { d[l] = u32(static_cast<float>(s32(a[l]))); });
            break;
        case opcode::F2I:
            for_lanes(exec, [&](unsigned l) { d[l] = f2i(a[l]); });
            break;
        case opcode::ISETP:
            for_lanes(exec, [&](unsigned l) {
                p |= static_cast<std::uint32_t>(compare(s32(a[l]), s32(b[l]), cond)) << l;
            });
            break;
        case opcode::USETP:
            for_lanes(exec, [&](unsigned l) {
                p |= static_cast<std::uint32_t>(compare(a[l], b[l], cond)) << l;
            });
            break;
        case opcode::FSETP:
            for_lanes(exec, [&](unsigned l) {
                p |= static_cast<std::uint32_t>(compare(f32(a[l]), f32(b[l]), cond)) << l;
            });
            break;
        case opcode::SEL: {
            const std::uint32_t sel = m_preds[inst.src[2].value];
            for_lanes(exec, [&](unsigned l) { d[l] = (sel >> l) & 1 ? a[l] : b[l]; });
            break;
        }
        case opcode::BRA:
            if (inst.src[0].value >= m_prog->size())
                return fault(r, "branch target " + std::to_string(inst.src[0].value) +
                                    " is outside the program (" + std::to_string(m_prog->size()) +
                                    " instructions)");
            taken = exec;
            r.kind = step_kind::branch;
            break;
        case opcode::LD:
        case opcode::ST:
        case opcode::ATOM:
            if (!memory_step(inst, exec, r))
                return r;
            break;
        case opcode::CDL:
            if (!cdl_step(inst, exec, r))
                return r;
            break;
        case opcode::BAR:
            r.kind = step_kind::barrier;
            break;
        case opcode::EXIT:
            exited = exec;
            r.kind = step_kind::exit;
            break;
        case opcode::TRACE:
            r.trace_code = inst.src[0].value;
            r.kind = step_kind::trace;
            break;
        case opcode::FDIV:
            for_lanes(exec, [&](unsigned l) { d[l] = fdiv(a[l], b[l], inst.mod); });
            break;
        case opcode::IDIV:
            for_lanes(exec, [&](unsigned l) { d[l] = idiv(a[l], b[l], inst.mod); });
            break;
        case opcode::MUFU:
            for_lanes(exec, [&](unsigned l) { d[l] = mufu(a[l], inst.mod); });
            break;
        case opcode::CVT:
            for_lanes(exec, [&](unsigned l) { d[l] = cvt(a[l], inst.mod); });
            break;
        case opcode::FSETPX:
            for_lanes(exec, [&](unsigned l) {
                p |= static_cast<std::uint32_t>(fsetpx(a[l], b[l], inst.mod)) << l;
            });
            break;
        case opcode::IMADX:
            for_lanes(exec, [&](unsigned l) { d[l] = imadx(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::BITS:
            for_lanes(exec, [&](unsigned l) { d[l] = bits_op(a[l], inst.mod); });
            break;
        case opcode::BFX:
            for_lanes(exec, [&](unsigned l) { d[l] = bfx(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::PRMT:
            for_lanes(exec, [&](unsigned l) { d[l] = prmt(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::SHFL:
        case opcode::VOTE:
        case opcode::BALLOT:
        case opcode::WARPSYNC:
            if (!warp_op_step(inst, exec, r, d, a, b, c, p))
                return r;
            break;
        case opcode::INVALID:
            break; // rejected by check() above
        }
        if (writes_predicate(info(inst.op).form) && inst.dst != pred_true)
            m_preds[inst.dst] = (m_preds[inst.dst] & ~exec) | p;
    }

    ++m_warp_instructions;
    m_lane_instructions += popcount(exec);
    const std::uint32_t target = inst.src[0].value;
    const bool converged = m_active == m_live;
    if (converged && (taken == 0 || taken == m_active)) {
        // Every live lane goes to the same PC: no per-lane bookkeeping needed.
        m_pc = taken != 0 ? target : m_pc + 1;
        m_live &= ~exited;
        m_active = m_live;
        return r;
    }
    // m_pcs is not maintained while the warp is converged: bring it up to date first.
    if (converged)
        for_lanes(m_live, [&](unsigned l) { m_pcs[l] = m_pc; });
    for_lanes(m_active, [&](unsigned l) { m_pcs[l] = (taken >> l) & 1 ? target : m_pc + 1; });
    m_live &= ~exited;
    select_next();
    return r;
}

bool warp::memory_step(const instruction& inst, std::uint32_t exec, step_result& r)
{
    const std::uint32_t* base = source(inst.src[0], m_scratch[0]);
    const auto offset = static_cast<std::uint32_t>(inst.offset);
    for (std::uint32_t m = exec; m != 0; m &= m - 1) {
        const auto l = static_cast<unsigned>(__builtin_ctz(m));
        const std::uint32_t addr = base[l] + offset;
        if ((addr & 3) != 0) {
            r = fault(r, std::string("misaligned address ") + hex(addr) + " in lane " +
                             std::to_string(l) + " (" + info(inst.op).name +
                             " needs 4-byte alignment)");
            return false;
        }
        m_access.addr[l] = addr;
    }
    m_access.lane_mask = exec;
    m_access.cbv = 0;
    m_access.count = 0;
    if (inst.op == opcode::LD) {
        m_access.reg = inst.dst;
        if (inst.dst != reg_zero)
            m_pending.set(inst.dst);
        r.kind = step_kind::load;
    } else if (inst.op == opcode::ATOM) {
        const std::uint32_t* addend = source(inst.src[1], m_scratch[1]);
        for_lanes(exec, [&](unsigned l) { m_access.data[l] = addend[l]; });
        m_access.reg = inst.dst;
        if (inst.dst != reg_zero)
            m_pending.set(inst.dst);
        r.kind = step_kind::atomic;
    } else {
        const std::uint32_t* data = source(inst.src[1], m_scratch[1]);
        for_lanes(exec, [&](unsigned l) { m_access.data[l] = data[l]; });
        m_access.reg = reg_zero;
        r.kind = step_kind::store;
    }
    r.access = &m_access;
    return true;
}

bool warp::warp_op_step(const instruction& inst, std::uint32_t exec, step_result& r,
                        std::uint32_t* d, const std::uint32_t* a, const std::uint32_t* b,
                        const std::uint32_t* c, std::uint32_t& p)
{
    if (inst.op == opcode::SHFL) {
        // PTX shfl.sync: c holds the clamp value (bits 0-4) and the segment mask (bits 8-12);
        // a lane whose source is out of range gets its own value.
        lane_values out{};
        for_lanes(exec, [&](unsigned l) {
            const int lane = static_cast<int>(l);
            const int bval = static_cast<int>(b[l] & 31);
            const int cval = static_cast<int>(c[l] & 31);
            const int seg = static_cast<int>((c[l] >> 8) & 31);
            const int max_lane = (lane & seg) | (cval & ~seg);
            const int min_lane = lane & seg;
            int j = lane;
            bool in = false;
            switch (static_cast<mods::shfl_mode>(inst.mod)) {
            case mods::shfl_mode::UP:
                j = lane - bval;
                in = j >= max_lane;
                break;
            case mods::shfl_mode::DOWN:
                j = lane + bval;
                in = j <= max_lane;
                break;
            case mods::shfl_mode::BFLY:
                j = lane ^ bval;
                in = j <= max_lane;
                break;
            case mods::shfl_mode::IDX:
                j = min_lane | (bval & ~seg);
                in = j <= max_lane;
                break;
            }
            out[l] = a[in ? j : lane];
        });
        for_lanes(exec, [&](unsigned l) { d[l] = out[l]; });
        return true;
    }
    if (inst.op == opcode::WARPSYNC) {
        // The lanes the membermask names that have not exited must all execute this
        // instruction together.
        const std::uint32_t mask = a[__builtin_ctz(exec)];
        const std::uint32_t missing = mask & m_live & ~exec;
        if (missing != 0) {
            r = fault(r, "WARPSYNC membermask " + hex(mask) + " names lanes " + hex(missing) +
                             " that are not converged at this instruction (diverged or "
                             "predicated off; vgpu does not wait for them)");
            return false;
        }
        return true;
    }
    // VOTE, BALLOT: over the executing lanes of the membermask (b).
    const std::uint32_t mask = b[__builtin_ctz(exec)];
    const bool neg =
        (inst.mod & (inst.op == opcode::VOTE ? mods::vote_not : mods::ballot_not)) != 0;
    const std::uint32_t pv = neg ? ~m_preds[inst.src[0].value] : m_preds[inst.src[0].value];
    const std::uint32_t part = exec & mask;
    const std::uint32_t yes = pv & part;
    if (inst.op == opcode::BALLOT) {
        for_lanes(exec, [&](unsigned l) { d[l] = yes; });
        return true;
    }
    bool v = false;
    switch (static_cast<mods::vote_mode>(inst.mod & 3)) {
    case mods::vote_mode::ALL:
        v = yes == part;
        break;
    case mods::vote_mode::ANY:
        v = yes != 0;
        break;
    case mods::vote_mode::UNI:
        v = yes == part || yes == 0;
        break;
    }
    p = v ? exec : 0;
    return true;
}

bool warp::cdl_step(const instruction& inst, std::uint32_t exec, step_result& r)
{
    const bool bulk = inst.src[2].kind == operand_kind::imm;
    const std::uint32_t count = bulk ? inst.src[2].value : 0;
    const std::uint64_t nreg = bulk ? (std::uint64_t{count} + 31) / 32 : 1;
    if (bulk && count == 0) {
        r = fault(r, "CDL with a data amount of 0 dwords");
        return false;
    }
    if (bulk && (inst.dst == reg_zero || inst.dst + nreg > m_nregs)) {
        r = fault(r, "CDL destination R" + std::to_string(inst.dst) + "..R" +
                         std::to_string(inst.dst + nreg - 1) + " past the register file (R0..R" +
                         std::to_string(m_nregs - 1) + ")");
        return false;
    }
    const std::uint32_t* offsets = source(inst.src[0], m_scratch[0]);
    for_lanes(exec, [&](unsigned l) { m_access.addr[l] = offsets[l]; });
    if (bulk)
        m_access.addr[0] = offsets[0]; // the bulk form's offset: lane 0, active or not (claim 4)
    m_access.lane_mask = exec;
    m_access.reg = inst.dst;
    m_access.cbv = inst.src[1].value;
    m_access.count = count;
    if (inst.dst != reg_zero)
        for (std::uint64_t i = 0; i < nreg; ++i)
            m_pending.set(inst.dst + i);
    r.kind = step_kind::cdl;
    r.access = &m_access;
    return true;
}

void warp::complete_load(unsigned reg, const lane_values& values, std::uint32_t lane_mask)
{
    if (reg >= m_nregs)
        return;
    std::uint32_t* d = writable(reg);
    for_lanes(lane_mask, [&](unsigned l) { d[l] = values[l]; });
    m_pending.reset(reg);
}

std::uint32_t warp::reg(unsigned r, unsigned lane) const
{
    if (r >= m_nregs || lane >= warp_size)
        return 0;
    const std::size_t i = std::size_t{r} * warp_size + lane;
    return i < m_regs.size() ? m_regs[i] : 0;
}

void warp::set_reg(unsigned r, unsigned lane, std::uint32_t value)
{
    if (r < m_nregs && lane < warp_size)
        writable(r)[lane] = value;
}

bool warp::pred(unsigned p, unsigned lane) const
{
    return p <= pred_true && lane < warp_size && ((m_preds[p] >> lane) & 1) != 0;
}

void warp::set_pred(unsigned p, std::uint32_t lanes)
{
    if (p < num_predicates)
        m_preds[p] = lanes;
}

const std::uint32_t* warp::source(const operand& o, lane_values& scratch) const
{
    if (o.kind == operand_kind::reg && o.value != reg_zero) {
        const std::size_t i = std::size_t{o.value} * warp_size;
        return i < m_regs.size() ? &m_regs[i] : zero_lanes.data(); // not written yet: 0
    }
    if (o.kind == operand_kind::imm) {
        scratch.fill(o.value);
        return scratch.data();
    }
    return zero_lanes.data();
}

std::uint32_t* warp::writable(unsigned r)
{
    const std::size_t end = (std::size_t{r} + 1) * warp_size;
    if (end > m_regs.size())
        m_regs.resize(end, 0);
    return &m_regs[std::size_t{r} * warp_size];
}

std::uint32_t* warp::dest(unsigned r)
{
    if (r >= m_nregs)
        return m_discard.data();
    return writable(r);
}

std::uint32_t warp::special(special_reg s, unsigned lane) const
{
    const std::uint64_t tid = std::uint64_t{m_warp_in_cta} * warp_size + lane;
    const auto tid_x = static_cast<std::uint32_t>(tid % m_ctx->ntid_x);
    switch (s) {
    case special_reg::TID_X:
        return tid_x;
    case special_reg::TID_Y:
        return static_cast<std::uint32_t>(tid / m_ctx->ntid_x);
    case special_reg::NTID_X:
        return m_ctx->ntid_x;
    case special_reg::NTID_Y:
        return m_ctx->ntid_y;
    case special_reg::CTAID_X:
        return m_ctx->ctaid_x;
    case special_reg::CTAID_Y:
        return m_ctx->ctaid_y;
    case special_reg::NCTAID_X:
        return m_ctx->nctaid_x;
    case special_reg::NCTAID_Y:
        return m_ctx->nctaid_y;
    case special_reg::LANEID:
        return lane;
    case special_reg::WARPID:
        return m_warp_in_cta;
    case special_reg::SMID:
        return m_ctx->sm_id;
    case special_reg::GLOBAL_TID_X:
        return m_ctx->ctaid_x * m_ctx->ntid_x + tid_x;
    }
    return 0;
}

void warp::select_next()
{
    std::uint32_t best = ~0u;
    std::uint32_t mask = 0;
    for_lanes(m_live, [&](unsigned l) {
        if (m_pcs[l] < best) {
            best = m_pcs[l];
            mask = 1u << l;
        } else if (m_pcs[l] == best) {
            mask |= 1u << l;
        }
    });
    if (mask != 0)
        m_pc = best;
    m_active = mask;
}

step_result warp::fault(step_result r, std::string message)
{
    m_faulted = true;
    m_error = std::move(message);
    r.kind = step_kind::error;
    r.message = m_error;
    r.access = nullptr;
    return r;
}

} // namespace vgpu::sm
