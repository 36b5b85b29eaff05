// fp64 and 64-bit integer instructions: modifiers and operand widths (docs/isa.md, "fp64 and
// 64-bit integers"). The per-lane semantics are in lane_ops64.cpp.
#include "models/sm/core/isa64.h"
#include "tlm_bus/atomic_op.h"

namespace vgpu::sm {

namespace {

const char* const rnames[4] = {"RN", "RZ", "RM", "RP"};
const char* const dfn_names[mods::num_dfn] = {"MIN", "MAX", "DIV", "SQRT", "RCP", "ABS", "NEG"};
const char* const dcvt_names[mods::num_dcvt] = {"F2D", "D2F", "I2D", "D2I", "DRND", "I2F", "F2I"};
const char* const i64_names[mods::num_i64] = {
    "ADD",  "SUB", "MUL",  "MULHI.U", "MULHI.S", "AND",    "OR",    "XOR",   "NOT",   "SHL",
    "SHR",  "SAR", "MIN",  "MAX",     "UMIN",    "UMAX",   "DIV.S", "DIV.U", "REM.S", "REM.U",
    "POPC", "CLZ", "BREV", "PACK",    "WIDE.U",  "WIDE.S", "SEXT",  "MOV"};
const char* const fcmp_names[22] = {
    "EQ",     "NE",       "LT",     "LE",         "GT",     "GE",       "EQU",   "NEU",
    "LTU",    "LEU",      "GTU",    "GEU",        "NUM",    "NAN",      nullptr, nullptr,
    "FINITE", "INFINITE", "NUMBER", "NOTANUMBER", "NORMAL", "SUBNORMAL"};

bool rounded(mods::dfn f)
{
    return f == mods::dfn::DIV || f == mods::dfn::SQRT || f == mods::dfn::RCP;
}

} // namespace

bool is_wide(opcode op)
{
    return op >= opcode::DADD && op <= opcode::I64SETP;
}

bool wide_mod_valid(opcode op, unsigned mod)
{
    if (mod > 0x7f)
        return false;
    switch (op) {
    case opcode::DADD:
    case opcode::DMUL:
    case opcode::DFMA:
        return mod < 4;
    case opcode::DFN: {
        const unsigned f = mod & 7;
        return f < mods::num_dfn && mod < 32 &&
               (rounded(static_cast<mods::dfn>(f)) || (mod >> 3) == 0);
    }
    case opcode::DSETP:
        return mod < 22 && fcmp_names[mod] != nullptr;
    case opcode::DCVT: {
        const auto k = static_cast<mods::dcvt>(mod & 7);
        const unsigned round = (mod >> 3) & 3;
        const bool sgn = mod & mods::dcvt_signed, wide = mod & mods::dcvt_64;
        switch (k) {
        case mods::dcvt::F2D:
            return round == 0 && !sgn && !wide;
        case mods::dcvt::D2F:
        case mods::dcvt::DRND:
            return !sgn && !wide;
        case mods::dcvt::I2D:
        case mods::dcvt::D2I:
            return true;
        case mods::dcvt::I2F:
        case mods::dcvt::F2I:
            return wide; // the 32-bit forms are CVT's
        }
        return false;
    }
    case opcode::I64:
        return mod < mods::num_i64;
    case opcode::I64SETP:
        return (mod & 7) < num_cmp_ops && mod < 16;
    default:
        return mod == 0;
    }
}

std::string wide_mod_text(opcode op, unsigned mod)
{
    std::string s;
    switch (op) {
    case opcode::DADD:
    case opcode::DMUL:
    case opcode::DFMA:
        if (mod != 0)
            s = std::string(".") + rnames[mod & 3];
        break;
    case opcode::DFN:
        s = std::string(".") + dfn_names[mod & 7];
        if (rounded(static_cast<mods::dfn>(mod & 7)) && (mod >> 3) != 0)
            s += std::string(".") + rnames[(mod >> 3) & 3];
        break;
    case opcode::DSETP:
        s = std::string(".") + fcmp_names[mod];
        break;
    case opcode::DCVT: {
        const auto k = static_cast<mods::dcvt>(mod & 7);
        s = std::string(".") + dcvt_names[mod & 7];
        if (k != mods::dcvt::F2D)
            s += std::string(".") + rnames[(mod >> 3) & 3];
        if (k == mods::dcvt::I2D || k == mods::dcvt::D2I || k == mods::dcvt::I2F ||
            k == mods::dcvt::F2I)
            s += std::string(mod & mods::dcvt_signed ? ".S" : ".U") +
                 (mod & mods::dcvt_64 ? "64" : "32");
        break;
    }
    case opcode::I64:
        s = std::string(".") + i64_names[mod];
        break;
    case opcode::I64SETP:
        s = std::string(".") + name(static_cast<cmp_op>(mod & 7));
        if (mod & mods::lsetp_unsigned)
            s += ".U";
        break;
    default:
        break;
    }
    return s;
}

bool wide_float_sources(opcode op, unsigned mod)
{
    switch (op) {
    case opcode::DADD:
    case opcode::DMUL:
    case opcode::DFMA:
    case opcode::DFN:
    case opcode::DSETP:
        return true;
    case opcode::DCVT: {
        const auto k = static_cast<mods::dcvt>(mod & 7);
        return k != mods::dcvt::I2D && k != mods::dcvt::I2F;
    }
    default:
        return false;
    }
}

std::uint64_t atom_apply64(atom_op op, std::uint64_t old, std::uint64_t b)
{
    return tlm_bus::atomic_result64(static_cast<tlm_bus::atomic_op>(op), old, b);
}

std::uint64_t atom_fold64(atom_op op, std::uint64_t acc, std::uint64_t b)
{
    return atom_apply64(op, acc, b); // as atom_fold: the operation itself
}

bool atom_has64(atom_op op)
{
    return op != atom_op::INC && op != atom_op::DEC;
}

unsigned pair_mask(const instruction& inst)
{
    constexpr unsigned D = 1, A = 2, B = 4, C = 8;
    const unsigned mod = inst.mod;
    switch (inst.op) {
    case opcode::DADD:
    case opcode::DMUL:
    case opcode::DFN:
        return D | A | B;
    case opcode::DFMA:
        return D | A | B | C;
    case opcode::DSETP:
    case opcode::I64SETP:
        return A | B;
    case opcode::DCVT: {
        const bool wide = mod & mods::dcvt_64;
        switch (static_cast<mods::dcvt>(mod & 7)) {
        case mods::dcvt::F2D:
        case mods::dcvt::F2I:
            return D;
        case mods::dcvt::D2F:
        case mods::dcvt::I2F:
            return A;
        case mods::dcvt::I2D:
            return D | (wide ? A : 0);
        case mods::dcvt::D2I:
            return A | (wide ? D : 0);
        case mods::dcvt::DRND:
            return D | A;
        }
        return 0;
    }
    case opcode::ATOM: // ATOM.B64: the old value and the operand; CAS.B64: compare, new value
        return inst.width == mem_width::b64 ? D | B : 0;
    case opcode::CAS:
        return inst.width == mem_width::b64 ? D | B | C : 0;
    case opcode::I64:
        switch (static_cast<mods::i64>(mod)) {
        case mods::i64::NOT:
        case mods::i64::BREV:
        case mods::i64::MOV:
        case mods::i64::SHL:
        case mods::i64::SHR:
        case mods::i64::SAR:
            return D | A;
        case mods::i64::POPC:
        case mods::i64::CLZ:
            return A;
        case mods::i64::PACK:
        case mods::i64::WIDE_U:
        case mods::i64::WIDE_S:
        case mods::i64::SEXT:
            return D;
        default:
            return D | A | B;
        }
    default:
        return 0;
    }
}

} // namespace vgpu::sm
