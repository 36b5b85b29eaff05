// Internals of the PTX-to-vgpu translator shared by translate.cpp (blocks, allocation,
// emission) and lower.cpp (the mapping tables and the lowering of each PTX instruction). Not
// a public interface: see translate.h.
#pragma once

#include "models/sm/core/isa.h"
#include "models/sm/ptx/ast.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace vgpu::ptx {
struct translate_options;
struct translation;
} // namespace vgpu::ptx

namespace vgpu::ptx::detail {

using sm::cmp_op;
using sm::opcode;
constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// A virtual operand: a PTX virtual register, predicate, immediate bits or RZ.
enum class vk : std::uint8_t { none, reg, pred, imm, rz };
struct vop {
    vk k = vk::none;
    std::uint32_t v = 0;
    std::uint8_t half = 0; ///< 1: the high word of a register pair (lower_wide.cpp)
};
inline vop vreg(std::uint32_t id)
{
    return {vk::reg, id};
}
inline vop vimm(std::uint32_t bits)
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
    std::uint8_t mod = 0;      ///< modifier of the forms that have one (sm::has_mod)
    std::size_t target = npos; ///< BRA: block, then PC after layout
    std::size_t ptx = npos;    ///< index of the PTX instruction in the body, npos if added
    sm::mem_space space = sm::mem_space::global; ///< LD/ST/ATOM/CAS
    sm::mem_width width = sm::mem_width::b32;    ///< LD/ST
    sm::atom_op aop = sm::atom_op::ADD;          ///< ATOM
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
    /// Shared variables: name -> byte offset in the CTA's window (extern arrays: the dynamic
    /// part, after the static ones).
    std::map<std::string, std::uint32_t, std::less<>> m_shared;
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
    // fp64 and 64-bit integers on register pairs (lower_wide.cpp, docs/cuda.md "fp64 and
    // 64-bit integers"): the PTX registers whose high half matters, and which virtual
    // registers are pairs.
    std::set<std::pair<int, int>> m_wide_keys;
    std::vector<char> m_vwide;
    void find_wide();
    bool is_wide_vreg(std::uint32_t r) const { return r < m_vwide.size() && m_vwide[r]; }
    std::uint32_t wide_temp();
    bool lower_wide(const instruction& ins);
    vop pair_src(const instruction& ins, const operand& op, bool fp);
    vop pair_reg(const instruction& ins, const operand& op);
    void wide_access(const instruction& ins, bool store);
    void wide_cvt(const instruction& ins);
    void wide_int(const instruction& ins);
    void wide_float(const instruction& ins);
    void wide_move(const instruction& ins);
    void wide_atom(const instruction& ins);
    void wide_bitfield(const instruction& ins); ///< bfe, bfi, bfind on 64 bits
    vop emit_wide(opcode op, unsigned mod, vop d, vop a, vop b = {}, vop c = {});
    vop temp_pred() { return {vk::pred, m_npreds++}; }
    vop reg_of(const instruction& ins, const operand& op);
    vop pred_of(const instruction& ins, const operand& op);
    int guard_of(const instruction& ins);
    vop src(const instruction& ins, const operand& op);
    vop reg_src(const instruction& ins, const operand& op);
    bool address(const instruction& ins, const operand& op, vop& base, std::int32_t& off);
    bool lower_alu(const instruction& ins);
    void lower_shift(const instruction& ins);
    void lower_setp(const instruction& ins);
    void lower_pred_logic(const instruction& ins);
    vop pred_as_int(const instruction& ins, const operand& op);
    void lower_cvt(const instruction& ins);
    void lower_mov(const instruction& ins);
    void lower_ld(const instruction& ins);
    void lower_st(const instruction& ins);
    /// ld/st of global (or generic) memory: 32-bit elements, one LD or ST per vector element.
    void global_access(const instruction& ins, bool store);
    void lower_atom(const instruction& ins);
    // Division, SFU functions, conversions, float and combined compares, warp-level
    // operations (lower_ext.cpp); true when the instruction was theirs.
    bool lower_ext(const instruction& ins);
    void lower_div(const instruction& ins);
    void lower_mufu(const instruction& ins);
    bool lower_cvt_fp(const instruction& ins);
    void lower_setp_ext(const instruction& ins);
    bool compare_into(const instruction& ins, vop d);
    vop pred_bit(vop p, bool neg);
    void combine_preds(vop d, vop x, bool x_neg, vop c, bool c_neg, const std::string& bop);
    void lower_warp_op(const instruction& ins);
    bool lower_bits(const instruction& ins);
    vop ftz_of(const vop& a);
    // Shared memory, atomics and sub-word accesses (lower.cpp, docs/cuda.md).
    /// Lays out the module's and the entry's .shared variables (m_shared, shared_bytes).
    void layout_shared();
    /// The window offset of shared variable `name`, or -1 when it is not one.
    std::int64_t shared_offset(std::string_view name) const;
    /// The access width of an ld/st type (32-bit types: b32), or false when not supported.
    static bool width_of(data_type t, sm::mem_width& w);
    void lower_cvta_shared(const instruction& ins);
    // Local memory (lower_local.cpp, docs/cuda.md "Local memory").
    std::map<std::string, std::uint32_t, std::less<>> m_local; ///< .local variable -> offset
    std::map<std::pair<int, int>, std::int64_t> m_local_const; ///< PTX reg -> its local offset
    std::map<std::pair<int, int>, int> m_local_ptr; ///< PTX reg -> 1 local pointer, 2 mixed
    std::uint32_t m_local_words = 0;                ///< words per thread
    std::uint32_t m_local_tb = UINT32_MAX;          ///< vreg: this thread's word 0 (global)
    bool m_local_used = false;                      ///< an access needs m_local_tb
    std::uint32_t local_base_reg();                 ///< m_local_tb, allocated at the first use
    /// Lays out the entry's .local variables and finds the registers holding local addresses.
    void layout_local();
    /// Lowers what touches local memory (ld/st.local, generic ld/st through a local pointer,
    /// cvta.local, the address of a .local variable); false when `ins` is not such.
    bool lower_local(const instruction& ins);
    void local_access(const instruction& ins, bool store);
    /// A 64-bit integer setp with a local address operand: compared as 32-bit offsets.
    bool local_compare(const instruction& ins) const;
    /// A source of such a comparison: a local address register or a small immediate.
    bool local_compare_src(const instruction& ins, const operand& op, vop& out);
    // Spilling (regalloc.cpp, docs/cuda.md "Spilling").
    std::uint32_t m_spill_slots = 0; ///< local words of spilled values, after the variables
    bool m_prologue_in = false;      ///< the linear code starts with the local prologue
    std::uint32_t m_local_line = 0;  ///< vreg of the prologue's IMAD taking words * 128
    std::vector<char> m_fixed;       ///< by vreg: never spilled (prologue, spill temporaries)
    /// Inserts the computation of m_local_tb at PC 0 when local memory or a spill needs it.
    void insert_local_prologue(std::vector<vins>& code);
    /// The register value live at x's start with the furthest end, or UINT32_MAX.
    std::uint32_t spill_victim(std::uint32_t x, const std::vector<std::size_t>& first,
                               const std::vector<std::size_t>& last) const;
    /// Gives v a local word: a load before each reader, a store after each writer.
    void spill(std::vector<vins>& code, std::uint32_t v);
    /// Sets the words per thread in the prologue and translation.local_bytes.
    void patch_local_words(std::vector<vins>& code);
    void allocate_and_emit(std::vector<vins>& code);
    /// ld/st of a call sequence's .param variable, and calls left after inlining (inline.cpp).
    bool lower_param_var(const instruction& ins);
    // Constant memory (lower_const.cpp): the bank and ld.const through CDL.
    std::map<std::string, std::uint32_t, std::less<>> m_const; ///< .const name -> bank offset
    std::uint32_t m_bulk = 0; ///< the virtual register every bulk CDL writes (m_has_bulk)
    bool m_has_bulk = false;  ///< a bulk CDL was emitted: m_bulk gets a register of its own
    /// Later scalar ld.const of a bulk group: PTX instruction -> the lane of m_bulk it reads.
    std::map<std::size_t, std::uint32_t> m_bulk_lane;
    /// Lays out the .const variables (m_const, translation.const_bank/const_vars).
    void layout_const();
    /// The bank offset of .const variable `name`, or -1 when it is not one.
    std::int64_t const_offset(std::string_view name) const;
    void lower_const_ld(const instruction& ins);
    /// Groups the scalar ld.const after the current one (m_bulk_lane); the group's byte end.
    std::int64_t scalar_group(std::int64_t off);
    /// mov.pred p, 0|1|q|!q (clang writes `mov.pred %p, 0` around loops with .sync calls).
    void lower_mov_pred(const instruction& ins);
    // Kernel printf (lower_printf.cpp, docs/cuda.md "Kernel printf").
    struct printf_call {
        std::size_t format = 0; ///< index in translation.printf_formats
        std::int64_t args = 0;  ///< the argument buffer's local address value
    };
    std::map<std::size_t, printf_call> m_printf_calls; ///< PTX instruction -> its call
    std::set<std::size_t> m_printf_skip; ///< PTX instructions the calls stand for (format, args)
    bool m_has_printf = false;           ///< the entry calls vprintf (printf_param is taken)
    /// Finds the vprintf calls, their formats and argument buffers (before lowering).
    void find_printf();
    void lower_printf(const instruction& ins);
    /// Emits LD.LOCAL d of the local word at address value x (a known local address), guarded.
    void load_local_word(vop d, std::int64_t x, int guard);
    void propagate_copies();
    void finish(const std::vector<std::size_t>& order);
};

/// Lowers opt.max_registers to what f's .maxnreg and .minnctapersm allow (bounds.cpp).
void apply_launch_bounds(const function& f, translate_options& opt);
/// True when f calls a function the module defines (inline.cpp).
bool calls_functions(const module& m, const function& f);
/// f with every call of a defined function replaced by its body; errors for calls that cannot
/// be inlined.
function inline_calls(const module& m, const function& f, std::vector<std::string>& errors);

} // namespace vgpu::ptx::detail
