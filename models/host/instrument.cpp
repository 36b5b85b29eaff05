// Seed 002's instrumentation pass. See models/host/instrument.h.
#include "models/host/instrument.h"

#include <algorithm>
#include <cstdio>

namespace vgpu::host {

using shader_trace::record;
using shader_trace::record_bytes;
using shader_trace::record_type;

using sm::instruction;
using sm::opcode;
using sm::operand;
using sm::operand_kind;

namespace {

bool is_memory(opcode op)
{
    return op == opcode::LD || op == opcode::ST || op == opcode::ATOM;
}

/// Highest register the program names (a bulk CDL's whole range), or -1 for none.
int highest_register(const sm::program& prog)
{
    int hi = -1;
    auto see = [&hi](unsigned r) {
        if (r != sm::reg_zero)
            hi = std::max(hi, static_cast<int>(r));
    };
    for (const instruction& i : prog) {
        const sm::syntax form = sm::info(i.op).form;
        if (sm::writes_register(form)) {
            see(i.dst);
            if (i.op == opcode::CDL && i.src[2].kind == operand_kind::imm && i.dst != sm::reg_zero)
                see(i.dst + (i.src[2].value + 31) / 32 - 1);
        }
        for (const operand& o : i.src)
            if (o.kind == operand_kind::reg)
                see(o.value);
    }
    return hi;
}

/// A predicate the program never names, or -1.
int free_predicate(const sm::program& prog)
{
    unsigned used = 0;
    for (const instruction& i : prog) {
        if (i.guard < sm::pred_true)
            used |= 1u << i.guard;
        if (sm::writes_predicate(sm::info(i.op).form) && i.dst < sm::pred_true)
            used |= 1u << i.dst;
        for (const operand& o : i.src)
            if (o.kind == operand_kind::pred && o.value < sm::pred_true)
                used |= 1u << o.value;
    }
    for (unsigned p = 0; p < sm::num_predicates; ++p)
        if (!(used & (1u << p)))
            return static_cast<int>(p);
    return -1;
}

/// Builds the inserted instructions.
struct emitter {
    sm::program& out;
    std::vector<std::uint32_t>& origin;
    std::uint32_t pc = 0; ///< original PC the code belongs to

    instruction& add(opcode op, std::uint8_t dst = sm::reg_zero, operand a = {}, operand b = {},
                     operand c = {})
    {
        instruction i;
        i.op = op;
        i.dst = dst;
        i.src = {a, b, c};
        out.push_back(i);
        origin.push_back(pc);
        return out.back();
    }
    void ldp(unsigned rd, unsigned param)
    {
        add(opcode::LDP, static_cast<std::uint8_t>(rd), sm::imm(param));
    }
    void mov(unsigned rd, std::uint32_t v)
    {
        add(opcode::MOV, static_cast<std::uint8_t>(rd), sm::imm(v));
    }
    instruction& st(unsigned ra, std::int32_t off, unsigned rs)
    {
        instruction& i = add(opcode::ST, sm::reg_zero, sm::reg(ra), sm::reg(rs));
        i.offset = off;
        return i;
    }
    instruction& atom(unsigned rd, unsigned ra, std::int32_t off, unsigned rb)
    {
        instruction& i = add(opcode::ATOM, static_cast<std::uint8_t>(rd), sm::reg(ra), sm::reg(rb));
        i.offset = off;
        return i;
    }
    /// Guards the last instruction with @!p.
    void unless(unsigned p)
    {
        out.back().guard = static_cast<std::uint8_t>(p);
        out.back().guard_neg = true;
    }
};

/// Registers of the inserted code (above the program's own).
struct regs {
    unsigned tid, seq, ptr, val, cap, slot;
};

instrumented fail(instrumented r, std::string why)
{
    r.error = std::move(why);
    r.code.clear();
    return r;
}

/// The common checks and the block structure; `need_regs` spare registers.
instrumented prepare(const sm::program& prog, unsigned params, unsigned nregs, unsigned need_regs,
                     unsigned need_params, unsigned& first_spare)
{
    instrumented r;
    r.blocks = block_leaders(prog);
    r.first_param = params;
    r.added_params = need_params;
    if (prog.empty())
        return fail(r, "the program is empty");
    const int hi = highest_register(prog);
    first_spare = static_cast<unsigned>(hi + 1);
    if (first_spare + need_regs > nregs)
        return fail(r, "instrumentation needs " + std::to_string(need_regs) +
                           " registers above the program's " +
                           (hi < 0 ? std::string("(none)") : "R0..R" + std::to_string(hi)) +
                           ", past the register file (R0..R" + std::to_string(nregs - 1) +
                           ", sm.regs_per_thread)");
    if (params + need_params > max_params)
        return fail(r, "instrumentation needs " + std::to_string(need_params) +
                           " parameters after the kernel's " + std::to_string(params) +
                           ", more than " + std::to_string(max_params) + " in all");
    return r;
}

/// Appends the instrumented code: `entry(b)` at each block entry, `before_memory(b, inst)`
/// before each LD/ST/ATOM, the original instructions with remapped branch targets.
template <class Entry, class Memory, class Prologue>
void rewrite(const sm::program& prog, instrumented& r, Prologue&& prologue, Entry&& entry,
             Memory&& before_memory)
{
    std::vector<std::uint32_t> block_of(prog.size(), 0);
    for (std::size_t b = 0; b < r.blocks.size(); ++b) {
        const std::uint32_t end =
            b + 1 < r.blocks.size() ? r.blocks[b + 1] : static_cast<std::uint32_t>(prog.size());
        for (std::uint32_t pc = r.blocks[b]; pc < end; ++pc)
            block_of[pc] = static_cast<std::uint32_t>(b);
    }
    emitter e{r.code, r.origin};
    prologue(e);
    std::vector<std::uint32_t> entry_pc(r.blocks.size(), 0);
    std::vector<std::size_t> branches; // new PCs of the original BRAs
    for (std::uint32_t pc = 0; pc < prog.size(); ++pc) {
        e.pc = pc;
        const std::uint32_t b = block_of[pc];
        if (r.blocks[b] == pc) {
            entry_pc[b] = static_cast<std::uint32_t>(r.code.size());
            entry(e, b);
        }
        if (is_memory(prog[pc].op))
            before_memory(e, b, prog[pc]);
        if (prog[pc].op == opcode::BRA)
            branches.push_back(r.code.size());
        r.code.push_back(prog[pc]);
        r.origin.push_back(pc);
    }
    // A branch goes to its target block's inserted code, so that the entry is recorded.
    for (std::size_t at : branches) {
        const std::uint32_t t = r.code[at].src[0].value;
        if (t < prog.size() && r.blocks[block_of[t]] == t)
            r.code[at].src[0].value = entry_pc[block_of[t]];
    }
}

} // namespace

std::vector<std::uint32_t> block_leaders(const sm::program& prog)
{
    std::vector<bool> leader(prog.size(), false);
    if (!prog.empty())
        leader[0] = true;
    for (std::size_t pc = 0; pc < prog.size(); ++pc) {
        const instruction& i = prog[pc];
        if (i.op == opcode::BRA && i.src[0].value < prog.size())
            leader[i.src[0].value] = true;
        if ((i.op == opcode::BRA || i.op == opcode::EXIT) && pc + 1 < prog.size())
            leader[pc + 1] = true;
    }
    std::vector<std::uint32_t> out;
    for (std::size_t pc = 0; pc < prog.size(); ++pc)
        if (leader[pc])
            out.push_back(static_cast<std::uint32_t>(pc));
    return out;
}

instrumented instrument_profile(const sm::program& prog, unsigned params, unsigned nregs)
{
    unsigned spare = 0;
    instrumented r = prepare(prog, params, nregs, 2, 1, spare);
    if (!r.error.empty())
        return r;
    const unsigned ptr = spare, one = spare + 1;
    r.records.per_block.assign(r.blocks.size(), {});
    rewrite(
        prog, r, [](emitter&) {},
        [&](emitter& e, std::uint32_t b) {
            e.ldp(ptr, params);
            e.mov(one, 1);
            e.atom(sm::reg_zero, ptr, static_cast<std::int32_t>(4 * b), one);
        },
        [](emitter&, std::uint32_t, const instruction&) {});
    if (r.code.size() * sm::instruction_bytes > sm::max_program_bytes)
        return fail(r, "the profiling program would have " + std::to_string(r.code.size()) +
                           " instructions, more than " +
                           std::to_string(sm::max_program_bytes / sm::instruction_bytes));
    return r;
}

instrumented instrument_trace(const sm::program& prog, instrument_types types, unsigned params,
                              unsigned nregs)
{
    const unsigned ntypes = unsigned{types.control} + unsigned{types.memory};
    unsigned spare = 0;
    instrumented r = prepare(prog, params, nregs, 6, 3 * ntypes, spare);
    if (!r.error.empty())
        return r;
    if (ntypes == 0)
        return fail(r, "no record type to instrument");
    const int p = free_predicate(prog);
    if (p < 0)
        return fail(r, "instrumentation needs a predicate the program does not use (it uses "
                       "P0..P7)");
    const auto skip = static_cast<unsigned>(p);
    const regs g{spare, spare + 1, spare + 2, spare + 3, spare + 4, spare + 5};
    // Parameters: control (base, next, capacity), then memory's.
    const unsigned ctl = params, mem = params + (types.control ? 3 : 0);

    r.records.per_block.assign(r.blocks.size(), {});
    for (std::size_t b = 0; b < r.blocks.size(); ++b) {
        const std::uint32_t end =
            b + 1 < r.blocks.size() ? r.blocks[b + 1] : static_cast<std::uint32_t>(prog.size());
        r.records.per_block[b][static_cast<unsigned>(record_type::control)] = types.control;
        if (types.memory)
            r.records.per_block[b][static_cast<unsigned>(record_type::memory)] =
                static_cast<std::uint32_t>(
                    std::count_if(prog.begin() + r.blocks[b], prog.begin() + end,
                                  [](const instruction& i) { return is_memory(i.op); }));
    }

    // Claims a slot of `bytes` in the buffer whose parameters start at `param`; leaves the
    // record's address in g.slot and `skip` set where it does not fit, then writes thread,
    // block and sequence number.
    auto claim = [&](emitter& e, unsigned param, unsigned bytes, std::uint32_t block) {
        e.ldp(g.ptr, param + 1);
        e.mov(g.val, bytes);
        e.atom(g.slot, g.ptr, 0, g.val);
        e.ldp(g.cap, param + 2);
        e.add(opcode::IADD, static_cast<std::uint8_t>(g.val), sm::reg(g.slot), sm::imm(bytes));
        instruction& cmp =
            e.add(opcode::USETP, static_cast<std::uint8_t>(skip), sm::reg(g.val), sm::reg(g.cap));
        cmp.cond = sm::cmp_op::GT;
        e.ldp(g.val, param);
        e.unless(skip);
        e.add(opcode::IADD, static_cast<std::uint8_t>(g.slot), sm::reg(g.slot), sm::reg(g.val));
        e.unless(skip);
        e.st(g.slot, 0, g.tid);
        e.unless(skip);
        e.mov(g.val, block);
        e.unless(skip);
        e.st(g.slot, 4, g.val);
        e.unless(skip);
        e.st(g.slot, 8, g.seq);
        e.unless(skip);
    };
    auto next_seq = [&](emitter& e) {
        e.add(opcode::IADD, static_cast<std::uint8_t>(g.seq), sm::reg(g.seq), sm::imm(1));
    };

    rewrite(
        prog, r,
        [&](emitter& e) {
            // The hardware thread id: the thread's linear index in the whole grid.
            auto s2r = [&](unsigned rd, sm::special_reg s) {
                e.add(opcode::S2R, static_cast<std::uint8_t>(rd)).sreg = s;
            };
            s2r(g.val, sm::special_reg::CTAID_Y);
            s2r(g.cap, sm::special_reg::NCTAID_X);
            s2r(g.slot, sm::special_reg::CTAID_X);
            e.add(opcode::IMAD, static_cast<std::uint8_t>(g.val), sm::reg(g.val), sm::reg(g.cap),
                  sm::reg(g.slot));
            s2r(g.cap, sm::special_reg::NTID_X);
            s2r(g.slot, sm::special_reg::NTID_Y);
            e.add(opcode::IMUL, static_cast<std::uint8_t>(g.cap), sm::reg(g.cap), sm::reg(g.slot));
            e.add(opcode::IMUL, static_cast<std::uint8_t>(g.val), sm::reg(g.val), sm::reg(g.cap));
            s2r(g.cap, sm::special_reg::TID_Y);
            s2r(g.slot, sm::special_reg::NTID_X);
            e.add(opcode::IMAD, static_cast<std::uint8_t>(g.val), sm::reg(g.cap), sm::reg(g.slot),
                  sm::reg(g.val));
            s2r(g.slot, sm::special_reg::TID_X);
            e.add(opcode::IADD, static_cast<std::uint8_t>(g.tid), sm::reg(g.val), sm::reg(g.slot));
        },
        [&](emitter& e, std::uint32_t b) {
            if (!types.control)
                return;
            claim(e, ctl, record_bytes(record_type::control), b);
            e.st(g.slot, 12, sm::reg_zero);
            e.unless(skip);
            next_seq(e);
        },
        [&](emitter& e, std::uint32_t b, const instruction& inst) {
            if (!types.memory)
                return;
            claim(e, mem, record_bytes(record_type::memory), b);
            // Size 4 where the access executes, 0 where its guard is false: every lane that
            // reaches it writes the record, so that counts stay those of the profiling run.
            const bool neg = inst.guard_neg;
            e.add(opcode::SEL, static_cast<std::uint8_t>(g.val), sm::imm(neg ? 0 : 4),
                  sm::imm(neg ? 4 : 0), sm::pred(inst.guard));
            e.unless(skip);
            e.st(g.slot, 12, g.val);
            e.unless(skip);
            e.add(opcode::IADD, static_cast<std::uint8_t>(g.val), inst.src[0],
                  sm::imm(static_cast<std::uint32_t>(inst.offset)));
            e.unless(skip);
            e.st(g.slot, 16, g.val);
            e.unless(skip);
            e.st(g.slot, 20, sm::reg_zero);
            e.unless(skip);
            next_seq(e);
        });
    if (r.code.size() * sm::instruction_bytes > sm::max_program_bytes)
        return fail(r, "the instrumented program would have " + std::to_string(r.code.size()) +
                           " instructions, more than " +
                           std::to_string(sm::max_program_bytes / sm::instruction_bytes));
    return r;
}

std::string trace_csv(const std::vector<record>& merged)
{
    std::string out = "thread,seq,type,block,address,size\n";
    for (const record& r : merged) {
        out += std::to_string(r.thread) + ',' + std::to_string(r.seq) + ',';
        if (r.type == record_type::control) {
            out += "control," + std::to_string(r.block) + ",,\n";
        } else {
            char addr[24];
            std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(r.address));
            out += "memory," + std::to_string(r.block) + ',' + addr + ',' + std::to_string(r.size) +
                   '\n';
        }
    }
    return out;
}

std::uint64_t refused_records(record_type t, std::uint64_t pointer, std::uint64_t capacity)
{
    const unsigned n = record_bytes(t);
    const std::uint64_t claimed = pointer / n, fit = capacity / n;
    return claimed > fit ? claimed - fit : 0;
}

} // namespace vgpu::host
