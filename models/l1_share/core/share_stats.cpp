// The counters of L1 sharing every L1 reports. See models/l1_share/README.md.
#include "models/l1_share/core/share_stats.h"

namespace vgpu::l1_share {

share_stats::share_stats(stats::group& g)
    : remote_misses(g, "remote_misses", "count",
                    "adaptive: remote_reads that missed and went on to the LLC (this L1 is "
                    "not filled)"),
      borrowed(g, "borrowed_reads", "count",
               "adaptive: this SM's misses sent to its partner's L1 (memory-intensive epochs)"),
      blocks_sent(g, "replacements_sent", "count",
                  "adaptive: lines evicted by fills of borrowed reads, sent to the partner as "
                  "block-replacement requests"),
      blocks_received(g, "replacements_received", "count",
                      "adaptive: block-replacement requests of borrowing SMs received"),
      blocks_stored(g, "replacements_stored", "count",
                    "adaptive: replacement blocks stored into this L1 (lines migrated; one "
                    "after each remote request, S24)"),
      updates_sent(g, "updates_sent", "count",
                   "adaptive: store updates sent to the other L1s of the cluster"),
      updates_received(g, "updates_received", "count",
                       "adaptive: store updates of other SMs applied to this L1's copies"),
      blocks_dropped(
          g, "replacements_dropped", "count",
          "adaptive: replacement blocks not stored: the pending queue was full "
          "(l1.replacement_queue), or at S24 the line was in flight or its set "
          "pinned, or a store made them stale",
          [this] { return static_cast<double>((queue_drops ? queue_drops() : 0) + unstorable); }),
      remote_wait(g, "remote_wait", "ns",
                  "adaptive: time a remote request waited for the tag stage behind the SM's "
                  "own lookups")
{
}

} // namespace vgpu::l1_share
