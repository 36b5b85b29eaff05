// The statistics every cache shell reports (L1, LLC slice): requests, lookup outcomes of its
// controller core, bytes fetched, miss latency. See models/cache/README.md.
#pragma once

#include "models/cache/core/cache_controller.h"
#include "models/common/stats.h"

namespace vgpu::cache {

/// Registered in the shell's group; the outcome counts are formulas over `core`'s counts
/// (computed at dump time), the rest the shell counts.
struct cache_stats {
    /// `below`: where misses read from, for the descriptions ("below", "from DRAM").
    cache_stats(stats::group& g, const cache_controller& core, const char* below);
    stats::counter reads;         ///< read requests
    stats::counter writes;        ///< write requests
    stats::counter errors;        ///< requests answered with an error response
    stats::counter bytes_fetched; ///< bytes read below by misses
    stats::formula hits, misses, line_misses, sector_misses, merges, full_stalls, hit_rate;
    stats::formula overrun;      ///< fast mode: MSHR and write-back time booked beyond capacity
    stats::average miss_latency; ///< ns a missing lookup waited for its sectors
};

} // namespace vgpu::cache
