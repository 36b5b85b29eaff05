// CTA slots: the life cycle of each resident CTA (free, pending, running, ending) and the
// warp slots it holds. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/cta_slots.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace vgpu::sm {

namespace {
std::uint64_t round_up(std::uint64_t v, std::uint64_t unit)
{
    return (v + unit - 1) / unit * unit;
}
} // namespace

occupancy_result occupancy(const sm_resources& sm, const cta_demand& cta)
{
    occupancy_result r;
    constexpr unsigned warp = 32;
    const unsigned parts = std::max(1u, sm.register_partitions);
    r.warps_per_cta = (cta.threads + warp - 1) / warp;
    const unsigned w = std::max(1u, r.warps_per_cta);
    // Threads are allocated in whole warps (cudaOccMaxBlocksPerSMWarpsLimit).
    r.by_threads = sm.max_threads / warp / w;
    r.by_warps = sm.warp_slots / w;
    r.by_ctas = sm.cta_slots;
    // Registers (cudaOccMaxBlocksPerSMRegsLimit): per warp, regs x 32 rounded up to the
    // allocation unit; each sub-partition holds floor(its share / per warp) warps. The
    // hardware also checks the CTA as if its warps were rounded up to a multiple of the
    // partitions.
    // In 64 bits, then saturated: huge demands must not wrap into small ones.
    constexpr std::uint64_t u32_max = 0xFFFFFFFFu;
    const std::uint64_t per_warp =
        round_up(std::uint64_t{cta.regs_per_thread} * warp, register_granularity);
    const std::uint64_t per_cta = per_warp * r.warps_per_cta;
    r.regs_per_warp = static_cast<unsigned>(std::min(per_warp, u32_max));
    r.regs_per_cta = static_cast<unsigned>(std::min(per_cta, u32_max));
    if (per_warp == 0) {
        r.by_registers = ~0u;
    } else {
        const std::uint64_t assumed = per_warp * round_up(w, parts);
        if (assumed > sm.registers || per_cta > sm.registers)
            r.by_registers = 0;
        else
            r.by_registers = (sm.registers / parts / r.regs_per_warp) * parts / w;
    }
    // Shared memory (cudaOccMaxBlocksPerSMSmemLimit): per CTA rounded up to the unit.
    const std::uint64_t shared = round_up(cta.shared_bytes, shared_granularity);
    r.shared_per_cta = static_cast<std::uint32_t>(std::min(shared, u32_max));
    r.by_shared = shared == 0                ? ~0u
                  : shared > sm.shared_bytes ? 0u
                                             : static_cast<unsigned>(sm.shared_bytes / shared);

    const std::pair<const char*, unsigned> limits[] = {{"sm.max_threads", r.by_threads},
                                                       {"sm.warp_slots", r.by_warps},
                                                       {"sm.cta_slots", r.by_ctas},
                                                       {"sm.registers", r.by_registers},
                                                       {"sm.shared_bytes", r.by_shared}};
    r.ctas_per_sm = ~0u;
    for (const auto& l : limits)
        r.ctas_per_sm = std::min(r.ctas_per_sm, l.second);
    for (const auto& l : limits)
        if (l.second == r.ctas_per_sm)
            r.limit += (r.limit.empty() ? "" : "+") + std::string(l.first);
    if (r.ctas_per_sm == 0) {
        if (r.by_threads == 0)
            r.why = std::to_string(r.warps_per_cta) + " warps per CTA exceed sm.max_threads " +
                    std::to_string(sm.max_threads);
        else if (r.by_warps == 0)
            r.why = std::to_string(r.warps_per_cta) + " warps per CTA exceed sm.warp_slots " +
                    std::to_string(sm.warp_slots);
        else if (r.by_registers == 0)
            r.why = std::to_string(cta.regs_per_thread) + " registers per thread (" +
                    std::to_string(r.regs_per_warp) + " per warp, " +
                    std::to_string(r.warps_per_cta) + " warps per CTA) exceed sm.registers " +
                    std::to_string(sm.registers);
        else
            r.why = std::to_string(cta.shared_bytes) + " bytes of shared memory per CTA (" +
                    std::to_string(shared) + " allocated) exceed sm.shared_bytes " +
                    std::to_string(sm.shared_bytes);
    }
    return r;
}

cta_slots::cta_slots(unsigned cta_slots, unsigned warp_slots)
    : m_slots(cta_slots), m_free_warps(warp_slots >= 64 ? ~0ull : (1ull << warp_slots) - 1)
{
    if (cta_slots == 0 || warp_slots == 0 || warp_slots > 64)
        throw std::invalid_argument("cta_slots: cta_slots must be >= 1 and warp_slots in 1..64, "
                                    "got " +
                                    std::to_string(cta_slots) + " and " +
                                    std::to_string(warp_slots));
    // At most one entry per CTA slot, so pushing never reallocates (a launch may be accepted
    // while the shell walks the list).
    m_pending.reserve(cta_slots);
}

cta_slots::grant cta_slots::allocate(std::uint64_t warps)
{
    grant g;
    const auto it = std::find_if(m_slots.begin(), m_slots.end(),
                                 [](const slot& s) { return s.st == cta_state::free; });
    if (warps == 0)
        g.refused = "no warps";
    else if (it == m_slots.end())
        g.refused = "no free CTA slot";
    else if (warps > free_warps())
        g.refused = "not enough free warp slots";
    if (g.refused)
        return g;
    slot& s = *it;
    s = slot{};
    s.st = cta_state::pending;
    for (std::uint64_t free = m_free_warps; free != 0 && s.warps < warps; free &= free - 1) {
        s.mask |= free & -free;
        ++s.warps;
    }
    m_free_warps &= ~s.mask;
    g.cta = static_cast<int>(it - m_slots.begin());
    g.warp_mask = s.mask;
    m_pending.push_back(g.cta);
    return g;
}

void cta_slots::release(unsigned cta)
{
    slot& s = m_slots.at(cta);
    m_free_warps |= s.mask;
    s.st = cta_state::free;
    s.mask = 0;
}

unsigned cta_slots::free_warps() const
{
    return static_cast<unsigned>(__builtin_popcountll(m_free_warps));
}

unsigned cta_slots::resident() const
{
    unsigned n = 0;
    for (const auto& s : m_slots)
        n += s.st != cta_state::free;
    return n;
}

bool cta_slots::active() const
{
    return std::any_of(m_slots.begin(), m_slots.end(), [](const slot& s) {
        return s.st == cta_state::running || s.st == cta_state::ending;
    });
}

} // namespace vgpu::sm
