// CTA watchdog: the cycle limit of sm.max_cta_cycles per running CTA and the earliest cycle
// any of them exceeds it. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/watchdog.h"

#include <algorithm>
#include <stdexcept>

namespace vgpu::sm {

watchdog::watchdog(unsigned cta_slots, std::uint64_t max_cycles)
    : m_ctas(cta_slots), m_max(max_cycles)
{
    if (cta_slots == 0 || max_cycles == 0)
        throw std::invalid_argument("watchdog: cta_slots and max_cycles must be >= 1");
}

void watchdog::watch(unsigned cta, std::uint64_t start)
{
    entry& e = m_ctas.at(cta);
    e.watched = true;
    e.start = start;
    m_next = std::min(m_next, limit(e));
}

void watchdog::forget(unsigned cta)
{
    m_ctas.at(cta).watched = false;
}

void watchdog::refresh()
{
    m_next = never;
    for (const entry& e : m_ctas)
        if (e.watched)
            m_next = std::min(m_next, limit(e));
}

bool watchdog::expired(unsigned cta, std::uint64_t cycle) const
{
    const entry& e = m_ctas.at(cta);
    // A CTA whose start lies ahead of `cycle` (a launch with an annotated delay) has not run yet.
    return e.watched && cycle > e.start && cycle - e.start > m_max;
}

} // namespace vgpu::sm
