// Instruction cache of one SM: line tags with LRU replacement, fills in flight shared by the
// warps that need their line, tagged next-line prefetch. Pure C++; see models/sm/README.md.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace vgpu::sm {

/// Tags of a set-associative instruction cache and its fills in flight, in core cycles. It
/// holds no data (the SM decodes each launch's program once); it decides hit, wait or miss.
class icache {
public:
    static constexpr std::uint64_t unknown = std::numeric_limits<std::uint64_t>::max(); ///< no time

    /// What a warp's lookup found.
    enum class outcome : std::uint8_t {
        hit,       ///< the line is present
        in_flight, ///< a fill brings the line: the warp waits for that fill
        miss       ///< neither: a demand fill is now in flight (the caller requests it)
    };

    /// Result of access().
    struct result {
        outcome kind = outcome::hit; ///< hit, in_flight or miss
        std::uint64_t ready = 0;     ///< in_flight, miss: cycle the line arrives (unknown: not yet)
        /// The next line should be prefetched: on a miss, and on the first demand use of a
        /// prefetched line (present or still in flight).
        bool prefetch_next = false;
    };

    /// bytes of capacity, rounded down to whole sets of `ways` lines (at least one line);
    /// line_bytes a power of two; ways >= 1 (at most the lines that fit). Throws
    /// std::invalid_argument otherwise.
    icache(std::uint64_t bytes, unsigned line_bytes, unsigned ways);

    unsigned sets() const { return m_sets; }             ///< sets
    unsigned ways() const { return m_ways; }             ///< lines per set
    unsigned line_bytes() const { return m_line_bytes; } ///< bytes per line
    /// Address of the line holding addr.
    std::uint64_t line_of(std::uint64_t addr) const
    {
        return addr & ~std::uint64_t{m_line_bytes - 1};
    }

    /// A warp needs the line holding addr at `cycle` (cycles never decrease across calls).
    /// Fills that completed by then are installed first (LRU victim of their set).
    result access(std::uint64_t addr, std::uint64_t cycle);
    /// True when access(addr, cycle) would change nothing but the line's LRU order: the line
    /// is present or its fill is in flight, it asks for no prefetch, and no fill that arrived
    /// by `cycle` waits to be installed. Such a lookup requests nothing.
    bool quiet(std::uint64_t addr, std::uint64_t cycle) const;
    /// Next-line prefetch of the line holding addr at `cycle`: true (a prefetch fill is now in
    /// flight; the caller requests it) unless the line is present or already in flight.
    bool prefetch(std::uint64_t addr, std::uint64_t cycle);
    /// The fill of the line holding addr arrives at cycle `ready` (installed from then on).
    void filled(std::uint64_t addr, std::uint64_t ready);
    /// The fill of the line holding addr failed: it is dropped (a later access misses again).
    void fill_failed(std::uint64_t addr);
    /// Drops every present line (another address space); fills in flight are kept.
    void invalidate();

    /// True when the line holding addr is installed (fills are installed by access/prefetch).
    bool present(std::uint64_t addr) const;
    /// Arrival cycle of the fill in flight for the line holding addr (unknown: not reported
    /// yet); false when no fill of it is in flight.
    bool in_flight(std::uint64_t addr, std::uint64_t& ready) const;
    /// Fills in flight (completed ones not yet installed included).
    unsigned fills() const { return static_cast<unsigned>(m_fills.size()); }

private:
    struct way {
        std::uint64_t line = 0;
        std::uint64_t used = 0; ///< LRU stamp: larger = used more recently
        bool valid = false;
        bool prefetched = false; ///< brought by a prefetch, no demand use yet
    };
    struct fill {
        std::uint64_t line = 0;
        std::uint64_t ready = unknown;
        bool prefetched = false; ///< a prefetch no warp has asked for yet
    };

    /// Installs the fills whose data arrived by `cycle`, earliest first.
    void retire(std::uint64_t cycle);
    void install(std::uint64_t line, bool prefetched);
    way* find(std::uint64_t line);
    const way* find(std::uint64_t line) const;
    std::vector<fill>::iterator find_fill(std::uint64_t line);
    unsigned set_of(std::uint64_t line) const
    {
        return static_cast<unsigned>((line / m_line_bytes) % m_sets);
    }

    unsigned m_line_bytes, m_sets, m_ways;
    std::vector<way> m_ways_of_sets; ///< set s: [s * ways, (s + 1) * ways)
    std::vector<fill> m_fills;       ///< in request order
    std::uint64_t m_stamp = 0;
};

} // namespace vgpu::sm
