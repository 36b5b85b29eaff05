// Set-associative TLB array with true LRU per set and a pluggable set-index function. Pure C++
// core of the L1 and L2 TLBs, no SystemC. See models/tlb/README.md.
#pragma once

#include "models/tlb/core/xor_index.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::tlb {

/// What a TLB entry holds about a page besides its VPN: the fields of its last-level PTE.
struct translation {
    std::uint64_t pfn = 0;       ///< physical frame number (physical address / page bytes)
    bool writable = false;       ///< stores are allowed
    bool read_only_hint = false; ///< the page is read-only data (the remote LLC may cache it)
    unsigned home = 0;           ///< module whose DRAM holds the frame
    bool operator==(const translation& o) const
    {
        return pfn == o.pfn && writable == o.writable && read_only_hint == o.read_only_hint &&
               home == o.home;
    }
};

/// sets x ways entries, tagged with the full VPN (so any index function is correct), true LRU
/// within a set. Counts its hits, misses and evictions.
class tlb_array {
public:
    /// sets >= 1, ways >= 1; index maps a VPN to [0, sets) (reduced modulo sets); the default
    /// is vpn % sets.
    tlb_array(unsigned sets, unsigned ways, index_fn index = {});

    unsigned sets() const { return m_sets; }  ///< number of sets
    unsigned ways() const { return m_ways; }  ///< entries per set
    unsigned set_of(std::uint64_t vpn) const; ///< the set vpn maps to

    /// The translation of vpn, made most recently used, or nothing (a miss). Counted.
    std::optional<translation> lookup(std::uint64_t vpn);
    /// The translation of vpn without counting or changing the LRU order.
    std::optional<translation> probe(std::uint64_t vpn) const;
    /// Enters (or updates) vpn as most recently used; returns the VPN of the entry it evicted
    /// (the set's least recently used when the set was full).
    std::optional<std::uint64_t> insert(std::uint64_t vpn, const translation& t);
    /// Removes vpn; true if it was present.
    bool invalidate(std::uint64_t vpn);
    /// Removes every entry with first_vpn <= VPN <= last_vpn; returns how many.
    unsigned invalidate_range(std::uint64_t first_vpn, std::uint64_t last_vpn);
    /// Removes every entry; returns how many.
    unsigned invalidate_all();

    std::uint64_t hits() const { return m_hits; }           ///< lookups that found their VPN
    std::uint64_t misses() const { return m_misses; }       ///< lookups that did not
    std::uint64_t evictions() const { return m_evictions; } ///< valid entries replaced

private:
    struct entry {
        bool valid = false;
        std::uint64_t vpn = 0;
        std::uint64_t used = 0; ///< LRU stamp: larger is more recent
        translation t;
    };
    entry* find(std::uint64_t vpn);
    const entry* find(std::uint64_t vpn) const;

    unsigned m_sets, m_ways;
    index_fn m_index;
    std::vector<entry> m_entries; ///< set-major: set s holds [s * ways, (s + 1) * ways)
    std::uint64_t m_clock = 0;
    std::uint64_t m_hits = 0, m_misses = 0, m_evictions = 0;
};

} // namespace vgpu::tlb
