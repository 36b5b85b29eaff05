// The SIMT instruction set of the SM: opcode table, encoding, decoding, disassembly.
// See docs/isa.md.
#include "models/sm/core/isa.h"
#include "tlm_bus/atomic_op.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace vgpu::sm {

static_assert(
    static_cast<unsigned>(tlm_bus::atomic_op::dec) == static_cast<unsigned>(atom_op::DEC) &&
        static_cast<unsigned>(tlm_bus::atomic_op::fadd) == static_cast<unsigned>(atom_op::FADD) &&
        static_cast<unsigned>(tlm_bus::atomic_op::xor_) == static_cast<unsigned>(atom_op::XOR),
    "atom_op and tlm_bus::atomic_op list the operations in one order");

namespace detail {
constexpr opcode_info opcode_table[num_opcodes + 1] = {
    {"NOP", syntax::none, imm_type::integer},
    {"MOV", syntax::r_s, imm_type::raw},
    {"S2R", syntax::s2r, imm_type::integer},
    {"LDP", syntax::ldp, imm_type::integer},
    {"IADD", syntax::r_ss, imm_type::integer},
    {"ISUB", syntax::r_ss, imm_type::integer},
    {"IMUL", syntax::r_ss, imm_type::integer},
    {"IMAD", syntax::r_sss, imm_type::integer},
    {"IMIN", syntax::r_ss, imm_type::integer},
    {"IMAX", syntax::r_ss, imm_type::integer},
    {"UMIN", syntax::r_ss, imm_type::integer},
    {"UMAX", syntax::r_ss, imm_type::integer},
    {"AND", syntax::r_ss, imm_type::integer},
    {"OR", syntax::r_ss, imm_type::integer},
    {"XOR", syntax::r_ss, imm_type::integer},
    {"NOT", syntax::r_s, imm_type::integer},
    {"SHL", syntax::r_ss, imm_type::integer},
    {"SHR", syntax::r_ss, imm_type::integer},
    {"SAR", syntax::r_ss, imm_type::integer},
    {"FADD", syntax::r_ss, imm_type::fp32},
    {"FSUB", syntax::r_ss, imm_type::fp32},
    {"FMUL", syntax::r_ss, imm_type::fp32},
    {"FFMA", syntax::r_sss, imm_type::fp32},
    {"FMIN", syntax::r_ss, imm_type::fp32},
    {"FMAX", syntax::r_ss, imm_type::fp32},
    {"FNEG", syntax::r_s, imm_type::fp32},
    {"FABS", syntax::r_s, imm_type::fp32},
    {"I2F", syntax::r_s, imm_type::integer},
    {"F2I", syntax::r_s, imm_type::fp32},
    {"ISETP", syntax::setp, imm_type::integer},
    {"USETP", syntax::setp, imm_type::integer},
    {"FSETP", syntax::setp, imm_type::fp32},
    {"SEL", syntax::sel, imm_type::raw},
    {"BRA", syntax::bra, imm_type::integer},
    {"LD", syntax::ld, imm_type::integer},
    {"ST", syntax::st, imm_type::integer},
    {"BAR", syntax::none, imm_type::integer},
    {"EXIT", syntax::none, imm_type::integer},
    {"TRACE", syntax::trace, imm_type::integer},
    {"CDL", syntax::cdl, imm_type::integer},
    {"MEMBAR", syntax::none, imm_type::integer},
    {"ATOM", syntax::atom, imm_type::integer},
    // Division, SFU functions, conversions, float compares and warp-level operations
    {"FDIV", syntax::r_ssm, imm_type::fp32},
    {"IDIV", syntax::r_ssm, imm_type::integer},
    {"MUFU", syntax::r_sm, imm_type::fp32},
    {"CVT", syntax::r_sm, imm_type::raw},
    {"FSETPX", syntax::setpm, imm_type::fp32},
    {"SHFL", syntax::r_sssm, imm_type::raw},
    {"VOTE", syntax::vote, imm_type::integer},
    {"BALLOT", syntax::ballot, imm_type::integer},
    {"WARPSYNC", syntax::wsync, imm_type::integer},
    // Integer multiply high and 24-bit, bit counts and fields, byte permute
    {"IMADX", syntax::r_sssm, imm_type::integer},
    {"BITS", syntax::r_sm, imm_type::integer},
    {"BFX", syntax::r_sssm, imm_type::integer},
    {"PRMT", syntax::r_sssm, imm_type::integer},
    // shared memory and atomics
    {"CAS", syntax::cas, imm_type::integer},
    // fp64 and 64-bit integers on register pairs (isa64.cpp)
    {"DADD", syntax::r_ssm, imm_type::fp32},
    {"DMUL", syntax::r_ssm, imm_type::fp32},
    {"DFMA", syntax::r_sssm, imm_type::fp32},
    {"DFN", syntax::r_ssm, imm_type::fp32},
    {"DSETP", syntax::setpm, imm_type::fp32},
    {"DCVT", syntax::r_sm, imm_type::raw},
    {"I64", syntax::r_ssm, imm_type::integer},
    {"I64SETP", syntax::setpm, imm_type::integer},
    {"<invalid>", syntax::none, imm_type::integer},
};
// A table one short would end in a zero entry: the last one must be INVALID's.
static_assert(opcode_table[num_opcodes].name[0] == '<', "one entry per opcode, INVALID last");
} // namespace detail
using detail::opcode_table;

namespace {

constexpr const char* cmp_names[num_cmp_ops] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
constexpr const char* sreg_names[num_special_regs] = {"TID_X", "TID_Y", "NTID_X", "NTID_Y",
                                                      "CTAID_X", "CTAID_Y", "NCTAID_X", "NCTAID_Y",
                                                      "LANEID", "WARPID", "SMID", "GLOBAL_TID_X",
                                                      // 3-D launches
                                                      "TID_Z", "NTID_Z", "CTAID_Z", "NCTAID_Z"};

enum class dst_kind : std::uint8_t { none, reg, pred };

constexpr std::uint8_t N = 1u << static_cast<unsigned>(operand_kind::none);
constexpr std::uint8_t R = 1u << static_cast<unsigned>(operand_kind::reg);
constexpr std::uint8_t I = 1u << static_cast<unsigned>(operand_kind::imm);
constexpr std::uint8_t P = 1u << static_cast<unsigned>(operand_kind::pred);

/// Which fields a syntax uses: the destination kind, the operand kinds each source slot
/// accepts (bit mask over operand_kind), and the cond/sreg/offset fields.
struct layout {
    dst_kind dst;
    std::uint8_t src[3];
    bool cond, sreg, offset;
    bool mod = false; ///< instruction::mod in the cond and sreg bits
    bool mem = false; ///< memory space (and width or atomic operation) in bits 25:19
};

const layout& layout_of(syntax s)
{
    static const layout table[] = {
        /* none  */ {dst_kind::none, {N, N, N}, false, false, false},
        /* r_s   */ {dst_kind::reg, {R | I, N, N}, false, false, false},
        /* r_ss  */ {dst_kind::reg, {R | I, R | I, N}, false, false, false},
        /* r_sss */ {dst_kind::reg, {R | I, R | I, R | I}, false, false, false},
        /* s2r   */ {dst_kind::reg, {N, N, N}, false, true, false},
        /* ldp   */ {dst_kind::reg, {I, N, N}, false, false, false},
        /* setp  */ {dst_kind::pred, {R | I, R | I, N}, true, false, false},
        /* sel   */ {dst_kind::reg, {R | I, R | I, P}, false, false, false},
        /* bra   */ {dst_kind::none, {I, N, N}, false, false, false},
        /* ld    */ {dst_kind::reg, {R, N, N}, false, false, true, false, true},
        /* st    */ {dst_kind::none, {R, R, N}, false, false, true, false, true},
        /* trace */ {dst_kind::none, {I, N, N}, false, false, false},
        /* cdl   */ {dst_kind::reg, {R | I, I, N | I}, false, false, false},
        /* atom  */ {dst_kind::reg, {R, R, N}, false, false, true, false, true},
        /* r_sm   */ {dst_kind::reg, {R | I, N, N}, false, false, false, true},
        /* r_ssm  */ {dst_kind::reg, {R | I, R | I, N}, false, false, false, true},
        /* r_sssm */ {dst_kind::reg, {R | I, R | I, R | I}, false, false, false, true},
        /* setpm  */ {dst_kind::pred, {R | I, R | I, N}, false, false, false, true},
        /* vote   */ {dst_kind::pred, {P, R | I, N}, false, false, false, true},
        /* ballot */ {dst_kind::reg, {P, R | I, N}, false, false, false, true},
        /* wsync  */ {dst_kind::none, {R | I, N, N}, false, false, false},
        /* cas   */ {dst_kind::reg, {R, R, R}, false, false, false, false, true},
    };
    return table[static_cast<unsigned>(s)];
}

std::string reg_name(std::uint32_t r)
{
    return r == reg_zero ? "RZ" : "R" + std::to_string(r);
}

std::string pred_name(std::uint32_t p)
{
    return p == pred_true ? "PT" : "P" + std::to_string(p);
}

std::uint64_t bits(std::uint64_t v, unsigned lo, unsigned width)
{
    return (v >> lo) & ((std::uint64_t{1} << width) - 1);
}

std::string int_imm_text(std::uint32_t v)
{
    const auto s = static_cast<std::int32_t>(v);
    if (s >= -65536 && s <= 65536)
        return std::to_string(s);
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

std::string fp_imm_text(std::uint32_t v)
{
    float f;
    std::memcpy(&f, &v, sizeof f);
    // NaN payloads and infinities have no decimal spelling that the assembler accepts.
    if (!std::isfinite(f)) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "0x%x", v);
        return buf;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
    std::string s = buf;
    // Without a '.' or exponent "-0" would read back as the integer 0, losing the sign.
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

std::string source_text(const operand& o, imm_type t)
{
    switch (o.kind) {
    case operand_kind::reg:
        return reg_name(o.value);
    case operand_kind::pred:
        return pred_name(o.value);
    case operand_kind::imm:
        return t == imm_type::fp32 ? fp_imm_text(o.value) : int_imm_text(o.value);
    case operand_kind::none:
        break;
    }
    return "";
}

std::string address_text(const instruction& inst)
{
    std::string s = "[" + reg_name(inst.src[0].value);
    if (inst.offset > 0)
        s += " + " + std::to_string(inst.offset);
    else if (inst.offset < 0)
        s += " - " + std::to_string(-static_cast<std::int64_t>(inst.offset));
    return s + "]";
}

/// Why the memory fields of inst are wrong (fields an opcode does not use must keep their
/// defaults), or nullopt.
std::optional<std::string> check_memory(const instruction& inst, bool mem)
{
    const char* op = info(inst.op).name;
    const syntax form = info(inst.op).form;
    if (static_cast<unsigned>(inst.space) >= num_mem_spaces ||
        (!mem && inst.space != mem_space::global))
        return std::string("bad memory space on ") + op;
    const bool sized = form == syntax::ld || form == syntax::st;
    const bool atomic = form == syntax::atom || form == syntax::cas; // B32 or B64 (pairs)
    const bool wide = inst.width == mem_width::b64;
    if (static_cast<unsigned>(inst.width) >= num_mem_widths ||
        (sized ? wide : inst.width != mem_width::b32 && !(atomic && wide)) ||
        (form == syntax::st && (inst.width == mem_width::s8 || inst.width == mem_width::s16)))
        return std::string("bad access width on ") + op;
    if (static_cast<unsigned>(inst.aop) >= num_atom_ops ||
        (form != syntax::atom && inst.aop != atom_op::ADD) || (wide && !atom_has64(inst.aop)))
        return std::string("bad atomic operation on ") + op;
    return std::nullopt;
}

} // namespace

operand fimm(float value)
{
    std::uint32_t b;
    std::memcpy(&b, &value, sizeof b);
    return imm(b);
}

unsigned width_bytes(mem_width w)
{
    switch (w) {
    case mem_width::u8:
    case mem_width::s8:
        return 1;
    case mem_width::u16:
    case mem_width::s16:
        return 2;
    case mem_width::b64:
        return 8;
    case mem_width::b32:
        break;
    }
    return 4;
}

std::uint32_t load_extend(mem_width w, std::uint32_t raw)
{
    switch (w) {
    case mem_width::u8:
        return raw & 0xffu;
    case mem_width::s8:
        return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(raw)));
    case mem_width::u16:
        return raw & 0xffffu;
    case mem_width::s16:
        return static_cast<std::uint32_t>(
            static_cast<std::int32_t>(static_cast<std::int16_t>(raw)));
    case mem_width::b32:
    case mem_width::b64: // ATOM/CAS only: no extension
        break;
    }
    return raw;
}

std::uint32_t atom_apply(atom_op op, std::uint32_t old, std::uint32_t b)
{
    if (op == atom_op::FADD) { // shared memory keeps subnormals (global flushes them)
        float x, y;
        std::memcpy(&x, &old, 4);
        std::memcpy(&y, &b, 4);
        const float r = x + y;
        std::uint32_t bits;
        std::memcpy(&bits, &r, 4);
        return bits;
    }
    return tlm_bus::atomic_result(static_cast<tlm_bus::atomic_op>(op), old, b);
}

bool atom_combines(atom_op op)
{
    return op != atom_op::FADD && op != atom_op::INC && op != atom_op::DEC;
}

std::uint32_t atom_fold(atom_op op, std::uint32_t acc, std::uint32_t b)
{
    // Each combining operation's fold is the operation itself (EXCH: the later operand).
    return atom_apply(op, acc, b);
}

const char* name(atom_op op)
{
    static const char* const names[num_atom_ops] = {"ADD",  "FADD", "MIN", "MAX", "UMIN", "UMAX",
                                                    "EXCH", "AND",  "OR",  "XOR", "INC",  "DEC"};
    const auto i = static_cast<unsigned>(op);
    return i < num_atom_ops ? names[i] : "??";
}

const char* name(mem_space sp)
{
    return sp == mem_space::shared ? "SHARED" : sp == mem_space::local ? "LOCAL" : "";
}

const char* name(mem_width w)
{
    static const char* const names[num_mem_widths] = {"", "U8", "S8", "U16", "S16", "B64"};
    const auto i = static_cast<unsigned>(w);
    return i < num_mem_widths ? names[i] : "??";
}

const char* name(cmp_op c)
{
    const auto i = static_cast<unsigned>(c);
    return i < num_cmp_ops ? cmp_names[i] : "??";
}

const char* name(special_reg s)
{
    const auto i = static_cast<unsigned>(s);
    return i < num_special_regs ? sreg_names[i] : "??";
}

bool instruction::operator==(const instruction& o) const
{
    return op == o.op && guard == o.guard && guard_neg == o.guard_neg && dst == o.dst &&
           src == o.src && cond == o.cond && sreg == o.sreg && offset == o.offset && mod == o.mod &&
           space == o.space && width == o.width && aop == o.aop;
}

std::optional<std::string> check(const instruction& inst, unsigned nregs)
{
    if (static_cast<unsigned>(inst.op) >= num_opcodes)
        return std::string("illegal instruction (undecodable instruction word)");
    const char* op = info(inst.op).name;
    const layout& l = layout_of(info(inst.op).form);
    auto reg_ok = [nregs](std::uint32_t r) { return r == reg_zero || r < nregs; };
    auto bad_reg = [nregs](std::uint32_t r) {
        return "register R" + std::to_string(r) + " out of range (R0..R" +
               std::to_string(nregs - 1) + ")";
    };
    if (inst.guard > pred_true)
        return "bad guard predicate " + std::to_string(inst.guard) + " on " + op;
    if (l.dst == dst_kind::reg && !reg_ok(inst.dst))
        return bad_reg(inst.dst);
    if (l.dst == dst_kind::pred && inst.dst > pred_true)
        return "bad destination predicate " + std::to_string(inst.dst) + " on " + op;
    for (unsigned i = 0; i < 3; ++i) {
        const operand& s = inst.src[i];
        const auto kind = static_cast<unsigned>(s.kind);
        if (kind > 3 || !(l.src[i] & (1u << kind)))
            return "bad kind of operand " + std::to_string(i + 1) + " on " + op;
        if (s.kind == operand_kind::reg && !reg_ok(s.value))
            return bad_reg(s.value);
        if (s.kind == operand_kind::pred && s.value > pred_true)
            return "bad predicate " + std::to_string(s.value) + " on " + op;
    }
    if (l.cond && static_cast<unsigned>(inst.cond) >= num_cmp_ops)
        return std::string("bad comparison on ") + op;
    if (l.sreg && static_cast<unsigned>(inst.sreg) >= num_special_regs)
        return std::string("bad special register on ") + op;
    if (!mod_valid(inst.op, inst.mod))
        return "bad modifier " + std::to_string(inst.mod) + " on " + op;
    if (auto why = check_memory(inst, l.mem))
        return why;
    // A register pair Rn:Rn+1 needs n + 1 < nregs (RZ as a pair reads 0, discards writes).
    const unsigned pairs = pair_mask(inst);
    for (unsigned i = 0; i < 4; ++i) {
        const bool is_reg =
            i == 0 ? l.dst == dst_kind::reg : inst.src[i - 1].kind == operand_kind::reg;
        const std::uint32_t r = i == 0 ? inst.dst : inst.src[i - 1].value;
        if ((pairs >> i & 1) && is_reg && r != reg_zero && r + 1 >= nregs)
            return "register pair R" + std::to_string(r) + ":R" + std::to_string(r + 1) +
                   " out of range (R0..R" + std::to_string(nregs - 1) + ")";
    }
    return std::nullopt;
}

instruction_words encode(const instruction& inst)
{
    const layout& l = layout_of(info(inst.op).form);
    std::uint64_t w0 = static_cast<std::uint64_t>(inst.op) & 0x3f;
    if (l.dst != dst_kind::none)
        w0 |= std::uint64_t{inst.dst} << 6;
    w0 |= std::uint64_t{inst.guard & 0xfu} << 14;
    w0 |= std::uint64_t{inst.guard_neg} << 18;
    if (l.cond)
        w0 |= (static_cast<std::uint64_t>(inst.cond) & 7) << 19;
    if (l.sreg)
        w0 |= (static_cast<std::uint64_t>(inst.sreg) & 0xf) << 22;
    if (l.mod)
        w0 |= (std::uint64_t{inst.mod} & 0x7f) << 19;
    if (l.mem) {
        // LD/ST: the width (bits 23:21); ATOM: the operation (bits 24:21); ATOM/CAS: B64 in
        // bit 25.
        const syntax form = info(inst.op).form;
        const std::uint64_t wide = inst.width == mem_width::b64 ? 16 : 0;
        const std::uint64_t sub =
            form == syntax::atom  ? (static_cast<std::uint64_t>(inst.aop) & 0xf) | wide
            : form == syntax::cas ? wide
                                  : static_cast<std::uint64_t>(inst.width) & 0x7;
        w0 |= (static_cast<std::uint64_t>(inst.space) & 3) << 19 | sub << 21;
    }
    std::uint32_t values[3] = {};
    for (unsigned i = 0; i < 3; ++i) {
        const operand& s = inst.src[i];
        if (s.kind == operand_kind::none)
            continue;
        w0 |= (static_cast<std::uint64_t>(s.kind) & 3) << (26 + 2 * i);
        values[i] = s.value;
    }
    if (l.offset)
        values[2] = static_cast<std::uint32_t>(inst.offset);
    w0 |= std::uint64_t{values[0]} << 32;
    const std::uint64_t w1 = values[1] | (std::uint64_t{values[2]} << 32);
    return {w0, w1};
}

std::optional<instruction> decode(const instruction_words& words)
{
    const std::uint64_t w0 = words[0];
    const std::uint64_t w1 = words[1];
    const auto op = static_cast<unsigned>(bits(w0, 0, 6));
    if (op >= num_opcodes)
        return std::nullopt;
    instruction inst;
    inst.op = static_cast<opcode>(op);
    const layout& l = layout_of(info(inst.op).form);
    const auto dst = static_cast<std::uint8_t>(bits(w0, 6, 8));
    const auto cond = static_cast<unsigned>(bits(w0, 19, 3));
    const auto sreg = static_cast<unsigned>(bits(w0, 22, 4));
    const std::uint32_t values[3] = {static_cast<std::uint32_t>(w0 >> 32),
                                     static_cast<std::uint32_t>(w1),
                                     static_cast<std::uint32_t>(w1 >> 32)};
    // Unused fields must be zero, so that every instruction has exactly one encoding.
    if (l.dst == dst_kind::none && dst != 0)
        return std::nullopt;
    if (l.mod)
        inst.mod = static_cast<std::uint8_t>(bits(w0, 19, 7));
    else if (!l.mem && ((!l.cond && cond != 0) || (!l.sreg && sreg != 0)))
        return std::nullopt;
    if (l.mem) {
        const auto space = static_cast<unsigned>(bits(w0, 19, 2));
        const auto sub = static_cast<unsigned>(bits(w0, 21, 5));
        const bool atom = info(inst.op).form == syntax::atom;
        const bool cas = info(inst.op).form == syntax::cas;
        if (space >= num_mem_spaces || (atom  ? (sub & 15) >= num_atom_ops
                                        : cas ? (sub & 15) != 0
                                              : sub >= num_mem_widths))
            return std::nullopt;
        inst.space = static_cast<mem_space>(space);
        if (atom)
            inst.aop = static_cast<atom_op>(sub & 15);
        if (atom || cas)
            inst.width = sub & 16 ? mem_width::b64 : mem_width::b32;
        else
            inst.width = static_cast<mem_width>(sub);
    }
    if (l.dst != dst_kind::none)
        inst.dst = dst;
    inst.guard = static_cast<std::uint8_t>(bits(w0, 14, 4));
    inst.guard_neg = bits(w0, 18, 1) != 0;
    if (l.cond)
        inst.cond = static_cast<cmp_op>(cond);
    if (l.sreg)
        inst.sreg = static_cast<special_reg>(sreg);
    for (unsigned i = 0; i < 3; ++i) {
        const auto kind = static_cast<operand_kind>(bits(w0, 26 + 2 * i, 2));
        const bool offset_slot = l.offset && i == 2;
        if (kind == operand_kind::none) {
            if (values[i] != 0 && !offset_slot)
                return std::nullopt;
            continue;
        }
        inst.src[i] = {kind, values[i]};
    }
    if (l.offset)
        inst.offset = static_cast<std::int32_t>(values[2]);
    if (check(inst))
        return std::nullopt;
    return inst;
}

std::string disassemble(const instruction& inst)
{
    const opcode_info& oi = info(inst.op);
    std::string s;
    if (inst.guard != pred_true || inst.guard_neg)
        s += std::string("@") + (inst.guard_neg ? "!" : "") + pred_name(inst.guard) + " ";
    s += oi.name;
    if (layout_of(oi.form).mod)
        s += mod_text(inst.op, inst.mod);
    if (oi.form == syntax::atom)
        s += std::string(".") + name(inst.aop);
    if (inst.width != mem_width::b32)
        s += std::string(".") + name(inst.width);
    if (inst.space != mem_space::global)
        s += std::string(".") + name(inst.space);
    const auto& src = inst.src;
    auto a = [&](unsigned i) { return source_text(src[i], oi.imm); };
    switch (oi.form) {
    case syntax::none:
        break;
    case syntax::r_s:
        s += " " + reg_name(inst.dst) + ", " + a(0);
        break;
    case syntax::r_ss:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1);
        break;
    case syntax::r_sss:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1) + ", " + a(2);
        break;
    case syntax::s2r:
        s += " " + reg_name(inst.dst) + ", SR_" + name(inst.sreg);
        break;
    case syntax::ldp:
        s += " " + reg_name(inst.dst) + ", " + std::to_string(src[0].value);
        break;
    case syntax::setp:
        s += std::string(".") + name(inst.cond) + " " + pred_name(inst.dst) + ", " + a(0) + ", " +
             a(1);
        break;
    case syntax::sel:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1) + ", " + a(2);
        break;
    case syntax::bra:
    case syntax::trace:
        s += " " + std::to_string(src[0].value);
        break;
    case syntax::ld:
        s += " " + reg_name(inst.dst) + ", " + address_text(inst);
        break;
    case syntax::st:
        s += " " + address_text(inst) + ", " + reg_name(src[1].value);
        break;
    case syntax::atom:
        s += " " + reg_name(inst.dst) + ", " + address_text(inst) + ", " + reg_name(src[1].value);
        break;
    case syntax::cas:
        s += " " + reg_name(inst.dst) + ", [" + reg_name(src[0].value) + "], " +
             reg_name(src[1].value) + ", " + reg_name(src[2].value);
        break;
    case syntax::r_sm:
        s += " " + reg_name(inst.dst) + ", " + a(0);
        break;
    case syntax::r_ssm:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1);
        break;
    case syntax::r_sssm:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1) + ", " + a(2);
        break;
    case syntax::setpm:
        s += " " + pred_name(inst.dst) + ", " + a(0) + ", " + a(1);
        break;
    case syntax::vote:
        s += " " + pred_name(inst.dst) + ", " + a(0) + ", " + a(1);
        break;
    case syntax::ballot:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", " + a(1);
        break;
    case syntax::wsync:
        s += " " + a(0);
        break;
    case syntax::cdl:
        s += " " + reg_name(inst.dst) + ", " + a(0) + ", cbv[" + std::to_string(src[1].value) + "]";
        if (src[2].kind == operand_kind::imm)
            s += ", " + std::to_string(src[2].value);
        break;
    }
    return s;
}

std::vector<std::uint8_t> encode_program(const program& prog)
{
    std::vector<std::uint8_t> bytes(prog.size() * instruction_bytes);
    for (std::size_t pc = 0; pc < prog.size(); ++pc) {
        const instruction_words w = encode(prog[pc]);
        for (unsigned b = 0; b < 16; ++b)
            bytes[pc * instruction_bytes + b] =
                static_cast<std::uint8_t>(w[b / 8] >> (8 * (b % 8)));
    }
    return bytes;
}

program decode_program(const std::uint8_t* data, std::size_t size)
{
    program prog((size + instruction_bytes - 1) / instruction_bytes);
    for (std::size_t pc = 0; pc < prog.size(); ++pc) {
        const std::size_t base = pc * instruction_bytes;
        if (base + instruction_bytes > size) {
            prog[pc].op = opcode::INVALID;
            break;
        }
        instruction_words w{0, 0};
        for (unsigned b = 0; b < 16; ++b)
            w[b / 8] |= std::uint64_t{data[base + b]} << (8 * (b % 8));
        const auto inst = decode(w);
        if (inst)
            prog[pc] = *inst;
        else
            prog[pc].op = opcode::INVALID;
    }
    return prog;
}

bool has_mod(opcode op)
{
    return static_cast<unsigned>(op) < num_opcodes && layout_of(info(op).form).mod;
}

namespace {

const char* const mufu_names[mods::num_mufu] = {"EX2", "LG2", "RCP",    "RSQ",    "SQRT",
                                                "SIN", "COS", "RCP_RN", "SQRT_RN"};
const char* const cvt_kind_names[4] = {"FRND", "I2F", "F2I", "F2F"};
const char* const rounding_names[4] = {"RN", "RZ", "RM", "RP"};
const char* const fcmp_names[22] = {
    "EQ",     "NE",       "LT",     "LE",         "GT",     "GE",       "EQU",   "NEU",
    "LTU",    "LEU",      "GTU",    "GEU",        "NUM",    "NAN",      nullptr, nullptr,
    "FINITE", "INFINITE", "NUMBER", "NOTANUMBER", "NORMAL", "SUBNORMAL"};
const char* const shfl_names[4] = {"UP", "DOWN", "BFLY", "IDX"};
const char* const vote_names[3] = {"ALL", "ANY", "UNI"};
const char* const bits_names[5] = {"POPC", "CLZ", "BREV", "FIND.U", "FIND.S"};
const char* const bfx_names[3] = {"U", "S", "INS"};
const char* const prmt_names[7] = {"", ".F4E", ".B4E", ".RC8", ".ECL", ".ECR", ".RC16"};

} // namespace

bool mod_valid(opcode op, unsigned mod)
{
    if (mod > 0x7f)
        return false;
    switch (op) {
    case opcode::FDIV:
        return mod <= mods::ftz;
    case opcode::IDIV:
        return mod <= (mods::idiv_signed | mods::idiv_rem);
    case opcode::MUFU:
        return (mod & 15) < mods::num_mufu && (mod & ~(15u | mods::mufu_ftz)) == 0;
    case opcode::CVT: {
        const auto kind = static_cast<mods::cvt_kind>(mod & 3);
        const unsigned round = (mod >> 2) & 3;
        switch (kind) {
        case mods::cvt_kind::FRND: // round to an integral value; .sat clamps to [0, 1]
            return (mod & mods::cvt_signed) == 0;
        case mods::cvt_kind::F2F: // ftz and sat only
            return round == 0 && (mod & mods::cvt_signed) == 0;
        case mods::cvt_kind::I2F: // rounding and signedness; sat is meaningless
            return (mod & (mods::cvt_ftz | mods::cvt_sat)) == 0;
        case mods::cvt_kind::F2I: // always saturates to the integer range (PTX)
            return (mod & mods::cvt_sat) == 0;
        }
        return false;
    }
    case opcode::FSETPX: {
        const unsigned c = mod & 31;
        return (mod & ~(31u | mods::fsetp_ftz)) == 0 && c < 22 && fcmp_names[c] != nullptr;
    }
    case opcode::SHFL:
        return mod < 4;
    case opcode::VOTE:
        return (mod & 3) < 3 && (mod & ~(3u | mods::vote_not)) == 0;
    case opcode::BALLOT:
        return mod <= mods::ballot_not;
    case opcode::IMADX:
        return mod < 8;
    case opcode::BITS: {
        const unsigned fn = mod & 7;
        const bool find = fn == 3 || fn == 4;
        return fn < 5 && (mod & ~(7u | mods::bits_shiftamt)) == 0 &&
               (find || (mod & mods::bits_shiftamt) == 0);
    }
    case opcode::BFX:
        return mod < 3;
    case opcode::PRMT:
        return mod < 7;
    default:
        return is_wide(op) ? wide_mod_valid(op, mod) : mod == 0;
    }
}

std::string mod_text(opcode op, unsigned mod)
{
    if (!mod_valid(op, mod))
        return ".?";
    std::string s;
    switch (op) {
    case opcode::FDIV:
        if (mod & mods::ftz)
            s = ".FTZ";
        break;
    case opcode::IDIV:
        s = (mod & mods::idiv_signed) ? ".S" : ".U";
        if (mod & mods::idiv_rem)
            s += ".REM";
        break;
    case opcode::MUFU:
        s = std::string(".") + mufu_names[mod & 15];
        if (mod & mods::mufu_ftz)
            s += ".FTZ";
        break;
    case opcode::CVT: {
        const auto kind = static_cast<mods::cvt_kind>(mod & 3);
        s = std::string(".") + cvt_kind_names[mod & 3];
        if (kind != mods::cvt_kind::F2F)
            s += std::string(".") + rounding_names[(mod >> 2) & 3];
        if (kind == mods::cvt_kind::I2F || kind == mods::cvt_kind::F2I)
            s += (mod & mods::cvt_signed) ? ".S" : ".U";
        if (mod & mods::cvt_ftz)
            s += ".FTZ";
        if (mod & mods::cvt_sat)
            s += ".SAT";
        break;
    }
    case opcode::FSETPX:
        s = std::string(".") + fcmp_names[mod & 31];
        if (mod & mods::fsetp_ftz)
            s += ".FTZ";
        break;
    case opcode::SHFL:
        s = std::string(".") + shfl_names[mod];
        break;
    case opcode::VOTE:
        s = std::string(".") + vote_names[mod & 3];
        if (mod & mods::vote_not)
            s += ".NOT";
        break;
    case opcode::BALLOT:
        if (mod & mods::ballot_not)
            s = ".NOT";
        break;
    case opcode::IMADX:
        s = std::string(mod & mods::imadx_24 ? ".24" : "") +
            (mod & mods::imadx_hi ? ".HI" : ".LO") + (mod & mods::imadx_signed ? ".S" : ".U");
        break;
    case opcode::BITS:
        s = std::string(".") + bits_names[mod & 7];
        if (mod & mods::bits_shiftamt)
            s += ".SHIFTAMT";
        break;
    case opcode::BFX:
        s = std::string(".") + bfx_names[mod];
        break;
    case opcode::PRMT:
        s = prmt_names[mod];
        break;
    default:
        s = wide_mod_text(op, mod);
        break;
    }
    return s;
}

std::optional<std::uint8_t> parse_mod(opcode op, const std::string& suffix)
{
    const std::string want = suffix.empty() ? "" : "." + suffix;
    for (unsigned m = 0; m < 128; ++m)
        if (mod_valid(op, m) && mod_text(op, m) == want)
            return static_cast<std::uint8_t>(m);
    return std::nullopt;
}

} // namespace vgpu::sm
