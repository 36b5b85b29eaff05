// CTA watchdog: the cycle limit of sm.max_cta_cycles per running CTA and the earliest cycle
// any of them exceeds it. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace vgpu::sm {

/// Watches the start cycles of the running CTAs against a limit of max_cycles cycles.
class watchdog {
public:
    static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max(); ///< no limit

    /// cta_slots >= 1; a CTA may run max_cycles (>= 1) cycles.
    watchdog(unsigned cta_slots, std::uint64_t max_cycles);

    std::uint64_t max_cycles() const { return m_max; } ///< cycles a CTA may run
    /// CTA slot cta started running at cycle start: next_limit() drops to its limit if earlier.
    void watch(unsigned cta, std::uint64_t start);
    /// cta stopped or ended; next_limit() keeps its value (it may be early, never late) until
    /// refresh().
    void forget(unsigned cta);
    /// next_limit() becomes the earliest limit of the watched CTAs (never without any).
    void refresh();
    /// Earliest cycle at which a watched CTA may be over its limit: check expired() then.
    std::uint64_t next_limit() const { return m_next; }
    /// cta is watched and has run more than max_cycles() at cycle (unsigned: cycle - start).
    bool expired(unsigned cta, std::uint64_t cycle) const;
    bool watched(unsigned cta) const { return m_ctas.at(cta).watched; }      ///< cta is watched
    std::uint64_t start(unsigned cta) const { return m_ctas.at(cta).start; } ///< its start cycle

private:
    struct entry {
        bool watched = false;
        std::uint64_t start = 0;
    };

    std::uint64_t limit(const entry& e) const { return e.start + m_max + 1; }

    std::vector<entry> m_ctas;
    std::uint64_t m_max;
    std::uint64_t m_next = never;
};

} // namespace vgpu::sm
