// Miss status holding registers: outstanding line misses and the requests merged into them.
// Pure C++ core of the cache models, no SystemC; see models/cache/README.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vgpu::cache {

/// Up to capacity outstanding misses keyed by line address, each holding up to max_merged
/// waiting targets of type T. Storage is preallocated: no allocation per access.
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
    }

    unsigned capacity() const { return static_cast<unsigned>(m_entries.size()); } ///< entries
    unsigned max_merged() const { return m_max_merged; } ///< targets per entry
    unsigned in_use() const { return m_in_use; }         ///< allocated entries

    /// The entry of line, or nullptr if no miss on it is outstanding.
    entry* lookup(std::uint64_t line)
    {
        for (auto& e : m_entries) {
            if (e.m_busy && e.m_line == line)
                return &e;
        }
        return nullptr;
    }

    /// Index (0 .. capacity-1) of line's entry, or -1 if no miss on it is outstanding.
    int index_of(std::uint64_t line) const
    {
        for (std::size_t i = 0; i < m_entries.size(); ++i) {
            if (m_entries[i].m_busy && m_entries[i].m_line == line)
                return static_cast<int>(i);
        }
        return -1;
    }

    /// True if a free entry is left.
    bool can_allocate() const { return m_in_use < m_entries.size(); }

    /// Claims an entry for line (which must have none) with no targets; throws if none free.
    entry& allocate(std::uint64_t line)
    {
        if (lookup(line))
            throw std::logic_error("mshr_table::allocate: line already has an entry");
        for (auto& e : m_entries) {
            if (!e.m_busy) {
                e.m_busy = true;
                e.m_line = line;
                ++m_in_use;
                ++m_allocations;
                return e;
            }
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
        e.m_busy = false;
        --m_in_use;
    }

    std::vector<entry> m_entries;
    unsigned m_max_merged;
    unsigned m_in_use = 0;
    std::uint64_t m_allocations = 0;
    std::uint64_t m_merges = 0;
    std::uint64_t m_rejects = 0;
};

} // namespace vgpu::cache
