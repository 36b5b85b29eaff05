// Volta's convergence of warp-synchronous operations (docs/isa.md, "Convergence of warp
// operations"): lanes that reach a WARPSYNC (the first half of every PTX .sync warp
// operation) or a BAR while lanes it waits for are elsewhere wait there, and the warp runs the
// other lanes (still the lowest PC first) until they arrive, exit, or every lane waits.
#include "models/sm/core/warp.h"

#include <cstdio>
#include <string>

namespace vgpu::sm {

namespace {

std::string hex32(std::uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

} // namespace

bool warp::wait_to_converge(std::uint32_t mask, std::uint32_t exec, step_result& r)
{
    const std::uint32_t missing = mask & m_live & ~exec;
    if (missing == 0) {
        m_parked &= ~exec; // everyone named is here: the instruction proceeds
        return false;
    }
    const bool bar = r.inst && r.inst->op == opcode::BAR;
    if ((m_live & ~m_parked & ~exec) == 0 && (m_active & ~exec) == 0) {
        // Every lane that could still come waits at another WARPSYNC or BAR: a deadlock.
        unsigned first = 0;
        while (!((missing >> first) & 1))
            ++first;
        r = fault(r, std::string(bar ? "BAR" : "WARPSYNC membermask " + hex32(mask)) +
                         " waits for lanes " + hex32(missing) + " that wait at PC " +
                         std::to_string(m_pcs[first]) +
                         " (lanes converge only at the same warp-synchronous instruction)");
        return true;
    }
    if (m_active == m_live) // converged until now: m_pcs is stale
        for (unsigned l = 0; l < warp_size; ++l)
            m_pcs[l] = m_pc;
    for (unsigned l = 0; l < warp_size; ++l)
        if ((m_active & ~exec) >> l & 1)
            m_pcs[l] = m_pc + 1; // guarded off: they go on
    m_parked |= exec;            // their PC stays here
    ++m_warp_instructions;
    m_lane_instructions += static_cast<unsigned>(__builtin_popcount(exec));
    r.kind = step_kind::alu;
    select_next();
    return true;
}

} // namespace vgpu::sm
