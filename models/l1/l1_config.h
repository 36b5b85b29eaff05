// Configuration of the SMs' L1 data caches (section `l1`).
// See models/l1/README.md.
#pragma once

#include "models/common/config.h"
#include "models/l1_share/core/l1_share.h"

#include <string>

namespace vgpu::l1 {

/// How the L1 caches of a cluster are organised (models/l1_share/README.md).
enum class sharing_mode {
    private_, ///< each SM has its own L1 ("private")
    shared,   ///< one home L1 per line in the cluster, reached through the L1 index routing
    adaptive, ///< memory-intensive SMs borrow compute-intensive SMs' L1s (per epoch)
};
} // namespace vgpu::l1

template <> struct vgpu::enum_names<vgpu::l1::sharing_mode> {
    static constexpr std::pair<std::string_view, l1::sharing_mode> table[] = {
        {"private", l1::sharing_mode::private_},
        {"shared", l1::sharing_mode::shared},
        {"adaptive", l1::sharing_mode::adaptive}};
};

namespace vgpu::l1 {

/// l1.sharing adaptive: first address bit of the L1 windows on the cluster crossbar (physical
/// addresses stay below it).
inline constexpr unsigned peer_window_shift = 56;

/// Section `l1`: geometry, latency and miss handling of each SM's L1 data cache.
struct l1_config {
    unsigned sets = 64;                            ///< sets per L1
    unsigned ways = 4;                             ///< lines per set
    unsigned line_bytes = 128;                     ///< bytes per line (= llc.line_bytes)
    unsigned sector_bytes = 32;                    ///< bytes per sector (valid bits, fetches)
    unsigned hit_latency = 28;                     ///< core cycles from lookup to hit data
    unsigned lines_per_cycle = 1;                  ///< line lookups (tag and data) per core cycle
    unsigned mshrs = 32;                           ///< line misses outstanding at once
    sharing_mode sharing = sharing_mode::private_; ///< organisation among the SMs of a cluster
    l1_share::home_kind share_index = l1_share::home_kind::bits; ///< shared: a line's home L1
    unsigned epoch_cycles = 5000;     ///< adaptive: core cycles per classification epoch
    double miss_rate_threshold = 0.5; ///< adaptive: memory-intensive from this L1 miss rate ...
    double mem_share_threshold = 0.1; ///< ... and this LD/ST share of instructions
    unsigned replacement_queue = 16;  ///< adaptive: pending replacement blocks per L1

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("sets", sets, spec("sets per L1").range(1, 1 << 16).pow2());
        v.value("ways", ways, spec("lines per set (associativity)").range(1, 64));
        v.value("line_bytes", line_bytes,
                spec("bytes per line, equal to llc.line_bytes").range(16, 4096).pow2().unit("B"));
        v.value("sector_bytes", sector_bytes,
                spec("bytes per sector: a line holds valid data per sector, a miss fetches only "
                     "the sectors it needs that are missing, a hit needs every sector it reads")
                    .range(4, 4096)
                    .pow2()
                    .unit("B"));
        v.value("hit_latency", hit_latency,
                spec("core cycles from the start of a line lookup to its hit data (also the "
                     "tag-check time of a miss or a write)")
                    .range(0, 10000)
                    .unit("cycles"));
        v.value("lines_per_cycle", lines_per_cycle,
                spec("line lookups (tag check and data access) the L1 serves per core cycle; "
                     "a lookup that finds them taken waits for the next free one")
                    .range(1, 64));
        v.value("mshrs", mshrs,
                spec("line misses outstanding at once: bounds the SM's loads in flight below the "
                     "L1, in both timing modes")
                    .range(1, 1024));
        v.choice("sharing", sharing,
                 spec("organisation of the L1s of a cluster: private = one per SM; shared = "
                      "the cluster crossbar's L1 index routing sends each line to its one home "
                      "L1 among the cluster's SMs; adaptive = each epoch, a memory-intensive SM "
                      "sends its L1 misses to a compute-intensive partner SM's L1 and its "
                      "evicted lines there (models/l1_share/README.md)"));
        v.choice("share_index", share_index,
                 spec("shared: the home L1 of a line: bits (the low log2(SMs per cluster) bits "
                      "of the line number) or xor (their XOR fold over the line number); the "
                      "home's set index takes the bits above them"));
        v.value("epoch_cycles", epoch_cycles,
                spec("adaptive: core cycles per classification epoch; at each boundary every SM "
                     "is classified memory- or compute-intensive from the epoch that ended, so "
                     "the classes follow program phases")
                    .range(1, 1e9)
                    .unit("cycles"));
        v.value("miss_rate_threshold", miss_rate_threshold,
                spec("adaptive: an SM is memory-intensive when its L1 miss rate over the epoch "
                     "(misses / own line lookups) reaches this and its LD/ST share reaches "
                     "l1.mem_share_threshold")
                    .range(0, 1));
        v.value("mem_share_threshold", mem_share_threshold,
                spec("adaptive: the share of LD/ST among an SM's warp-instructions over the "
                     "epoch at or above which it may be memory-intensive")
                    .range(0, 1));
        v.value("replacement_queue", replacement_queue,
                spec("adaptive: replacement blocks (lines a borrowing SM evicted) that a lending "
                     "L1 holds pending; one is stored after each remote request it serves, a "
                     "block that finds the queue full is dropped and counted")
                    .range(1, 4096));
    }
    void validate(config::checker& c) const
    {
        const std::vector<config::checker::key_value> keys{
            {"l1.sector_bytes", std::to_string(sector_bytes)},
            {"l1.line_bytes", std::to_string(line_bytes)}};
        if (sector_bytes > line_bytes)
            c.conflict(keys, "a sector larger than the line",
                       "set l1.sector_bytes to at most " + std::to_string(line_bytes) +
                           " or l1.line_bytes to at least " + std::to_string(sector_bytes));
        else if (line_bytes / sector_bytes > 64)
            c.conflict(keys, "more than 64 sectors per line",
                       "set l1.sector_bytes to at least " + std::to_string(line_bytes / 64) +
                           " or l1.line_bytes to at most " + std::to_string(sector_bytes * 64));
    }
};

} // namespace vgpu::l1
