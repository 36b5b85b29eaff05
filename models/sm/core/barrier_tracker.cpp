// Barrier tracker: which warps of each CTA wait at its BAR, which have exited, when a barrier
// releases or can no longer complete. Pure C++ core of the SM model; see models/sm/README.md.
#include "models/sm/core/barrier_tracker.h"

#include <stdexcept>
#include <string>

namespace vgpu::sm {

barrier_tracker::barrier_tracker(unsigned warp_slots, unsigned cta_slots)
    : m_warps(warp_slots), m_ctas(cta_slots)
{
    if (warp_slots == 0 || warp_slots > 64 || cta_slots == 0)
        throw std::invalid_argument("barrier_tracker: warp_slots must be in 1..64 and cta_slots "
                                    ">= 1, got " +
                                    std::to_string(warp_slots) + " and " +
                                    std::to_string(cta_slots));
}

void barrier_tracker::start(unsigned cta, std::uint64_t warp_mask)
{
    if (cta >= m_ctas.size() || (m_warps.size() < 64 && (warp_mask >> m_warps.size()) != 0))
        throw std::out_of_range("barrier_tracker: CTA slot or warp mask out of range");
    cta_state& c = m_ctas[cta];
    c = cta_state{};
    c.mask = warp_mask;
    for (std::uint64_t m = warp_mask; m != 0; m &= m - 1) {
        warp_state& w = m_warps[static_cast<unsigned>(__builtin_ctzll(m))];
        w.cta = cta;
        w.waiting = false;
        ++c.warps;
    }
}

barrier_tracker::arrival barrier_tracker::arrive(unsigned slot, std::uint32_t pc,
                                                 std::uint64_t cycle)
{
    warp_state& w = m_warps[slot];
    cta_state& c = m_ctas[w.cta];
    w.waiting = true;
    w.pc = pc;
    w.since = cycle;
    ++m_waiting;
    ++c.arrived;
    arrival a;
    if (c.arrived == c.warps) {
        a.result = outcome::released;
        for (std::uint64_t m = c.mask; m != 0; m &= m - 1) {
            const unsigned s = static_cast<unsigned>(__builtin_ctzll(m));
            if (!m_warps[s].waiting)
                continue;
            m_warps[s].waiting = false;
            --m_waiting;
            a.released |= 1ull << s;
        }
        c.arrived = 0;
    } else if (c.arrived + c.exited == c.warps) {
        a.result = outcome::deadlock;
    }
    return a;
}

barrier_tracker::outcome barrier_tracker::exit(unsigned slot)
{
    cta_state& c = m_ctas[m_warps[slot].cta];
    ++c.exited;
    if (c.exited == c.warps)
        return outcome::all_exited;
    if (c.arrived > 0 && c.arrived + c.exited == c.warps)
        return outcome::deadlock;
    return outcome::none;
}

void barrier_tracker::cancel(unsigned cta)
{
    for (std::uint64_t m = m_ctas[cta].mask; m != 0; m &= m - 1) {
        warp_state& w = m_warps[static_cast<unsigned>(__builtin_ctzll(m))];
        if (w.waiting) {
            w.waiting = false;
            --m_waiting;
        }
    }
}

int barrier_tracker::first_waiting(unsigned cta) const
{
    for (std::uint64_t m = m_ctas[cta].mask; m != 0; m &= m - 1) {
        const unsigned s = static_cast<unsigned>(__builtin_ctzll(m));
        if (m_warps[s].waiting)
            return static_cast<int>(s);
    }
    return -1;
}

} // namespace vgpu::sm
