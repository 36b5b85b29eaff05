// The page placer (no SystemC): which module's memory a new page goes to (`memory.page_alloc`,
// seed 004) and the frames of each module. See models/page_alloc/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::placement {

/// How the home module of a new page is chosen (`memory.page_alloc`).
enum class policy : std::uint8_t {
    first_touch, ///< the module of the SM whose access placed the page
    round_robin, ///< page vpn on module vpn mod modules
    adaptive     ///< seed 004: first touch while the pages are balanced, else round robin
};

/// What the placer knows of the platform.
struct placer_config {
    unsigned modules = 1;                  ///< modules, each with its own DRAM
    std::uint64_t dram_bytes = 1ull << 30; ///< DRAM per module; module m owns [m*size, (m+1)*size)
    std::uint64_t page_bytes = 4096;       ///< `memory.page_bytes`
    policy alloc = policy::first_touch;    ///< `memory.page_alloc`
    double balance_ratio = 1.5;            ///< `memory.balance_ratio` (adaptive)
};

/// True if `pages` (pages placed per module) is balanced in seed 004's sense: the most pages on
/// one module are at most `ratio` times the mean pages per module. No pages is balanced.
bool balanced(const std::vector<std::uint64_t>& pages, double ratio);

/// The driver's physical-memory manager: picks each new page's home module and hands out
/// frames per module: first those released by evictions under memory pressure (release()),
/// then from one bump allocator per module (a frame never handed out reads as zero).
///
/// Adaptive (seed 004, CN116028220A): a page is placed with the policy chosen after the
/// previous placement; after each placement the placer tests whether the pages are balanced
/// across the modules (balanced()) and chooses the policy of the NEXT page: first touch when
/// balanced, round robin (the same rule as `round_robin`: vpn mod modules) otherwise. The first
/// page is placed by first touch.
class page_placer {
public:
    explicit page_placer(const placer_config& c);
    /// Places page vpn, first touched from touch_module (clamped to the modules), and returns
    /// its home module. Counts it; updates the adaptive policy for the next page.
    unsigned home(std::uint64_t vpn, unsigned touch_module);
    /// The policy the next page will be placed with (adaptive: first_touch or round_robin;
    /// otherwise the configured policy).
    policy next_policy() const { return m_next_policy; }
    /// A free frame on module m (a released one first, then `*reused` is set: it holds an
    /// evicted page's old data, not zeros), or nullopt when its DRAM is full.
    std::optional<std::uint64_t> frame(unsigned m, bool* reused = nullptr);
    /// Frame pa is free again (an evicted page's): frame() hands it out before new ones.
    void release(std::uint64_t pa) { m_free[module_of(pa)].push_back(pa); }
    /// True when module m has no free frame left.
    bool full(unsigned m) const;
    /// The module whose DRAM holds physical address pa.
    unsigned module_of(std::uint64_t pa) const;
    /// Reserves `bytes` (page-aligned) on module m after its frames so far; returns the start.
    std::uint64_t reserve(unsigned m, std::uint64_t bytes);
    std::uint64_t next(unsigned m) const { return m_next[m]; } ///< next free byte of module m
    unsigned modules() const { return static_cast<unsigned>(m_next.size()); }
    /// Bytes handed out per module (frames and reservations).
    const std::vector<std::uint64_t>& bytes_per_module() const { return m_bytes; }
    /// Pages placed per module so far (by home()).
    const std::vector<std::uint64_t>& pages_per_module() const { return m_pages; }
    std::uint64_t placed() const { return m_placed; } ///< pages placed so far
    const placer_config& config() const { return m_c; }

private:
    placer_config m_c;
    std::vector<std::uint64_t> m_next, m_bytes, m_pages;
    std::vector<std::vector<std::uint64_t>> m_free; ///< per module: released frames
    std::uint64_t m_placed = 0;
    policy m_next_policy;
};

} // namespace vgpu::placement
