// Page-walk cache: the upper levels of recent page-table walks (which table the next level is
// in), so that a walk can skip the reads it repeats. Pure C++, no SystemC. See
// models/tlb/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::tlb {

/// Fully associative, true LRU, `entries` entries (0: no cache, every lookup misses). An entry
/// maps (level, prefix) to the physical address of the table the walk reads at level + 1, where
/// prefix is the part of the virtual address that selects the entries of levels 0..level.
class page_walk_cache {
public:
    explicit page_walk_cache(unsigned entries);

    unsigned entries() const { return static_cast<unsigned>(m_entries.size()); } ///< capacity
    /// The table below (level, prefix), made most recently used, or nothing. Counted.
    std::optional<std::uint64_t> lookup(unsigned level, std::uint64_t prefix);
    /// Enters (or updates) (level, prefix) -> table as most recently used, replacing the least
    /// recently used entry when full.
    void insert(unsigned level, std::uint64_t prefix, std::uint64_t table);
    /// Removes every entry (a shootdown: a table may have moved); returns how many.
    unsigned invalidate_all();

    std::uint64_t hits() const { return m_hits; }     ///< lookups that found their entry
    std::uint64_t misses() const { return m_misses; } ///< lookups that did not

private:
    struct entry {
        bool valid = false;
        unsigned level = 0;
        std::uint64_t prefix = 0, table = 0;
        std::uint64_t used = 0; ///< LRU stamp: larger is more recent
    };
    entry* find(unsigned level, std::uint64_t prefix);

    std::vector<entry> m_entries;
    std::uint64_t m_clock = 0, m_hits = 0, m_misses = 0;
};

} // namespace vgpu::tlb
