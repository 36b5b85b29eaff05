// The counters of L1 sharing (`l1.sharing: adaptive`) that every L1 reports under its own path,
// zero without sharing. See models/l1_share/README.md.
#pragma once

#include "models/common/stats.h"

#include <cstdint>
#include <functional>

namespace vgpu::l1_share {

/// Borrowed reads, remote misses, replacement blocks and store updates of one L1. The L1 owns
/// them (so every L1 reports the same names whatever l1.sharing is); its peer policy counts.
struct share_stats {
    /// Registers the statistics in `g` (the L1's group).
    explicit share_stats(stats::group& g);
    stats::counter remote_misses;    ///< remote reads that missed here and went on below
    stats::counter borrowed;         ///< this SM's misses sent to its partner's L1
    stats::counter blocks_sent;      ///< replacement blocks sent to the partner
    stats::counter blocks_received;  ///< replacement blocks of borrowers received
    stats::counter blocks_stored;    ///< replacement blocks stored (S24)
    stats::counter updates_sent;     ///< store updates sent to the other L1s
    stats::counter updates_received; ///< store updates of other SMs applied here
    /// Blocks not stored for a reason the policy sees at once (stale, line in flight, set
    /// pinned); `replacements_dropped` adds queue_drops().
    std::uint64_t unstorable = 0;
    /// Blocks the pending queue refused (full); set by the policy that owns the queue.
    std::function<std::uint64_t()> queue_drops;
    stats::formula blocks_dropped; ///< unstorable + queue_drops()
    stats::average remote_wait;    ///< ns a remote request waited for the tag stage
};

} // namespace vgpu::l1_share
