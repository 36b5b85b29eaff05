// Per-warp scoreboard: when each register and predicate becomes readable, and the earliest
// cycle (and the reason) the warp's next instruction can issue. No SystemC; models/sm/README.md.
#include "models/sm/core/scoreboard.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace vgpu::sm {

scoreboard::scoreboard(unsigned regs_per_thread,
                       const std::array<unsigned, num_unit_classes>& latency, unsigned max_loads,
                       unsigned max_stores)
    : m_regs(regs_per_thread), m_latency(latency), m_max_loads(max_loads), m_max_stores(max_stores)
{
    if (max_loads == 0 || max_stores == 0)
        throw std::invalid_argument("scoreboard: at least one load and one store in flight");
    if (regs_per_thread == 0 || regs_per_thread > max_registers)
        throw std::invalid_argument("scoreboard: regs_per_thread must be in 1.." +
                                    std::to_string(max_registers) + ", got " +
                                    std::to_string(regs_per_thread));
}

scoreboard::scoreboard(unsigned regs_per_thread, unsigned alu_latency, unsigned fp_latency)
    : scoreboard(regs_per_thread, {alu_latency, alu_latency, fp_latency, fp_latency, 1, 1})
{
}

void scoreboard::reset()
{
    m_ready.fill(0);
    m_from_load.fill(false);
    m_loads = in_flight{};
    m_stores = in_flight{};
    m_hold = 0;
}

issue_plan scoreboard::plan(const instruction& inst)
{
    issue_plan p;
    p.unit = unit_of(inst.op);
    p.guard = inst.guard <= num_predicates ? inst.guard : pred_true;
    const unsigned pairs = pair_mask(inst); // a pair reads (writes) Rn and Rn+1
    for (unsigned i = 0; i < 3; ++i) {
        const operand& o = inst.src[i];
        if (o.kind == operand_kind::reg) {
            for (unsigned r = o.value; r <= o.value + ((pairs >> (i + 1)) & 1) && r < max_registers;
                 ++r)
                p.reads[p.nreads++] = static_cast<std::uint16_t>(r);
        } else if (o.kind == operand_kind::pred && o.value <= num_predicates) {
            p.reads[p.nreads++] = static_cast<std::uint16_t>(issue_plan::pred_read + o.value);
        }
    }
    const syntax form = info(inst.op).form;
    if (writes_register(form) && inst.dst < max_registers) {
        std::uint32_t count = 1;
        if (inst.op == opcode::CDL && inst.src[2].kind == operand_kind::imm)
            count = (inst.src[2].value + 31) / 32;
        if (pairs & 1)
            count = 2;
        p.waw_first = inst.dst;
        p.waw_count = std::min<std::uint32_t>(count, max_registers - inst.dst);
    }
    switch (inst.op) {
    case opcode::LD:
    case opcode::CDL:
    case opcode::ATOM: // a load that returns the old values
    case opcode::CAS:
        p.mem = issue_plan::memory::load_entry;
        break;
    case opcode::ST:
        p.mem = issue_plan::memory::store_entry;
        break;
    case opcode::EXIT:
        p.mem = issue_plan::memory::stores_drained;
        break;
    case opcode::BAR:
    case opcode::MEMBAR:
        p.mem = issue_plan::memory::drained;
        break;
    default:
        break;
    }
    if (writes_predicate(form)) {
        p.alu_pred = inst.dst < pred_true ? inst.dst : pred_true;
    } else if (writes_register(form) && form != syntax::ld && form != syntax::cdl &&
               form != syntax::atom && inst.dst < max_registers) {
        p.alu_reg = inst.dst;
        p.alu_regs = (pairs & 1) ? 2 : 1;
    }
    return p;
}

void scoreboard::load_issued(std::uint8_t reg, unsigned count)
{
    if (reg == reg_zero)
        return;
    for (unsigned r = reg; r < reg + count && r < m_regs; ++r) {
        m_ready[r] = never;
        m_from_load[r] = true;
    }
}

void scoreboard::write_load(std::uint8_t reg, std::uint64_t cycle)
{
    if (reg == reg_zero || reg >= m_regs)
        return;
    m_ready[reg] = cycle;
    m_from_load[reg] = true;
}

void scoreboard::memory_issued(bool store, std::uint64_t cycle)
{
    in_flight& f = store ? m_stores : m_loads;
    f.ends.erase(std::remove_if(f.ends.begin(), f.ends.end(),
                                [cycle](std::uint64_t e) { return e <= cycle; }),
                 f.ends.end());
    ++f.unknown;
}

void scoreboard::memory_done(bool store, std::uint64_t cycle)
{
    in_flight& f = store ? m_stores : m_loads;
    if (f.unknown > 0)
        --f.unknown;
    f.ends.push_back(cycle);
}

std::uint64_t scoreboard::memory_ready() const
{
    return std::max(m_loads.drained() == never ? 0 : m_loads.drained(),
                    m_stores.drained() == never ? 0 : m_stores.drained());
}

std::uint64_t scoreboard::in_flight::free_entry(unsigned max) const
{
    if (unknown >= max)
        return never;
    // At most max - 1 in flight: known completions beyond the (allowed + 1)-th latest remain.
    const std::size_t allowed = max - 1 - unknown;
    if (ends.size() <= allowed)
        return 0;
    std::vector<std::uint64_t> e(ends);
    std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(allowed), e.end(),
                     std::greater<>());
    return e[allowed];
}

std::uint64_t scoreboard::in_flight::drained() const
{
    if (unknown > 0)
        return never;
    return ends.empty() ? 0 : *std::max_element(ends.begin(), ends.end());
}

issue_time scoreboard::with_memory(const issue_plan& p, std::uint64_t t, bool from_mem) const
{
    // Entries for loads and stores in flight; the CTA sees a warp's accesses complete at a
    // BAR or MEMBAR, and its stores complete at EXIT.
    std::uint64_t mem = 0;
    switch (p.mem) {
    case issue_plan::memory::load_entry:
        mem = m_loads.free_entry(m_max_loads);
        break;
    case issue_plan::memory::store_entry:
        mem = m_stores.free_entry(m_max_stores);
        break;
    case issue_plan::memory::stores_drained:
        mem = m_stores.drained();
        break;
    case issue_plan::memory::drained:
        mem = std::max(m_loads.drained(), m_stores.drained());
        break;
    case issue_plan::memory::none:
        break;
    }
    if (mem == never)
        return {never, wait_reason::memory};
    if (mem > t) {
        t = mem;
        from_mem = true;
    }
    return {t, from_mem ? wait_reason::memory : wait_reason::scoreboard};
}

} // namespace vgpu::sm
