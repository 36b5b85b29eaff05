// The LLC switcher's algorithm (seed 004, "MCM-GPU adaptive last-level cache"): the
// organisation flags (ARCH target, CHANGE pending, CUR in effect) and the estimator that
// compares the shared and private organisations on sampled shadow tags. Pure C++, no SystemC.
// See models/llc/README.md ("LLC switcher").
#pragma once

#include "models/common/enum_names.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vgpu::llc {

/// How the modules' LLCs are organised (the LLC-architecture flag).
enum class llc_org : std::uint8_t {
    shared,     ///< memory-side: a line is cached only in its home module's LLC
    private_org ///< SM-side: each module caches what its SMs access (spelled `private`)
};

} // namespace vgpu::llc

template <> struct vgpu::enum_names<vgpu::llc::llc_org> {
    static constexpr std::pair<std::string_view, llc::llc_org> table[] = {
        {"shared", llc::llc_org::shared}, {"private", llc::llc_org::private_org}};
};

namespace vgpu::llc {

/// The other organisation.
constexpr llc_org other(llc_org o)
{
    return o == llc_org::shared ? llc_org::private_org : llc_org::shared;
}

/// The flag registers of one module (or of the GPU when modules switch together): ARCH holds
/// the target organisation and CHANGE says a switch is pending; the switch engine drains,
/// reorganises and completes, which makes CUR = ARCH and clears CHANGE.
class switch_flags {
public:
    explicit switch_flags(llc_org initial) : m_arch(initial), m_cur(initial) {}
    /// ARCH := target; CHANGE := 1 unless `target` is in effect with nothing pending (then
    /// nothing happens). A request during a pending switch retargets it. Returns CHANGE.
    bool request(llc_org target)
    {
        if (!m_change && target == m_cur)
            return false;
        m_arch = target;
        m_change = target != m_cur || m_change;
        if (m_change && m_arch == m_cur)
            m_change = false; // retargeted back to the organisation in effect: cancelled
        return m_change;
    }
    /// The switch engine finished: CUR := ARCH, CHANGE := 0. Returns whether CUR changed.
    bool complete()
    {
        const bool changed = m_cur != m_arch;
        m_cur = m_arch;
        m_change = false;
        return changed;
    }
    llc_org arch() const { return m_arch; }  ///< the target (ARCH)
    llc_org cur() const { return m_cur; }    ///< in effect (CUR)
    bool change() const { return m_change; } ///< a switch is pending (CHANGE)

private:
    llc_org m_arch, m_cur;
    bool m_change = false;
};

/// What an access costs on each part of its path, in cycles (any common unit).
struct path_costs {
    double llc = 30;   ///< an LLC lookup (hit, or the tag check of a miss)
    double dram = 200; ///< a DRAM access after an LLC miss
    double link = 40;  ///< one crossing of an inter-module link, one way
};

/// Geometry and sampling of the estimator.
struct estimator_params {
    unsigned modules = 4;
    unsigned sets = 2048;            ///< sets of one module's LLC (a power of two)
    unsigned ways = 16;              ///< ways of one module's LLC
    unsigned line_bytes = 128;       ///< a power of two
    unsigned sample_every = 32;      ///< shadow tags model one set in this many (a power of two)
    std::uint64_t min_samples = 256; ///< fewer sampled accesses in an epoch: no decision
    path_costs costs;
};

/// Estimates, over one epoch, the mean access cost of both organisations on the same access
/// stream, with shadow tags (tag-only LRU) of every module's LLC under each organisation on
/// the sampled sets. Shared: a line lives in its home module's shadow; an access from another
/// module crosses the link both ways. Private: a line lives in the requesting module's shadow;
/// a miss reads through the home (crossing the link both ways if remote); a write to a line
/// homed elsewhere goes through to the home (one crossing) and allocates nothing.
/// It counts, per requesting module and organisation, sampled accesses, shadow misses and link
/// crossings; the costs weigh those counts, per module (each module's flags decide from its
/// SMs' accesses) or for the whole GPU. The weights: the unloaded path_costs (set_costs), or,
/// after set_measured(), the figures measured over the epoch under the organisation in effect
/// (queueing included): an LLC lookup costs the measured one under both organisations; the
/// queueing part of a link crossing (measured - unloaded) and of a DRAM access scales with
/// the crossings (misses) the organisation makes relative to the one in effect, so the
/// organisation that loads a congested link less is charged less queueing.
class org_estimator {
public:
    explicit org_estimator(const estimator_params& p);
    /// One LLC access by an SM of module `from` to `addr`, homed on module `home`.
    void access(unsigned from, unsigned home, std::uint64_t addr, bool write);
    /// The unloaded figures (what a lone access costs on each part of its path).
    void set_costs(const path_costs& c) { m_p.costs = c; }
    const path_costs& costs() const { return m_p.costs; } ///< the unloaded figures
    /// The mean figures measured over this epoch under the organisation in effect (queueing
    /// included); new_epoch() returns to the unloaded ones until the next call.
    void set_measured(const path_costs& m)
    {
        m_measured = m;
        m_has_measured = true;
    }
    /// Mean cost per sampled access this epoch under `o`, over every module (0 without
    /// samples), with `in_effect` the organisation the measured figures were taken under.
    double cost(llc_org o, llc_org in_effect = llc_org::shared) const;
    /// The same for the accesses of module `module`'s SMs.
    double cost(llc_org o, unsigned module, llc_org in_effect = llc_org::shared) const;
    std::uint64_t samples() const; ///< sampled accesses this epoch
    /// Sampled accesses of module `module`'s SMs this epoch.
    std::uint64_t samples(unsigned module) const { return m_mod.at(module).samples; }
    /// Hits of the shadow tags of `o` this epoch.
    std::uint64_t hits(llc_org o) const;
    /// Link crossings `o` would make this epoch (sampled accesses only).
    std::uint64_t crossings(llc_org o) const;
    /// The same for module `module`'s SMs' accesses.
    std::uint64_t crossings(llc_org o, unsigned module) const
    {
        return m_mod.at(module).crossings[index(o)];
    }
    /// The organisation to switch to at the end of an epoch: the other one when its cost is
    /// below (1 - margin) x the current one's and the epoch had enough samples; else nothing.
    std::optional<llc_org> decide(llc_org current, double margin) const;
    /// The same for module `module`, from its SMs' accesses (and min_samples of them).
    std::optional<llc_org> decide(unsigned module, llc_org current, double margin) const;
    /// Starts a new epoch: counts restart, the shadow tags stay warm.
    void new_epoch();

private:
    struct way {
        std::uint64_t line = ~std::uint64_t{0};
        bool dirty = false;
    };
    /// One requesting module's counts this epoch, [0] shared, [1] private.
    struct counts {
        std::uint64_t samples = 0;
        std::uint64_t hits[2] = {0, 0}, misses[2] = {0, 0}, crossings[2] = {0, 0};
    };
    static unsigned index(llc_org o) { return o == llc_org::shared ? 0 : 1; }
    /// Looks up `line` in one module's shadow set (LRU: front = most recent); true on a hit.
    bool touch(std::vector<way>& set, std::uint64_t line, bool write, bool* newly_dirty);
    std::vector<way>& shadow_set(unsigned org, unsigned module, unsigned sampled_set);
    double weigh(const counts& c, unsigned org, unsigned in_effect) const;
    counts total() const;
    std::optional<llc_org> choose(const counts& c, llc_org current, double margin) const;

    estimator_params m_p;
    unsigned m_line_shift = 0, m_sampled_sets = 0;
    std::vector<std::vector<way>> m_sets; ///< [org][module][sampled set] flattened
    std::vector<counts> m_mod;            ///< by requesting module
    path_costs m_measured;
    bool m_has_measured = false;
};

} // namespace vgpu::llc
