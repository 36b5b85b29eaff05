// Translations on their way into a TLB: fast mode learns a walk's result when it books the
// walk, but the entry must enter the TLB (and evict its victim) only at the walk's end, or a
// lookup made before that end would miss an entry the fill has not displaced yet. Pure C++,
// no SystemC. See models/tlb/README.md ("Timing modes").
#pragma once

#include "models/tlb/core/tlb_array.h"

#include <cstddef>
#include <cstdint>
#include <queue>
#include <unordered_map>
#include <vector>

namespace vgpu::tlb {

/// A fill in flight: the leaf PTE, its TLB entry and when it takes effect. A walk that found
/// its page not present is one too (pte 0): lookups before its end share its answer, as they
/// wait for the walk in flight in accurate mode, but it enters no TLB.
struct pending_fill {
    std::uint64_t pte = 0;      ///< raw leaf entry
    translation entry;          ///< what enters the TLB
    std::uint64_t ready_ps = 0; ///< when
};

/// Fills by VPN, applied to a TLB array in time order.
class fill_queue {
public:
    /// Page vpn's translation arrives at ready_ps (replacing a fill still pending for it).
    void push(std::uint64_t vpn, const pending_fill& f);
    /// The fill of vpn not yet applied, or nullptr.
    const pending_fill* find(std::uint64_t vpn) const;
    /// Inserts into `array` (nullptr: only forgets them) every fill with ready_ps <= t, in
    /// ready order (ties: push order), so that its LRU order and victims are those of time t.
    void apply_until(std::uint64_t t, tlb_array* array);
    /// Forgets the fills of VPNs in [first, last].
    void drop(std::uint64_t first, std::uint64_t last);
    void clear();                                       ///< forgets every fill
    std::size_t size() const { return m_fills.size(); } ///< fills not yet applied

private:
    struct key {
        std::uint64_t ready_ps, seq, vpn;
        bool operator>(const key& o) const
        {
            return ready_ps != o.ready_ps ? ready_ps > o.ready_ps : seq > o.seq;
        }
    };
    struct slot {
        pending_fill fill;
        std::uint64_t seq = 0; ///< the push that set it (older heap keys are stale)
    };
    std::unordered_map<std::uint64_t, slot> m_fills;
    std::priority_queue<key, std::vector<key>, std::greater<key>> m_order;
    std::uint64_t m_seq = 0;
};

} // namespace vgpu::tlb
