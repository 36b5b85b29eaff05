// Warp scheduler: picks the warp slot that issues this cycle (LRR or GTO).
// Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/warp_scheduler.h"

#include <stdexcept>
#include <string>

namespace vgpu::sm {

std::string_view to_string(sched_policy policy)
{
    return name_of(policy);
}

std::optional<sched_policy> sched_policy_from_string(std::string_view text)
{
    return enum_from_name<sched_policy>(text);
}

warp_scheduler::warp_scheduler(unsigned slots, sched_policy policy)
    : m_slots(slots), m_policy(policy),
      m_slot_mask(slots >= max_slots ? ~0ull : (1ull << slots) - 1), m_age(slots), m_launches(slots)
{
    if (slots == 0 || slots > max_slots)
        throw std::invalid_argument("warp_scheduler: slots must be in 1.." +
                                    std::to_string(max_slots) + ", got " + std::to_string(slots));
    for (unsigned w = 0; w < slots; ++w)
        m_age[w] = w;
}

void warp_scheduler::launch(unsigned slot)
{
    m_age.at(slot) = m_launches++;
}

int warp_scheduler::oldest(std::uint64_t ready) const
{
    // Callers pass a non-empty mask.
    unsigned best = static_cast<unsigned>(__builtin_ctzll(ready));
    for (ready &= ready - 1; ready; ready &= ready - 1) {
        const unsigned w = static_cast<unsigned>(__builtin_ctzll(ready));
        if (m_age[w] < m_age[best])
            best = w;
    }
    return static_cast<int>(best);
}

} // namespace vgpu::sm
