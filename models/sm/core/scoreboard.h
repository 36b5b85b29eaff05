// Per-warp scoreboard: when each register and predicate becomes readable, and the earliest
// cycle (and the reason) the warp's next instruction can issue. No SystemC; models/sm/README.md.
#pragma once

#include "models/sm/core/function_units.h"
#include "models/sm/core/isa.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace vgpu::sm {

/// Why a warp cannot issue now (stall accounting and fault reports).
enum class wait_reason : std::uint8_t {
    none,       ///< nothing: the warp can issue
    scoreboard, ///< an ALU or fp32 result it reads is not readable yet
    memory,     ///< a load result, a free load/store entry or a drain of its accesses
    barrier     ///< it waits at a BAR
};

/// Earliest issue cycle of a warp's next instruction and why it is not earlier.
struct issue_time {
    std::uint64_t cycle = 0;                ///< scoreboard::never while it cannot be known
    wait_reason reason = wait_reason::none; ///< what the warp waits for until cycle
};

/// What the scoreboard reads of one instruction, worked out once per decoded instruction
/// (scoreboard::plan) instead of at every issue: its unit class, the registers and predicates
/// it reads in the order next_issue() considers them, the registers whose pending load a write
/// waits for, its memory condition and what an ALU issue of it writes.
struct issue_plan {
    /// An entry of reads[] at or above this is predicate (entry - pred_read); below, a register.
    static constexpr std::uint16_t pred_read = 0x100;
    /// The memory condition of next_issue().
    enum class memory : std::uint8_t {
        none,
        load_entry,     ///< LD, CDL, ATOM, CAS: a free load entry
        store_entry,    ///< ST: a free store entry
        stores_drained, ///< EXIT: every store complete
        drained         ///< BAR, MEMBAR: every load and store complete
    };
    unit_class unit = unit_class::int_alu; ///< unit_of(op)
    std::uint8_t guard = pred_true;        ///< predicate read first (P0..P7, PT)
    std::uint8_t nreads = 0;               ///< entries of reads[]
    memory mem = memory::none;
    /// Set by the SM (not by plan()): issuing it touches the SM's state alone (sm::local_next).
    bool local = false;
    /// Sources a, b, c in order: registers (a pair's two; RZ left out) and predicates.
    std::array<std::uint16_t, 6> reads{};
    std::uint8_t waw_first = reg_zero; ///< first register a write waits for a load of
    std::uint32_t waw_count = 0;       ///< registers from waw_first (0: it writes none)
    /// An ALU issue writes: predicate alu_pred (pred_true: none), else alu_regs registers from
    /// alu_reg (0: none).
    std::uint8_t alu_pred = pred_true;
    std::uint8_t alu_reg = reg_zero;
    std::uint8_t alu_regs = 0;
};

/// Readiness of one warp's registers, predicates and memory order, in core cycles.
class scoreboard {
public:
    static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max(); ///< no time

    /// Result latencies per unit class (function_units::latency), in cycles from issue to
    /// readable; regs_per_thread in 1..max_registers; a warp keeps at most max_loads loads
    /// (LD, CDL) and max_stores stores in flight (both >= 1).
    scoreboard(unsigned regs_per_thread, const std::array<unsigned, num_unit_classes>& latency,
               unsigned max_loads = 1, unsigned max_stores = 1);
    /// int and mul results after alu_latency, fp32 and sfu results after fp_latency; one load
    /// and one store in flight.
    scoreboard(unsigned regs_per_thread, unsigned alu_latency, unsigned fp_latency);

    unsigned regs_per_thread() const { return m_regs; } ///< registers tracked (R0..R<n-1>)
    /// Cycles from the issue of op until its result can be read (its unit class's latency).
    unsigned latency(opcode op) const { return m_latency[static_cast<unsigned>(unit_of(op))]; }
    /// What next_issue() and write_alu() read of inst (the same answers as inst itself).
    static issue_plan plan(const instruction& inst);

    /// A new warp: everything readable from cycle 0, no memory instruction in flight.
    void reset();
    /// inst (ALU class) issued at cycle: its destination is readable at cycle + latency.
    void write_alu(const instruction& inst, std::uint64_t cycle) { write_alu(plan(inst), cycle); }
    /// write_alu() of the instruction p was planned from.
    void write_alu(const issue_plan& p, std::uint64_t cycle)
    {
        const std::uint64_t ready = cycle + m_latency[static_cast<unsigned>(p.unit)];
        if (p.alu_pred < pred_true)
            m_ready[issue_plan::pred_read + p.alu_pred] = ready;
        for (unsigned r = p.alu_reg; r < p.alu_reg + p.alu_regs && r < m_regs; ++r) {
            m_ready[r] = ready;
            m_from_load[r] = false;
        }
    }
    /// The warp's next instruction issues no earlier than cycle (a branch resolving).
    void hold_until(std::uint64_t cycle) { m_hold = std::max(m_hold, cycle); }
    /// A load (LD, ATOM, CDL) that writes `count` registers from reg issued: they are pending
    /// (readable at `never`) until write_load() gives each its cycle (RZ and registers out of
    /// range: none). Readers and writers of a pending register wait for it (next_issue()).
    void load_issued(std::uint8_t reg, unsigned count = 1);
    /// A load's data arrived in reg, readable at cycle (RZ and registers out of range: none).
    void write_load(std::uint8_t reg, std::uint64_t cycle);
    /// A load (store: `store`) issued at `cycle`, its completion not known yet. Completions
    /// at or before `cycle` are forgotten (issue cycles of a warp never decrease).
    void memory_issued(bool store, std::uint64_t cycle);
    /// A load or store issued before completed at `cycle` (fast mode: right after issue).
    void memory_done(bool store, std::uint64_t cycle);
    /// A load or store is in flight with an unknown completion.
    bool memory_busy() const { return m_loads.unknown + m_stores.unknown > 0; }
    /// Latest completion of the loads and stores known so far (0: none).
    std::uint64_t memory_ready() const;

    /// Cycle register r is readable (registers out of range: 0).
    std::uint64_t reg_ready(unsigned r) const { return r < m_regs ? m_ready[r] : 0; }
    /// True when register r was last written by a load.
    bool reg_from_load(unsigned r) const { return r < m_regs && m_from_load[r]; }
    /// Cycle predicate p (P0..P7, PT) is readable.
    std::uint64_t pred_ready(unsigned p) const
    {
        return p <= num_predicates ? m_ready[issue_plan::pred_read + p] : 0;
    }

    /// When the warp can issue next, given its next instruction (nullptr: none), whether the
    /// warp is live (false: never, memory) and whether it waits at a barrier.
    /// Barrier, then a warp that is not live, then no instruction (cycle 0); else the latest of
    /// hold_until(), the guard, the sources, the destinations last written by a load (a later
    /// write waits for a pending load of its register: write after write, as a real SM's
    /// scoreboard) and the memory condition: LD/CDL a free load entry, ST a free store entry,
    /// EXIT every store complete, BAR and MEMBAR every load and store complete (never while one
    /// has an unknown completion, as a pending load's register). The reason is memory when that
    /// latest time is a load's or the memory condition's, scoreboard otherwise. This is the
    /// one rule of both timing modes.
    issue_time next_issue(const instruction* inst, bool warp_live, bool at_barrier) const
    {
        if (!inst)
            return next_issue_planned(nullptr, warp_live, at_barrier);
        const issue_plan p = plan(*inst);
        return next_issue_planned(&p, warp_live, at_barrier);
    }
    /// next_issue() of the instruction p was planned from (nullptr: none). Inline: the issue
    /// stage asks at every issue, and most instructions have no memory condition.
    issue_time next_issue_planned(const issue_plan* p, bool warp_live, bool at_barrier) const
    {
        if (at_barrier)
            return {never, wait_reason::barrier};
        if (!warp_live)
            return {never, wait_reason::memory};
        if (!p)
            return {0, wait_reason::none};
        std::uint64_t t = std::max(m_hold, m_ready[issue_plan::pred_read + p->guard]);
        bool from_mem = false;
        for (unsigned i = 0; i < p->nreads; ++i) {
            const unsigned e = p->reads[i];
            if (m_ready[e] > t) {
                t = m_ready[e];
                from_mem = m_from_load[e];
            }
        }
        // Write after write: an instruction that writes a register a load will write waits for
        // that load (the load's later completion must not overwrite it, and a load's register
        // keeps one value in flight), as a real SM's scoreboard does; ALU results need no such
        // wait (fixed latencies complete in issue order). plan() keeps waw_first + waw_count
        // in the registers.
        for (unsigned r = p->waw_first, end = p->waw_first + p->waw_count; r < end; ++r)
            if (m_from_load[r] && m_ready[r] > t) {
                t = m_ready[r];
                from_mem = true;
            }
        if (t == never)
            return {never, wait_reason::memory};
        if (p->mem == issue_plan::memory::none)
            return {t, from_mem ? wait_reason::memory : wait_reason::scoreboard};
        return with_memory(*p, t, from_mem);
    }

private:
    /// next_issue_planned() of an instruction with a memory condition, from t (the latest of
    /// its registers, predicates and hold) and whether t is a load's.
    issue_time with_memory(const issue_plan& p, std::uint64_t t, bool from_mem) const;

    unsigned m_regs;
    std::array<unsigned, num_unit_classes> m_latency{};
    std::uint64_t m_hold = 0;
    /// When each register (at its number) and predicate (at pred_read + its number) is
    /// readable, indexed by issue_plan::reads[] as it is. Registers from m_regs on and PT stay
    /// 0 (never written), so next_issue_planned() reads them without a range test.
    static constexpr unsigned ready_slots = issue_plan::pred_read + num_predicates + 1;
    std::array<std::uint64_t, ready_slots> m_ready{};
    /// Whether a register was last written by a load (predicates: never).
    std::array<bool, ready_slots> m_from_load{};
    /// Loads or stores in flight: those with unknown completion, and known completions.
    struct in_flight {
        unsigned unknown = 0;
        std::vector<std::uint64_t> ends;
        /// First cycle at which fewer than `max` are in flight (never: not knowable yet).
        std::uint64_t free_entry(unsigned max) const;
        /// First cycle at which none is in flight.
        std::uint64_t drained() const;
    };
    in_flight m_loads, m_stores;
    unsigned m_max_loads, m_max_stores;
};

} // namespace vgpu::sm
