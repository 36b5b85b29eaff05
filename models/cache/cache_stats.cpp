// The statistics every cache shell reports. See models/cache/README.md.
#include "models/cache/cache_stats.h"

#include <string>

namespace vgpu::cache {

namespace {
double count(std::uint64_t v)
{
    return static_cast<double>(v);
}
} // namespace

cache_stats::cache_stats(stats::group& g, const cache_controller& core, const char* below)
    : reads(g, "reads", "count", "read requests"), writes(g, "writes", "count", "write requests"),
      errors(g, "errors", "count", "requests answered with an error response"),
      bytes_fetched(g, "bytes_fetched", "bytes",
                    std::string("bytes read ") + below +
                        " by misses (the span of the sectors each one fetched)"),
      hits(g, "hits", "count", "line lookups served from the array",
           [&core] { return count(core.counts().hits); }),
      misses(g, "misses", "count",
             "line lookups that allocated the line or fetched sectors (line_misses + "
             "sector_misses)",
             [&core] { return count(core.counts().misses); }),
      line_misses(g, "line_misses", "count", "misses whose line was absent",
                  [&core] { return count(core.counts().misses - core.counts().sector_misses); }),
      sector_misses(g, "sector_misses", "count",
                    "misses whose line was resident without every sector needed (the missing "
                    "ones are fetched)",
                    [&core] { return count(core.counts().sector_misses); }),
      merges(g, "mshr_merges", "count", "line lookups that waited for a fill already in flight",
             [&core] { return count(core.counts().merges); }),
      full_stalls(g, "mshr_full_stalls", "count", "misses that waited for a free MSHR",
                  [&core] { return count(core.counts().full_stalls); }),
      hit_rate(g, "hit_rate", "ratio", "hits / (hits + misses + mshr_merges)",
               [&core] {
                   const controller_counts& c = core.counts();
                   double all = count(c.hits + c.misses + c.merges);
                   return all > 0 ? count(c.hits) / all : 0.0;
               }),
      overrun(g, "capacity_overrun", "ns",
              "fast mode: MSHR (and write-back buffer) time booked beyond the cache's mshrs (and "
              "wb_entries): an interval that outlived every earlier one into a stretch where all "
              "were taken; 0 normally",
              [&core] {
                  return count(core.fast_mshrs().overrun() + core.fast_wb().overrun()) / 1000.0;
              }),
      miss_latency(g, "miss_latency", "ns",
                   "time from a missing lookup's start (L1: the read's arrival; LLC: its tag "
                   "check) to its sectors' arrival")
{
}

} // namespace vgpu::cache
