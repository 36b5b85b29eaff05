// Configuration of the last-level cache slices of each module (section `llc`).
// See models/llc/README.md.
#pragma once

#include "models/common/config.h"

#include <string>

namespace vgpu::llc {

/// How the LLC slices of the modules are organised (the LLC-switcher block adds more).
enum class llc_mode {
    shared, ///< each line has one home slice in its home module; the point of coherence
};
} // namespace vgpu::llc

template <> struct vgpu::enum_names<vgpu::llc::llc_mode> {
    static constexpr std::pair<std::string_view, llc::llc_mode> table[] = {
        {"shared", llc::llc_mode::shared}};
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
    unsigned remote_ways = 0;           ///< ways reserved for remote lines (remote-LLC block)

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
                 spec("organisation of the slices: shared = one home slice per line"));
        v.value("remote_ways", remote_ways,
                spec("ways of each set reserved for lines of other modules (remote-LLC block; "
                     "must be 0 for now)")
                    .range(0, 64));
    }
    void validate(config::checker& c) const
    {
        if (remote_ways != 0)
            c.error("llc.remote_ways", "reserved for the remote-LLC organisation, which is not "
                                       "implemented yet: must be 0");
        if (banks > sets)
            c.error("llc.banks", "more banks than sets: some banks would never be used");
        if (sector_bytes > line_bytes)
            c.error("llc.sector_bytes",
                    "larger than llc.line_bytes (" + std::to_string(line_bytes) + ")");
        else if (line_bytes / sector_bytes > 64)
            c.error("llc.sector_bytes", "more than 64 sectors per line (llc.line_bytes " +
                                            std::to_string(line_bytes) + ")");
    }
};

} // namespace vgpu::llc
