// The SIMT instruction set of the SM: opcodes, the decoded instruction, its 16-byte binary
// encoding and its text form. See docs/isa.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::sm {

constexpr unsigned warp_size = 32;            ///< lanes per warp
constexpr unsigned num_predicates = 8;        ///< predicate registers P0..P7
constexpr unsigned max_registers = 255;       ///< largest register count per thread (R0..R254)
constexpr std::uint8_t reg_zero = 255;        ///< RZ: reads as zero, writes are discarded
constexpr std::uint8_t pred_true = 8;         ///< PT: reads as true, writes are discarded
constexpr std::size_t instruction_bytes = 16; ///< size of one encoded instruction
/// Largest program an SM fetches into its program cache (65536 instructions).
constexpr std::uint32_t max_program_bytes = 1u << 20;

// clang-format off
/// Operations; the enumerator spells the mnemonic. INVALID marks a slot whose words did not
/// decode: it is never produced by the assembler and executing it is an error.
enum class opcode : std::uint8_t {
    NOP, MOV, S2R, LDP,
    IADD, ISUB, IMUL, IMAD, IMIN, IMAX, UMIN, UMAX,
    AND, OR, XOR, NOT, SHL, SHR, SAR,
    FADD, FSUB, FMUL, FFMA, FMIN, FMAX, FNEG, FABS, I2F, F2I,
    ISETP, USETP, FSETP, SEL,
    BRA, LD, ST, BAR, EXIT, TRACE, CDL, MEMBAR, ATOM,
    // Division, SFU functions, conversions, float compares and warp-level operations
    FDIV, IDIV, MUFU, CVT, FSETPX, SHFL, VOTE, BALLOT, WARPSYNC,
    IMADX, BITS, BFX, PRMT,
    // shared memory and atomics (docs/isa.md, "Memory spaces and widths")
    CAS,
    // fp64 and 64-bit integers on register pairs (docs/isa.md, "fp64 and 64-bit integers")
    DADD, DMUL, DFMA, DFN, DSETP, DCVT, I64, I64SETP,
    INVALID
};
// clang-format on
constexpr unsigned num_opcodes = static_cast<unsigned>(opcode::INVALID); ///< real opcodes

/// Comparison of ISETP/USETP/FSETP.
enum class cmp_op : std::uint8_t { EQ, NE, LT, LE, GT, GE };
constexpr unsigned num_cmp_ops = 6; ///< number of comparisons

// clang-format off
/// Special registers read by S2R (written SR_<name>).
enum class special_reg : std::uint8_t {
    TID_X, TID_Y, NTID_X, NTID_Y, CTAID_X, CTAID_Y, NCTAID_X, NCTAID_Y,
    LANEID, WARPID, SMID, GLOBAL_TID_X,
    // 3-D launches
    TID_Z, NTID_Z, CTAID_Z, NCTAID_Z
};
// clang-format on
constexpr unsigned num_special_regs = 16; ///< number of special registers (a 4-bit field)

/// How an opcode is written and which instruction fields it uses.
enum class syntax : std::uint8_t {
    none,  ///< OP
    r_s,   ///< OP rd, a
    r_ss,  ///< OP rd, a, b
    r_sss, ///< OP rd, a, b, c
    s2r,   ///< S2R rd, SR_x
    ldp,   ///< LDP rd, param
    setp,  ///< OP.cc pd, a, b
    sel,   ///< SEL rd, a, b, pX
    bra,   ///< BRA label
    ld,    ///< LD rd, [ra + off]
    st,    ///< ST [ra + off], rs
    trace, ///< TRACE imm
    cdl,   ///< CDL rd, offset, cbv[idx] [, n]
    atom,  ///< ATOM.op rd, [ra + off], rb
    // Forms with a modifier (instruction::mod, written as suffixes: MUFU.EX2.FTZ)
    r_sm,   ///< OP.MOD rd, a
    r_ssm,  ///< OP.MOD rd, a, b
    r_sssm, ///< OP.MOD rd, a, b, c
    setpm,  ///< OP.MOD pd, a, b
    vote,   ///< OP.MOD pd, pa, b
    ballot, ///< OP.MOD rd, pa, b
    wsync,  ///< OP a
    // shared memory and atomics
    cas ///< CAS rd, [ra], rb, rc (compare rb, new value rc)
};

// Memory spaces, access widths and atomic operations of LD/ST/ATOM/CAS (docs/isa.md,
// "Memory spaces and widths"); written as suffixes, encoded in word 0 bits 25:19.
/// Where LD/ST/ATOM/CAS access: global (virtual) memory or the CTA's shared memory window;
/// local: the thread's local memory, an access to global memory at an address the translator
/// computed (docs/cuda.md, "Local memory"), performed as global and counted apart.
enum class mem_space : std::uint8_t { global, shared, local };
constexpr unsigned num_mem_spaces = 3; ///< number of memory spaces
/// Access width of LD/ST: a 32-bit word, or a byte/half-word (loads zero- or sign-extend);
/// of ATOM/CAS: a 32-bit word, or (b64) a 64-bit doubleword on register pairs.
enum class mem_width : std::uint8_t { b32, u8, s8, u16, s16, b64 };
constexpr unsigned num_mem_widths = 6; ///< number of widths
/// Bytes accessed per lane at width w (4, 1, 2 or 8).
unsigned width_bytes(mem_width w);
/// The register value of a load of width w whose bytes read as raw (zero-extended little-endian
/// bytes): zero- or sign-extended to 32 bits.
std::uint32_t load_extend(mem_width w, std::uint32_t raw);
// clang-format off
/// Operation of ATOM on the 32-bit word w with operand b (returns the new word).
enum class atom_op : std::uint8_t {
    ADD, FADD, MIN, MAX, UMIN, UMAX, EXCH, AND, OR, XOR, INC, DEC
};
// clang-format on
constexpr unsigned num_atom_ops = 12; ///< number of atomic operations
/// The word after ATOM.op with operand b on old (INC: old >= b ? 0 : old + 1; DEC: old == 0 ||
/// old > b ? b : old - 1; FADD: fp32 add, round to nearest even, subnormals kept: shared
/// memory's rule; global memory's tlm_bus::atomic_result flushes them to zero).
std::uint32_t atom_apply(atom_op op, std::uint32_t old, std::uint32_t b);
/// True when a warp's lanes on one word can be folded into one operand (apply(apply(w, x), y)
/// == apply(w, apply-fold(x, y)) for every w): ADD MIN MAX UMIN UMAX EXCH AND OR XOR.
bool atom_combines(atom_op op);
/// Folds operand b into the combined operand acc of a combining operation.
std::uint32_t atom_fold(atom_op op, std::uint32_t acc, std::uint32_t b);
/// ATOM.op.B64 on the doubleword old (tlm_bus::atomic_result64: FADD an fp64 add, subnormals
/// kept in both memory spaces; INC and DEC have no 64-bit form), and its fold.
std::uint64_t atom_apply64(atom_op op, std::uint64_t old, std::uint64_t b);
std::uint64_t atom_fold64(atom_op op, std::uint64_t acc, std::uint64_t b);
/// True when ATOM.op has a 64-bit form (every operation but INC and DEC).
bool atom_has64(atom_op op);
/// Mnemonic suffix of an operation ("ADD"), of a space ("SHARED", "" for global) and of a
/// width ("U8", "" for 32 bits).
const char* name(atom_op op);
const char* name(mem_space s);
const char* name(mem_width w);

/// How an immediate source operand is interpreted.
enum class imm_type : std::uint8_t {
    integer, ///< 32-bit integer; fp literals rejected
    fp32,    ///< fp32 value: decimal and fp literals convert to float, hex gives raw bits
    raw      ///< untyped bits: integers as written, fp literals as their fp32 bits
};

/// Static description of an opcode.
struct opcode_info {
    const char* name; ///< mnemonic
    syntax form;      ///< operand layout
    imm_type imm;     ///< interpretation of immediate sources
};

namespace detail {
/// The descriptions of the opcodes in enumerator order, INVALID last (isa.cpp).
extern const opcode_info opcode_table[num_opcodes + 1];
} // namespace detail

// Inline: the issue path asks them per warp-instruction.
/// The description of op (INVALID included).
inline const opcode_info& info(opcode op)
{
    const auto i = static_cast<unsigned>(op);
    return detail::opcode_table[i < num_opcodes ? i : num_opcodes];
}
/// True when instructions of form `s` write their destination register rd.
inline bool writes_register(syntax s)
{
    switch (s) {
    case syntax::r_s:
    case syntax::r_ss:
    case syntax::r_sss:
    case syntax::s2r:
    case syntax::ldp:
    case syntax::sel:
    case syntax::ld:
    case syntax::cdl:
    case syntax::atom:
    case syntax::r_sm:
    case syntax::r_ssm:
    case syntax::r_sssm:
    case syntax::ballot:
    case syntax::cas:
        return true;
    default:
        return false;
    }
}

/// True when instructions of form `s` write their destination predicate (dst is a predicate).
inline bool writes_predicate(syntax s)
{
    return s == syntax::setp || s == syntax::setpm || s == syntax::vote;
}
/// True when op takes a modifier (instruction::mod).
bool has_mod(opcode op);
/// Whether mod is a defined modifier of op (an op without modifiers has only mod 0).
bool mod_valid(opcode op, unsigned mod);
/// The modifier's text as it follows the mnemonic, with its leading dot (".EX2.FTZ"), or ""
/// for an op's modifier that has no text.
std::string mod_text(opcode op, unsigned mod);
/// The modifier whose text is `suffix` (without the leading dot, upper case), or nullopt.
std::optional<std::uint8_t> parse_mod(opcode op, const std::string& suffix);

// Modifier fields (docs/isa.md, "Division, SFU functions, conversions, warp operations").
namespace mods {
constexpr unsigned ftz = 1;         ///< FDIV: flush subnormal inputs and result to zero
constexpr unsigned idiv_signed = 1; ///< IDIV: signed operands (else unsigned)
constexpr unsigned idiv_rem = 2;    ///< IDIV: remainder (else quotient)
/// MUFU function (low 4 bits) and flag.
enum class mufu : std::uint8_t { EX2, LG2, RCP, RSQ, SQRT, SIN, COS, RCP_RN, SQRT_RN };
constexpr unsigned num_mufu = 9;
constexpr unsigned mufu_ftz = 16;
/// CVT kind (bits 0-1), rounding (bits 2-3) and flags.
enum class cvt_kind : std::uint8_t { FRND, I2F, F2I, F2F };
enum class rounding : std::uint8_t { RN, RZ, RM, RP };
constexpr unsigned cvt_signed = 16;
constexpr unsigned cvt_ftz = 32;
constexpr unsigned cvt_sat = 64;
inline unsigned cvt(cvt_kind k, rounding r, unsigned flags = 0)
{
    return static_cast<unsigned>(k) | static_cast<unsigned>(r) << 2 | flags;
}
/// FSETPX: comparison (PTX's ordered and unordered ones) or testp class (16..), and flag.
// clang-format off
enum class fcmp : std::uint8_t {
    EQ, NE, LT, LE, GT, GE, EQU, NEU, LTU, LEU, GTU, GEU, NUM, NAN_,
    FINITE = 16, INFINITE, NUMBER, NOTANUMBER, NORMAL, SUBNORMAL
};
// clang-format on
constexpr unsigned fsetp_ftz = 32;
/// SHFL mode; VOTE mode and flag; BALLOT flag.
enum class shfl_mode : std::uint8_t { UP, DOWN, BFLY, IDX };
enum class vote_mode : std::uint8_t { ALL, ANY, UNI };
constexpr unsigned vote_not = 4;   ///< VOTE: the source predicate is negated
constexpr unsigned ballot_not = 1; ///< BALLOT: the source predicate is negated
/// IMADX: signed operands, the high half of the product, 24-bit operands.
constexpr unsigned imadx_signed = 1;
constexpr unsigned imadx_hi = 2;
constexpr unsigned imadx_24 = 4;
/// BITS function (bits 2:0) and bfind's shift-amount flag.
enum class bits_fn : std::uint8_t { POPC, CLZ, BREV, FINDU, FINDS };
constexpr unsigned bits_shiftamt = 8;
/// BFX: extract unsigned, extract signed, insert.
enum class bfx_mode : std::uint8_t { U, S, INS };
/// PRMT mode: the general byte selector, then PTX's f4e b4e rc8 ecl ecr rc16.
enum class prmt_mode : std::uint8_t { IDX, F4E, B4E, RC8, ECL, ECR, RC16 };
} // namespace mods

/// Kind of a source operand.
enum class operand_kind : std::uint8_t { none, reg, imm, pred };

/// A source operand: a register, a 32-bit immediate or (SEL only) a predicate.
struct operand {
    operand_kind kind = operand_kind::none; ///< what value means
    std::uint32_t value = 0;                ///< register index (RZ = 255), raw immediate bits,
                                            ///< or predicate index (PT = 8)
    bool operator==(const operand& o) const { return kind == o.kind && value == o.value; }
    bool operator!=(const operand& o) const { return !(*this == o); }
};

/// A register operand.
inline operand reg(unsigned index)
{
    return {operand_kind::reg, index};
}
/// An immediate operand.
inline operand imm(std::uint32_t bits)
{
    return {operand_kind::imm, bits};
}
/// An immediate operand holding the bits of an fp32 value.
operand fimm(float value);
/// A predicate operand.
inline operand pred(unsigned index)
{
    return {operand_kind::pred, index};
}

/// One decoded instruction. Fields an opcode does not use keep their default values
/// (see docs/isa.md for which fields each syntax uses).
struct instruction {
    opcode op = opcode::NOP;               ///< operation
    std::uint8_t guard = pred_true;        ///< guard predicate P0..P7, or PT (always)
    bool guard_neg = false;                ///< execute where the guard is false
    std::uint8_t dst = reg_zero;           ///< destination register, or predicate for *SETP
    std::array<operand, 3> src{};          ///< sources a, b, c
    cmp_op cond = cmp_op::EQ;              ///< *SETP comparison
    special_reg sreg = special_reg::TID_X; ///< S2R source
    std::int32_t offset = 0;               ///< LD/ST/ATOM byte offset added to the address register
    std::uint8_t mod = 0; ///< modifier of the forms r_sm..ballot (7 bits; see mod_text())
    mem_space space = mem_space::global; ///< LD/ST/ATOM/CAS memory space
    mem_width width = mem_width::b32;    ///< LD/ST access width; ATOM/CAS: b32 or b64 (pairs)
    atom_op aop = atom_op::ADD;          ///< ATOM operation
    bool operator==(const instruction& o) const;
    bool operator!=(const instruction& o) const { return !(*this == o); }
};

/// Which operands of inst are register pairs Rn:Rn+1 (low word in Rn): bit 0 the destination,
/// bits 1..3 the sources a, b, c (models/sm/core/isa64.h; 0 for the 32-bit opcodes).
unsigned pair_mask(const instruction& inst);
/// True for the pair opcodes DADD..I64SETP (defined with their semantics in isa64.cpp).
bool is_wide(opcode op);
/// mod_valid(), mod_text() of the pair opcodes (isa64.cpp).
bool wide_mod_valid(opcode op, unsigned mod);
std::string wide_mod_text(opcode op, unsigned mod);

/// A kernel program: instruction i is at PC i, at byte offset 16 * i in memory.
using program = std::vector<instruction>;

/// The two little-endian 64-bit words of an encoded instruction.
using instruction_words = std::array<std::uint64_t, 2>;

/// Encodes inst; fields its syntax does not use are encoded as zero.
instruction_words encode(const instruction& inst);
/// Decodes words; nullopt for an unknown opcode, a field out of range or a non-zero unused field.
std::optional<instruction> decode(const instruction_words& words);

/// Why inst cannot execute with nregs registers per thread (bad field, register out of
/// range), or nullopt if it is well-formed.
std::optional<std::string> check(const instruction& inst, unsigned nregs = max_registers);

/// Text form of inst, accepted back by the assembler (BRA targets and LDP parameters numeric).
std::string disassemble(const instruction& inst);

/// Program image as the host writes it to memory: 16 bytes per instruction, little-endian.
std::vector<std::uint8_t> encode_program(const program& prog);
/// Decodes a program image of size bytes; a slot that does not decode (or a trailing partial
/// slot) becomes an INVALID instruction, an error only if a warp reaches it.
program decode_program(const std::uint8_t* data, std::size_t size);

/// Mnemonic of a comparison ("LT").
const char* name(cmp_op c);
/// Name of a special register without the SR_ prefix ("TID_X").
const char* name(special_reg s);

} // namespace vgpu::sm
