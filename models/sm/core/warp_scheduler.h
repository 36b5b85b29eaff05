// Warp scheduler: picks the warp slot that issues this cycle (LRR or GTO).
// Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include "models/common/enum_names.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vgpu::sm {

/// Issue policies (config `sm.scheduler`).
enum class sched_policy {
    lrr, ///< loose round-robin: the first ready slot after the last issued one
    gto  ///< greedy-then-oldest: the last issued warp while ready, else the oldest ready
};
} // namespace vgpu::sm

template <> struct vgpu::enum_names<vgpu::sm::sched_policy> {
    static constexpr std::pair<std::string_view, sm::sched_policy> table[] = {
        {"lrr", sm::sched_policy::lrr}, {"gto", sm::sched_policy::gto}};
};

namespace vgpu::sm {

/// Config spelling of policy ("lrr", "gto").
std::string_view to_string(sched_policy policy);
/// policy named by text, or nothing if the name is unknown.
std::optional<sched_policy> sched_policy_from_string(std::string_view text);

/// Picks one of up to 64 warp slots per cycle from a readiness bitmask.
class warp_scheduler {
public:
    static constexpr unsigned max_slots = 64; ///< slots a ready mask can describe

    /// slots in 1..max_slots.
    warp_scheduler(unsigned slots, sched_policy policy);

    unsigned slots() const { return m_slots; }       ///< warp slots
    sched_policy policy() const { return m_policy; } ///< issue policy
    int last_issued() const { return m_last; }       ///< slot picked last, -1 before any

    /// Records that a new warp was launched into slot: it becomes the youngest warp.
    /// Before any launch, slot w is the w-th oldest.
    void launch(unsigned slot);
    /// Launch order of slot's warp (smaller = older).
    std::uint64_t age(unsigned slot) const { return m_age.at(slot); }

    /// Slot that issues this cycle among those whose bit is set in ready (bit w = slot w;
    /// bits at or above slots() are ignored), or -1 if none is ready. Records the pick. Inline:
    /// each sub-core picks once per issue.
    int pick(std::uint64_t ready)
    {
        ready &= m_slot_mask;
        if (!ready)
            return -1;
        int w;
        if (m_policy == sched_policy::gto) {
            w = (m_last >= 0 && (ready >> m_last) & 1) ? m_last : oldest(ready);
        } else {
            const unsigned from = static_cast<unsigned>(m_last + 1);
            const std::uint64_t after = from < max_slots ? ready & (~0ull << from) : 0;
            w = __builtin_ctzll(after ? after : ready);
        }
        m_last = w;
        return w;
    }

private:
    /// The ready slot no other ready slot is older than (ready not empty). Launch order is
    /// total, so one is; the lowest ready slot stands in should m_older ever say otherwise.
    int oldest(std::uint64_t ready) const
    {
        for (std::uint64_t m = ready; m != 0; m &= m - 1) {
            const auto s = static_cast<unsigned>(__builtin_ctzll(m));
            if ((m_older[s] & ready) == 0)
                return static_cast<int>(s);
        }
        return __builtin_ctzll(ready);
    }

    unsigned m_slots;
    sched_policy m_policy;
    std::uint64_t m_slot_mask;
    std::vector<std::uint64_t> m_age;
    /// Per slot, the slots launched before it (older): GTO's oldest ready slot is the one with
    /// none of them ready, a mask test per ready slot instead of an age comparison each.
    std::vector<std::uint64_t> m_older;
    std::uint64_t m_launches = 0;
    int m_last = -1;
};

} // namespace vgpu::sm
