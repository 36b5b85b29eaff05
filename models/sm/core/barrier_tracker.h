// Barrier tracker: which warps of each CTA wait at its BAR, which have exited, when a barrier
// releases or can no longer complete. Pure C++ core of the SM model; see models/sm/README.md.
#pragma once

#include <cstdint>
#include <vector>

namespace vgpu::sm {

/// CTA-wide barriers of up to 64 warp slots grouped into CTAs.
class barrier_tracker {
public:
    /// What an arrival or an exit did to the CTA's barrier.
    enum class outcome : std::uint8_t {
        none,      ///< nothing to do: warps still to arrive (or no barrier in progress)
        released,  ///< every warp of the CTA arrived: the waiting warps were released
        deadlock,  ///< every warp that has not exited waits, but some exited: never releases
        all_exited ///< (exit only) the last warp of the CTA exited
    };

    /// What arrive() did; released lists the warp slots that left the barrier.
    struct arrival {
        outcome result = outcome::none; ///< none, released or deadlock
        std::uint64_t released = 0;     ///< bit w: slot w was released (result == released)
    };

    /// warp_slots in 1..64, cta_slots >= 1.
    barrier_tracker(unsigned warp_slots, unsigned cta_slots);

    /// CTA slot cta starts with the warp slots in warp_mask (none arrived or exited). The
    /// slots must not belong to another CTA that still runs.
    void start(unsigned cta, std::uint64_t warp_mask);
    /// The warp in slot arrives at a BAR at pc in cycle; releases the barrier when it is the
    /// last warp of its CTA to arrive, reports a deadlock when the others have exited.
    arrival arrive(unsigned slot, std::uint32_t pc, std::uint64_t cycle);
    /// The warp in slot exited for good: all_exited, deadlock (every remaining warp waits at
    /// a barrier that can no longer complete) or none.
    outcome exit(unsigned slot);
    /// The CTA stopped (a fault): its waiting warps leave the barrier without a release.
    void cancel(unsigned cta);

    unsigned waiting() const { return m_waiting; } ///< warps of all CTAs waiting at a barrier
    bool at_barrier(unsigned slot) const { return m_warps[slot].waiting; } ///< slot waits
    /// PC of the BAR slot waits at (or last waited at).
    std::uint32_t pc(unsigned slot) const { return m_warps[slot].pc; }
    /// Cycle slot arrived at its current (or last) barrier.
    std::uint64_t since(unsigned slot) const { return m_warps[slot].since; }
    /// Lowest slot of cta waiting at the barrier, or -1.
    int first_waiting(unsigned cta) const;

    std::uint64_t warp_mask(unsigned cta) const { return m_ctas[cta].mask; } ///< its warp slots
    unsigned warps(unsigned cta) const { return m_ctas[cta].warps; }         ///< warps of cta
    unsigned arrived(unsigned cta) const { return m_ctas[cta].arrived; }     ///< at the barrier now
    unsigned exited(unsigned cta) const { return m_ctas[cta].exited; }       ///< warps exited
    /// Every warp of cta has exited.
    bool all_exited(unsigned cta) const { return m_ctas[cta].exited == m_ctas[cta].warps; }

private:
    struct warp_state {
        unsigned cta = 0;
        bool waiting = false;
        std::uint32_t pc = 0;
        std::uint64_t since = 0;
    };
    struct cta_state {
        std::uint64_t mask = 0;
        unsigned warps = 0, arrived = 0, exited = 0;
    };

    std::vector<warp_state> m_warps;
    std::vector<cta_state> m_ctas;
    unsigned m_waiting = 0;
};

} // namespace vgpu::sm
