// Functional execution of one warp: 32 lanes with per-lane PCs and min-PC reconvergence,
// registers, predicates and a load scoreboard. See docs/isa.md.
#pragma once

#include "models/sm/core/isa.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::sm {

/// One 32-bit value per lane.
using lane_values = std::array<std::uint32_t, warp_size>;

/// What every warp of one CTA knows about its launch.
struct launch_context {
    std::vector<std::uint32_t> params; ///< kernel parameters read by LDP
    std::uint32_t ntid_x = 1;          ///< CTA width in threads
    std::uint32_t ntid_y = 1;          ///< CTA height in threads
    std::uint32_t nctaid_x = 1;        ///< grid width in CTAs
    std::uint32_t nctaid_y = 1;        ///< grid height in CTAs
    std::uint32_t ctaid_x = 0;         ///< this CTA's x index in the grid
    std::uint32_t ctaid_y = 0;         ///< this CTA's y index in the grid
    std::uint32_t sm_id = 0;           ///< SM running the CTA (SR_SMID)
    std::uint32_t ntid_z = 1;          ///< CTA depth in threads
    std::uint32_t nctaid_z = 1;        ///< grid depth in CTAs
    std::uint32_t ctaid_z = 0;         ///< this CTA's z index in the grid
};

/// What one step did, so that the shell can time it and carry out its side effects.
enum class step_kind : std::uint8_t {
    alu,     ///< register/predicate work only (also any instruction no lane executed)
    branch,  ///< BRA executed by at least one lane
    load,    ///< LD: access holds the addresses; dst is pending until complete_load()
    store,   ///< ST: access holds addresses and data
    barrier, ///< BAR: the warp waits until every warp of the CTA arrives
    exit,    ///< EXIT: some lanes finished (done() once all have)
    trace,   ///< TRACE: a user trace event with trace_code
    cdl,     ///< CDL: constant-data load; dst (and the next registers if bulk) pending
    atomic,  ///< ATOM/CAS: access holds addresses and operands; dst pending until the old
             ///< values return (complete_load())
    error    ///< the warp stopped at pc; message says why
};

/// Name of a step kind ("load").
const char* name(step_kind k);

/// The memory side of a load, store or CDL step.
struct mem_access {
    std::uint32_t lane_mask = 0; ///< lanes that access memory (never 0 for a memory step)
    lane_values addr{};          ///< per-lane byte address (LD/ST) or CBV byte offset (CDL)
    lane_values data{};          ///< per-lane store data (ST) or addend (ATOM)
    std::uint8_t reg = reg_zero; ///< destination register (LD/CDL/ATOM; RZ: discard the data)
    std::uint32_t cbv = 0;       ///< CDL: CBV table index
    std::uint32_t count = 0;     ///< CDL: dwords of the bulk form, 0 for the per-lane form
    mem_space space = mem_space::global; ///< LD/ST/ATOM/CAS: global, or the CTA's shared window
    mem_width width = mem_width::b32;    ///< LD/ST: bytes per lane and the load's extension
    atom_op aop = atom_op::ADD;          ///< ATOM: the operation (CAS: `cas` is set)
    bool cas = false;                    ///< CAS: compare with data, write data2 where equal
    lane_values data2{};                 ///< CAS: per-lane new value
    /// ATOM/CAS.B64 (width b64): the high words of data and data2 (the register pairs' Rn+1);
    /// the old value returns to reg and reg + 1.
    lane_values data_hi{}, data2_hi{};
};

/// Outcome of warp::step().
struct step_result {
    step_kind kind = step_kind::alu;    ///< what happened
    std::uint32_t pc = 0;               ///< PC of the instruction
    std::uint32_t lane_mask = 0;        ///< lanes that executed it (at pc, guard true)
    std::uint32_t lanes = 0;            ///< their number
    const instruction* inst = nullptr;  ///< the instruction (null if pc is outside the program)
    const mem_access* access = nullptr; ///< load/store/cdl: valid until the next step()
    std::uint32_t trace_code = 0;       ///< trace: the TRACE immediate
    std::string_view message;           ///< error: why (valid while the warp lives)
};

/// One warp executing a program functionally, one instruction per step().
class warp {
public:
    /// prog and ctx must outlive the warp; lanes whose thread index in the CTA is beyond
    /// ntid_x * ntid_y * ntid_z are dead from the start. Throws std::invalid_argument for nregs
    /// outside 1..255 or an empty CTA dimension.
    warp(const program& prog, const launch_context& ctx, unsigned warp_in_cta, unsigned nregs = 64);
    /// As above, with the register file built in `storage` (e.g. a finished warp's, from
    /// take_registers()) so that launching a warp need not allocate; its contents are cleared.
    /// `checked`: the caller found that every instruction of prog passes check(inst, nregs),
    /// so step() need not check each one again (the caller checks a program once for all its
    /// warps).
    warp(const program& prog, const launch_context& ctx, unsigned warp_in_cta, unsigned nregs,
         std::vector<std::uint32_t>&& storage, bool checked = false);
    /// The warp keeps pointers to prog and ctx: temporaries are refused at compile time.
    warp(const program&&, const launch_context&, unsigned, unsigned = 64) = delete;
    warp(const program&, const launch_context&&, unsigned, unsigned = 64) = delete;
    /// Hands the register file's storage over (for the next warp); the warp is unusable after.
    std::vector<std::uint32_t> take_registers() { return std::move(m_regs); }

    bool done() const { return m_live == 0 || m_faulted; }       ///< exited or stopped by an error
    bool faulted() const { return m_faulted; }                   ///< stopped by an error
    const std::string& error_message() const { return m_error; } ///< why it faulted
    std::uint32_t pc() const { return m_pc; }                    ///< PC of the next instruction
    std::uint32_t active_mask() const { return m_active; }       ///< live lanes at pc()
    std::uint32_t live_mask() const { return m_live; }           ///< lanes that have not exited
    /// PC of a live lane.
    std::uint32_t lane_pc(unsigned lane) const
    {
        return m_active == m_live ? m_pc : m_pcs[lane % warp_size];
    }
    /// The next instruction, or nullptr when done or pc() is outside the program.
    const instruction* next() const { return done() || m_pc >= m_size ? nullptr : &m_code[m_pc]; }
    /// False when done, or while the next instruction reads or writes a pending register.
    bool ready() const { return !done() && (m_pending.none() || ready_pending()); }
    /// Executes the next instruction for the active lanes.
    step_result step();
    /// Writes values of the lanes in lane_mask into reg and clears its pending flag.
    void complete_load(unsigned reg, const lane_values& values, std::uint32_t lane_mask);
    /// True while reg waits for complete_load().
    bool pending(unsigned reg) const { return reg < max_registers && m_pending[reg]; }
    /// True while any register waits for complete_load().
    bool any_pending() const { return m_pending.any(); }

    std::uint32_t reg(unsigned r, unsigned lane) const;           ///< register value (RZ: 0)
    void set_reg(unsigned r, unsigned lane, std::uint32_t value); ///< sets a register (tests)
    bool pred(unsigned p, unsigned lane) const;                   ///< predicate bit (PT: true)
    void set_pred(unsigned p, std::uint32_t lanes);               ///< sets a predicate (tests)

    unsigned warp_in_cta() const { return m_warp_in_cta; } ///< warp index within the CTA
    unsigned nregs() const { return m_nregs; }             ///< registers per thread
    std::uint64_t warp_instructions() const { return m_warp_instructions; } ///< steps executed
    /// Sum over executed instructions of the lanes that executed them (guard true).
    std::uint64_t lane_instructions() const { return m_lane_instructions; }

private:
    /// ready() of a live warp with a pending register.
    bool ready_pending() const;
    /// step() of any instruction in any state.
    step_result step_any();
    // Inlined into step() (which the compiler would otherwise call them from, being large):
    // every step reads its sources and writes its destination through them.
    [[gnu::always_inline]] const std::uint32_t* source(const operand& o, lane_values& scratch) const
    {
        if (o.kind == operand_kind::reg && o.value != reg_zero) {
            const std::size_t i = std::size_t{o.value} * warp_size;
            return i < m_regs.size() ? &m_regs[i] : s_zero.data(); // not written yet: 0
        }
        if (o.kind == operand_kind::imm) {
            scratch.fill(o.value);
            return scratch.data();
        }
        return s_zero.data();
    }
    [[gnu::always_inline]] std::uint32_t* dest(unsigned r)
    {
        return r >= m_nregs ? m_discard.data() : writable(r);
    }
    /// Register r's lanes (r < m_nregs), adding it and the ones below it to m_regs if needed.
    [[gnu::always_inline]] std::uint32_t* writable(unsigned r)
    {
        const std::size_t end = (std::size_t{r} + 1) * warp_size;
        if (end > m_regs.size())
            grow(end);
        return &m_regs[std::size_t{r} * warp_size];
    }
    /// Adds zero registers to m_regs up to `end` values.
    void grow(std::size_t end);
    /// What a register not written yet (and RZ) reads.
    static inline const lane_values s_zero{};
    std::uint32_t special(special_reg s, unsigned lane) const;
    void select_next();
    /// Volta's convergence at WARPSYNC and BAR (warp_converge.cpp): true when the executing
    /// lanes wait here for the lanes of `mask` that are elsewhere (r is the step, or an error
    /// when no lane is left to run); false when none are missing (the instruction proceeds).
    bool wait_to_converge(std::uint32_t mask, std::uint32_t exec, step_result& r);
    step_result fault(step_result r, std::string message);
    bool memory_step(const instruction& inst, std::uint32_t exec, step_result& r);
    bool cdl_step(const instruction& inst, std::uint32_t exec, step_result& r);
    /// The pair opcodes DADD..I64SETP (warp64.cpp); p: a *SETP's result lanes.
    void wide_step(const instruction& inst, std::uint32_t exec, std::uint32_t& p);
    /// SHFL, VOTE, BALLOT, WARPSYNC: lanes exchange values (a WARPSYNC's lanes have met in
    /// wait_to_converge first); false when r is an error.
    bool warp_op_step(const instruction& inst, std::uint32_t exec, step_result& r, std::uint32_t* d,
                      const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                      std::uint32_t& p);

    /// The program's instructions and their number (read at every step; the program does not
    /// change while its warps live). Pointers, not references, so that warps can be reassigned.
    const instruction* m_code;
    std::uint32_t m_size;
    const launch_context* m_ctx;
    unsigned m_warp_in_cta;
    unsigned m_nregs;
    bool m_checked = false; // every instruction of the program passes check(inst, m_nregs)
    /// m_regs[r * warp_size + lane]; holds the registers up to the highest one written, the
    /// ones beyond are 0 (a program uses a few of its up to 255 registers, and a platform has
    /// thousands of warp slots: storage for all of them would be touched for nothing).
    std::vector<std::uint32_t> m_regs;
    std::array<std::uint32_t, num_predicates + 1> m_preds{}; ///< lane masks; [pred_true] = all
    std::array<std::uint32_t, warp_size> m_pcs{}; ///< per-lane PCs, stale while converged
    std::bitset<max_registers> m_pending;
    std::uint32_t m_live = 0;
    std::uint32_t m_pc = 0;
    std::uint32_t m_active = 0;
    std::uint32_t m_parked = 0; ///< lanes waiting at a WARPSYNC or BAR for lanes elsewhere
    bool m_faulted = false;
    std::string m_error;
    mem_access m_access;
    lane_values m_scratch[3]{};
    lane_values m_discard{};
    std::uint64_t m_warp_instructions = 0;
    std::uint64_t m_lane_instructions = 0;
};

} // namespace vgpu::sm
