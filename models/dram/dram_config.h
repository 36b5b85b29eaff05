// Configuration of the DRAM behind each module (section `dram`). See docs/configuration.md and
// models/dram/README.md (sources of the default timings).
#pragma once

#include "models/common/config.h"

namespace vgpu::dram {

/// Section `dram`: per-module memory size, channels, banks, rows, timings and queue.
struct dram_config {
    byte_size size{1ull << 30};   ///< bytes of memory per module
    duration latency{22500};      ///< controller pipeline latency on top of the bank timings
    double bandwidth_gbps = 64.0; ///< bytes per nanosecond per channel
    unsigned channels = 2;        ///< independent channels per module, line-interleaved
    unsigned banks = 16;          ///< banks per channel
    byte_size row_bytes{1024};    ///< bytes of one row (page) of a bank
    duration tRCD{14000};         ///< ACTIVATE to column command
    duration tCL{14000};          ///< column command to first data
    duration tRP{14000};          ///< PRECHARGE to ACTIVATE
    duration tRAS{33000};         ///< ACTIVATE to PRECHARGE, at least
    duration tBURST{500};         ///< shortest data-bus occupancy of an access (one burst)
    unsigned queue_entries = 128; ///< request queue entries per channel
    bool dmi = true;              ///< grant DMI pointers in fast mode

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("size", size, spec("memory per module").range(4096, 1ull << 40).pow2());
        v.value("latency", latency,
                spec("fixed pipeline latency of the controller, added to every read on top of "
                     "the bank timings (row hit tCL, miss tRCD + tCL, conflict tRP + tRCD + tCL) "
                     "and the transfer")
                    .range(0, 1e6));
        v.value("bandwidth_gbps", bandwidth_gbps,
                spec("peak bandwidth of one channel's data bus").range(0.01, 1e4).unit("GB/s"));
        v.value("channels", channels,
                spec("channels per module, interleaved by cache line").range(1, 64).pow2());
        v.value("banks", banks,
                spec("banks per channel, each with an open-page row buffer").range(1, 256).pow2());
        v.value("row_bytes", row_bytes,
                spec("bytes of one row (page) of a bank; a multiple of llc.line_bytes")
                    .range(16, 1 << 20)
                    .pow2());
        v.value("tRCD", tRCD,
                spec("ACTIVATE to column command (row to column delay)").range(0, 1e4));
        v.value("tCL", tCL, spec("column command to first data (CAS latency)").range(0, 1e4));
        v.value("tRP", tRP, spec("PRECHARGE to ACTIVATE (row precharge time)").range(0, 1e4));
        v.value("tRAS", tRAS,
                spec("ACTIVATE to PRECHARGE of the same bank, at least (row active time)")
                    .range(0, 1e4));
        v.value("tBURST", tBURST,
                spec("shortest data-bus occupancy of one access (a burst); longer transfers take "
                     "bytes / bandwidth_gbps")
                    .range(0, 1e4));
        v.value("queue_entries", queue_entries,
                spec("request queue entries per channel (FR-FCFS in accurate mode; writes are "
                     "acknowledged when they enter it)")
                    .range(1, 4096));
        v.value("dmi", dmi,
                spec("grant direct memory pointers (fast mode only; DMI accesses bypass channel "
                     "timing and statistics)"));
    }
    void validate(config::checker&) const {}
};

} // namespace vgpu::dram
