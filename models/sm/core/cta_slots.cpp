// CTA slots: the life cycle of each resident CTA (free, pending, running, ending) and the
// warp slots it holds. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/cta_slots.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vgpu::sm {

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
