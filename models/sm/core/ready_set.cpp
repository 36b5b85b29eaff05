// Ready set: the issue loop's view of an SM's warp slots, kept from cycle to cycle.
// Pure C++ core of the SM model, no SystemC; see models/sm/README.md ("Cores").
#include "models/sm/core/ready_set.h"

#include <algorithm>

namespace vgpu::sm {

void ready_set::stop_waiting(unsigned slot)
{
    m_stalls.remove(m_reason[slot]);
    m_waiting &= ~(std::uint64_t{1} << slot);
    m_earliest_lost |= m_next[slot] == m_earliest;
}

void ready_set::update(std::uint64_t live, std::uint64_t cycle)
{
    // The slots set, or changed in liveness, since the last update.
    for (std::uint64_t m = m_changed | (live ^ m_live); m != 0; m &= m - 1) {
        const auto s = static_cast<unsigned>(__builtin_ctzll(m));
        const std::uint64_t bit = std::uint64_t{1} << s;
        if (m_waiting & bit) // no longer live (set() took the others out)
            stop_waiting(s);
        m_ready &= ~bit;
        if (!(live & bit))
            continue;
        if (m_next[s] <= cycle) {
            m_ready |= bit;
        } else {
            m_waiting |= bit;
            m_stalls.add(m_reason[s]);
            m_earliest = std::min(m_earliest, m_next[s]);
        }
    }
    m_changed = 0;
    m_live = live;
    // The waiting slots whose cycle has come, and the earliest cycle of the others: a walk of
    // the waiting slots, when one's cycle has come or the earliest was set anew.
    if (!m_earliest_lost && cycle < m_earliest)
        return;
    m_earliest = never;
    m_earliest_lost = false;
    for (std::uint64_t m = m_waiting; m != 0; m &= m - 1) {
        const auto s = static_cast<unsigned>(__builtin_ctzll(m));
        if (m_next[s] <= cycle) {
            m_stalls.remove(m_reason[s]);
            m_waiting &= ~(std::uint64_t{1} << s);
            m_ready |= std::uint64_t{1} << s;
        } else {
            m_earliest = std::min(m_earliest, m_next[s]);
        }
    }
}

} // namespace vgpu::sm
