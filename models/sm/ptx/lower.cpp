// PTX-to-vgpu translator: the mapping tables and the lowering of one PTX instruction onto
// vgpu instructions over virtual registers (translate_impl.h). See docs/cuda.md,
// "Mapping tables".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <string>

namespace vgpu::ptx::detail {

namespace {

// --- Mapping tables ------------------------------------------------------------------------

/// A PTX mnemonic and type lowered onto one vgpu opcode with the same operands.
struct alu_rule {
    const char* ptx;
    data_type type;
    opcode op;
    unsigned srcs;
    std::initializer_list<const char*> mods; ///< modifiers allowed besides the type
};

using T = data_type;
// 64-bit integer forms are only those whose low 32 bits depend only on the operands' low 32
// bits (add, sub, mul.lo, mad.lo, and, or, xor, not): computed in 32 bits they are exact
// modulo 2^32 (see "64-bit address arithmetic" in docs/cuda.md).
const alu_rule alu_rules[] = {
    {"add", T::s32, opcode::IADD, 2, {}},
    {"add", T::u32, opcode::IADD, 2, {}},
    {"add", T::s64, opcode::IADD, 2, {}},
    {"add", T::u64, opcode::IADD, 2, {}},
    {"add", T::f32, opcode::FADD, 2, {"rn"}},
    {"sub", T::s32, opcode::ISUB, 2, {}},
    {"sub", T::u32, opcode::ISUB, 2, {}},
    {"sub", T::s64, opcode::ISUB, 2, {}},
    {"sub", T::u64, opcode::ISUB, 2, {}},
    {"sub", T::f32, opcode::FSUB, 2, {"rn"}},
    {"mul", T::s32, opcode::IMUL, 2, {"lo", "wide"}},
    {"mul", T::u32, opcode::IMUL, 2, {"lo", "wide"}},
    {"mul", T::s64, opcode::IMUL, 2, {"lo"}},
    {"mul", T::u64, opcode::IMUL, 2, {"lo"}},
    {"mul", T::f32, opcode::FMUL, 2, {"rn"}},
    {"mad", T::s32, opcode::IMAD, 3, {"lo", "wide"}},
    {"mad", T::u32, opcode::IMAD, 3, {"lo", "wide"}},
    {"mad", T::s64, opcode::IMAD, 3, {"lo"}},
    {"mad", T::u64, opcode::IMAD, 3, {"lo"}},
    {"mad", T::f32, opcode::FFMA, 3, {"rn"}},
    {"fma", T::f32, opcode::FFMA, 3, {"rn"}},
    {"min", T::s32, opcode::IMIN, 2, {}},
    {"min", T::u32, opcode::UMIN, 2, {}},
    {"min", T::f32, opcode::FMIN, 2, {}},
    {"max", T::s32, opcode::IMAX, 2, {}},
    {"max", T::u32, opcode::UMAX, 2, {}},
    {"max", T::f32, opcode::FMAX, 2, {}},
    {"and", T::b32, opcode::AND, 2, {}},
    {"and", T::b64, opcode::AND, 2, {}},
    {"or", T::b32, opcode::OR, 2, {}},
    {"or", T::b64, opcode::OR, 2, {}},
    {"xor", T::b32, opcode::XOR, 2, {}},
    {"xor", T::b64, opcode::XOR, 2, {}},
    {"not", T::b32, opcode::NOT, 1, {}},
    {"not", T::b64, opcode::NOT, 1, {}},
    {"neg", T::f32, opcode::FNEG, 1, {}},
    {"abs", T::f32, opcode::FABS, 1, {}},
};

/// A setp comparison: the PTX name, the types it applies to, the vgpu opcode and condition.
struct cmp_rule {
    const char* ptx;
    bool for_signed, for_unsigned, for_float;
    opcode op_signed;
    cmp_op cond;
};
// Unsigned comparisons use USETP; b32 eq/ne use ISETP. Float: the ordered eq/lt/le/gt/ge and
// the unordered neu (FSETP is false with a NaN except NE, docs/isa.md).
const cmp_rule cmp_rules[] = {
    {"eq", true, true, true, opcode::ISETP, cmp_op::EQ},
    {"ne", true, true, false, opcode::ISETP, cmp_op::NE},
    {"lt", true, true, true, opcode::ISETP, cmp_op::LT},
    {"le", true, true, true, opcode::ISETP, cmp_op::LE},
    {"gt", true, true, true, opcode::ISETP, cmp_op::GT},
    {"ge", true, true, true, opcode::ISETP, cmp_op::GE},
    {"lo", false, true, false, opcode::USETP, cmp_op::LT},
    {"ls", false, true, false, opcode::USETP, cmp_op::LE},
    {"hi", false, true, false, opcode::USETP, cmp_op::GT},
    {"hs", false, true, false, opcode::USETP, cmp_op::GE},
    {"neu", false, false, true, opcode::FSETP, cmp_op::NE},
};

/// Special registers read by S2R (is_const: a constant instead, none today).
struct sreg_rule {
    const char* ptx;
    bool is_const;
    sm::special_reg sreg;
    std::uint32_t value;
};
const sreg_rule sreg_rules[] = {
    {"%tid.x", false, sm::special_reg::TID_X, 0},
    {"%tid.y", false, sm::special_reg::TID_Y, 0},
    {"%tid.z", false, sm::special_reg::TID_Z, 0},
    {"%ntid.x", false, sm::special_reg::NTID_X, 0},
    {"%ntid.y", false, sm::special_reg::NTID_Y, 0},
    {"%ntid.z", false, sm::special_reg::NTID_Z, 0},
    {"%ctaid.x", false, sm::special_reg::CTAID_X, 0},
    {"%ctaid.y", false, sm::special_reg::CTAID_Y, 0},
    {"%ctaid.z", false, sm::special_reg::CTAID_Z, 0},
    {"%nctaid.x", false, sm::special_reg::NCTAID_X, 0},
    {"%nctaid.y", false, sm::special_reg::NCTAID_Y, 0},
    {"%nctaid.z", false, sm::special_reg::NCTAID_Z, 0},
    {"%laneid", false, sm::special_reg::LANEID, 0},
    {"%warpid", false, sm::special_reg::WARPID, 0},
    {"%smid", false, sm::special_reg::SMID, 0},
};

bool is_int32(data_type t)
{
    return t == T::b32 || t == T::u32 || t == T::s32;
}
bool is_int64(data_type t)
{
    return t == T::b64 || t == T::u64 || t == T::s64;
}
bool is_signed(data_type t)
{
    return t == T::s32 || t == T::s64;
}

std::string full_name(const instruction& ins)
{
    std::string s = ins.opcode;
    for (const std::string& m : ins.mods)
        s += "." + m;
    return s;
}

} // namespace

void translator::fail(const instruction& ins, const std::string& msg)
{
    const std::string src = m_mod.source_line(ins);
    m_out.errors.push_back(m_mod.file + ":" + std::to_string(ins.where.line) + ":" +
                           std::to_string(ins.where.col) + ": error: " + msg +
                           (src.empty() ? "" : " (CUDA source " + src + ")"));
    m_failed = true;
}

void translator::unsupported(const instruction& ins, const std::string& why)
{
    if (!m_failed)
        fail(ins, "unsupported '" + full_name(ins) + "'" + (why.empty() ? "" : ": " + why));
}

bool translator::mods_ok(const instruction& ins, std::initializer_list<const char*> allowed)
{
    for (const std::string& m : ins.mods) {
        if (parse_type(m) != data_type::none || parse_space(m) != state_space::none)
            continue;
        if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return m == a; }))
            return false;
    }
    return true;
}

void translator::build_blocks()
{
    const auto& body = m_fn.body;
    std::set<std::size_t> leaders{0};
    for (const auto& [name, at] : m_fn.labels)
        leaders.insert(at);
    for (std::size_t i = 0; i < body.size(); ++i) {
        const std::string& op = body[i].opcode;
        if (op == "bra" || op == "ret" || op == "exit")
            leaders.insert(i + 1);
    }
    std::map<std::size_t, std::size_t> block_at;
    for (const std::size_t l : leaders)
        if (l < body.size() || l == 0) {
            block_at[l] = m_blocks.size();
            block b;
            b.begin = l;
            m_blocks.push_back(b);
        }
    for (std::size_t k = 0; k < m_blocks.size(); ++k)
        m_blocks[k].end = k + 1 < m_blocks.size() ? m_blocks[k + 1].begin : body.size();
    auto block_of = [&](std::size_t at) {
        const auto it = block_at.find(at);
        return it == block_at.end() ? npos : it->second;
    };
    for (std::size_t k = 0; k < m_blocks.size(); ++k) {
        block& b = m_blocks[k];
        b.fall = b.end < body.size() ? block_of(b.end) : npos;
        m_code = &b.code;
        for (std::size_t i = b.begin; i < b.end; ++i) {
            m_at = i;
            m_failed = false;
            const instruction& ins = body[i];
            if (ins.opcode == "bra") {
                if (!mods_ok(ins, {"uni"}) || ins.ops.size() != 1 ||
                    ins.ops[0].k != operand::kind::symbol) {
                    unsupported(ins);
                    continue;
                }
                const auto lab = m_fn.labels.find(ins.ops[0].name);
                if (lab == m_fn.labels.end()) {
                    fail(ins, "branch to an unknown label '" + ins.ops[0].name + "'");
                    continue;
                }
                std::size_t target = block_of(lab->second);
                if (target == npos) { // a label at the very end: falls off the function
                    unsupported(ins, "a branch to the end of the function");
                    continue;
                }
                b.has_branch = true;
                b.target = target;
                b.guard = guard_of(ins);
                b.guard_neg = ins.guard_negated;
                b.branch_ptx = i;
                if (b.guard < 0)
                    b.fall = npos;
            } else if ((ins.opcode == "ret" || ins.opcode == "exit") && ins.guard.empty()) {
                vins v;
                v.op = opcode::EXIT;
                emit(v);
                b.ends = true;
                b.fall = npos;
            } else {
                lower(ins);
            }
        }
    }
}

vop translator::reg_of(const instruction& ins, const operand& op)
{
    if (op.k != operand::kind::reg || op.decl < 0) {
        unsupported(ins, "operand '" + op.name + "' is not a register");
        return {};
    }
    const variable& d = m_fn.decls[static_cast<std::size_t>(op.decl)];
    if (d.type == T::pred) {
        unsupported(ins, "predicate '" + op.name + "' used as a value");
        return {};
    }
    const unsigned bits = type_bits(d.type);
    if (bits != 32 && bits != 64) {
        unsupported(ins, std::to_string(bits) + "-bit register '" + op.name + "'");
        return {};
    }
    const auto key = std::make_pair(op.decl, op.index);
    const auto it = m_regs.find(key);
    if (it != m_regs.end())
        return vreg(it->second);
    m_regs[key] = m_nregs;
    if (m_wide_keys.count(key)) // a register pair (lower_wide.cpp)
        return vreg(wide_temp());
    return vreg(m_nregs++);
}

vop translator::pred_of(const instruction& ins, const operand& op)
{
    if (op.k != operand::kind::reg || op.decl < 0 ||
        m_fn.decls[static_cast<std::size_t>(op.decl)].type != T::pred) {
        unsupported(ins, "operand '" + op.name + "' is not a predicate");
        return {};
    }
    const auto key = std::make_pair(op.decl, op.index);
    const auto it = m_preds.find(key);
    if (it != m_preds.end())
        return {vk::pred, it->second};
    m_preds[key] = m_npreds;
    return {vk::pred, m_npreds++};
}

int translator::guard_of(const instruction& ins)
{
    if (ins.guard.empty())
        return -1;
    operand g;
    g.k = operand::kind::reg;
    g.name = ins.guard;
    g.decl = ins.guard_decl;
    g.index = ins.guard_index;
    const vop p = pred_of(ins, g);
    return p.k == vk::pred ? static_cast<int>(p.v) : -1;
}

vop translator::src(const instruction& ins, const operand& op)
{
    switch (op.k) {
    case operand::kind::reg:
        return reg_of(ins, op);
    case operand::kind::imm_int:
    case operand::kind::imm_f32:
        return vimm(static_cast<std::uint32_t>(op.ival));
    case operand::kind::special: {
        for (const sreg_rule& r : sreg_rules)
            if (op.name == r.ptx) {
                vins v;
                v.dst = vreg(temp());
                if (r.is_const) {
                    v.op = opcode::MOV;
                    v.src[0] = vimm(r.value);
                } else {
                    v.op = opcode::S2R;
                    v.sreg = r.sreg;
                }
                v.guard = guard_of(ins);
                v.guard_neg = ins.guard_negated;
                emit(v);
                return v.dst;
            }
        unsupported(ins, "special register " + op.name);
        return {};
    }
    case operand::kind::symbol:
        if (const std::int64_t o = shared_offset(op.name); o >= 0)
            return vimm(static_cast<std::uint32_t>(o)); // its address in the shared window
        if (const std::int64_t o = const_offset(op.name); o >= 0)
            return vimm(static_cast<std::uint32_t>(o)); // its offset in the constant bank
        unsupported(ins, "the address of variable '" + op.name + "'");
        return {};
    default:
        unsupported(ins, "operand '" + op.name + "'");
        return {};
    }
}

vop translator::reg_src(const instruction& ins, const operand& op)
{
    vop s = src(ins, op);
    if (s.k != vk::imm)
        return s;
    vins v;
    v.op = opcode::MOV;
    v.dst = vreg(temp());
    v.src[0] = s;
    emit(v);
    return v.dst;
}

bool translator::address(const instruction& ins, const operand& op, vop& base, std::int32_t& off)
{
    if (op.k != operand::kind::address) {
        unsupported(ins, "not an address operand");
        return false;
    }
    if (op.ival < INT32_MIN || op.ival > INT32_MAX) {
        unsupported(ins, "address offset out of the 32-bit range");
        return false;
    }
    off = static_cast<std::int32_t>(op.ival);
    if (op.base_is_reg) {
        operand r;
        r.k = operand::kind::reg;
        r.name = op.name;
        r.decl = op.decl;
        r.index = op.index;
        base = reg_of(ins, r);
        return base.k == vk::reg;
    }
    if (op.name.empty()) {
        base = {vk::rz, 0};
        return true;
    }
    if (shared_offset(op.name) >= 0 && ins.space != state_space::shared) {
        // A generic or global access would read the window offset as a global address.
        unsupported(ins, "a generic or global access of shared variable '" + op.name +
                             "' (only .shared accesses name it)");
        return false;
    }
    if (const std::int64_t o = shared_offset(op.name); o >= 0 && off + o <= INT32_MAX) {
        base = {vk::rz, 0};
        off += static_cast<std::int32_t>(o);
        return true;
    }
    unsupported(ins, "the address of variable '" + op.name + "'");
    return false;
}

void translator::lower(const instruction& ins)
{
    const std::string& op = ins.opcode;
    const std::size_t before = m_code->size();
    if (op == "ret" || op == "exit") { // guarded (unguarded ones end the block)
        vins v;
        v.op = opcode::EXIT;
        emit(v);
    } else if (ins.type() == T::pred && (op == "and" || op == "or" || op == "xor" || op == "not")) {
        lower_pred_logic(ins);
    } else if (lower_local(ins) || lower_param_var(ins) || lower_wide(ins) || lower_ext(ins)) {
    } else if (lower_alu(ins)) {
    } else if (op == "shl" || op == "shr") {
        lower_shift(ins);
    } else if (op == "neg" && is_int32(ins.type()) && ins.ops.size() == 2 && mods_ok(ins, {})) {
        vins v;
        v.op = opcode::ISUB;
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = {vk::rz, 0};
        v.src[1] = src(ins, ins.ops[1]);
        emit(v);
    } else if (op == "setp") {
        lower_setp(ins);
    } else if (op == "selp") {
        const data_type t = ins.type();
        if (!(is_int32(t) || t == T::f32 || is_int64(t)) || ins.ops.size() != 4 ||
            !mods_ok(ins, {})) {
            unsupported(ins);
        } else {
            vins v;
            v.op = opcode::SEL;
            v.dst = reg_of(ins, ins.ops[0]);
            v.src[0] = src(ins, ins.ops[1]);
            v.src[1] = src(ins, ins.ops[2]);
            v.src[2] = pred_of(ins, ins.ops[3]);
            if (ins.ops[3].negated)
                std::swap(v.src[0], v.src[1]);
            emit(v);
        }
    } else if (op == "cvt") {
        lower_cvt(ins);
    } else if (op == "cvta" && ins.has("shared")) {
        lower_cvta_shared(ins);
    } else if (op == "cvta") {
        // Generic and global addresses are the same on vgpu (one address space); only the
        // global window is supported (shared, local and const are not yet).
        if (!ins.has("global") || !mods_ok(ins, {"to"}) || !is_int64(ins.type()) ||
            ins.ops.size() != 2) {
            unsupported(ins, "only cvta(.to).global is supported");
        } else {
            vins v;
            v.op = opcode::MOV;
            v.dst = reg_of(ins, ins.ops[0]);
            v.src[0] = src(ins, ins.ops[1]);
            emit(v);
        }
    } else if (op == "mov" && ins.type() == T::pred) {
        lower_mov_pred(ins); // lower_const.cpp
    } else if (op == "mov") {
        lower_mov(ins);
    } else if (op == "ld" && ins.space == state_space::const_) {
        lower_const_ld(ins); // through the CDL (lower_const.cpp)
    } else if (op == "ld") {
        lower_ld(ins);
    } else if (op == "st") {
        lower_st(ins);
    } else if (op == "atom" || op == "red") {
        lower_atom(ins);
    } else if (op == "bar" || op == "barrier") {
        if (!mods_ok(ins, {"sync", "aligned"}) || ins.ops.size() != 1 ||
            ins.ops[0].k != operand::kind::imm_int || ins.ops[0].ival != 0) {
            unsupported(ins, "only bar.sync 0 with no thread count maps onto BAR");
        } else if (!ins.guard.empty()) {
            unsupported(ins, "a guarded barrier");
        } else {
            vins v;
            v.op = opcode::BAR;
            emit(v);
        }
    } else if (op == "membar" || op == "fence") {
        if (!mods_ok(ins, {"cta", "gl", "sys", "gpu", "sc", "acq_rel"})) {
            unsupported(ins);
        } else {
            vins v;
            v.op = opcode::MEMBAR;
            emit(v);
        }
    } else {
        unsupported(ins);
    }
    if (m_failed) {
        m_code->resize(before);
        return;
    }
    // The instruction's guard applies to what it lowered to (S2R temps included).
    int g = guard_of(ins);
    bool overwrites_guard = false; // e.g. @p setp p|q: p is written before q's guarded write
    for (std::size_t k = before; g >= 0 && k + 1 < m_code->size(); ++k)
        overwrites_guard |= (*m_code)[k].dst.k == vk::pred && (*m_code)[k].dst.v == unsigned(g);
    if (overwrites_guard) { // guard with a copy taken first: t = (g ? 1 : 0) != 0
        vins b;
        b.op = opcode::SEL;
        b.dst = vreg(temp());
        b.src[0] = vimm(1);
        b.src[1] = vimm(0);
        b.src[2] = {vk::pred, static_cast<std::uint32_t>(g)};
        b.ptx = m_at;
        vins t;
        t.op = opcode::ISETP;
        t.cond = cmp_op::NE;
        t.dst = temp_pred();
        t.src[0] = b.dst;
        t.src[1] = vimm(0);
        t.ptx = m_at;
        const auto at = m_code->begin() + static_cast<std::ptrdiff_t>(before);
        m_code->insert(m_code->insert(at, b) + 1, t);
        g = static_cast<int>(t.dst.v);
    }
    for (std::size_t k = before + (overwrites_guard ? 2 : 0); k < m_code->size(); ++k)
        if ((*m_code)[k].guard < 0) {
            (*m_code)[k].guard = g;
            (*m_code)[k].guard_neg = ins.guard_negated;
        }
}

bool translator::lower_alu(const instruction& ins)
{
    const data_type t = ins.type();
    for (const alu_rule& r : alu_rules) {
        if (ins.opcode != r.ptx || t != r.type)
            continue;
        if (!mods_ok(ins, r.mods) || ins.types.size() != 1 || ins.ops.size() != r.srcs + 1) {
            unsupported(ins);
            return true;
        }
        vins v;
        v.op = r.op;
        v.dst = reg_of(ins, ins.ops[0]);
        for (unsigned k = 0; k < r.srcs; ++k)
            v.src[k] = src(ins, ins.ops[k + 1]);
        emit(v);
        return true;
    }
    static const char* const arithmetic[] = {"add", "sub", "mul", "mad", "fma", "min", "max", "and",
                                             "or",  "xor", "not", "neg", "abs", "div", "rem"};
    if (std::none_of(std::begin(arithmetic), std::end(arithmetic),
                     [&](const char* a) { return ins.opcode == a; }))
        return false;
    if (ins.opcode == "neg" && is_int32(t))
        return false; // ISUB from RZ, below
    const unsigned bits = type_bits(t);
    if (t == T::f64)
        unsupported(ins, "fp64 is not in the vgpu ISA yet");
    else if (bits == 64 && ins.opcode != "and" && ins.opcode != "or" && ins.opcode != "xor" &&
             ins.opcode != "not" && ins.opcode != "sub")
        unsupported(ins, "its 64-bit result depends on the operands' high 32 bits");
    else if (bits == 16 || bits == 8)
        unsupported(ins, std::to_string(bits) + "-bit arithmetic");
    else
        unsupported(ins);
    return true;
}

void translator::lower_shift(const instruction& ins)
{
    const data_type t = ins.type();
    const bool left = ins.opcode == "shl";
    // shr of a 64-bit value brings its high bits down: not exact in 32 bits.
    if (!mods_ok(ins, {}) || ins.ops.size() != 3 || !(is_int32(t) || (left && is_int64(t)))) {
        unsupported(ins);
        return;
    }
    if (ins.ops[2].k != operand::kind::imm_int) {
        // PTX clamps the amount to the width; SHL/SHR/SAR use it modulo 32. shl and shr: the
        // shift where the amount is below 32, else 0 (the low 32 bits of shl.b64 too); shr.s32:
        // SAR by min(amount, 31).
        const vop d = reg_of(ins, ins.ops[0]);
        const vop a = src(ins, ins.ops[1]);
        const vop b = reg_src(ins, ins.ops[2]);
        vins v;
        if (is_signed(t) && !left) {
            v.op = opcode::UMIN;
            v.dst = vreg(temp());
            v.src[0] = b;
            v.src[1] = vimm(31);
            emit(v);
            vins s;
            s.op = opcode::SAR;
            s.dst = d;
            s.src[0] = a;
            s.src[1] = v.dst;
            emit(s);
            return;
        }
        v.op = left ? opcode::SHL : opcode::SHR;
        v.dst = vreg(temp());
        v.src[0] = a;
        v.src[1] = b;
        emit(v);
        vins c;
        c.op = opcode::USETP;
        c.cond = cmp_op::LT;
        c.dst = temp_pred();
        c.src[0] = b;
        c.src[1] = vimm(32);
        emit(c);
        vins s;
        s.op = opcode::SEL;
        s.dst = d;
        s.src[0] = v.dst;
        s.src[1] = vimm(0);
        s.src[2] = c.dst;
        emit(s);
        return;
    }
    const std::int64_t k = ins.ops[2].ival;
    vins v;
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    if (k < 0) {
        unsupported(ins, "a negative shift amount");
        return;
    }
    if (k >= 32 && !(is_signed(t) && !left)) {
        v.op = opcode::MOV; // every low bit shifted out
        v.src[0] = vimm(0);
    } else {
        v.op = left ? opcode::SHL : is_signed(t) ? opcode::SAR : opcode::SHR;
        v.src[1] = vimm(static_cast<std::uint32_t>(std::min<std::int64_t>(k, 31)));
    }
    emit(v);
}

void translator::lower_setp(const instruction& ins)
{
    if (ins.ops.size() != 3 || ins.ops[0].k == operand::kind::pair) {
        unsupported(ins, "setp with a combining predicate or two destinations");
        return;
    }
    const data_type t = ins.type();
    const bool fp = t == T::f32, sgn = t == T::s32, uns = t == T::u32 || t == T::b32;
    if (!fp && !sgn && !uns) {
        unsupported(ins, is_int64(t) ? "a 64-bit comparison depends on the high 32 bits" : "");
        return;
    }
    for (const cmp_rule& r : cmp_rules) {
        if (!ins.has(r.ptx))
            continue;
        if (!mods_ok(ins, {r.ptx}) || (fp && !r.for_float) || (sgn && !r.for_signed) ||
            (uns && !r.for_unsigned)) {
            unsupported(
                ins, fp && ins.has("ne") ? "ordered ne is false with a NaN, FSETP.NE is true" : "");
            return;
        }
        vins v;
        v.op = fp ? opcode::FSETP : uns ? opcode::USETP : r.op_signed;
        if (t == T::b32 && (r.cond == cmp_op::EQ || r.cond == cmp_op::NE))
            v.op = opcode::ISETP;
        v.cond = r.cond;
        v.dst = pred_of(ins, ins.ops[0]);
        v.src[0] = src(ins, ins.ops[1]);
        v.src[1] = src(ins, ins.ops[2]);
        emit(v);
        return;
    }
    unsupported(ins);
}

vop translator::pred_as_int(const instruction& ins, const operand& op)
{
    vins v;
    v.op = opcode::SEL;
    v.dst = vreg(temp());
    v.src[0] = vimm(op.negated ? 0 : 1);
    v.src[1] = vimm(op.negated ? 1 : 0);
    v.src[2] = pred_of(ins, op);
    emit(v);
    return v.dst;
}

void translator::lower_pred_logic(const instruction& ins)
{
    // The ISA has no predicate logic: the operands become 0/1 through SEL and the result is
    // a comparison. and: (b ? a : 0) != 0; or: (b ? 1 : a) != 0; xor: a != b; not: a == 0.
    const bool unary = ins.opcode == "not";
    if (!mods_ok(ins, {}) || ins.ops.size() != (unary ? 2u : 3u)) {
        unsupported(ins);
        return;
    }
    const vop d = pred_of(ins, ins.ops[0]);
    const vop a = pred_as_int(ins, ins.ops[1]);
    vins c;
    c.op = opcode::ISETP;
    c.cond = cmp_op::NE;
    c.dst = d;
    c.src[0] = a;
    c.src[1] = vimm(0);
    if (unary) {
        c.cond = cmp_op::EQ;
    } else if (ins.opcode == "xor") {
        c.src[1] = pred_as_int(ins, ins.ops[2]);
    } else {
        const operand& bo = ins.ops[2];
        const bool is_and = ins.opcode == "and";
        vins v;
        v.op = opcode::SEL;
        v.dst = vreg(temp());
        vop when_b = is_and ? a : vimm(1), when_not_b = is_and ? vimm(0) : a;
        if (bo.negated)
            std::swap(when_b, when_not_b);
        v.src[0] = when_b;
        v.src[1] = when_not_b;
        v.src[2] = pred_of(ins, bo);
        emit(v);
        c.src[0] = v.dst;
    }
    emit(c);
}

void translator::lower_cvt(const instruction& ins)
{
    if (ins.types.size() != 2 || ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    const data_type d = ins.types[0], s = ins.types[1];
    const bool di = is_int32(d) || is_int64(d), si = is_int32(s) || is_int64(s);
    vins v;
    if (di && si && mods_ok(ins, {})) {
        v.op = opcode::MOV; // widening or narrowing: the low 32 bits are the same
    } else if (d == T::f32 && s == T::s32 && mods_ok(ins, {"rn"}) && ins.has("rn")) {
        v.op = opcode::I2F;
    } else if (d == T::s32 && s == T::f32 && mods_ok(ins, {"rzi", "ftz"}) && ins.has("rzi")) {
        v.op = opcode::F2I; // saturating, NaN -> 0 as PTX; a subnormal truncates to 0 anyway
    } else {
        unsupported(ins);
        return;
    }
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    emit(v);
}

void translator::lower_mov(const instruction& ins)
{
    const data_type t = ins.type();
    if (!(is_int32(t) || is_int64(t) || t == T::f32) || ins.ops.size() != 2 || !mods_ok(ins, {})) {
        unsupported(ins);
        return;
    }
    const vop d = reg_of(ins, ins.ops[0]);
    if (ins.ops[1].k == operand::kind::special) {
        for (const sreg_rule& r : sreg_rules)
            if (ins.ops[1].name == r.ptx) {
                vins v;
                v.dst = d;
                if (r.is_const) {
                    v.op = opcode::MOV;
                    v.src[0] = vimm(r.value);
                } else {
                    v.op = opcode::S2R;
                    v.sreg = r.sreg;
                }
                emit(v);
                return;
            }
        unsupported(ins, "special register " + ins.ops[1].name);
        return;
    }
    vins v;
    v.op = opcode::MOV;
    v.dst = d;
    v.src[0] = src(ins, ins.ops[1]);
    emit(v);
}

void translator::lower_ld(const instruction& ins)
{
    const data_type t = ins.type();
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    if (ins.space == state_space::param) {
        const operand& a = ins.ops[1];
        if (!mods_ok(ins, {}) || a.k != operand::kind::address || a.base_is_reg ||
            ins.ops[0].k != operand::kind::reg || !(is_int32(t) || is_int64(t) || t == T::f32)) {
            unsupported(ins);
            return;
        }
        std::size_t index = npos;
        for (std::size_t p = 0; p < m_fn.params.size(); ++p)
            if (m_fn.params[p].name == a.name)
                index = p;
        if (index == npos) {
            unsupported(ins, "'" + a.name + "' is not a parameter of the entry");
            return;
        }
        if (a.ival != 0) {
            unsupported(ins, "a load from inside a by-value aggregate parameter");
            return;
        }
        vins v;
        v.op = opcode::LDP;
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = vimm(static_cast<std::uint32_t>(index));
        emit(v);
        return;
    }
    global_access(ins, false);
}

void translator::lower_st(const instruction& ins)
{
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    global_access(ins, true);
}

void translator::global_access(const instruction& ins, bool store)
{
    const data_type t = ins.type();
    if (ins.space != state_space::global && ins.space != state_space::none &&
        ins.space != state_space::shared) {
        unsupported(ins, std::string("vgpu has no ") + space_name(ins.space) + " memory yet");
        return;
    }
    const bool mods =
        store ? mods_ok(ins, {"cg", "cs", "wb", "wt", "volatile", "weak", "v2", "v4"})
              : mods_ok(ins, {"nc", "ca", "cg", "cs", "lu", "cv", "volatile", "weak", "v2", "v4"});
    sm::mem_width width = sm::mem_width::b32;
    if (!width_of(t, width) || !mods) {
        unsupported(ins, !mods   ? ""
                         : store ? "only 8-, 16- and 32-bit stores"
                                 : "only 8-, 16- and 32-bit loads");
        return;
    }
    const auto size = static_cast<std::int32_t>(sm::width_bytes(width));
    // ld: [dst or {dsts}], [addr]; st: [addr], [src or {srcs}]: one LD/ST per element.
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[store ? 0 : 1], base, off))
        return;
    const operand& d = ins.ops[store ? 1 : 0];
    std::vector<const operand*> elems;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            elems.push_back(&e);
    else
        elems.push_back(&d);
    for (std::size_t k = 0; k < elems.size(); ++k) {
        vins v;
        v.op = store ? opcode::ST : opcode::LD;
        v.space = ins.space == state_space::shared ? sm::mem_space::shared : sm::mem_space::global;
        v.width = width;
        v.src[0] = base;
        if (store)
            v.src[1] = reg_src(ins, *elems[k]);
        else
            v.dst = elems[k]->k == operand::kind::sink ? vop{vk::rz, 0} : reg_of(ins, *elems[k]);
        v.offset = off + size * static_cast<std::int32_t>(k);
        emit(v);
    }
}

void translator::lower_atom(const instruction& ins)
{
    // atom/red.{global,shared}.op.type onto ATOM.op / CAS (docs/cuda.md, "Atomics").
    struct atom_rule {
        const char* ptx;
        data_type type;
        sm::atom_op op;
    };
    static const atom_rule rules[] = {
        {"add", T::u32, sm::atom_op::ADD},   {"add", T::s32, sm::atom_op::ADD},
        {"add", T::f32, sm::atom_op::FADD},  {"min", T::s32, sm::atom_op::MIN},
        {"min", T::u32, sm::atom_op::UMIN},  {"max", T::s32, sm::atom_op::MAX},
        {"max", T::u32, sm::atom_op::UMAX},  {"exch", T::b32, sm::atom_op::EXCH},
        {"exch", T::u32, sm::atom_op::EXCH}, {"exch", T::s32, sm::atom_op::EXCH},
        {"exch", T::f32, sm::atom_op::EXCH}, {"and", T::b32, sm::atom_op::AND},
        {"or", T::b32, sm::atom_op::OR},     {"xor", T::b32, sm::atom_op::XOR},
        {"inc", T::u32, sm::atom_op::INC},   {"dec", T::u32, sm::atom_op::DEC},
        {"cas", T::b32, sm::atom_op::ADD},   {"cas", T::u32, sm::atom_op::ADD},
        {"cas", T::s32, sm::atom_op::ADD},   {"cas", T::f32, sm::atom_op::ADD},
    };
    const bool red = ins.opcode == "red";
    const data_type t = ins.type();
    const atom_rule* rule = nullptr;
    for (const atom_rule& r : rules)
        if (r.type == t && ins.has(r.ptx) && !(red && std::string(r.ptx) == "cas"))
            rule = &r;
    const bool cas = rule && std::string(rule->ptx) == "cas";
    const unsigned nops = (red ? 2u : 3u) + (cas ? 1u : 0u);
    if (!rule || !mods_ok(ins, {rule->ptx, "relaxed", "gpu", "cta", "sys", "noftz"}) ||
        ins.ops.size() != nops ||
        (ins.space != state_space::global && ins.space != state_space::none &&
         ins.space != state_space::shared)) {
        unsupported(ins, "atomics are add (u32, s32, f32), min/max (s32, u32), exch, cas, and, "
                         "or, xor (32 bits) and inc/dec (u32) on global or shared memory");
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[red ? 0 : 1], base, off))
        return;
    vins v;
    v.op = cas ? opcode::CAS : opcode::ATOM;
    v.space = ins.space == state_space::shared ? sm::mem_space::shared : sm::mem_space::global;
    v.aop = rule->op;
    v.dst = red ? vop{vk::rz, 0} : reg_of(ins, ins.ops[0]);
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
    v.src[0] = base;
    v.src[1] = reg_src(ins, ins.ops[red ? 1 : 2]);
    if (cas)
        v.src[2] = reg_src(ins, ins.ops[3]);
    v.offset = off;
    emit(v);
}

void translator::lower_cvta_shared(const instruction& ins)
{
    // A shared address is its offset in the CTA's window; cvta.to.shared of a generic address
    // that came from it is that offset again. The reverse (a generic pointer into shared
    // memory) would be read by generic ld/st as a global address: refused.
    if (!ins.has("to") || !mods_ok(ins, {"to"}) || !is_int64(ins.type()) || ins.ops.size() != 2) {
        unsupported(ins, "generic addresses of shared memory are not supported (only "
                         "cvta.to.shared)");
        return;
    }
    vins v;
    v.op = opcode::MOV;
    v.dst = reg_of(ins, ins.ops[0]);
    v.src[0] = src(ins, ins.ops[1]);
    emit(v);
}

bool translator::width_of(data_type t, sm::mem_width& w)
{
    switch (t) {
    case T::u8:
    case T::b8:
        w = sm::mem_width::u8;
        return true;
    case T::s8:
        w = sm::mem_width::s8;
        return true;
    case T::u16:
    case T::b16:
        w = sm::mem_width::u16;
        return true;
    case T::s16:
        w = sm::mem_width::s16;
        return true;
    default:
        w = sm::mem_width::b32;
        return is_int32(t) || t == T::f32;
    }
}

void translator::layout_shared()
{
    // Static variables in declaration order (module scope first), each at its alignment; the
    // extern (dynamic) arrays all start after them, at 16 bytes (as CUDA's dynamic shared
    // memory does).
    std::uint64_t end = 0;
    std::vector<const variable*> externs;
    auto place = [&](const variable& d) {
        if (d.space != state_space::shared)
            return;
        if (d.is_extern) {
            externs.push_back(&d);
            return;
        }
        const std::uint64_t align = std::max<std::uint64_t>({1, d.align, d.element_bytes()});
        end = (end + align - 1) / align * align;
        m_shared[d.name] = static_cast<std::uint32_t>(std::min<std::uint64_t>(end, UINT32_MAX));
        end += d.bytes();
    };
    for (const variable& d : m_mod.globals)
        place(d);
    for (const variable& d : m_fn.decls)
        place(d);
    if (!externs.empty())
        end = (end + 15) / 16 * 16;
    for (const variable* d : externs)
        m_shared[d->name] = static_cast<std::uint32_t>(std::min<std::uint64_t>(end, UINT32_MAX));
    if (end > (1u << 24)) {
        m_out.errors.push_back(m_mod.file + ":" + std::to_string(m_fn.where.line) + ":" +
                               std::to_string(m_fn.where.col) + ": error: '" + m_fn.name +
                               "' declares " + std::to_string(end) +
                               " bytes of shared memory (at most 16 MiB)");
        return;
    }
    m_out.shared_bytes = static_cast<std::uint32_t>(end);
}

std::int64_t translator::shared_offset(std::string_view name) const
{
    const auto it = m_shared.find(name);
    return it == m_shared.end() ? -1 : std::int64_t{it->second}; // not -1 as a uint32_t
}

} // namespace vgpu::ptx::detail
