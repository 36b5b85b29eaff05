// PTX-to-vgpu translator, first slice (translate.h): basic blocks, the reconverging layout
// (layout.cpp), lowering through the mapping tables below, linear-scan register allocation
// and assembler text. See docs/cuda.md, "Translation".
#include "models/sm/ptx/translate.h"

#include "models/sm/core/isa.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace vgpu::ptx {

namespace {

using sm::cmp_op;
using sm::opcode;
constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// A virtual operand: a PTX virtual register, predicate, immediate bits or RZ.
enum class vk : std::uint8_t { none, reg, pred, imm, rz };
struct vop {
    vk k = vk::none;
    std::uint32_t v = 0;
};
vop vreg(std::uint32_t id)
{
    return {vk::reg, id};
}
vop vimm(std::uint32_t bits)
{
    return {vk::imm, bits};
}

/// A vgpu instruction over virtual registers.
struct vins {
    opcode op = opcode::NOP;
    int guard = -1; ///< virtual predicate, -1: PT
    bool guard_neg = false;
    vop dst{};                ///< register, predicate (SETP) or RZ
    std::array<vop, 3> src{}; ///< sources; SEL's third is a predicate
    cmp_op cond = cmp_op::EQ;
    sm::special_reg sreg = sm::special_reg::TID_X;
    std::int32_t offset = 0;
    std::size_t target = npos; ///< BRA: block, then PC after layout
    std::size_t ptx = npos;    ///< index of the PTX instruction in the body, npos if added
};

/// A basic block: PTX instructions [begin, end), lowered body and its terminator.
struct block {
    std::size_t begin = 0, end = 0;
    std::vector<vins> code{};
    // Terminator: a branch (guarded or not) to `target`, then `fall` (npos: none).
    bool has_branch = false;
    std::size_t target = npos;
    int guard = -1;
    bool guard_neg = false;
    std::size_t branch_ptx = npos;
    std::size_t fall = npos;
    bool ends = false; ///< ends with an unguarded ret/exit
};

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

/// Special registers read by S2R; the z components of a 2-D launch are constants.
struct sreg_rule {
    const char* ptx;
    bool is_const;
    sm::special_reg sreg;
    std::uint32_t value;
};
const sreg_rule sreg_rules[] = {
    {"%tid.x", false, sm::special_reg::TID_X, 0},
    {"%tid.y", false, sm::special_reg::TID_Y, 0},
    {"%tid.z", true, sm::special_reg::TID_X, 0},
    {"%ntid.x", false, sm::special_reg::NTID_X, 0},
    {"%ntid.y", false, sm::special_reg::NTID_Y, 0},
    {"%ntid.z", true, sm::special_reg::TID_X, 1},
    {"%ctaid.x", false, sm::special_reg::CTAID_X, 0},
    {"%ctaid.y", false, sm::special_reg::CTAID_Y, 0},
    {"%ctaid.z", true, sm::special_reg::TID_X, 0},
    {"%nctaid.x", false, sm::special_reg::NCTAID_X, 0},
    {"%nctaid.y", false, sm::special_reg::NCTAID_Y, 0},
    {"%nctaid.z", true, sm::special_reg::TID_X, 1},
    {"%laneid", false, sm::special_reg::LANEID, 0},
    {"%warpid", false, sm::special_reg::WARPID, 0},
    {"%smid", false, sm::special_reg::SMID, 0},
};

/// Cache and ordering modifiers of ld/st.global that do not change the value.
const char* const memory_hints[] = {"nc", "ca", "cg", "cs",       "lu",
                                    "cv", "wb", "wt", "volatile", "weak"};

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

// --- The translator --------------------------------------------------------------------------

class translator {
public:
    translator(const module& m, const function& f, const translate_options& opt, translation& out)
        : m_mod(m), m_fn(f), m_opt(opt), m_out(out)
    {
    }
    void run();

private:
    const module& m_mod;
    const function& m_fn;
    const translate_options& m_opt;
    translation& m_out;
    std::map<std::pair<int, int>, std::uint32_t> m_regs, m_preds;
    std::uint32_t m_nregs = 0, m_npreds = 0;
    std::vector<block> m_blocks;
    std::vector<vins>* m_code = nullptr; ///< block being lowered
    std::size_t m_at = 0;                ///< PTX instruction being lowered
    bool m_failed = false;               ///< the current instruction had an error

    void fail(const instruction& ins, const std::string& msg);
    void unsupported(const instruction& ins, const std::string& why = "");
    bool mods_ok(const instruction& ins, std::initializer_list<const char*> allowed);
    void build_blocks();
    void lower(const instruction& ins);
    void emit(vins v)
    {
        v.ptx = m_at;
        m_code->push_back(v);
    }
    std::uint32_t temp() { return m_nregs++; }
    vop reg_of(const instruction& ins, const operand& op);
    vop pred_of(const instruction& ins, const operand& op);
    int guard_of(const instruction& ins);
    vop src(const instruction& ins, const operand& op);
    vop reg_src(const instruction& ins, const operand& op);
    bool address(const instruction& ins, const operand& op, vop& base, std::int32_t& off);
    bool lower_alu(const instruction& ins);
    void lower_shift(const instruction& ins);
    void lower_setp(const instruction& ins);
    void lower_cvt(const instruction& ins);
    void lower_mov(const instruction& ins);
    void lower_ld(const instruction& ins);
    void lower_st(const instruction& ins);
    void lower_atom(const instruction& ins);
    void propagate_copies();
    void finish(const std::vector<std::size_t>& order);
};

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
    } else if (op == "mov") {
        lower_mov(ins);
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
    } else if (op == "call") {
        unsupported(ins, "calls to device functions are not inlined yet ('" + ins.callee + "')");
    } else {
        unsupported(ins);
    }
    if (m_failed) {
        m_code->resize(before);
        return;
    }
    // The instruction's guard applies to what it lowered to (S2R temps included).
    const int g = guard_of(ins);
    for (std::size_t k = before; k < m_code->size(); ++k)
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
        // PTX clamps shift amounts above the width; SHL/SHR mask them to 5 bits.
        unsupported(ins, "a shift by a register amount (PTX clamps it, vgpu masks it)");
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
    if (ins.space != state_space::global && ins.space != state_space::none) {
        unsupported(ins, std::string("vgpu has no ") + space_name(ins.space) + " memory yet");
        return;
    }
    if (!(is_int32(t) || t == T::f32) ||
        !mods_ok(ins, {"nc", "ca", "cg", "cs", "lu", "cv", "volatile", "weak", "v2", "v4"})) {
        unsupported(ins, type_bits(t) != 32 ? "only 32-bit loads (LD is 32 bits)" : "");
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[1], base, off))
        return;
    const operand& d = ins.ops[0];
    std::vector<const operand*> dsts;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            dsts.push_back(&e);
    else
        dsts.push_back(&d);
    for (std::size_t k = 0; k < dsts.size(); ++k) {
        vins v;
        v.op = opcode::LD;
        v.dst = dsts[k]->k == operand::kind::sink ? vop{vk::rz, 0} : reg_of(ins, *dsts[k]);
        v.src[0] = base;
        v.offset = off + static_cast<std::int32_t>(4 * k);
        emit(v);
    }
}

void translator::lower_st(const instruction& ins)
{
    const data_type t = ins.type();
    if (ins.ops.size() != 2) {
        unsupported(ins);
        return;
    }
    if (ins.space != state_space::global && ins.space != state_space::none) {
        unsupported(ins, std::string("vgpu has no ") + space_name(ins.space) + " memory yet");
        return;
    }
    if (!(is_int32(t) || t == T::f32) ||
        !mods_ok(ins, {"cg", "cs", "wb", "wt", "volatile", "weak", "v2", "v4"})) {
        unsupported(ins, type_bits(t) != 32 ? "only 32-bit stores (ST is 32 bits)" : "");
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[0], base, off))
        return;
    const operand& d = ins.ops[1];
    std::vector<const operand*> data;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            data.push_back(&e);
    else
        data.push_back(&d);
    for (std::size_t k = 0; k < data.size(); ++k) {
        vins v;
        v.op = opcode::ST;
        v.src[0] = base;
        v.src[1] = reg_src(ins, *data[k]);
        v.offset = off + static_cast<std::int32_t>(4 * k);
        emit(v);
    }
}

void translator::lower_atom(const instruction& ins)
{
    const bool red = ins.opcode == "red";
    const data_type t = ins.type();
    if (!ins.has("add") || !(t == T::u32 || t == T::s32) ||
        !mods_ok(ins, {"add", "relaxed", "gpu"}) || ins.ops.size() != (red ? 2u : 3u) ||
        (ins.space != state_space::global && ins.space != state_space::none)) {
        unsupported(ins, "ATOM.ADD on 32-bit integers in global memory is the only atomic");
        return;
    }
    vop base;
    std::int32_t off = 0;
    if (!address(ins, ins.ops[red ? 0 : 1], base, off))
        return;
    vins v;
    v.op = opcode::ATOM;
    v.dst = red ? vop{vk::rz, 0} : reg_of(ins, ins.ops[0]);
    v.src[0] = base;
    v.src[1] = reg_src(ins, ins.ops[red ? 1 : 2]);
    v.offset = off;
    emit(v);
}

// --- Layout, allocation, emission ----------------------------------------------------------

/// Registers an instruction reads (r) and writes (w), in the joint numbering: virtual
/// registers 0..nr-1, predicates nr.. .
void uses_defs(const vins& v, std::uint32_t nr, std::vector<std::uint32_t>& r,
               std::vector<std::uint32_t>& w)
{
    r.clear();
    w.clear();
    auto id = [&](const vop& o) { return o.k == vk::reg ? o.v : nr + o.v; };
    for (const vop& s : v.src)
        if (s.k == vk::reg || s.k == vk::pred)
            r.push_back(id(s));
    if (v.guard >= 0)
        r.push_back(nr + static_cast<std::uint32_t>(v.guard));
    if (v.dst.k == vk::reg || v.dst.k == vk::pred) {
        w.push_back(id(v.dst));
        if (v.guard >= 0) // a guarded write keeps the old value in the other lanes
            r.push_back(id(v.dst));
    }
}

std::string imm_text(opcode op, std::uint32_t bits)
{
    char buf[24];
    if (sm::info(op).imm == sm::imm_type::integer)
        std::snprintf(buf, sizeof buf, "%d", static_cast<std::int32_t>(bits));
    else
        std::snprintf(buf, sizeof buf, "0x%08x", bits);
    return buf;
}

void translator::propagate_copies()
{
    // MOV d, s where s is written once by an LDP or an S2R (the same value whenever it runs
    // in a thread) and d is written only by the MOV: every read of d sees s's value, so
    // reads of d read s and the MOV goes (cvta of a parameter becomes nothing).
    std::vector<unsigned> defs(m_nregs, 0);
    std::vector<char> invariant(m_nregs, 0);
    for (const block& b : m_blocks)
        for (const vins& v : b.code)
            if (v.dst.k == vk::reg) {
                ++defs[v.dst.v];
                invariant[v.dst.v] = (v.op == opcode::LDP || v.op == opcode::S2R) && v.guard < 0;
            }
    std::vector<std::uint32_t> to(m_nregs);
    for (std::uint32_t r = 0; r < m_nregs; ++r)
        to[r] = r;
    bool any = false;
    for (const block& b : m_blocks)
        for (const vins& v : b.code)
            if (v.op == opcode::MOV && v.guard < 0 && v.dst.k == vk::reg && v.src[0].k == vk::reg &&
                defs[v.dst.v] == 1 && defs[v.src[0].v] == 1 && invariant[v.src[0].v]) {
                to[v.dst.v] = v.src[0].v;
                any = true;
            }
    if (!any)
        return;
    auto root = [&](std::uint32_t r) {
        while (to[r] != r)
            r = to[r];
        return r;
    };
    for (block& b : m_blocks) {
        std::vector<vins> kept;
        for (vins v : b.code) {
            if (v.op == opcode::MOV && v.dst.k == vk::reg && to[v.dst.v] != v.dst.v)
                continue;
            for (vop& o : v.src)
                if (o.k == vk::reg)
                    o.v = root(o.v);
            kept.push_back(v);
        }
        b.code = std::move(kept);
    }
}

void translator::run()
{
    build_blocks();
    if (!m_out.errors.empty())
        return;
    propagate_copies();
    flow_graph g;
    for (const block& b : m_blocks) {
        std::vector<std::size_t> s;
        if (b.has_branch)
            s.push_back(b.target);
        if (b.fall != npos && !b.ends)
            s.push_back(b.fall);
        g.succs.push_back(s);
    }
    std::string why;
    const std::vector<std::size_t> order = reconverging_layout(g, &why);
    if (order.empty()) {
        m_out.errors.push_back(m_mod.file + ":" + std::to_string(m_fn.where.line) + ":" +
                               std::to_string(m_fn.where.col) + ": error: unsupported " + why +
                               " in '" + m_fn.name + "'");
        return;
    }
    finish(order);
}

void translator::finish(const std::vector<std::size_t>& order)
{
    // Linear code in layout order; BRA targets are blocks until every block has its PC.
    std::vector<vins> code;
    std::vector<std::size_t> block_pc(m_blocks.size(), npos);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const block& b = m_blocks[order[k]];
        const std::size_t next = k + 1 < order.size() ? order[k + 1] : npos;
        block_pc[order[k]] = code.size();
        code.insert(code.end(), b.code.begin(), b.code.end());
        if (b.ends)
            continue;
        auto bra = [&](std::size_t target, int guard, bool neg) {
            vins v;
            v.op = opcode::BRA;
            v.target = target;
            v.guard = guard;
            v.guard_neg = neg;
            v.ptx = b.branch_ptx;
            code.push_back(v);
        };
        std::size_t fall = b.fall;
        if (b.has_branch) {
            if (b.guard >= 0 && b.target == next && fall != npos && fall != next) {
                bra(fall, b.guard, !b.guard_neg); // invert: the taken side falls through
                continue;
            }
            if (b.target != next || b.guard >= 0)
                bra(b.target, b.guard, b.guard_neg);
            if (b.guard < 0)
                continue;
        }
        if (fall == npos) { // the end of the function: lanes finish
            vins v;
            v.op = opcode::EXIT;
            v.ptx = b.end > 0 ? b.end - 1 : npos;
            code.push_back(v);
        } else if (fall != next) {
            bra(fall, -1, false);
        }
    }
    for (vins& v : code)
        if (v.op == opcode::BRA)
            v.target = block_pc[v.target];

    // Liveness (backward, to a fixed point) over the linear code.
    const std::size_t n = code.size();
    const std::uint32_t nr = m_nregs, nv = m_nregs + m_npreds;
    const std::size_t words = (nv + 63) / 64;
    std::vector<std::vector<std::uint64_t>> live_in(n, std::vector<std::uint64_t>(words, 0));
    std::vector<std::vector<std::uint32_t>> reads(n), writes(n);
    for (std::size_t i = 0; i < n; ++i)
        uses_defs(code[i], nr, reads[i], writes[i]);
    auto succs = [&](std::size_t i, std::size_t out[2]) {
        std::size_t c = 0;
        const vins& v = code[i];
        if (v.op == opcode::BRA) {
            out[c++] = v.target;
            if (v.guard >= 0 && i + 1 < n)
                out[c++] = i + 1;
        } else if (v.op == opcode::EXIT) {
            if (v.guard >= 0 && i + 1 < n)
                out[c++] = i + 1;
        } else if (i + 1 < n) {
            out[c++] = i + 1;
        }
        return c;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = n; i-- > 0;) {
            std::vector<std::uint64_t> live(words, 0);
            std::size_t s[2];
            const std::size_t c = succs(i, s);
            for (std::size_t k = 0; k < c; ++k)
                for (std::size_t w = 0; w < words; ++w)
                    live[w] |= live_in[s[k]][w];
            for (const std::uint32_t d : writes[i])
                live[d / 64] &= ~(std::uint64_t{1} << (d % 64));
            for (const std::uint32_t u : reads[i])
                live[u / 64] |= std::uint64_t{1} << (u % 64);
            if (live != live_in[i]) {
                live_in[i] = std::move(live);
                changed = true;
            }
        }
    }
    // One interval per virtual register: every point where it is live in or written.
    std::vector<std::size_t> first(nv, npos), last(nv, 0);
    auto touch = [&](std::uint32_t x, std::size_t i) {
        first[x] = std::min(first[x], i);
        last[x] = std::max(last[x], i);
    };
    for (std::size_t i = 0; i < n; ++i) {
        for (std::uint32_t x = 0; x < nv; ++x)
            if (live_in[i][x / 64] >> (x % 64) & 1)
                touch(x, i);
        for (const std::uint32_t d : writes[i])
            touch(d, i);
    }
    // Linear scan: by start; a register is free again after its interval's last point.
    std::vector<std::uint32_t> phys(nv, 0);
    std::vector<std::uint32_t> by_start;
    for (std::uint32_t x = 0; x < nv; ++x)
        if (first[x] != npos)
            by_start.push_back(x);
    std::stable_sort(by_start.begin(), by_start.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return first[a] < first[b]; });
    std::vector<std::size_t> busy_until_r(m_opt.max_registers, npos),
        busy_until_p(m_opt.max_predicates, npos);
    unsigned used_r = 0, used_p = 0;
    for (const std::uint32_t x : by_start) {
        const bool is_pred = x >= nr;
        auto& busy = is_pred ? busy_until_p : busy_until_r;
        std::size_t pick = npos;
        for (std::size_t k = 0; k < busy.size() && pick == npos; ++k)
            if (busy[k] == npos || busy[k] < first[x])
                pick = k;
        if (pick == npos) {
            const std::size_t at = code[first[x]].ptx;
            const instruction& ins = m_fn.body[at == npos ? 0 : at];
            m_failed = false;
            fail(ins, std::string("unsupported: the kernel needs more than ") +
                          std::to_string(busy.size()) + (is_pred ? " predicates" : " registers") +
                          " per thread here (spilling to local memory is not implemented yet)");
            return;
        }
        busy[pick] = last[x];
        phys[x] = static_cast<std::uint32_t>(pick);
        (is_pred ? used_p : used_r) =
            std::max(is_pred ? used_p : used_r, static_cast<unsigned>(pick) + 1);
    }
    m_out.registers = std::max(used_r, 1u);
    m_out.predicates = used_p;

    // Text: one instruction per line, a label before every branch target.
    std::vector<char> is_target(n + 1, 0);
    for (const vins& v : code)
        if (v.op == opcode::BRA)
            is_target[v.target] = 1;
    auto opnd = [&](const vins& v, const vop& o) -> std::string {
        switch (o.k) {
        case vk::reg:
            return "R" + std::to_string(phys[o.v]);
        case vk::pred:
            return "P" + std::to_string(phys[nr + o.v]);
        case vk::imm:
            return imm_text(v.op, o.v);
        case vk::rz:
            return "RZ";
        default:
            return "?";
        }
    };
    std::string& t = m_out.text;
    for (std::size_t i = 0; i < n; ++i) {
        const vins& v = code[i];
        std::string line = is_target[i] ? "L" + std::to_string(i) + ":" : "";
        line.resize(std::max<std::size_t>(line.size(), 8), ' ');
        if (v.guard >= 0)
            line += std::string("@") + (v.guard_neg ? "!" : "") + "P" +
                    std::to_string(phys[nr + static_cast<std::uint32_t>(v.guard)]) + " ";
        std::string mn = sm::info(v.op).name;
        const sm::syntax form = sm::info(v.op).form;
        if (form == sm::syntax::setp)
            mn += std::string(".") + sm::name(v.cond);
        if (v.op == opcode::ATOM)
            mn += ".ADD";
        line += mn;
        auto mem = [&](const vop& base) {
            std::string s = "[" + opnd(v, base);
            if (v.offset > 0)
                s += " + " + std::to_string(v.offset);
            else if (v.offset < 0)
                s += " - " + std::to_string(-static_cast<std::int64_t>(v.offset));
            return s + "]";
        };
        std::string ops;
        switch (form) {
        case sm::syntax::none:
            break;
        case sm::syntax::r_s:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]);
            break;
        case sm::syntax::r_ss:
        case sm::syntax::setp:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        case sm::syntax::r_sss:
        case sm::syntax::sel:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]) + ", " + opnd(v, v.src[1]) + ", " +
                  opnd(v, v.src[2]);
            break;
        case sm::syntax::s2r:
            ops = opnd(v, v.dst) + ", SR_" + sm::name(v.sreg);
            break;
        case sm::syntax::ldp:
            ops = opnd(v, v.dst) + ", " + std::to_string(v.src[0].v);
            break;
        case sm::syntax::bra:
            ops = "L" + std::to_string(v.target);
            break;
        case sm::syntax::ld:
            ops = opnd(v, v.dst) + ", " + mem(v.src[0]);
            break;
        case sm::syntax::st:
            ops = mem(v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        case sm::syntax::atom:
            ops = opnd(v, v.dst) + ", " + mem(v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        default:
            break;
        }
        if (!ops.empty())
            line += " " + ops;
        pc_origin o;
        if (v.ptx != npos) {
            const instruction& ins = m_fn.body[v.ptx];
            o.ptx_line = ins.where.line;
            o.cuda = m_mod.source_line(ins);
        }
        line.resize(std::max<std::size_t>(line.size(), 40), ' ');
        line += "# " + std::to_string(i) +
                (o.ptx_line ? " ptx:" + std::to_string(o.ptx_line) : std::string(" layout")) +
                (o.cuda.empty() ? "" : " " + o.cuda);
        t += line + "\n";
        m_out.pcs.push_back(o);
    }
}

} // namespace

translation translate(const module& m, int entry, const translate_options& opt)
{
    translation out;
    if (entry < 0 || static_cast<std::size_t>(entry) >= m.functions.size()) {
        out.errors.push_back(m.file + ": error: no entry " + std::to_string(entry));
        return out;
    }
    const function& f = m.functions[static_cast<std::size_t>(entry)];
    for (const variable& d : f.decls)
        if (d.space == state_space::shared || d.space == state_space::local)
            out.errors.push_back(m.file + ":" + std::to_string(d.where.line) + ":" +
                                 std::to_string(d.where.col) + ": error: unsupported ." +
                                 space_name(d.space) + " variable '" + d.name + "': vgpu has no " +
                                 space_name(d.space) + " memory yet");
    if (f.body.empty() && out.errors.empty()) {
        out.text = "        EXIT\n";
        out.pcs.push_back({});
        out.registers = 1;
        return out;
    }
    translator(m, f, opt, out).run();
    if (!out.ok()) {
        out.text.clear();
        out.pcs.clear();
    }
    return out;
}

} // namespace vgpu::ptx
