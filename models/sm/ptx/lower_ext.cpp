// PTX-to-vgpu translator: the rules of division, SFU functions, conversions with rounding
// modes, float and combined comparisons, warp-level operations, multiply high and 24-bit, bit
// counts and fields, byte permute and the .ftz forms (translate_impl.h; docs/cuda.md,
// "Mapping tables"). lower.cpp's dispatcher calls lower_ext first.
#include "models/sm/core/isa64.h"
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

namespace vgpu::ptx::detail {

namespace {

using T = data_type;

} // namespace

namespace {

namespace m = sm::mods;

/// PTX float comparisons onto FSETPX (docs/isa.md).
struct fcmp_rule {
    const char* ptx;
    m::fcmp cmp;
};
const fcmp_rule fcmp_rules[] = {
    {"eq", m::fcmp::EQ},   {"ne", m::fcmp::NE},    {"lt", m::fcmp::LT},   {"le", m::fcmp::LE},
    {"gt", m::fcmp::GT},   {"ge", m::fcmp::GE},    {"equ", m::fcmp::EQU}, {"neu", m::fcmp::NEU},
    {"ltu", m::fcmp::LTU}, {"leu", m::fcmp::LEU},  {"gtu", m::fcmp::GTU}, {"geu", m::fcmp::GEU},
    {"num", m::fcmp::NUM}, {"nan", m::fcmp::NAN_},
};

/// SFU functions: PTX mnemonic, the form PTX requires (approx or rn), the MUFU function.
struct mufu_rule {
    const char* ptx;
    const char* form;
    m::mufu fn;
};
const mufu_rule mufu_rules[] = {
    {"ex2", "approx", m::mufu::EX2},   {"lg2", "approx", m::mufu::LG2},
    {"rcp", "approx", m::mufu::RCP},   {"rsqrt", "approx", m::mufu::RSQ},
    {"sqrt", "approx", m::mufu::SQRT}, {"sin", "approx", m::mufu::SIN},
    {"cos", "approx", m::mufu::COS},   {"rcp", "rn", m::mufu::RCP_RN},
    {"sqrt", "rn", m::mufu::SQRT_RN},
};

const char* const bool_ops[] = {"and", "or", "xor"};

/// The float comparisons the first slice lowers to one FSETP (lower.cpp's setp rule).
const char* const first_slice_fp[] = {"eq", "lt", "le", "gt", "ge", "neu"};

/// Integer comparisons: ISETP (signed; b32 eq/ne) or USETP (unsigned).
struct int_cmp {
    const char* ptx;
    bool for_signed;
    cmp_op cond;
};
const int_cmp int_cmps[] = {
    {"eq", true, cmp_op::EQ},  {"ne", true, cmp_op::NE},  {"lt", true, cmp_op::LT},
    {"le", true, cmp_op::LE},  {"gt", true, cmp_op::GT},  {"ge", true, cmp_op::GE},
    {"lo", false, cmp_op::LT}, {"ls", false, cmp_op::LE}, {"hi", false, cmp_op::GT},
    {"hs", false, cmp_op::GE},
};

bool is_int64(data_type t)
{
    return t == data_type::b64 || t == data_type::u64 || t == data_type::s64;
}

} // namespace

bool translator::lower_ext(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const data_type t = ins.type();
    if ((op == "div" || op == "rem") && (t == T::f32 || t == T::u32 || t == T::s32)) {
        lower_div(ins);
        return true;
    }
    if (t == T::f32 && std::any_of(std::begin(mufu_rules), std::end(mufu_rules),
                                   [&](const mufu_rule& r) { return op == r.ptx; })) {
        lower_mufu(ins);
        return true;
    }
    if (op == "cvt")
        return lower_cvt_fp(ins);
    if (op == "cvta" && ins.has("const")) {
        unsupported(ins, "a generic pointer into constant memory (constant data is read by "
                         "ld.const, through the CDL)");
        return true;
    }
    if (op == "setp") {
        const bool combined =
            ins.ops.size() == 4 || (!ins.ops.empty() && ins.ops[0].k == operand::kind::pair);
        const bool fp_other =
            t == T::f32 &&
            (ins.has("ftz") || std::none_of(std::begin(first_slice_fp), std::end(first_slice_fp),
                                            [&](const char* c) { return ins.has(c); }));
        if (!combined && !fp_other)
            return false; // the first slice's one-instruction rules
        lower_setp_ext(ins);
        return true;
    }
    if (lower_bits(ins))
        return true;
    if (op == "shfl" || op == "vote" || op == "activemask" || (op == "bar" && ins.has("warp"))) {
        lower_warp_op(ins);
        return true;
    }
    return false;
}

void translator::lower_div(const instruction& ins)
{
    const data_type t = ins.type();
    const bool rem = ins.opcode == "rem";
    if (ins.ops.size() != 3 || ins.types.size() != 1) {
        unsupported(ins);
        return;
    }
    vins v;
    if (t == T::f32) {
        // div.rn is IEEE; div.full (2 ulp) and div.approx (2 ulp) are within their stated
        // error when computed exactly. Directed roundings are not in the ISA.
        if (rem || !mods_ok(ins, {"rn", "full", "approx", "ftz"}) ||
            !(ins.has("rn") || ins.has("full") || ins.has("approx"))) {
            unsupported(ins, "FDIV rounds to nearest (div.rn, div.full, div.approx)");
            return;
        }
        v.op = opcode::FDIV;
        v.mod = ins.has("ftz") ? m::ftz : 0;
    } else {
        if (!mods_ok(ins, {})) {
            unsupported(ins);
            return;
        }
        v.op = opcode::IDIV;
        v.mod =
            static_cast<std::uint8_t>((t == T::s32 ? m::idiv_signed : 0) | (rem ? m::idiv_rem : 0));
    }
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    v.src[1] = src(ins, ins.ops[2]);
    emit(v);
}

void translator::lower_mufu(const instruction& ins)
{
    for (const mufu_rule& r : mufu_rules) {
        if (ins.opcode != r.ptx || !ins.has(r.form))
            continue;
        if (!mods_ok(ins, {r.form, "ftz"}) || ins.ops.size() != 2 || ins.types.size() != 1)
            break;
        vins v;
        v.op = opcode::MUFU;
        v.mod = static_cast<std::uint8_t>(static_cast<unsigned>(r.fn) |
                                          (ins.has("ftz") ? m::mufu_ftz : 0));
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = src(ins, ins.ops[1]);
        emit(v);
        return;
    }
    unsupported(ins, "the SFU has ex2/lg2/rcp/rsqrt/sqrt/sin/cos.approx and rcp/sqrt.rn (f32)");
}

bool translator::lower_cvt_fp(const instruction& ins)
{
    if (ins.types.size() != 2 || ins.ops.size() != 2)
        return false;
    const data_type d = ins.types[0], s = ins.types[1];
    // The first slice's forms keep their opcodes (I2F, F2I).
    if (d == T::f32 && s == T::s32 && mods_ok(ins, {"rn"}) && ins.has("rn"))
        return false;
    if (d == T::s32 && s == T::f32 && mods_ok(ins, {"rzi", "ftz"}) && ins.has("rzi"))
        return false;
    const bool dint = d == T::s32 || d == T::u32, sint = s == T::s32 || s == T::u32;
    if (!((d == T::f32 && (s == T::f32 || sint)) || (dint && s == T::f32)))
        return false; // integer conversions and other widths: lower_cvt
    static const char* const int_modes[] = {"rni", "rzi", "rmi", "rpi"};
    static const char* const fp_modes[] = {"rn", "rz", "rm", "rp"};
    int mode = -1;
    const char* const* names = d == T::f32 && sint ? fp_modes : int_modes;
    for (int k = 0; k < 4; ++k)
        if (ins.has(names[k]))
            mode = k;
    unsigned kind = 0, flags = 0;
    bool ok = mods_ok(ins, {names[0], names[1], names[2], names[3], "ftz", "sat"});
    if (d == T::f32 && s == T::f32) {
        kind = static_cast<unsigned>(mode < 0 ? m::cvt_kind::F2F : m::cvt_kind::FRND);
        flags = (ins.has("ftz") ? m::cvt_ftz : 0) | (ins.has("sat") ? m::cvt_sat : 0);
    } else if (d == T::f32) {
        kind = static_cast<unsigned>(m::cvt_kind::I2F);
        flags = s == T::s32 ? m::cvt_signed : 0;
        ok = ok && mode >= 0 && !ins.has("ftz") && !ins.has("sat");
    } else {
        kind = static_cast<unsigned>(m::cvt_kind::F2I);
        flags = (d == T::s32 ? m::cvt_signed : 0) | (ins.has("ftz") ? m::cvt_ftz : 0);
        // Float to integer always saturates (.sat adds nothing for these types).
        ok = ok && mode >= 0;
    }
    if (!ok) {
        unsupported(ins, "a conversion needs its rounding modifier (PTX requires one)");
        return true;
    }
    vins v;
    v.op = opcode::CVT;
    v.mod = static_cast<std::uint8_t>(kind | static_cast<unsigned>(std::max(mode, 0)) << 2 | flags);
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    emit(v);
    return true;
}

bool translator::compare_into(const instruction& ins, vop d)
{
    const data_type t = ins.type();
    vins v;
    v.dst = d;
    if (!is_int64(t)) {
        v.src[0] = src(ins, ins.ops[1]);
        v.src[1] = src(ins, ins.ops[2]);
    }
    if (t == T::f32) {
        for (const fcmp_rule& r : fcmp_rules)
            if (ins.has(r.ptx)) {
                v.op = opcode::FSETPX;
                v.mod = static_cast<std::uint8_t>(static_cast<unsigned>(r.cmp) |
                                                  (ins.has("ftz") ? m::fsetp_ftz : 0));
                emit(v);
                return true;
            }
        return false;
    }
    if (is_int64(t)) { // I64SETP on pairs; local addresses: their 32-bit offsets
        for (const int_cmp& r : int_cmps) {
            if (!ins.has(r.ptx) || (t == T::s64 && !r.for_signed) ||
                (t == T::b64 && r.cond != cmp_op::EQ && r.cond != cmp_op::NE))
                continue;
            if (local_compare(ins)) {
                v.op = t == T::s64 ? opcode::ISETP : opcode::USETP;
                v.cond = r.cond;
                if (!local_compare_src(ins, ins.ops[1], v.src[0]) ||
                    !local_compare_src(ins, ins.ops[2], v.src[1]))
                    return false;
                emit(v);
                return true;
            }
            v.op = opcode::I64SETP;
            v.mod = static_cast<std::uint8_t>(static_cast<unsigned>(r.cond) |
                                              (t == T::s64 ? 0 : m::lsetp_unsigned));
            v.src[0] = pair_src(ins, ins.ops[1], false);
            v.src[1] = pair_src(ins, ins.ops[2], false);
            if (m_failed)
                return false;
            emit(v);
            return true;
        }
        return false;
    }
    const bool sgn = t == T::s32, uns = t == T::u32 || t == T::b32;
    if (!sgn && !uns)
        return false;
    for (const int_cmp& r : int_cmps) {
        if (!ins.has(r.ptx) || (sgn && !r.for_signed))
            continue;
        v.op = uns && r.cond != cmp_op::EQ && r.cond != cmp_op::NE ? opcode::USETP : opcode::ISETP;
        v.cond = r.cond;
        emit(v);
        return true;
    }
    return false;
}

vop translator::pred_bit(vop p, bool neg)
{
    vins v;
    v.op = opcode::SEL;
    v.dst = vreg(temp());
    v.src[0] = vimm(neg ? 0 : 1);
    v.src[1] = vimm(neg ? 1 : 0);
    v.src[2] = p;
    emit(v);
    return v.dst;
}

void translator::combine_preds(vop d, vop x, bool x_neg, vop c, bool c_neg, const std::string& bop)
{
    // (x BOP c) through 0/1 values: the ISA has no predicate logic.
    const vop xi = pred_bit(x, x_neg);
    const vop ci = pred_bit(c, c_neg);
    vins l;
    l.op = bop == "and" ? opcode::AND : bop == "or" ? opcode::OR : opcode::XOR;
    l.dst = vreg(temp());
    l.src[0] = xi;
    l.src[1] = ci;
    emit(l);
    vins s;
    s.op = opcode::ISETP;
    s.cond = cmp_op::NE;
    s.dst = d;
    s.src[0] = l.dst;
    s.src[1] = vimm(0);
    emit(s);
}

void translator::lower_setp_ext(const instruction& ins)
{
    // setp.CMP[.BOP].type p[|q], a, b[, {!}c]: p = (a CMP b) BOP c, q = !(a CMP b) BOP c.
    const bool pair = ins.ops.size() >= 1 && ins.ops[0].k == operand::kind::pair;
    const bool combined = ins.ops.size() == 4;
    const char* bop = nullptr;
    for (const char* b : bool_ops)
        if (ins.has(b))
            bop = b;
    if (ins.ops.size() < 3 || (combined != (bop != nullptr)) ||
        (pair && ins.ops[0].elems.size() != 2)) {
        unsupported(ins);
        return;
    }
    const operand& pd = pair ? ins.ops[0].elems[0] : ins.ops[0];
    const vop p = pred_of(ins, pd);
    const vop q = pair ? pred_of(ins, ins.ops[0].elems[1]) : vop{};
    if (m_failed)
        return;
    const vop x = (combined || pair) ? temp_pred() : p;
    if (!compare_into(ins, x)) {
        unsupported(ins);
        return;
    }
    if (combined) {
        const vop c = pred_of(ins, ins.ops[3]);
        const bool cn = ins.ops[3].negated;
        const bool reads_p = c.v == p.v, reads_q = pair && c.v == q.v;
        if (pair && reads_p) { // q first, while c (p) still holds its old value
            combine_preds(q, x, true, c, cn, bop);
            combine_preds(p, x, false, c, cn, bop);
        } else if (!reads_q) {
            combine_preds(p, x, false, c, cn, bop);
            if (pair)
                combine_preds(q, x, true, c, cn, bop);
        } else {
            combine_preds(p, x, false, c, cn, bop);
            combine_preds(q, x, true, c, cn, bop);
        }
        return;
    }
    if (pair) {
        vins c;
        c.op = opcode::ISETP; // p = x, q = !x through 0/1
        c.cond = cmp_op::NE;
        c.dst = p;
        c.src[0] = pred_bit(x, false);
        c.src[1] = vimm(0);
        emit(c);
        c.cond = cmp_op::EQ;
        c.dst = q;
        emit(c);
    }
}

void translator::lower_warp_op(const instruction& ins)
{
    const std::string& op = ins.opcode;
    if (op == "activemask") {
        if (ins.ops.size() != 1 || !mods_ok(ins, {})) {
            unsupported(ins);
            return;
        }
        vins t;
        t.op = opcode::ISETP; // a predicate true in every lane
        t.cond = cmp_op::EQ;
        t.dst = temp_pred();
        t.src[0] = {vk::rz, 0};
        t.src[1] = {vk::rz, 0};
        emit(t);
        vins v;
        v.op = opcode::BALLOT;
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = t.dst;
        v.src[1] = vimm(~0u);
        emit(v);
        return;
    }
    if (op == "bar") { // bar.warp.sync membermask
        if (!mods_ok(ins, {"warp", "sync"}) || !ins.has("sync") || ins.ops.size() != 1) {
            unsupported(ins);
            return;
        }
        vins v;
        v.op = opcode::WARPSYNC;
        v.src[0] = src(ins, ins.ops[0]);
        emit(v);
        return;
    }
    if (!ins.has("sync")) {
        unsupported(ins, "only the .sync forms of warp operations (PTX 6.0)");
        return;
    }
    if (op == "vote") {
        static const char* const modes[] = {"all", "any", "uni"};
        const bool ballot = ins.has("ballot");
        int mode = -1;
        for (int k = 0; k < 3; ++k)
            if (ins.has(modes[k]))
                mode = k;
        if (!mods_ok(ins, {"sync", "all", "any", "uni", "ballot"}) || ins.ops.size() != 3 ||
            (ballot ? ins.type() != T::b32 : (mode < 0 || ins.type() != T::pred))) {
            unsupported(ins);
            return;
        }
        vins w; // the named lanes converge here (vote.sync), then the vote
        w.op = opcode::WARPSYNC;
        w.src[0] = src(ins, ins.ops[2]);
        emit(w);
        vins v;
        const bool neg = ins.ops[1].negated;
        if (ballot) {
            v.op = opcode::BALLOT;
            v.mod = neg ? m::ballot_not : 0;
            v.dst = reg_of(ins, ins.ops[0]);
        } else {
            v.op = opcode::VOTE;
            v.mod = static_cast<std::uint8_t>(mode | (neg ? m::vote_not : 0));
            v.dst = pred_of(ins, ins.ops[0]);
        }
        v.src[0] = pred_of(ins, ins.ops[1]);
        v.src[1] = w.src[0];
        emit(v);
        return;
    }
    // shfl.sync.MODE.b32 d, a, b, c, membermask: WARPSYNC (the named lanes converge) + SHFL.
    static const char* const modes[] = {"up", "down", "bfly", "idx"};
    int mode = -1;
    for (int k = 0; k < 4; ++k)
        if (ins.has(modes[k]))
            mode = k;
    if (mode < 0 || !mods_ok(ins, {"sync", "up", "down", "bfly", "idx"}) || ins.type() != T::b32 ||
        ins.ops.size() != 5) {
        unsupported(ins);
        return;
    }
    if (ins.ops[0].k == operand::kind::pair) {
        unsupported(ins, "the predicate output of shfl (d|p) is not in the ISA yet");
        return;
    }
    vins w;
    w.op = opcode::WARPSYNC;
    w.src[0] = src(ins, ins.ops[4]);
    emit(w);
    vins v;
    v.op = opcode::SHFL;
    v.mod = static_cast<std::uint8_t>(mode);
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    v.src[1] = src(ins, ins.ops[2]);
    v.src[2] = src(ins, ins.ops[3]);
    emit(v);
}

vop translator::ftz_of(const vop& a)
{
    vins v;
    v.op = opcode::CVT;
    v.mod = static_cast<std::uint8_t>(m::cvt(m::cvt_kind::F2F, m::rounding::RN, m::cvt_ftz));
    v.dst = vreg(temp());
    v.src[0] = a;
    emit(v);
    return v.dst;
}

bool translator::lower_bits(const instruction& ins)
{
    // Multiply high and 24-bit, bit counts and fields, byte permute, copysign, abs.s32, the
    // .ftz forms of abs/neg/min/max, testp.
    const std::string& op = ins.opcode;
    const data_type t = ins.type();
    const bool i32 = t == T::u32 || t == T::s32;
    const auto n = ins.ops.size();
    auto dst = [&] { return reg_of(ins, ins.ops[0]); };
    vins v;
    if ((op == "mul" && ins.has("hi") && i32) || (op == "mad" && ins.has("hi") && i32) ||
        ((op == "mul24" || op == "mad24") && i32)) {
        const bool mad = op == "mad" || op == "mad24";
        const bool w24 = op == "mul24" || op == "mad24";
        if (!mods_ok(ins, w24 ? std::initializer_list<const char*>{"lo", "hi"}
                              : std::initializer_list<const char*>{"hi"}) ||
            n != (mad ? 4u : 3u)) {
            unsupported(ins);
            return true;
        }
        v.op = opcode::IMADX;
        v.mod =
            static_cast<std::uint8_t>((t == T::s32 ? m::imadx_signed : 0) |
                                      (ins.has("hi") ? m::imadx_hi : 0) | (w24 ? m::imadx_24 : 0));
        v.dst = dst();
        v.src[0] = src(ins, ins.ops[1]);
        v.src[1] = src(ins, ins.ops[2]);
        v.src[2] = mad ? src(ins, ins.ops[3]) : vop{vk::rz, 0};
        emit(v);
        return true;
    }
    static const char* const counts[] = {"popc", "clz", "brev"};
    for (unsigned k = 0; k < 3; ++k)
        if (op == counts[k]) {
            if (t != T::b32 || n != 2 || !mods_ok(ins, {})) {
                unsupported(ins);
                return true;
            }
            v.op = opcode::BITS;
            v.mod = static_cast<std::uint8_t>(k);
            v.dst = dst();
            v.src[0] = src(ins, ins.ops[1]);
            emit(v);
            return true;
        }
    if (op == "bfind") {
        if (!i32 || n != 2 || !mods_ok(ins, {"shiftamt"})) {
            unsupported(ins);
            return true;
        }
        v.op = opcode::BITS;
        v.mod = static_cast<std::uint8_t>(
            static_cast<unsigned>(t == T::s32 ? m::bits_fn::FINDS : m::bits_fn::FINDU) |
            (ins.has("shiftamt") ? m::bits_shiftamt : 0));
        v.dst = dst();
        v.src[0] = src(ins, ins.ops[1]);
        emit(v);
        return true;
    }
    if (op == "bfe") {
        if (!i32 || n != 4 || !mods_ok(ins, {})) {
            unsupported(ins);
            return true;
        }
        v.op = opcode::BFX;
        v.mod = static_cast<std::uint8_t>(t == T::s32 ? m::bfx_mode::S : m::bfx_mode::U);
        v.dst = dst();
        for (unsigned k = 0; k < 3; ++k)
            v.src[k] = src(ins, ins.ops[k + 1]);
        emit(v);
        return true;
    }
    if (op == "bfi") {
        if (t != T::b32 || n != 5 || !mods_ok(ins, {})) {
            unsupported(ins);
            return true;
        }
        // BFX.INS takes pos | len << 8 in c.
        const operand& po = ins.ops[3];
        const operand& lo = ins.ops[4];
        vop packed;
        if (po.k == operand::kind::imm_int && lo.k == operand::kind::imm_int) {
            packed = vimm(static_cast<std::uint32_t>((po.ival & 0xff) | (lo.ival & 0xff) << 8));
        } else {
            vins p;
            p.op = opcode::AND;
            p.dst = vreg(temp());
            p.src[0] = src(ins, po);
            p.src[1] = vimm(0xff);
            emit(p);
            vins l;
            l.op = opcode::AND;
            l.dst = vreg(temp());
            l.src[0] = src(ins, lo);
            l.src[1] = vimm(0xff);
            emit(l);
            vins s;
            s.op = opcode::SHL;
            s.dst = vreg(temp());
            s.src[0] = l.dst;
            s.src[1] = vimm(8);
            emit(s);
            vins o;
            o.op = opcode::OR;
            o.dst = vreg(temp());
            o.src[0] = s.dst;
            o.src[1] = p.dst;
            emit(o);
            packed = o.dst;
        }
        v.op = opcode::BFX;
        v.mod = static_cast<std::uint8_t>(m::bfx_mode::INS);
        v.dst = dst();
        v.src[0] = src(ins, ins.ops[1]);
        v.src[1] = src(ins, ins.ops[2]);
        v.src[2] = packed;
        emit(v);
        return true;
    }
    if (op == "prmt") {
        static const char* const modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        unsigned mode = 0;
        for (unsigned k = 0; k < 6; ++k)
            if (ins.has(modes[k]))
                mode = k + 1;
        if (t != T::b32 || n != 4 || !mods_ok(ins, {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"})) {
            unsupported(ins);
            return true;
        }
        v.op = opcode::PRMT;
        v.mod = static_cast<std::uint8_t>(mode);
        v.dst = dst();
        for (unsigned k = 0; k < 3; ++k)
            v.src[k] = src(ins, ins.ops[k + 1]);
        emit(v);
        return true;
    }
    if (op == "copysign" && t == T::f32) { // d = |b| with a's sign
        if (n != 3 || !mods_ok(ins, {})) {
            unsupported(ins);
            return true;
        }
        vins s;
        s.op = opcode::AND;
        s.dst = vreg(temp());
        s.src[0] = src(ins, ins.ops[1]);
        s.src[1] = vimm(0x80000000u);
        emit(s);
        vins mg;
        mg.op = opcode::AND;
        mg.dst = vreg(temp());
        mg.src[0] = src(ins, ins.ops[2]);
        mg.src[1] = vimm(0x7fffffffu);
        emit(mg);
        v.op = opcode::OR;
        v.dst = dst();
        v.src[0] = s.dst;
        v.src[1] = mg.dst;
        emit(v);
        return true;
    }
    if (op == "abs" && t == T::s32) { // max(a, -a); abs(INT_MIN) = INT_MIN as PTX
        if (n != 2 || !mods_ok(ins, {})) {
            unsupported(ins);
            return true;
        }
        const vop a = src(ins, ins.ops[1]);
        vins ng;
        ng.op = opcode::ISUB;
        ng.dst = vreg(temp());
        ng.src[0] = {vk::rz, 0};
        ng.src[1] = a;
        emit(ng);
        v.op = opcode::IMAX;
        v.dst = dst();
        v.src[0] = a;
        v.src[1] = ng.dst;
        emit(v);
        return true;
    }
    if (t == T::f32 && ins.has("ftz") &&
        (op == "abs" || op == "neg" || op == "min" || op == "max")) {
        const bool unary = op == "abs" || op == "neg";
        if (n != (unary ? 2u : 3u) || !mods_ok(ins, {"ftz"})) {
            unsupported(ins);
            return true;
        }
        v.op = op == "abs"   ? opcode::FABS
               : op == "neg" ? opcode::FNEG
               : op == "min" ? opcode::FMIN
                             : opcode::FMAX;
        const vop a = ftz_of(src(ins, ins.ops[1]));
        v.src[0] = a;
        if (!unary)
            v.src[1] = ftz_of(src(ins, ins.ops[2]));
        v.dst = dst();
        emit(v);
        return true;
    }
    if (op == "testp" && t == T::f32) {
        static const std::pair<const char*, m::fcmp> classes[] = {
            {"finite", m::fcmp::FINITE}, {"infinite", m::fcmp::INFINITE},
            {"number", m::fcmp::NUMBER}, {"notanumber", m::fcmp::NOTANUMBER},
            {"normal", m::fcmp::NORMAL}, {"subnormal", m::fcmp::SUBNORMAL}};
        for (const auto& [name, cls] : classes)
            if (ins.has(name) && n == 2) {
                v.op = opcode::FSETPX;
                v.mod = static_cast<std::uint8_t>(cls);
                v.dst = pred_of(ins, ins.ops[0]);
                v.src[0] = src(ins, ins.ops[1]);
                v.src[1] = {vk::rz, 0};
                emit(v);
                return true;
            }
        unsupported(ins);
        return true;
    }
    return false;
}

} // namespace vgpu::ptx::detail
