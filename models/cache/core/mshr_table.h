// Miss status holding registers: outstanding line misses and the requests merged into them.
// Pure C++ core of the cache models, no SystemC; see models/cache/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vgpu::cache {

/// Up to capacity outstanding misses keyed by line address, each holding up to max_merged
/// waiting targets of type T. Storage is preallocated: no allocation per access. A line finds
/// its entry through a hash index, and a new miss takes the lowest free entry (a bit per entry),
/// so neither scans every entry (hundreds in an L1 or LLC slice).
template <class T> class mshr_table {
public:
    /// One outstanding miss.
    class entry {
    public:
        std::uint64_t line() const { return m_line; }               ///< line address
        const std::vector<T>& targets() const { return m_targets; } ///< waiting targets

    private:
        friend class mshr_table;
        std::uint64_t m_line = 0;
        bool m_busy = false;
        std::vector<T> m_targets;
    };

    /// capacity entries of max_merged targets each; both must be at least 1.
    mshr_table(unsigned capacity, unsigned max_merged)
        : m_entries(capacity), m_max_merged(max_merged)
    {
        if (capacity == 0 || max_merged == 0)
            throw std::invalid_argument("mshr_table: capacity and max_merged must be at least 1");
        for (auto& e : m_entries)
            e.m_targets.reserve(max_merged);
        // At most half the index's slots are used, so probe sequences stay short.
        unsigned bits = 1;
        while ((std::size_t{1} << bits) < 2 * std::size_t{capacity})
            ++bits;
        m_shift = 64 - bits;
        m_index.assign(std::size_t{1} << bits, empty_slot);
        m_free.assign((capacity + 63) / 64, 0);
        for (unsigned i = 0; i < capacity; ++i)
            m_free[i / 64] |= std::uint64_t{1} << (i % 64);
    }

    unsigned capacity() const { return static_cast<unsigned>(m_entries.size()); } ///< entries
    unsigned max_merged() const { return m_max_merged; } ///< targets per entry
    unsigned in_use() const { return m_in_use; }         ///< allocated entries

    /// The entry of line, or nullptr if no miss on it is outstanding.
    entry* lookup(std::uint64_t line)
    {
        const int i = index_of(line);
        return i < 0 ? nullptr : &m_entries[static_cast<std::size_t>(i)];
    }

    /// Index (0 .. capacity-1) of line's entry, or -1 if no miss on it is outstanding.
    int index_of(std::uint64_t line) const
    {
        for (std::size_t s = home(line);; s = next(s)) {
            const std::int32_t i = m_index[s];
            if (i == empty_slot)
                return -1;
            if (m_entries[static_cast<std::size_t>(i)].m_line == line)
                return i;
        }
    }

    /// True if a free entry is left.
    bool can_allocate() const { return m_in_use < m_entries.size(); }

    /// Claims an entry for line (which must have none) with no targets; throws if none free.
    entry& allocate(std::uint64_t line)
    {
        if (lookup(line))
            throw std::logic_error("mshr_table::allocate: line already has an entry");
        for (std::size_t w = 0; w < m_free.size(); ++w) {
            if (m_free[w] == 0)
                continue;
            const std::size_t i = w * 64 + static_cast<unsigned>(__builtin_ctzll(m_free[w]));
            m_free[w] &= m_free[w] - 1;
            entry& e = m_entries[i];
            e.m_busy = true;
            e.m_line = line;
            std::size_t s = home(line);
            while (m_index[s] != empty_slot)
                s = next(s);
            m_index[s] = static_cast<std::int32_t>(i);
            ++m_in_use;
            ++m_allocations;
            return e;
        }
        throw std::logic_error("mshr_table::allocate: table full (check can_allocate first)");
    }

    /// Appends target to e; false (nothing changes) if e already holds max_merged targets.
    /// A target added to an entry that already has one counts as a merge.
    bool add_target(entry& e, T target)
    {
        if (e.m_targets.size() >= m_max_merged) {
            ++m_rejects;
            return false;
        }
        if (!e.m_targets.empty())
            ++m_merges;
        e.m_targets.push_back(std::move(target));
        return true;
    }

    /// Frees line's entry and hands its targets to the caller: out's old contents are dropped
    /// and its buffer is recycled (reuse one out vector to stay allocation-free). The entry is
    /// free before the caller serves the targets, so serving may allocate the line again.
    void release(std::uint64_t line, std::vector<T>& out)
    {
        entry& e = busy_entry(line);
        out.clear();
        out.swap(e.m_targets);
        e.m_targets.reserve(m_max_merged);
        free(e);
    }

    /// Frees line's entry and drops its targets.
    void release(std::uint64_t line)
    {
        entry& e = busy_entry(line);
        e.m_targets.clear();
        free(e);
    }

    std::uint64_t allocations() const { return m_allocations; } ///< entries claimed so far
    std::uint64_t merges() const { return m_merges; }           ///< targets added to a pending miss
    std::uint64_t rejects() const { return m_rejects; }         ///< add_target refused (entry full)

private:
    entry& busy_entry(std::uint64_t line)
    {
        entry* e = lookup(line);
        if (!e)
            throw std::logic_error("mshr_table::release: line has no entry");
        return *e;
    }

    void free(entry& e)
    {
        const auto i = static_cast<std::size_t>(&e - m_entries.data());
        // Linear probing without tombstones: the entries after the freed slot move back to
        // where their probe sequence still finds them.
        std::size_t hole = home(e.m_line);
        while (m_index[hole] != static_cast<std::int32_t>(i))
            hole = next(hole);
        for (std::size_t s = next(hole); m_index[s] != empty_slot; s = next(s)) {
            const std::size_t h = home(m_entries[static_cast<std::size_t>(m_index[s])].m_line);
            // The entry at s may fill the hole if its home is not within (hole, s] (cyclically).
            if ((s > hole && (h <= hole || h > s)) || (s < hole && h <= hole && h > s)) {
                m_index[hole] = m_index[s];
                hole = s;
            }
        }
        m_index[hole] = empty_slot;
        m_free[i / 64] |= std::uint64_t{1} << (i % 64);
        e.m_busy = false;
        --m_in_use;
    }

    static constexpr std::int32_t empty_slot = -1;
    std::size_t home(std::uint64_t line) const
    {
        return static_cast<std::size_t>((line * 0x9e3779b97f4a7c15ull) >> m_shift);
    }
    std::size_t next(std::size_t s) const { return (s + 1) & (m_index.size() - 1); }

    std::vector<entry> m_entries;
    std::vector<std::int32_t> m_index; // entry indices by line hash, linear probing
    std::vector<std::uint64_t> m_free; // bit i: entry i is free
    unsigned m_shift = 63;
    unsigned m_max_merged;
    unsigned m_in_use = 0;
    std::uint64_t m_allocations = 0;
    std::uint64_t m_merges = 0;
    std::uint64_t m_rejects = 0;
};

} // namespace vgpu::cache
