// Host memory a configuration could need, estimated from its parameters and checked against
// platform.max_host_memory when the configuration is read. See docs/architecture.md.
#pragma once

#include "models/cache/core/cache_array.h"
#include "models/common/config.h"
#include "models/l1/l1_config.h"
#include "models/llc/llc_config.h"
#include "models/sm/sm_config.h"
#include "models/traffic/traffic_config.h"
#include "platforms/platform_config.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace vgpu::platforms {

// Measured figures (Release build, 256 to 4096 SMs): what the model objects take besides the
// arrays computed from the parameters. Only the order of magnitude matters: the check guards
// against configurations that need several times the limit.
constexpr std::uint64_t process_base_bytes = 16ull << 20; ///< libraries, kernel, one module
constexpr std::uint64_t module_bytes = 1ull << 20;        ///< NoC, DRAM controller, LLC shells
constexpr std::uint64_t link_bytes = 64ull << 10;         ///< one inter-module link
constexpr std::uint64_t sm_bytes = 112ull << 10;          ///< SM, L1 and crossbar-port shells
constexpr std::uint64_t warp_slot_bytes = 5ull << 10;     ///< one warp slot's state
constexpr std::uint64_t warp_stats_bytes = 5ull << 10;    ///< one warp slot's stats.per_warp
/// Tag, flags, LRU stamp and sector bits per line (models/cache/core/cache_array.h).
constexpr std::uint64_t cache_line_state_bytes = cache::cache_array::state_bytes_per_line();
/// Fast-mode arrival time per sector of a line.
constexpr std::uint64_t cache_ready_bytes = cache::cache_array::ready_bytes_per_sector;
/// Stack a thread touches (the most measured, of 256 KiB reserved and never touched).
constexpr std::uint64_t thread_touched_bytes = 16ull << 10;

/// One share of the estimate and the parameter that most drives it.
struct memory_share {
    std::string what;              ///< "the L1 data arrays"
    std::string detail;            ///< how it is computed, with the numbers
    std::uint64_t bytes;           ///< its size
    std::vector<std::string> keys; ///< parameters it grows with, most direct first
};

/// Output of estimate_host_memory(): the shares and their sum.
struct memory_estimate {
    std::vector<memory_share> shares; ///< in a fixed order
    std::uint64_t total = 0;          ///< sum of the shares (saturated)
    /// The largest share.
    const memory_share& largest() const
    {
        std::size_t best = 0;
        for (std::size_t i = 1; i < shares.size(); ++i)
            if (shares[i].bytes > shares[best].bytes)
                best = i;
        return shares[best];
    }
};

namespace detail {
inline std::uint64_t mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? ~0ull : p;
}
inline std::uint64_t add(std::uint64_t a, std::uint64_t b)
{
    return b > ~0ull - a ? ~0ull : a + b;
}
/// Bytes of one cache with every line touched: data and per-line state of every line (in fast
/// mode also an arrival time per sector), plus its MSHR line buffers (two per MSHR at most) and
/// write-back buffer entries.
inline std::uint64_t cache_bytes(unsigned sets, unsigned ways, unsigned line, unsigned sector,
                                 bool fast, unsigned mshrs, unsigned wb_entries)
{
    const std::uint64_t sectors = sector == 0 || sector > line ? 1 : line / sector;
    const std::uint64_t per_line =
        std::uint64_t{line} + cache_line_state_bytes + (fast ? sectors * cache_ready_bytes : 0);
    return add(mul(mul(sets, ways), per_line), (2ull * mshrs + wb_entries) * line);
}
/// "17.2 GiB", "640 MiB".
inline std::string gib(std::uint64_t bytes)
{
    char buf[32];
    const double b = static_cast<double>(bytes);
    if (b >= double(1ull << 30))
        std::snprintf(buf, sizeof buf, "%.3g GiB", b / double(1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.3g MiB", b / double(1ull << 20));
    return buf;
}
} // namespace detail

/// The host memory a gpu platform of this configuration could need: every array the models
/// could fill (the L1 and LLC arrays reserve their whole size but take host memory only as lines
/// are used: this is their worst case, every line touched), the register files of every warp slot
/// at full occupancy, per-SM and per-warp-slot state, and the stack each thread touches
/// (fast mode: one thread per SM; accurate mode: also sm.lsu_threads LSU threads and two
/// crossbar-port threads per SM). DRAM contents are sparse (they grow with the workload's
/// buffers, at most 1 GiB) and are not counted.
inline memory_estimate estimate_host_memory(const platform_config& p, const sm::sm_config& sm,
                                            const l1::l1_config& l1, const llc::llc_config& llc,
                                            bool per_warp_stats)
{
    using detail::add;
    using detail::mul;
    const std::uint64_t sms = std::uint64_t{p.modules} * p.clusters_per_module * p.sms_per_cluster;
    const std::uint64_t slices = std::uint64_t{p.modules} * llc.slices_per_module;
    const bool fast = p.timing.mode == timing_mode::fast;
    memory_estimate e;
    // The L1 is write-through: no write-back buffer.
    const std::uint64_t l1_each =
        detail::cache_bytes(l1.sets, l1.ways, l1.line_bytes, l1.sector_bytes, fast, l1.mshrs, 0);
    e.shares.push_back({"the L1 data arrays",
                        std::to_string(sms) + " L1s of " + std::to_string(l1.sets) + " sets x " +
                            std::to_string(l1.ways) + " ways x " + std::to_string(l1.line_bytes) +
                            " B",
                        mul(sms, l1_each),
                        {"l1.sets", "l1.ways", "l1.line_bytes", "l1.mshrs"}});
    const std::uint64_t llc_each = detail::cache_bytes(
        llc.sets, llc.ways, llc.line_bytes, llc.sector_bytes, fast, llc.mshrs, llc.wb_entries);
    e.shares.push_back(
        {"the LLC data arrays",
         std::to_string(slices) + " slices of " + std::to_string(llc.sets) + " sets x " +
             std::to_string(llc.ways) + " ways x " + std::to_string(llc.line_bytes) + " B",
         mul(slices, llc_each),
         {"llc.sets", "llc.ways", "llc.line_bytes", "llc.slices_per_module", "llc.mshrs"}});
    e.shares.push_back({"the register files",
                        std::to_string(sms) + " SMs x " + std::to_string(sm.warp_slots) +
                            " warp slots x 32 threads x " + std::to_string(sm.regs_per_thread) +
                            " registers x 4 B",
                        mul(mul(sms, sm.warp_slots), 128ull * sm.regs_per_thread),
                        {"sm.regs_per_thread", "sm.warp_slots"}});
    const std::uint64_t slot = warp_slot_bytes + (per_warp_stats ? warp_stats_bytes : 0);
    e.shares.push_back({"the SM state",
                        std::to_string(sms) + " SMs x (" + std::to_string(sm_bytes >> 10) +
                            " KiB + " + std::to_string(sm.warp_slots) + " warp slots x " +
                            std::to_string(slot >> 10) + " KiB)",
                        mul(sms, add(sm_bytes, mul(sm.warp_slots, slot))),
                        {"sm.warp_slots", "stats.per_warp", "platform.sms_per_cluster",
                         "platform.clusters_per_module", "platform.modules"}});
    const std::uint64_t threads_per_sm = fast ? 1ull : 3ull + sm.lsu_threads;
    e.shares.push_back({"the thread stacks",
                        std::to_string(sms) + " SMs x " + std::to_string(threads_per_sm) +
                            " threads x " + std::to_string(thread_touched_bytes >> 10) +
                            " KiB touched",
                        mul(mul(sms, threads_per_sm), thread_touched_bytes),
                        {"sm.lsu_threads", "platform.timing.mode"}});
    e.shares.push_back(
        {"the modules",
         std::to_string(p.modules) + " modules and their links",
         add(process_base_bytes,
             add(mul(p.modules, module_bytes), mul(mul(p.modules, p.modules - 1ull), link_bytes))),
         {"platform.modules"}});
    for (const auto& s : e.shares)
        e.total = add(e.total, s.bytes);
    return e;
}

/// What a traffic configuration could need: DRAM contents and (with traffic.check) the
/// generators' reference memory are sparse, one 4 KiB page each (plus its map entry) per page a
/// generator may write: at most its footprint's pages, and at most the pages its transactions
/// can touch (every transaction a write, each touching ceil(access_bytes / 4 KiB) + 1 pages).
inline memory_estimate estimate_traffic_memory(const traffic::traffic_config& t)
{
    using detail::add;
    using detail::mul;
    constexpr std::uint64_t page = 4096, entry = 64;
    const std::uint64_t in_footprint = t.footprint.bytes / page + 1;
    const std::uint64_t by_transactions =
        mul(t.transactions, (t.access_bytes + page - 1) / page + 1);
    const std::uint64_t pages = std::min(in_footprint, by_transactions);
    const std::uint64_t per_page = (t.check ? 2 * page : page) + entry;
    memory_estimate e;
    e.shares.push_back(
        {"the written pages",
         std::to_string(t.generators) + " generators x " + std::to_string(pages) + " pages x " +
             std::to_string(per_page) + " B (DRAM contents" +
             (t.check ? " and reference memory)" : ")"),
         mul(mul(t.generators, pages), per_page),
         {"traffic.transactions", "traffic.footprint", "traffic.generators", "traffic.check"}});
    e.shares.push_back(
        {"the process", "libraries and the platform", process_base_bytes, {"traffic.generators"}});
    for (const auto& s : e.shares)
        e.total = add(e.total, s.bytes);
    return e;
}

/// Reports `platform.max_host_memory` exceeded at the parameter that drives the largest share:
/// the first of its keys the configuration sets, else its first key.
inline void check_host_memory(const memory_estimate& e, std::uint64_t limit, config::checker& c)
{
    if (e.total <= limit)
        return;
    const memory_share& big = e.largest();
    std::string key = big.keys.front();
    for (const auto& k : big.keys)
        if (c.is_set(k)) {
            key = k;
            break;
        }
    const char* whose = c.is_set("platform.max_host_memory") ? "" : ", the default";
    c.error(key, "the configuration could need about " + detail::gib(e.total) +
                     " of host memory, more than platform.max_host_memory (" +
                     format(byte_size{limit}) + whose + "): " + big.what + " take " +
                     detail::gib(big.bytes) + " (" + big.detail + "); lower " + key +
                     " or raise platform.max_host_memory");
}

} // namespace vgpu::platforms
