// Configuration of the last-level cache slices of each module (section `llc`).
// See models/llc/README.md.
#pragma once

#include "models/common/config.h"

#include <cstdint>
#include <string>

namespace vgpu::llc {

/// How the LLC slices of the modules are organised (models/llc/README.md, "LLC switcher").
enum class llc_mode {
    shared,   ///< memory-side: a line is cached only in its home module's slice
    private_, ///< SM-side: each module's slices cache what its SMs read, whatever the home
    adaptive, ///< starts shared; an epoch monitor switches to the organisation that wins
};
} // namespace vgpu::llc

template <> struct vgpu::enum_names<vgpu::llc::llc_mode> {
    static constexpr std::pair<std::string_view, llc::llc_mode> table[] = {
        {"shared", llc::llc_mode::shared},
        {"private", llc::llc_mode::private_},
        {"adaptive", llc::llc_mode::adaptive}};
};

namespace vgpu::llc {

/// Section `llc`: geometry, banks, latency and miss handling of each LLC slice.
struct llc_config {
    unsigned slices_per_module = 4;     ///< LLC slices in each module
    unsigned sets = 256;                ///< sets per slice
    unsigned ways = 8;                  ///< lines per set
    unsigned line_bytes = 128;          ///< bytes per line (= l1.line_bytes)
    unsigned sector_bytes = 32;         ///< bytes per sector (valid and dirty bits, fetches)
    unsigned hit_latency = 20;          ///< NoC cycles from the bank grant to hit data
    unsigned mshrs = 64;                ///< line misses outstanding at once per slice
    unsigned wb_entries = 16;           ///< write-back buffer entries per slice
    unsigned banks = 2;                 ///< independently arbitrated banks per slice
    unsigned bank_bytes_per_cycle = 64; ///< bytes a bank moves per NoC cycle
    llc_mode mode = llc_mode::shared;   ///< organisation of the slices
    unsigned epoch_cycles = 4096;       ///< adaptive: NoC cycles per estimator epoch
    double switch_margin = 0.1;         ///< adaptive: the other organisation must win by this
    unsigned sample_every = 16;         ///< adaptive: shadow tags model one set in this many
    unsigned switch_cycles = 64;        ///< a switch's fixed cost (drain), NoC cycles
    std::uint64_t forced_switch_ns = 0; ///< tests: a random switch this often (0: never)
    unsigned remote_ways = 0;           ///< ways per set for read-only lines of other modules

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("slices_per_module", slices_per_module,
                spec("LLC slices in each module").range(1, 64));
        v.value("sets", sets, spec("sets per slice").range(1, 1 << 20).pow2());
        v.value("ways", ways, spec("lines per set (associativity)").range(1, 64));
        v.value("line_bytes", line_bytes,
                spec("bytes per line, equal to l1.line_bytes").range(16, 4096).pow2().unit("B"));
        v.value("sector_bytes", sector_bytes,
                spec("bytes per sector: valid and dirty bits per sector; a miss fetches only the "
                     "sectors it needs that are missing, a write-back writes only dirty sectors")
                    .range(4, 4096)
                    .pow2()
                    .unit("B"));
        v.value("hit_latency", hit_latency,
                spec("NoC cycles from the bank grant to hit data (also the tag-check time of a "
                     "miss)")
                    .range(0, 10000)
                    .unit("cycles"));
        v.value("mshrs", mshrs, spec("line misses outstanding at once per slice").range(1, 4096));
        v.value("wb_entries", wb_entries,
                spec("write-back buffer entries per slice: a dirty victim waits there while the "
                     "fill proceeds and is written to DRAM off the critical path; a miss whose "
                     "victim finds the buffer full waits for an entry")
                    .range(1, 4096));
        v.value("banks", banks, spec("independently arbitrated banks per slice").range(1, 64));
        v.value("bank_bytes_per_cycle", bank_bytes_per_cycle,
                spec("bytes a bank reads or writes per NoC cycle; a request occupies its bank "
                     "ceil(bytes / this) cycles")
                    .range(1, 4096)
                    .unit("B/cycle"));
        v.choice("mode", mode,
                 spec("organisation of the modules' slices: shared = a line is cached only in "
                      "its home module (memory-side); private = each module caches what its SMs "
                      "read, writes to lines of other modules go through to their home "
                      "(SM-side); adaptive = starts shared and switches per epoch to the one "
                      "the sampled shadow tags estimate cheaper"));
        v.value("epoch_cycles", epoch_cycles,
                spec("adaptive: NoC cycles of one estimator epoch (the organisation can change "
                     "at each epoch's end)")
                    .range(64, 1u << 30)
                    .unit("cycles"));
        v.value("switch_margin", switch_margin,
                spec("adaptive: the other organisation's estimated cost must be below (1 - "
                     "this) x the current one's for a switch")
                    .range(0, 0.99));
        v.value("sample_every", sample_every,
                spec("adaptive: the shadow tags model one set in this many (set sampling)")
                    .range(1, 1u << 20)
                    .pow2());
        v.value("switch_cycles", switch_cycles,
                spec("cost of a switch besides its tag walk: NoC cycles to drain the slices' "
                     "queues, during which requests to the slices wait")
                    .range(0, 1u << 20)
                    .unit("cycles"));
        v.value("forced_switch_ns", forced_switch_ns,
                spec("testing: while the slices are busy, request a switch to a random "
                     "organisation this often (platform seed); 0 = never")
                    .range(0, 1e9)
                    .unit("ns"));
        v.value("remote_ways", remote_ways,
                spec("multi-module GPUs: ways of each set that hold read-only lines homed on "
                     "other modules (a read-only page's reads look there first and fill it "
                     "through the home); the other ways hold the module's own lines (and, in "
                     "private mode, its other copies); dropped at kernel ends")
                    .range(0, 64));
    }
    void validate(config::checker& c) const
    {
        if (remote_ways >= ways)
            c.conflict({{"llc.remote_ways", std::to_string(remote_ways)},
                        {"llc.ways", std::to_string(ways)}},
                       "leaves no way of llc.ways for the module's own lines",
                       "set llc.remote_ways to at most " + std::to_string(ways - 1) +
                           " or llc.ways to at least " + std::to_string(remote_ways + 1));
        if (banks > sets)
            c.conflict({{"llc.banks", std::to_string(banks)}, {"llc.sets", std::to_string(sets)}},
                       "more banks than sets: some banks would never be used",
                       "set llc.banks to at most " + std::to_string(sets) +
                           " or llc.sets to at least " + std::to_string(banks));
        const std::vector<config::checker::key_value> keys{
            {"llc.sector_bytes", std::to_string(sector_bytes)},
            {"llc.line_bytes", std::to_string(line_bytes)}};
        if (sector_bytes > line_bytes)
            c.conflict(keys, "a sector larger than the line",
                       "set llc.sector_bytes to at most " + std::to_string(line_bytes) +
                           " or llc.line_bytes to at least " + std::to_string(sector_bytes));
        else if (line_bytes / sector_bytes > 64)
            c.conflict(keys, "more than 64 sectors per line",
                       "set llc.sector_bytes to at least " + std::to_string(line_bytes / 64) +
                           " or llc.line_bytes to at most " + std::to_string(sector_bytes * 64));
    }
};

} // namespace vgpu::llc
