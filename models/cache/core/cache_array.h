// Set-associative cache array that holds data: tags, true LRU, dirty bits, line data.
// Pure C++ core of the L1/LLC models, no SystemC; see models/cache/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace vgpu::cache {

/// Maps a line address to a set; the result is reduced modulo the number of sets.
using index_fn = std::function<unsigned(std::uint64_t line_addr)>;

/// Set-associative array of sets x ways lines of line_bytes each, with true LRU per set.
/// Tags are full line addresses, so any index function is correct.
class cache_array {
public:
    /// A line removed from the array by allocate() or invalidate().
    struct victim {
        bool valid = false;                 ///< a line was removed
        bool dirty = false;                 ///< it held data not yet written back
        std::uint64_t line_addr = 0;        ///< its line address
        const std::uint8_t* data = nullptr; ///< its line_bytes bytes, valid until the next removal
    };

    /// sets and line_bytes must be powers of two, ways >= 1; index defaults to
    /// (line_addr / line_bytes) % sets.
    cache_array(unsigned sets, unsigned ways, unsigned line_bytes, index_fn index = {});

    unsigned sets() const { return m_sets; }             ///< number of sets
    unsigned ways() const { return m_ways; }             ///< lines per set
    unsigned line_bytes() const { return m_line_bytes; } ///< bytes per line
    /// addr with the offset within its line cleared
    std::uint64_t line_addr(std::uint64_t addr) const { return addr & ~m_offset_mask; }
    /// set that holds addr's line
    unsigned set_of(std::uint64_t addr) const;

    /// Way holding addr's line, or nothing on a miss; touch makes the line most recently used.
    std::optional<unsigned> lookup(std::uint64_t addr, bool touch = true);
    /// True if addr's line is resident; changes nothing.
    bool probe(std::uint64_t addr) const;
    /// True if addr's line is resident and dirty.
    bool is_dirty(std::uint64_t addr) const;

    /// Copies size bytes at addr out of a resident line (throws if absent or crossing the line).
    void read(std::uint64_t addr, void* dst, std::size_t size) const;
    /// Copies size bytes to addr in a resident line, marking it dirty if asked (throws as read).
    void write(std::uint64_t addr, const void* src, std::size_t size, bool mark_dirty);
    /// Overwrites the whole resident line of addr with line_data and marks it clean.
    void fill(std::uint64_t addr, const void* line_data);

    /// Installs addr's line (must be absent) as valid, clean, zeroed and most recently used in
    /// an invalid way, else the LRU way; returns the line it replaced.
    victim allocate(std::uint64_t addr);
    /// Removes addr's line if resident and returns it, so a dirty line can be written back.
    victim invalidate(std::uint64_t addr);

    /// Calls f(line_addr, dirty, data) for every valid line, in set and way order.
    template <class F> void for_each_valid(F&& f) const;
    /// Calls write_back(line_addr, data) for every dirty line, then marks it clean.
    template <class F> void flush(F&& write_back);
    /// Calls write_back(line_addr, data) for every dirty line, then invalidates every line.
    template <class F> void invalidate_all(F&& write_back);

    unsigned valid_count() const { return m_valid_count; } ///< valid lines
    unsigned dirty_count() const { return m_dirty_count; } ///< dirty lines

private:
    struct meta {
        std::uint64_t tag = 0;   // full line address
        std::uint64_t stamp = 0; // last use; the smallest stamp in a set is the LRU way
        bool valid = false;
        bool dirty = false;
    };

    static constexpr std::size_t npos = ~std::size_t{0};

    std::size_t find(std::uint64_t addr) const; // slot of addr's line, or npos
    std::size_t slot(unsigned set, unsigned way) const { return std::size_t{set} * m_ways + way; }
    std::uint8_t* data_of(std::size_t slot) { return &m_data[slot * m_line_bytes]; }
    const std::uint8_t* data_of(std::size_t slot) const { return &m_data[slot * m_line_bytes]; }
    std::size_t resident_slot(std::uint64_t addr, std::size_t size, const char* what) const;
    victim remove(std::size_t slot);

    unsigned m_sets;
    unsigned m_ways;
    unsigned m_line_bytes;
    std::uint64_t m_offset_mask;
    unsigned m_line_shift;
    index_fn m_index;
    std::vector<meta> m_meta;
    std::vector<std::uint8_t> m_data;
    std::vector<std::uint8_t> m_victim_data;
    std::uint64_t m_clock = 0;
    unsigned m_valid_count = 0;
    unsigned m_dirty_count = 0;
};

template <class F> void cache_array::for_each_valid(F&& f) const
{
    for (std::size_t s = 0; s < m_meta.size(); ++s) {
        if (m_meta[s].valid)
            f(m_meta[s].tag, m_meta[s].dirty, data_of(s));
    }
}

template <class F> void cache_array::flush(F&& write_back)
{
    for (std::size_t s = 0; s < m_meta.size(); ++s) {
        if (m_meta[s].valid && m_meta[s].dirty) {
            write_back(m_meta[s].tag, static_cast<const std::uint8_t*>(data_of(s)));
            m_meta[s].dirty = false;
            --m_dirty_count;
        }
    }
}

template <class F> void cache_array::invalidate_all(F&& write_back)
{
    flush(write_back);
    for (auto& m : m_meta)
        m = meta{};
    m_valid_count = 0;
}

} // namespace vgpu::cache
