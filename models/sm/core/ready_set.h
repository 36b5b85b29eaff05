// Ready set: which of an SM's warp slots may issue at a cycle, the earliest cycle another one
// may, and what the others wait for, kept from cycle to cycle instead of scanned afresh. Pure
// C++ core of the SM model, no SystemC; see models/sm/README.md ("Cores").
#pragma once

#include "models/sm/core/scoreboard.h"
#include "models/sm/core/stall_classifier.h"

#include <array>
#include <cstdint>

namespace vgpu::sm {

/// Holds each warp slot's next issue cycle and the reason it is not earlier, and answers for a
/// set of live slots at a cycle: the slots whose next cycle has come (ready), the earliest next
/// cycle of the others (waiting), and their reasons counted. The answer is the one a scan of
/// every live slot gives; update() reaches it from the slots set or changed in liveness since
/// the last update, and walks the waiting slots only when one's cycle has come or the earliest
/// one was set anew. An SM whose warps all wait for memory is woken about once per line
/// request (a place frees, a load returns) while one of its 64 slots changes.
class ready_set {
public:
    static constexpr unsigned max_slots = 64; ///< slots are bits of a 64-bit mask
    static constexpr std::uint64_t never = scoreboard::never;

    /// Slot's next issue cycle and why it is not earlier (slot < max_slots). Inline: the
    /// issue stage sets a slot at every issue.
    void set(unsigned slot, std::uint64_t next, wait_reason reason)
    {
        const std::uint64_t bit = std::uint64_t{1} << slot;
        if (m_waiting & bit) // counted with its old values: take them out
            stop_waiting(slot);
        m_ready &= ~bit;
        m_next[slot] = next;
        m_reason[slot] = reason;
        m_changed |= bit;
    }
    std::uint64_t next(unsigned slot) const { return m_next[slot]; } ///< as set

    /// Slot's reason as set (the source profile charges a waiting warp's stall to it).
    wait_reason reason(unsigned slot) const { return m_reason[slot]; }

    /// Brings the answer to `cycle` for the slots in `live`. Cycles never decrease from one
    /// update to the next.
    void update(std::uint64_t live, std::uint64_t cycle);
    /// Live slots whose next cycle is at or before the cycle of the last update (a slot set
    /// since is not among them until the next update).
    std::uint64_t ready() const { return m_ready; }
    /// The earliest next cycle of the other live slots (never when there are none).
    std::uint64_t earliest() const { return m_earliest; }
    /// The other live slots' reasons.
    const stall_classifier& waiting() const { return m_stalls; }

private:
    /// A waiting slot stops waiting before its cycle came (set anew, or no longer live).
    void stop_waiting(unsigned slot);

    std::array<std::uint64_t, max_slots> m_next{};
    std::array<wait_reason, max_slots> m_reason{};
    std::uint64_t m_changed = 0; ///< slots set since the last update
    std::uint64_t m_live = 0;    ///< the live slots of the last update
    std::uint64_t m_ready = 0;
    std::uint64_t m_waiting = 0; ///< live, not ready: counted in m_stalls and m_earliest
    std::uint64_t m_earliest = never;
    /// A waiting slot whose next cycle was the earliest was set anew: the earliest is unknown.
    bool m_earliest_lost = false;
    stall_classifier m_stalls;
};

} // namespace vgpu::sm
