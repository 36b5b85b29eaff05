// PTX-to-vgpu translator: 64-bit integer operations, conversions, loads, stores, parameters
// and atomics on register pairs (docs/cuda.md, "fp64 and 64-bit integers"); the analysis and
// the fp64 arithmetic are in lower_wide.cpp.
#include "models/sm/core/isa64.h"
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>

namespace vgpu::ptx::detail {

namespace {

using T = data_type;
namespace m = sm::mods;

bool is_int64(data_type t)
{
    return t == T::b64 || t == T::u64 || t == T::s64;
}
bool is_int32(data_type t)
{
    return t == T::b32 || t == T::u32 || t == T::s32;
}
bool is_signed(data_type t)
{
    return t == T::s32 || t == T::s64;
}

std::optional<m::rounding> rounding_of(const instruction& ins, bool integral)
{
    static const char* const names[2][4] = {{"rn", "rz", "rm", "rp"}, {"rni", "rzi", "rmi", "rpi"}};
    for (unsigned k = 0; k < 4; ++k)
        if (ins.has(names[integral][k]))
            return static_cast<m::rounding>(k);
    return std::nullopt;
}

unsigned fn(m::i64 f)
{
    return static_cast<unsigned>(f);
}

vop high(vop v)
{
    v.half = 1;
    return v;
}

} // namespace

void translator::wide_int(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const data_type t = ins.type();
    const bool sgn = is_signed(t);
    const vop rz{vk::rz, 0};
    auto s = [&](std::size_t k) { return pair_src(ins, ins.ops[k], false); };
    auto d = [&] { return pair_reg(ins, ins.ops[0]); };
    auto want = [&](std::size_t n, std::initializer_list<const char*> allowed) {
        if (ins.ops.size() != n || !mods_ok(ins, allowed)) {
            unsupported(ins);
            return false;
        }
        return true;
    };
    if (op == "setp") { // I64SETP, combined as a 32-bit comparison's (lower_ext.cpp)
        lower_setp_ext(ins);
        return;
    }
    if ((op == "mul" || op == "mad") && ins.has("wide")) { // 32-bit operands, a 64-bit product
        if (!want(op == "mul" ? 3 : 4, {"wide"}))
            return;
        const unsigned f = fn(sgn ? m::i64::WIDE_S : m::i64::WIDE_U);
        const vop a = src(ins, ins.ops[1]), b = src(ins, ins.ops[2]);
        if (op == "mul") {
            emit_wide(opcode::I64, f, d(), a, b);
            return;
        }
        const vop p = emit_wide(opcode::I64, f, vreg(wide_temp()), a, b);
        emit_wide(opcode::I64, fn(m::i64::ADD), d(), p, s(3));
        return;
    }
    if (op == "mul" || op == "mad") {
        const bool hi = ins.has("hi");
        if (!want(op == "mul" ? 3 : 4, {"lo", "hi"}))
            return;
        const unsigned f = fn(!hi ? m::i64::MUL : sgn ? m::i64::MULHI_S : m::i64::MULHI_U);
        if (op == "mul") {
            emit_wide(opcode::I64, f, d(), s(1), s(2));
            return;
        }
        const vop p = emit_wide(opcode::I64, f, vreg(wide_temp()), s(1), s(2));
        emit_wide(opcode::I64, fn(m::i64::ADD), d(), p, s(3));
        return;
    }
    struct rule {
        const char* ptx;
        m::i64 s, u; // signed and unsigned (or bit) function
        unsigned srcs;
    };
    static const rule rules[] = {
        {"add", m::i64::ADD, m::i64::ADD, 2},     {"sub", m::i64::SUB, m::i64::SUB, 2},
        {"and", m::i64::AND, m::i64::AND, 2},     {"or", m::i64::OR, m::i64::OR, 2},
        {"xor", m::i64::XOR, m::i64::XOR, 2},     {"not", m::i64::NOT, m::i64::NOT, 1},
        {"min", m::i64::MIN, m::i64::UMIN, 2},    {"max", m::i64::MAX, m::i64::UMAX, 2},
        {"div", m::i64::DIV_S, m::i64::DIV_U, 2}, {"rem", m::i64::REM_S, m::i64::REM_U, 2},
        {"shl", m::i64::SHL, m::i64::SHL, 2},     {"shr", m::i64::SAR, m::i64::SHR, 2},
        {"popc", m::i64::POPC, m::i64::POPC, 1},  {"clz", m::i64::CLZ, m::i64::CLZ, 1},
        {"brev", m::i64::BREV, m::i64::BREV, 1},
    };
    for (const rule& r : rules) {
        if (op != r.ptx)
            continue;
        if (!want(r.srcs + 1, {}))
            return;
        const bool shift = op == "shl" || op == "shr";
        const bool count = op == "popc" || op == "clz"; // a 32-bit result
        const vop dst = count ? reg_of(ins, ins.ops[0]) : d();
        const vop b = r.srcs == 1 ? rz : shift ? src(ins, ins.ops[2]) : s(2);
        emit_wide(opcode::I64, fn(sgn ? r.s : r.u), dst, s(1), b);
        return;
    }
    if (op == "neg" || op == "abs") {
        if (!want(2, {}) || !sgn) {
            if (!m_failed)
                unsupported(ins);
            return;
        }
        if (op == "neg") {
            emit_wide(opcode::I64, fn(m::i64::SUB), d(), rz, s(1));
            return;
        }
        const vop a = s(1);
        const vop n = emit_wide(opcode::I64, fn(m::i64::SUB), vreg(wide_temp()), rz, a);
        emit_wide(opcode::I64, fn(m::i64::MAX), d(), a, n); // abs(INT64_MIN) = INT64_MIN
        return;
    }
    if (op == "bfe" || op == "bfi" || op == "bfind") {
        wide_bitfield(ins);
        return;
    }
    unsupported(ins, "this 64-bit integer operation has no register-pair lowering");
}

void translator::wide_bitfield(const instruction& ins)
{
    // bfe/bfi/bfind on 64 bits: sequences of I64 shifts and masks (docs/cuda.md, "fp64 and
    // 64-bit integers"); pos and len are the low 8 bits of their 32-bit operands.
    const std::string& op = ins.opcode;
    const data_type t = ins.type();
    const vop rz{vk::rz, 0};
    auto op32 = [&](opcode o, vop a, vop b) {
        vins v;
        v.op = o;
        v.dst = vreg(temp());
        v.src[0] = a;
        v.src[1] = b;
        emit(v);
        return v.dst;
    };
    auto i64 = [&](m::i64 f, vop a, vop b = {}) {
        return emit_wide(opcode::I64, fn(f), vreg(wide_temp()), a, b);
    };
    auto equals = [&](vop x, std::uint32_t k) { // a predicate: x == k
        vins v;
        v.op = opcode::ISETP;
        v.cond = cmp_op::EQ;
        v.dst = temp_pred();
        v.src[0] = x;
        v.src[1] = vimm(k);
        emit(v);
        return v.dst;
    };
    auto sel = [&](vop d, vop when, vop other, vop p) {
        vins v;
        v.op = opcode::SEL;
        v.dst = d;
        v.src = {when, other, p};
        emit(v);
    };
    const bool bfind = op == "bfind";
    const std::size_t n = op == "bfi" ? 5 : bfind ? 2 : 4;
    if (ins.ops.size() != n ||
        !mods_ok(ins, bfind ? std::initializer_list<const char*>{"shiftamt"}
                            : std::initializer_list<const char*>{}) ||
        (op == "bfi" && t != T::b64) || (op != "bfi" && t != T::u64 && t != T::s64)) {
        unsupported(ins);
        return;
    }
    if (bfind) { // the most significant bit unlike the sign (s64) or set (u64): 63 - clz
        vop x = pair_src(ins, ins.ops[1], false);
        if (t == T::s64)
            x = i64(m::i64::XOR, x, i64(m::i64::SAR, x, vimm(63)));
        const vop z = emit_wide(opcode::I64, fn(m::i64::CLZ), vreg(temp()), x, rz);
        const vop d = reg_of(ins, ins.ops[0]);
        if (!ins.has("shiftamt")) {
            vins v; // 63 - 64 = 0xffffffff where no bit is found
            v.op = opcode::ISUB;
            v.dst = d;
            v.src[0] = vimm(63);
            v.src[1] = z;
            emit(v);
            return;
        }
        sel(d, vimm(0xffffffffu), z, equals(z, 64)); // shiftamt: clz, or none found
        return;
    }
    const vop a = pair_src(ins, ins.ops[1], false);
    const vop pos = op32(opcode::AND, src(ins, ins.ops[op == "bfi" ? 3 : 2]), vimm(0xff));
    const vop len = op32(opcode::AND, src(ins, ins.ops[op == "bfi" ? 4 : 3]), vimm(0xff));
    if (m_failed)
        return;
    // The field's mask: (1 << len) - 1, all ones from len 64 on (the shift gives 0).
    const vop mask = i64(m::i64::SUB, i64(m::i64::SHL, vimm(1), len), vimm(1));
    if (op == "bfi") { // f = b with bits [pos, pos + len) from a's low bits
        const vop b = pair_src(ins, ins.ops[2], false);
        const vop place = i64(m::i64::SHL, mask, pos);
        const vop ins_bits = i64(m::i64::AND, i64(m::i64::SHL, a, pos), place);
        const vop kept = i64(m::i64::AND, b, i64(m::i64::NOT, place, rz));
        emit_wide(opcode::I64, fn(m::i64::OR), pair_reg(ins, ins.ops[0]), kept, ins_bits);
        return;
    }
    if (t == T::u64) { // (a >> pos) & mask: zeros beyond bit 63
        emit_wide(opcode::I64, fn(m::i64::AND), pair_reg(ins, ins.ops[0]), i64(m::i64::SHR, a, pos),
                  mask);
        return;
    }
    // s64: (a << left) >> right arithmetic, left = max(64 - pos - len, 0), right = left + pos
    // (from pos + len > 64 on, a >> pos: the sign bit is a's bit 63); len 0 gives 0.
    const vop left =
        op32(opcode::IMAX, op32(opcode::ISUB, vimm(64), op32(opcode::IADD, pos, len)), vimm(0));
    const vop right = op32(opcode::IADD, left, pos);
    const vop y = i64(m::i64::SAR, i64(m::i64::SHL, a, left), right);
    const vop none = equals(len, 0);
    const vop d = pair_reg(ins, ins.ops[0]);
    sel(d, vimm(0), y, none);
    vop dh = d, yh = y;
    dh.half = 1;
    yh.half = 1;
    sel(dh, vimm(0), yh, none);
}

void translator::wide_cvt(const instruction& ins)
{
    const data_type d = ins.types[0], s = ins.types[1];
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    const bool dint = is_int32(d) || is_int64(d), sint = is_int32(s) || is_int64(s);
    const auto fr = rounding_of(ins, false), ir = rounding_of(ins, true);
    vins v;
    v.op = opcode::DCVT;
    v.src[0] = src(ins, ins.ops[1]);
    auto pair_dst = [&] { return pair_reg(ins, ins.ops[0]); };
    auto pair_in = [&] { return pair_src(ins, ins.ops[1], s == T::f64); };
    unsigned mod = 0;
    const char* need = nullptr;
    if (dint && sint) { // widening into a pair (the narrowing and low-word forms are lower.cpp's)
        if (!mods_ok(ins, {})) {
            unsupported(ins);
            return;
        }
        v.op = opcode::I64;
        v.dst = pair_dst();
        if (is_int64(s)) {
            v.mod = static_cast<std::uint8_t>(fn(m::i64::MOV));
            v.src[0] = pair_in();
        } else {
            v.mod = static_cast<std::uint8_t>(fn(is_signed(s) ? m::i64::SEXT : m::i64::PACK));
        }
        v.src[1] = {vk::rz, 0};
        emit(v);
        return;
    }
    const unsigned width = is_int64(dint ? d : s) ? m::dcvt_64 : 0;
    const unsigned sign = is_signed(dint ? d : s) ? m::dcvt_signed : 0;
    if (d == T::f64 && s == T::f32) {
        need = mods_ok(ins, {}) ? nullptr : "cvt.f64.f32 takes no modifier";
        mod = m::dcvt_mod(m::dcvt::F2D);
        v.dst = pair_dst();
    } else if (d == T::f32 && s == T::f64) {
        need = fr && mods_ok(ins, {"rn", "rz", "rm", "rp"}) ? nullptr
                                                            : "cvt.f32.f64 needs .rn/.rz/.rm/.rp "
                                                              "(.ftz and .sat are not supported)";
        mod = m::dcvt_mod(m::dcvt::D2F, fr.value_or(m::rounding::RN));
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = pair_in();
    } else if (d == T::f64 && s == T::f64) {
        if (!ir || !mods_ok(ins, {"rni", "rzi", "rmi", "rpi"})) {
            unsupported(ins, "cvt.f64.f64 rounds to an integral value (.rni .rzi .rmi .rpi)");
            return;
        }
        mod = m::dcvt_mod(m::dcvt::DRND, *ir);
        v.dst = pair_dst();
        v.src[0] = pair_in();
    } else if ((d == T::f64 || d == T::f32) && sint) {
        need = fr && mods_ok(ins, {"rn", "rz", "rm", "rp"}) ? nullptr
                                                            : "an integer-to-float cvt needs .rn, "
                                                              ".rz, .rm or .rp";
        mod = m::dcvt_mod(d == T::f64 ? m::dcvt::I2D : m::dcvt::I2F, fr.value_or(m::rounding::RN),
                          width | sign);
        v.dst = d == T::f64 ? pair_dst() : reg_of(ins, ins.ops[0]);
        if (width)
            v.src[0] = pair_in();
    } else if (dint && (s == T::f64 || s == T::f32)) {
        need = ir && mods_ok(ins, {"rni", "rzi", "rmi", "rpi"})
                   ? nullptr
                   : "a float-to-integer cvt needs .rni, .rzi, .rmi or .rpi (.ftz and .sat are not "
                     "supported with 64-bit types)";
        mod = m::dcvt_mod(s == T::f64 ? m::dcvt::D2I : m::dcvt::F2I, ir.value_or(m::rounding::RN),
                          width | sign);
        v.dst = width ? pair_dst() : reg_of(ins, ins.ops[0]);
        if (s == T::f64)
            v.src[0] = pair_in();
    } else {
        unsupported(ins);
        return;
    }
    if (need) {
        unsupported(ins, need);
        return;
    }
    v.mod = static_cast<std::uint8_t>(mod);
    emit(v);
}

void translator::wide_access(const instruction& ins, bool store)
{
    const data_type t = ins.type();
    const bool fp = t == T::f64;
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    if (ins.space == state_space::param) { // ld.param: low word at the parameter's index,
        const operand& a = ins.ops[1];     // high word after all parameters (docs/cuda.md)
        if (store || !mods_ok(ins, {}) || a.k != operand::kind::address || a.base_is_reg ||
            ins.ops[0].k != operand::kind::reg) {
            unsupported(ins);
            return;
        }
        std::size_t index = npos, high_index = m_fn.params.size();
        for (std::size_t p = 0; p < m_fn.params.size() && index == npos; ++p) {
            if (m_fn.params[p].name == a.name)
                index = p;
            else if (type_bits(m_fn.params[p].type) == 64)
                ++high_index;
        }
        if (index == npos || a.ival != 0 || type_bits(m_fn.params[index].type) != 64) {
            unsupported(ins, index == npos ? "'" + a.name + "' is not a parameter of the entry"
                                           : "a load from inside a by-value aggregate parameter");
            return;
        }
        const vop d = pair_reg(ins, ins.ops[0]);
        vins v;
        v.op = opcode::LDP;
        v.dst = d;
        v.src[0] = vimm(static_cast<std::uint32_t>(index));
        emit(v);
        v.dst = high(d);
        v.src[0] = vimm(static_cast<std::uint32_t>(high_index));
        emit(v);
        return;
    }
    const bool mods =
        store ? mods_ok(ins, {"cg", "cs", "wb", "wt", "volatile", "weak", "v2", "v4"})
              : mods_ok(ins, {"nc", "ca", "cg", "cs", "lu", "cv", "volatile", "weak", "v2", "v4"});
    if (!mods) {
        unsupported(ins);
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[store ? 0 : 1], base, off))
        return;
    const operand& data = ins.ops[store ? 1 : 0];
    std::vector<const operand*> elems;
    if (data.k == operand::kind::vector)
        for (const operand& e : data.elems)
            elems.push_back(&e);
    else
        elems.push_back(&data);
    // Two 32-bit accesses per element, at offset + 8k and + 4 (the low word first).
    for (std::size_t k = 0; k < elems.size(); ++k) {
        const operand& e = *elems[k];
        vins v;
        v.op = store ? opcode::ST : opcode::LD;
        v.space = ins.space == state_space::shared ? sm::mem_space::shared : sm::mem_space::global;
        v.src[0] = base;
        v.offset = off + 8 * static_cast<std::int32_t>(k);
        if (!store) {
            if (e.k == operand::kind::sink)
                continue;
            const vop d = reg_of(ins, e);
            v.dst = d;
            emit(v);
            if (d.k == vk::reg && !is_wide_vreg(d.v))
                continue; // only the low word is used
            v.dst = high(d);
            v.offset += 4;
            emit(v);
            continue;
        }
        vop lo, hi;
        if (e.k == operand::kind::reg) {
            lo = pair_src(ins, e, fp);
            hi = high(lo);
        } else if (e.k == operand::kind::imm_int || e.k == operand::kind::imm_f64) {
            const auto b = static_cast<std::uint64_t>(e.ival);
            lo = vimm(static_cast<std::uint32_t>(b));
            hi = vimm(static_cast<std::uint32_t>(b >> 32));
        } else {
            unsupported(ins, "operand '" + e.name + "' of a 64-bit store");
            return;
        }
        for (const vop w : {lo, hi}) {
            vop x = w;
            if (w.k == vk::imm) { // ST stores a register
                vins mv;
                mv.op = opcode::MOV;
                mv.dst = vreg(temp());
                mv.src[0] = w;
                emit(mv);
                x = mv.dst;
            }
            v.src[1] = x;
            emit(v);
            v.offset += 4;
        }
    }
}

void translator::wide_atom(const instruction& ins)
{
    // atom/red.{global,shared}.op.{b64,u64,s64,f64} onto ATOM.op.B64 / CAS.B64 on register
    // pairs (docs/cuda.md, "Atomics").
    struct atom_rule {
        const char* ptx;
        std::initializer_list<data_type> types;
        sm::atom_op op;
    };
    static const atom_rule rules[] = {
        {"add", {T::u64, T::s64}, sm::atom_op::ADD},
        {"add", {T::f64}, sm::atom_op::FADD},
        {"min", {T::s64}, sm::atom_op::MIN},
        {"min", {T::u64}, sm::atom_op::UMIN},
        {"max", {T::s64}, sm::atom_op::MAX},
        {"max", {T::u64}, sm::atom_op::UMAX},
        {"exch", {T::b64, T::u64, T::s64}, sm::atom_op::EXCH},
        {"and", {T::b64, T::u64, T::s64}, sm::atom_op::AND},
        {"or", {T::b64, T::u64, T::s64}, sm::atom_op::OR},
        {"xor", {T::b64, T::u64, T::s64}, sm::atom_op::XOR},
        {"cas", {T::b64, T::u64, T::s64}, sm::atom_op::ADD},
    };
    const bool red = ins.opcode == "red";
    const data_type t = ins.type();
    const atom_rule* rule = nullptr;
    for (const atom_rule& r : rules)
        if (std::find(r.types.begin(), r.types.end(), t) != r.types.end() && ins.has(r.ptx) &&
            !(red && std::string(r.ptx) == "cas"))
            rule = &r;
    const bool cas = rule && std::string(rule->ptx) == "cas";
    const unsigned nops = (red ? 2u : 3u) + (cas ? 1u : 0u);
    if (!rule || !mods_ok(ins, {rule->ptx, "relaxed", "gpu", "cta", "sys"}) ||
        ins.ops.size() != nops ||
        (ins.space != state_space::global && ins.space != state_space::none &&
         ins.space != state_space::shared)) {
        unsupported(ins, "64-bit atomics are add (u64, s64, f64), min/max (s64, u64), exch, cas, "
                         "and, or, xor (b64, u64, s64) on global or shared memory");
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[red ? 0 : 1], base, off))
        return;
    // A pair operand: a pair register, or a constant packed into one (ATOM takes registers).
    auto pair_operand = [&](const operand& o) {
        const bool fp = t == T::f64;
        vop v = pair_src(ins, o, fp);
        if (v.k != vk::imm)
            return v;
        std::uint64_t bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(
            static_cast<std::int32_t>(v.v))); // an integer immediate: sign-extended
        if (fp) {                             // an fp32 immediate: widened exactly
            float f;
            std::memcpy(&f, &v.v, sizeof f);
            const double d = f;
            std::memcpy(&bits, &d, sizeof bits);
        }
        return emit_wide(opcode::I64, fn(m::i64::PACK), vreg(wide_temp()),
                         vimm(static_cast<std::uint32_t>(bits)),
                         vimm(static_cast<std::uint32_t>(bits >> 32)));
    };
    const vop b = pair_operand(ins.ops[red ? 1 : 2]);
    const vop c = cas ? pair_operand(ins.ops[3]) : vop{};
    const vop d = red ? vop{vk::rz, 0} : pair_reg(ins, ins.ops[0]);
    if (m_failed)
        return;
    if (cas && off != 0) { // CAS takes no offset: the address goes in a register
        vins a;
        a.op = base.k == vk::rz ? opcode::MOV : opcode::IADD;
        a.dst = vreg(temp());
        a.src[0] = base.k == vk::rz ? vimm(static_cast<std::uint32_t>(off)) : base;
        if (base.k != vk::rz)
            a.src[1] = vimm(static_cast<std::uint32_t>(off));
        emit(a);
        base = a.dst;
        off = 0;
    }
    vins v;
    v.op = cas ? opcode::CAS : opcode::ATOM;
    v.space = ins.space == state_space::shared ? sm::mem_space::shared : sm::mem_space::global;
    v.width = sm::mem_width::b64;
    v.aop = rule->op;
    v.dst = d;
    v.src = {base, b, c};
    v.offset = off;
    emit(v);
}

} // namespace vgpu::ptx::detail
