// Per-warp scoreboard: when each register and predicate becomes readable, and the earliest
// cycle (and the reason) the warp's next instruction can issue. No SystemC; models/sm/README.md.
#include "models/sm/core/scoreboard.h"

#include <stdexcept>
#include <string>

namespace vgpu::sm {

scoreboard::scoreboard(unsigned regs_per_thread,
                       const std::array<unsigned, num_unit_classes>& latency)
    : m_regs(regs_per_thread), m_latency(latency)
{
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
    m_reg_ready.fill(0);
    m_reg_from_load.reset();
    m_pred_ready.fill(0);
    m_mem_busy = false;
    m_mem_ready = 0;
    m_hold = 0;
}

void scoreboard::write_alu(const instruction& inst, std::uint64_t cycle)
{
    const std::uint64_t ready = cycle + latency(inst.op);
    const syntax form = info(inst.op).form;
    if (form == syntax::setp) {
        if (inst.dst < pred_true)
            m_pred_ready[inst.dst] = ready;
    } else if (writes_register(form) && form != syntax::ld && form != syntax::cdl &&
               inst.dst < m_regs) {
        m_reg_ready[inst.dst] = ready;
        m_reg_from_load.reset(inst.dst);
    }
}

void scoreboard::write_load(std::uint8_t reg, std::uint64_t cycle)
{
    if (reg == reg_zero || reg >= m_regs)
        return;
    m_reg_ready[reg] = cycle;
    m_reg_from_load.set(reg);
}

void scoreboard::memory_done(std::uint64_t cycle)
{
    m_mem_busy = false;
    m_mem_ready = cycle;
}

issue_time scoreboard::next_issue(const instruction* inst, bool warp_ready, bool at_barrier) const
{
    if (at_barrier)
        return {never, wait_reason::barrier};
    if (!warp_ready)
        return {never, wait_reason::memory};
    if (!inst)
        return {0, wait_reason::none};
    std::uint64_t t =
        std::max(m_hold, m_pred_ready[inst->guard <= num_predicates ? inst->guard : pred_true]);
    bool from_mem = false;
    for (const operand& o : inst->src) {
        if (o.kind == operand_kind::reg && o.value < m_regs) {
            if (m_reg_ready[o.value] > t) {
                t = m_reg_ready[o.value];
                from_mem = m_reg_from_load[o.value];
            }
        } else if (o.kind == operand_kind::pred && o.value <= num_predicates) {
            if (m_pred_ready[o.value] > t) {
                t = m_pred_ready[o.value];
                from_mem = false;
            }
        }
    }
    // Per-warp memory order; a BAR also waits, so that the CTA sees the warp's stores after it.
    if (inst->op == opcode::LD || inst->op == opcode::ST || inst->op == opcode::CDL ||
        inst->op == opcode::BAR) {
        if (m_mem_busy)
            return {never, wait_reason::memory};
        if (m_mem_ready > t) {
            t = m_mem_ready;
            from_mem = true;
        }
    }
    return {t, from_mem ? wait_reason::memory : wait_reason::scoreboard};
}

} // namespace vgpu::sm
