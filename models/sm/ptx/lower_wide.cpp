// PTX-to-vgpu translator: fp64 and 64-bit integers on register pairs (docs/cuda.md, "fp64 and
// 64-bit integers"). A 64-bit PTX register becomes a pair Rn:Rn+1 only where its high half
// matters (find_wide, a backward analysis over the body); elsewhere it stays one register
// holding its low 32 bits ("64-bit address arithmetic"), so address arithmetic costs what it
// did. lower.cpp's dispatcher calls lower_wide first.
#include "models/sm/core/isa64.h"
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
bool is_int(data_type t)
{
    return is_int32(t) || is_int64(t);
}
bool is_64(data_type t)
{
    return is_int64(t) || t == T::f64;
}

/// The rounding of an fp modifier list: .rn .rz .rm .rp (or the integer forms .rni ...).
std::optional<m::rounding> rounding_of(const instruction& ins, bool integral)
{
    static const char* const names[2][4] = {{"rn", "rz", "rm", "rp"}, {"rni", "rzi", "rmi", "rpi"}};
    for (unsigned k = 0; k < 4; ++k)
        if (ins.has(names[integral][k]))
            return static_cast<m::rounding>(k);
    return std::nullopt;
}

/// Operations whose result depends on the high 32 bits of their 64-bit integer operands.
bool needs_high(const instruction& ins)
{
    static const char* const ops[] = {"setp", "shr",   "div",  "rem",   "min",  "max",
                                      "popc", "clz",   "brev", "bfind", "atom", "red",
                                      "st",   "testp", "bfe",  "bfi"};
    const std::string& op = ins.opcode;
    if (std::any_of(std::begin(ops), std::end(ops), [&](const char* o) { return op == o; }))
        return true;
    if ((op == "mul" || op == "mad") && ins.has("hi"))
        return true;
    if (op == "cvt" && ins.types.size() == 2) // to or from a float type, or widening
        for (const data_type t : ins.types)
            if (t == T::f32 || t == T::f64 || t == T::f16)
                return true;
    if (op == "mov" && !ins.ops.empty() && ins.ops[0].k == operand::kind::vector)
        return true; // mov.b64 {lo, hi}, a: the high word is read
    return std::any_of(ins.types.begin(), ins.types.end(), [](data_type t) { return t == T::f64; });
}

vop high(vop v)
{
    v.half = 1;
    return v;
}

std::uint32_t f32_bits(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

} // namespace

void translator::find_wide()
{
    // Seeds: every .f64 register, and the 64-bit registers an operation reads or writes whose
    // result depends on high bits (needs_high). Then, backward to a fixed point: the 64-bit
    // sources of an instruction that writes a pair are pairs (their high halves make its).
    // Flow-insensitive: a register is a pair everywhere or nowhere.
    auto key_of = [&](const operand& o) -> std::optional<std::pair<int, int>> {
        if (o.k != operand::kind::reg || o.decl < 0)
            return std::nullopt;
        const variable& d = m_fn.decls[static_cast<std::size_t>(o.decl)];
        if (!is_64(d.type))
            return std::nullopt;
        return std::make_pair(o.decl, o.index);
    };
    bool changed = false;
    auto mark = [&](const operand& o) {
        if (const auto k = key_of(o); k && m_wide_keys.insert(*k).second)
            changed = true;
    };
    auto mark_all = [&](const operand& o) { // a register or a vector's registers, not addresses
        if (o.k == operand::kind::vector)
            for (const operand& e : o.elems)
                mark(e);
        else
            mark(o);
    };
    // A vprintf call's format and argument pointers are not values (lower_printf.cpp).
    auto skipped = [&](const instruction& ins) {
        return m_printf_skip.count(static_cast<std::size_t>(&ins - m_fn.body.data())) != 0;
    };
    for (const instruction& ins : m_fn.body) {
        if (skipped(ins))
            continue;
        for (const operand& o : ins.ops) {
            const auto each = [&](const operand& r) {
                if (r.k == operand::kind::reg && r.decl >= 0 &&
                    m_fn.decls[static_cast<std::size_t>(r.decl)].type == T::f64)
                    mark(r);
            };
            each(o);
            for (const operand& e : o.elems)
                each(e);
        }
        if (!needs_high(ins) || local_compare(ins))
            continue; // a comparison of local addresses compares their 32-bit offsets
        const bool store = ins.opcode == "st" || ins.opcode == "red";
        for (std::size_t k = 0; k < ins.ops.size(); ++k)
            if (!(store && k == 0))
                mark_all(ins.ops[k]);
    }
    do {
        changed = false;
        for (const instruction& ins : m_fn.body) {
            if (ins.ops.empty() || ins.opcode == "st" || ins.opcode == "red" || skipped(ins))
                continue;
            const auto d = key_of(ins.ops[0]);
            if (!d || !m_wide_keys.count(*d))
                continue;
            for (std::size_t k = 1; k < ins.ops.size(); ++k)
                mark_all(ins.ops[k]);
        }
    } while (changed);
}

std::uint32_t translator::wide_temp()
{
    const std::uint32_t r = temp();
    m_vwide.resize(std::max<std::size_t>(m_vwide.size(), r + 1), 0);
    m_vwide[r] = 1;
    return r;
}

vop translator::emit_wide(opcode op, unsigned mod, vop d, vop a, vop b, vop c)
{
    vins v;
    v.op = op;
    v.mod = static_cast<std::uint8_t>(mod);
    v.dst = d;
    v.src = {a, b, c};
    emit(v);
    return d;
}

vop translator::pair_reg(const instruction& ins, const operand& op)
{
    const vop r = reg_of(ins, op);
    if (r.k == vk::reg && !is_wide_vreg(r.v)) {
        unsupported(ins, "register '" + op.name + "' is not a register pair");
        return {};
    }
    return r;
}

vop translator::pair_src(const instruction& ins, const operand& op, bool fp)
{
    if (op.k == operand::kind::reg)
        return pair_reg(ins, op);
    std::uint64_t bits = 0;
    if (op.k == operand::kind::imm_int) {
        if (!fp && op.ival == static_cast<std::int32_t>(op.ival)) // sign-extended
            return vimm(static_cast<std::uint32_t>(op.ival));
        bits = static_cast<std::uint64_t>(op.ival);
        if (fp) {
            const double d = static_cast<double>(op.ival);
            std::memcpy(&bits, &d, sizeof bits);
        }
    } else if (op.k == operand::kind::imm_f64 || op.k == operand::kind::imm_f32) {
        const double d = op.fval;
        if (fp && !std::isnan(d) && static_cast<double>(static_cast<float>(d)) == d)
            return vimm(f32_bits(static_cast<float>(d))); // an fp32 immediate widens exactly
        std::memcpy(&bits, &d, sizeof bits);
        if (!fp)
            bits = static_cast<std::uint64_t>(op.ival);
    } else {
        unsupported(ins, "operand '" + op.name + "' of a 64-bit operation");
        return {};
    }
    // Other constants: the two words packed into a pair.
    return emit_wide(opcode::I64, static_cast<unsigned>(m::i64::PACK), vreg(wide_temp()),
                     vimm(static_cast<std::uint32_t>(bits)),
                     vimm(static_cast<std::uint32_t>(bits >> 32)));
}

bool translator::lower_wide(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const data_type t = ins.type();
    const bool f64 =
        std::any_of(ins.types.begin(), ins.types.end(), [](data_type x) { return x == T::f64; });
    bool wide_dst = false;
    if (!ins.ops.empty() && ins.ops[0].k == operand::kind::reg && ins.ops[0].decl >= 0)
        wide_dst = m_wide_keys.count({ins.ops[0].decl, ins.ops[0].index}) != 0;
    if (op == "ld" || op == "st") {
        if (!is_64(t))
            return false;
        if (ins.space != state_space::global && ins.space != state_space::shared &&
            ins.space != state_space::none && ins.space != state_space::param)
            return false; // other spaces are lower.cpp's (located errors there)
        if (ins.space == state_space::param && !wide_dst && !f64)
            return false; // a 64-bit parameter's low word: LDP, as before
        wide_access(ins, op == "st");
        return true;
    }
    if (op == "atom" || op == "red") {
        if (!is_64(t))
            return false;
        wide_atom(ins);
        return true;
    }
    if (op == "cvt") {
        if (ins.types.size() != 2)
            return false;
        const data_type d = ins.types[0], s = ins.types[1];
        const bool int_int = is_int(d) && is_int(s);
        if ((int_int && !wide_dst) || (!f64 && !(is_int64(d) || is_int64(s))) ||
            (!int_int && !f64 && d != T::f32 && s != T::f32))
            return false;
        wide_cvt(ins);
        return true;
    }
    if (f64) {
        wide_float(ins);
        return true;
    }
    if (op == "mov" || op == "selp" || op == "cvta") {
        const bool unpack =
            op == "mov" && !ins.ops.empty() && ins.ops[0].k == operand::kind::vector;
        const bool pack =
            op == "mov" && ins.ops.size() == 2 && ins.ops[1].k == operand::kind::vector;
        if (!wide_dst && !unpack && !pack)
            return false;
        wide_move(ins);
        return true;
    }
    if (is_int64(t) && (wide_dst || op == "setp" || needs_high(ins))) {
        wide_int(ins);
        return true;
    }
    if (wide_dst) { // mul.wide, mad.wide of 32-bit operands into a pair; nothing else
        if ((op == "mul" || op == "mad") && ins.has("wide") && is_int32(t)) {
            wide_int(ins);
        } else {
            unsupported(ins, "its 64-bit result is needed in full (a register pair) and this "
                             "form has no pair lowering");
        }
        return true;
    }
    return false;
}

void translator::wide_float(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const auto rnd = rounding_of(ins, false);
    const unsigned r = rnd ? static_cast<unsigned>(*rnd) : 0;
    auto n_ops = [&](std::size_t n, std::initializer_list<const char*> allowed) {
        if (ins.ops.size() != n || ins.types.size() != 1 || !mods_ok(ins, allowed)) {
            unsupported(ins);
            return false;
        }
        return true;
    };
    auto s = [&](std::size_t k) { return pair_src(ins, ins.ops[k], true); };
    auto d = [&] { return pair_reg(ins, ins.ops[0]); };
    const std::initializer_list<const char*> rounds = {"rn", "rz", "rm", "rp"};
    if (op == "add" || op == "mul") {
        if (n_ops(3, rounds))
            emit_wide(op == "add" ? opcode::DADD : opcode::DMUL, r, d(), s(1), s(2));
    } else if (op == "sub") { // a - b = fma(b, -1, a): one rounding of the exact difference
        if (n_ops(3, rounds))
            emit_wide(opcode::DFMA, r, d(), s(2), vimm(f32_bits(-1.0f)), s(1));
    } else if (op == "fma" || op == "mad") {
        if (!n_ops(4, rounds))
            return;
        if (!rnd)
            unsupported(ins, "fma.f64 needs a rounding modifier");
        else
            emit_wide(opcode::DFMA, r, d(), s(1), s(2), s(3));
    } else if (op == "div" || op == "sqrt" || op == "rcp") {
        const bool approx = ins.has("approx");
        const bool unary = op != "div";
        if (!n_ops(unary ? 2 : 3, {"rn", "rz", "rm", "rp", "approx", "ftz"}))
            return;
        if (!rnd && !(approx && op == "rcp")) {
            unsupported(ins, "fp64 division, square root and reciprocal are IEEE (.rn, .rz, "
                             ".rm, .rp; rcp.approx.ftz.f64 as .rn)");
            return;
        }
        const auto fn = op == "div" ? m::dfn::DIV : op == "sqrt" ? m::dfn::SQRT : m::dfn::RCP;
        emit_wide(opcode::DFN, m::dfn_mod(fn, rnd.value_or(m::rounding::RN)), d(), s(1),
                  unary ? vop{vk::rz, 0} : s(2));
    } else if (op == "rsqrt") { // rsqrt.approx.f64: the IEEE root's rounded reciprocal
        if (!n_ops(2, {"approx", "ftz"}) || !ins.has("approx"))
            return;
        const vop t =
            emit_wide(opcode::DFN, m::dfn_mod(m::dfn::SQRT), vreg(wide_temp()), s(1), {vk::rz, 0});
        emit_wide(opcode::DFN, m::dfn_mod(m::dfn::RCP), d(), t, {vk::rz, 0});
    } else if (op == "min" || op == "max" || op == "abs" || op == "neg") {
        const bool unary = op == "abs" || op == "neg";
        if (!n_ops(unary ? 2 : 3, {}))
            return;
        const auto fn = op == "min"   ? m::dfn::MIN
                        : op == "max" ? m::dfn::MAX
                        : op == "abs" ? m::dfn::ABS
                                      : m::dfn::NEG;
        emit_wide(opcode::DFN, m::dfn_mod(fn), d(), s(1), unary ? vop{vk::rz, 0} : s(2));
    } else if (op == "setp" || op == "testp") {
        static const char* const cmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                           "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
        static const char* const classes[] = {"finite",     "infinite", "number",
                                              "notanumber", "normal",   "subnormal"};
        const bool test = op == "testp";
        int code = -1;
        for (unsigned k = 0; k < (test ? 6u : 14u); ++k)
            if (ins.has(test ? classes[k] : cmps[k]))
                code = static_cast<int>(test ? 16 + k : k);
        if (code < 0 || ins.ops.size() != (test ? 2u : 3u) || ins.ops[0].k == operand::kind::pair) {
            unsupported(ins, test ? "" : "setp.f64 with a combining predicate or two destinations");
            return;
        }
        vins v;
        v.op = opcode::DSETP;
        v.mod = static_cast<std::uint8_t>(code);
        v.dst = pred_of(ins, ins.ops[0]);
        v.src[0] = s(1);
        v.src[1] = test ? vop{vk::rz, 0} : s(2);
        emit(v);
    } else if (op == "mov" || op == "selp") {
        wide_move(ins);
    } else {
        unsupported(ins, "this fp64 operation is not in the vgpu ISA");
    }
}

void translator::wide_move(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const bool fp = ins.type() == T::f64;
    if (!mods_ok(ins, op == "cvta" ? std::initializer_list<const char*>{"to", "global"}
                                   : std::initializer_list<const char*>{})) {
        unsupported(ins);
        return;
    }
    // The two words of a source: a pair's halves, or an immediate's.
    auto words = [&](const operand& o, vop& lo, vop& hi) {
        if (o.k == operand::kind::imm_int || o.k == operand::kind::imm_f64) {
            const auto b = static_cast<std::uint64_t>(o.ival);
            lo = vimm(static_cast<std::uint32_t>(b));
            hi = vimm(static_cast<std::uint32_t>(b >> 32));
            return;
        }
        lo = pair_reg(ins, o);
        hi = high(lo);
    };
    if (op == "selp") {
        if (ins.ops.size() != 4) {
            unsupported(ins);
            return;
        }
        const vop d = pair_reg(ins, ins.ops[0]);
        vop al, ah, bl, bh;
        words(ins.ops[1], al, ah);
        words(ins.ops[2], bl, bh);
        const vop p = pred_of(ins, ins.ops[3]);
        if (ins.ops[3].negated) {
            std::swap(al, bl);
            std::swap(ah, bh);
        }
        vins v;
        v.op = opcode::SEL;
        v.dst = d;
        v.src = {al, bl, p};
        emit(v);
        v.dst = high(d);
        v.src = {ah, bh, p};
        emit(v);
        return;
    }
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    const operand& dst = ins.ops[0];
    const operand& a = ins.ops[1];
    if (dst.k == operand::kind::vector) { // mov.b64 {lo, hi}, a
        if (dst.elems.size() != 2 || (a.k != operand::kind::reg && a.k != operand::kind::imm_int &&
                                      a.k != operand::kind::imm_f64)) {
            unsupported(ins);
            return;
        }
        vop lo, hi;
        words(a, lo, hi);
        for (unsigned k = 0; k < 2; ++k) {
            if (dst.elems[k].k == operand::kind::sink)
                continue;
            vins v;
            v.op = opcode::MOV;
            v.dst = reg_of(ins, dst.elems[k]);
            v.src[0] = k ? hi : lo;
            emit(v);
        }
        return;
    }
    if (a.k == operand::kind::vector) { // mov.b64 d, {lo, hi}
        if (a.elems.size() != 2) {
            unsupported(ins);
            return;
        }
        const vop d = reg_of(ins, dst);
        if (d.k == vk::reg && !is_wide_vreg(d.v)) { // only the low word matters
            vins v;
            v.op = opcode::MOV;
            v.dst = d;
            v.src[0] = src(ins, a.elems[0]);
            emit(v);
            return;
        }
        emit_wide(opcode::I64, static_cast<unsigned>(m::i64::PACK), d, src(ins, a.elems[0]),
                  src(ins, a.elems[1]));
        return;
    }
    const vop d = pair_reg(ins, dst);
    if (a.k == operand::kind::reg) {
        emit_wide(opcode::I64, static_cast<unsigned>(m::i64::MOV), d, pair_reg(ins, a),
                  {vk::rz, 0});
    } else if (a.k == operand::kind::imm_int || a.k == operand::kind::imm_f64 ||
               a.k == operand::kind::imm_f32) {
        std::uint64_t b = static_cast<std::uint64_t>(a.ival);
        if (fp && a.k != operand::kind::imm_f64) {
            const double v = a.k == operand::kind::imm_int ? static_cast<double>(a.ival) : a.fval;
            std::memcpy(&b, &v, sizeof b);
        }
        emit_wide(opcode::I64, static_cast<unsigned>(m::i64::PACK), d,
                  vimm(static_cast<std::uint32_t>(b)), vimm(static_cast<std::uint32_t>(b >> 32)));
    } else if (a.k == operand::kind::symbol) { // a shared variable's window offset
        emit_wide(opcode::I64, static_cast<unsigned>(m::i64::PACK), d, src(ins, a), {vk::rz, 0});
    } else {
        unsupported(ins, "operand '" + a.name + "' of a 64-bit move");
    }
}

} // namespace vgpu::ptx::detail
