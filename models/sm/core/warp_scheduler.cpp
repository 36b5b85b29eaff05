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
      m_slot_mask(slots >= max_slots ? ~0ull : (1ull << slots) - 1), m_age(slots), m_older(slots),
      m_launches(slots)
{
    if (slots == 0 || slots > max_slots)
        throw std::invalid_argument("warp_scheduler: slots must be in 1.." +
                                    std::to_string(max_slots) + ", got " + std::to_string(slots));
    for (unsigned w = 0; w < slots; ++w) {
        m_age[w] = w;
        m_older[w] = (1ull << w) - 1;
    }
}

void warp_scheduler::launch(unsigned slot)
{
    m_age.at(slot) = m_launches++;
    // The youngest now: older than no other slot, every other slot older than it.
    const std::uint64_t bit = 1ull << slot;
    for (std::uint64_t& o : m_older)
        o &= ~bit;
    m_older[slot] = m_slot_mask & ~bit;
}

} // namespace vgpu::sm
