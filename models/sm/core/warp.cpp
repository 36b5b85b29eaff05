// Functional execution of one warp: a switch over opcodes applied to the active lanes.
// See docs/isa.md.
#include "models/sm/core/warp.h"

#include "models/sm/core/lane_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace vgpu::sm {

namespace {

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
// fmaf uses that instruction on such CPUs). Every lane is computed before any is written (d may
// be a source); a full warp's go straight to d, others through r for the lanes in exec. A NaN
// operand in any lane leaves the warp to ffma_lanes, so which NaN comes out never depends on the
// instruction's operand order. False then.
__attribute__((target("avx2,fma"))) bool ffma_lanes_fma3(std::uint32_t exec, const std::uint32_t* a,
                                                         const std::uint32_t* b,
                                                         const std::uint32_t* c, std::uint32_t* d)
{
    // Eight lanes per instruction, written out: the NaN test stops the compiler from
    // vectorising a lane loop. The packed FMA rounds each lane once, as the scalar one does.
    __m256 res[warp_size / 8];
    __m256 nan = _mm256_setzero_ps();
    for (unsigned k = 0; k < warp_size / 8; ++k) {
        const __m256 x =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 8 * k)));
        const __m256 y =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 8 * k)));
        const __m256 z =
            _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + 8 * k)));
        // An unordered comparison is true where either operand is a NaN.
        nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(x, y, _CMP_UNORD_Q),
                                             _mm256_cmp_ps(z, z, _CMP_UNORD_Q)));
        res[k] = _mm256_fmadd_ps(x, y, z);
    }
    if (_mm256_movemask_ps(nan) != 0)
        return false;
    if (exec == ~0u) { // every lane: straight into d
        for (unsigned k = 0; k < warp_size / 8; ++k)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 8 * k), _mm256_castps_si256(res[k]));
        return true;
    }
    alignas(32) std::uint32_t r[warp_size];
    for (unsigned k = 0; k < warp_size / 8; ++k)
        _mm256_store_si256(reinterpret_cast<__m256i*>(r + 8 * k), _mm256_castps_si256(res[k]));
    for_lanes(exec, [&](unsigned l) { d[l] = r[l]; });
    return true;
}

bool probe_fma3()
{
    __builtin_cpu_init(); // may run before the CPU model's own initialiser
    return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

/// Read at every FFMA: a flag set at start-up (a function's static costs a guard test).
const bool cpu_has_fma3 = probe_fma3();
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

std::uint32_t checked_size(const program& prog)
{
    if (prog.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::invalid_argument("warp: a program has at most 2^32 - 1 instructions");
    return static_cast<std::uint32_t>(prog.size());
}

/// True for the opcodes plain_lanes() executes: lane-wise results into one register, nothing
/// else touched (MOV and IADD..F2I).
constexpr bool is_plain(opcode op)
{
    return op == opcode::MOV || (op >= opcode::IADD && op <= opcode::F2I);
}

/// A plain opcode (is_plain) on the lanes in exec: d from a, b, c. Inlined into both of step()'s
/// paths.
[[gnu::always_inline]] inline void plain_lanes(opcode op, std::uint32_t exec, std::uint32_t* d,
                                               const std::uint32_t* a, const std::uint32_t* b,
                                               const std::uint32_t* c)
{
    switch (op) {
    case opcode::MOV:
        for_lanes(exec, [&](unsigned l) { d[l] = a[l]; });
        break;
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
        if (cpu_has_fma3 && ffma_lanes_fma3(exec, a, b, c, d))
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
    default:
        break;
    }
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
    : m_code(prog.data()), m_size(checked_size(prog)), m_ctx(&ctx), m_warp_in_cta(warp_in_cta),
      m_nregs(checked_nregs(nregs)), m_checked(checked), m_regs(std::move(storage))
{
    // Registers are added (zero) as they are written, see writable(); the capacity stays.
    m_regs.clear();
    if (ctx.ntid_x == 0 || ctx.ntid_y == 0 || ctx.ntid_z == 0)
        throw std::invalid_argument("warp: CTA dimensions must not be zero");
    m_preds[pred_true] = ~0u;
    const std::uint64_t threads = std::uint64_t{ctx.ntid_x} * ctx.ntid_y * ctx.ntid_z;
    for (unsigned lane = 0; lane < warp_size; ++lane)
        if (std::uint64_t{warp_in_cta} * warp_size + lane < threads)
            m_live |= 1u << lane;
    select_next();
}

void warp::grow(std::size_t end)
{
    m_regs.resize(end, 0);
}

bool warp::ready_pending() const
{
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
    // Most steps: a plain lane operation of a converged warp running a checked program. They
    // take this short path; step_any() is the whole one (same results, more tests and cases).
    if (m_checked && m_active == m_live && m_live != 0 && !m_faulted && m_pc < m_size &&
        is_plain(m_code[m_pc].op)) {
        const instruction& inst = m_code[m_pc];
        const std::uint32_t guard = m_preds[inst.guard];
        const std::uint32_t exec = m_active & (inst.guard_neg ? ~guard : guard);
        if (exec != 0) {
            // The destination first: adding it to m_regs may move the sources' storage.
            std::uint32_t* d = dest(inst.dst);
            plain_lanes(inst.op, exec, d, source(inst.src[0], m_scratch[0]),
                        source(inst.src[1], m_scratch[1]), source(inst.src[2], m_scratch[2]));
        }
        step_result r;
        r.pc = m_pc;
        r.inst = &inst;
        r.lane_mask = exec;
        r.lanes = exec == ~0u ? warp_size : popcount(exec);
        ++m_warp_instructions;
        m_lane_instructions += r.lanes;
        ++m_pc;
        return r;
    }
    return step_any();
}

[[gnu::noinline]] step_result warp::step_any()
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
    if (m_pc >= m_size)
        return fault(r, "PC " + std::to_string(m_pc) + " is outside the program (" +
                            std::to_string(m_size) + " instructions)");
    const instruction& inst = m_code[m_pc];
    r.inst = &inst;
    if (!m_checked) {
        if (auto why = check(inst, m_nregs))
            return fault(r, *why);
    }

    const std::uint32_t guard = m_preds[inst.guard];
    const std::uint32_t exec = m_active & (inst.guard_neg ? ~guard : guard);
    r.lane_mask = exec;
    r.lanes = popcount(exec);
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
        case opcode::MOV:
        case opcode::IADD:
        case opcode::ISUB:
        case opcode::IMUL:
        case opcode::IMAD:
        case opcode::IMIN:
        case opcode::IMAX:
        case opcode::UMIN:
        case opcode::UMAX:
        case opcode::AND:
        case opcode::OR:
        case opcode::XOR:
        case opcode::NOT:
        case opcode::SHL:
        case opcode::SHR:
        case opcode::SAR:
        case opcode::FADD:
        case opcode::FSUB:
        case opcode::FMUL:
        case opcode::FFMA:
        case opcode::FMIN:
        case opcode::FMAX:
        case opcode::FNEG:
        case opcode::FABS:
        case opcode::I2F:
        case opcode::F2I:
            plain_lanes(inst.op, exec, d, a, b, c);
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
            if (inst.src[0].value >= m_size)
                return fault(r, "branch target " + std::to_string(inst.src[0].value) +
                                    " is outside the program (" + std::to_string(m_size) +
                                    " instructions)");
            taken = exec;
            r.kind = step_kind::branch;
            break;
        case opcode::LD:
        case opcode::ST:
        case opcode::ATOM:
        case opcode::CAS:
            if (!memory_step(inst, exec, r))
                return r;
            break;
        case opcode::CDL:
            if (!cdl_step(inst, exec, r))
                return r;
            break;
        case opcode::BAR:
            if (wait_to_converge(m_live, exec, r)) // every live lane arrives first (Volta)
                return r;
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
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::fdiv(a[l], b[l], inst.mod); });
            break;
        case opcode::IDIV:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::idiv(a[l], b[l], inst.mod); });
            break;
        case opcode::MUFU:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::mufu(a[l], inst.mod); });
            break;
        case opcode::CVT:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::cvt(a[l], inst.mod); });
            break;
        case opcode::FSETPX:
            for_lanes(exec, [&](unsigned l) {
                p |= static_cast<std::uint32_t>(lane_ops::fsetpx(a[l], b[l], inst.mod)) << l;
            });
            break;
        case opcode::IMADX:
            for_lanes(exec,
                      [&](unsigned l) { d[l] = lane_ops::imadx(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::BITS:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::bits_op(a[l], inst.mod); });
            break;
        case opcode::BFX:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::bfx(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::PRMT:
            for_lanes(exec, [&](unsigned l) { d[l] = lane_ops::prmt(a[l], b[l], c[l], inst.mod); });
            break;
        case opcode::SHFL:
        case opcode::VOTE:
        case opcode::BALLOT:
        case opcode::WARPSYNC:
            if (inst.op == opcode::WARPSYNC && wait_to_converge(a[__builtin_ctz(exec)], exec, r))
                return r; // the named lanes that are elsewhere are waited for (Volta)
            if (!warp_op_step(inst, exec, r, d, a, b, c, p))
                return r;
            break;
        case opcode::DADD:
        case opcode::DMUL:
        case opcode::DFMA:
        case opcode::DFN:
        case opcode::DSETP:
        case opcode::DCVT:
        case opcode::I64:
        case opcode::I64SETP:
            wide_step(inst, exec, p); // warp64.cpp
            break;
        case opcode::INVALID:
            break; // rejected by check() above
        }
        if (writes_predicate(info(inst.op).form) && inst.dst != pred_true)
            m_preds[inst.dst] = (m_preds[inst.dst] & ~exec) | p;
    }

    ++m_warp_instructions;
    m_lane_instructions += r.lanes;
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
    const unsigned bytes = width_bytes(inst.width);
    for (std::uint32_t m = exec; m != 0; m &= m - 1) {
        const auto l = static_cast<unsigned>(__builtin_ctz(m));
        const std::uint32_t addr = base[l] + offset;
        if ((addr & (bytes - 1)) != 0) {
            r = fault(r, std::string("misaligned address ") + hex(addr) + " in lane " +
                             std::to_string(l) + " (" + info(inst.op).name + " needs " +
                             std::to_string(bytes) + "-byte alignment)");
            return false;
        }
        m_access.addr[l] = addr;
    }
    m_access.lane_mask = exec;
    m_access.cbv = 0;
    m_access.count = 0;
    m_access.space = inst.space;
    m_access.width = inst.width;
    m_access.aop = inst.aop;
    m_access.cas = inst.op == opcode::CAS;
    if (inst.op == opcode::LD) {
        m_access.reg = inst.dst;
        if (inst.dst != reg_zero)
            m_pending.set(inst.dst);
        r.kind = step_kind::load;
    } else if (inst.op == opcode::ATOM || inst.op == opcode::CAS) {
        const std::uint32_t* b = source(inst.src[1], m_scratch[1]);
        for_lanes(exec, [&](unsigned l) { m_access.data[l] = b[l]; });
        if (m_access.cas) {
            const std::uint32_t* desired = source(inst.src[2], m_scratch[2]);
            for_lanes(exec, [&](unsigned l) { m_access.data2[l] = desired[l]; });
        }
        const bool wide = inst.width == mem_width::b64; // register pairs: Rn+1 the high words
        if (wide) {
            auto high = [](const operand& o) {
                return o.kind == operand_kind::reg && o.value != reg_zero
                           ? operand{o.kind, o.value + 1}
                           : o;
            };
            const std::uint32_t* hi = source(high(inst.src[1]), m_scratch[1]);
            for_lanes(exec, [&](unsigned l) { m_access.data_hi[l] = hi[l]; });
            if (m_access.cas) {
                const std::uint32_t* hi2 = source(high(inst.src[2]), m_scratch[2]);
                for_lanes(exec, [&](unsigned l) { m_access.data2_hi[l] = hi2[l]; });
            }
        }
        m_access.reg = inst.dst;
        if (inst.dst != reg_zero) {
            m_pending.set(inst.dst);
            if (wide)
                m_pending.set(inst.dst + 1u);
        }
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
    static_cast<void>(r); // none of them fails today (the convergence is wait_to_converge's)
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
    if (inst.op == opcode::WARPSYNC)
        return true; // every named lane that has not exited is here (wait_to_converge)
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
    // A CDL reads dwords of a CBV in memory: none of a previous step's LD/ST fields stays (a
    // per-lane CDL after a ST.U8.SHARED was read as a byte of shared memory).
    m_access.space = mem_space::global;
    m_access.width = mem_width::b32;
    m_access.cas = false;
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

std::uint32_t warp::special(special_reg s, unsigned lane) const
{
    const std::uint64_t tid = std::uint64_t{m_warp_in_cta} * warp_size + lane;
    // Threads in CUDA's order: x fastest, then y, then z.
    const auto tid_x = static_cast<std::uint32_t>(tid % m_ctx->ntid_x);
    switch (s) {
    case special_reg::TID_X:
        return tid_x;
    case special_reg::TID_Y:
        return static_cast<std::uint32_t>(tid / m_ctx->ntid_x % m_ctx->ntid_y);
    case special_reg::TID_Z:
        return static_cast<std::uint32_t>(tid / m_ctx->ntid_x / m_ctx->ntid_y);
    case special_reg::NTID_Z:
        return m_ctx->ntid_z;
    case special_reg::CTAID_Z:
        return m_ctx->ctaid_z;
    case special_reg::NCTAID_Z:
        return m_ctx->nctaid_z;
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
    // The lanes at the lowest PC of those not waiting at a WARPSYNC or BAR, with the waiting
    // lanes at that PC (they meet there); when every lane waits, the lowest waiting ones try
    // again (the lanes they waited for have exited, or it is a deadlock: warp_converge.cpp).
    const std::uint32_t runnable = (m_live & ~m_parked) != 0 ? m_live & ~m_parked : m_live;
    std::uint32_t best = ~0u;
    for_lanes(runnable, [&](unsigned l) { best = std::min(best, m_pcs[l]); });
    std::uint32_t mask = 0;
    for_lanes(m_live,
              [&](unsigned l) { mask |= static_cast<std::uint32_t>(m_pcs[l] == best) << l; });
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
