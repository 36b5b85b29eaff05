// L1 sharing (`l1.sharing: adaptive`): the per-epoch classification of one cluster's SMs and
// their partners, with its stats and `--trace` timeline. See models/l1_share/README.md.
#pragma once

#include "models/common/stats.h"
#include "models/l1_share/core/l1_share.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

namespace vgpu::l1_share {

/// The classification of a cluster's SMs (core: epoch_classifier) as the L1s see it, and the
/// order of its stores against copies moving between L1s (core: store_order): each
/// L1 counts its own SM's lookups here and asks for its partner at the time of a miss, which
/// closes the epochs that ended by then. Stats under `<cluster>.l1_share`; class changes are
/// counter and instant events on the trace timeline.
class cluster_classes {
public:
    /// `path`: stats prefix; `first_sm`: global index of the cluster's SM 0; `epoch_ps`: epoch
    /// length in picoseconds.
    cluster_classes(const std::string& path, unsigned sms, unsigned first_sm,
                    std::uint64_t epoch_ps, classify_params p);
    /// Where the SMs' instruction counters are read at an epoch boundary (SM index in the
    /// cluster -> cumulative totals).
    void set_totals(std::function<instruction_totals(unsigned)> totals)
    {
        m_totals = std::move(totals);
    }
    /// The current simulated time (same unit as the epochs): the stats close the epochs up to
    /// it when they are read, so an SM that stopped missing still ends its timeline.
    void set_clock(std::function<std::uint64_t()> now) { m_now = std::move(now); }
    /// SM `sm`'s own L1 lookups (and misses among them) in the open epoch.
    void count(unsigned sm, std::uint64_t lookups, std::uint64_t misses)
    {
        m_core.count_access(sm, lookups, misses);
    }
    /// Closes the epochs ended by `now_ps` (an SM's data access: the timeline follows the
    /// accesses, not only the misses).
    void tick(std::uint64_t now_ps) { advance(now_ps); }
    /// Closes the epochs ended by `now_ps`; returns SM `sm`'s partner (-1: its misses go to
    /// the LLC).
    int partner(unsigned sm, std::uint64_t now_ps);
    const epoch_classifier& core() const { return m_core; } ///< classes and timeline
    /// The cluster's stores against copies moving between its L1s (keyed by line address).
    store_order& order() { return m_order; }

private:
    /// Closes the epochs ended by `now_ps`; records the changes on the trace if `trace`.
    void advance(std::uint64_t now_ps, bool trace = true);
    /// Before the stats are read: closes the epochs ended by now (not traced: the trace may
    /// already be written).
    void settle();

    epoch_classifier m_core;
    store_order m_order;
    const unsigned m_first_sm;
    std::function<instruction_totals(unsigned)> m_totals;
    std::function<std::uint64_t()> m_now;
    stats::group m_stats;
    std::deque<stats::formula> m_formulas;
};

} // namespace vgpu::l1_share
