// Configuration of the DRAM behind each module (section `dram`). See docs/configuration.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::dram {

/// Section `dram`: per-module memory size, latency and bandwidth.
struct dram_config {
    byte_size size{1ull << 30};   ///< bytes of memory per module
    duration latency{50000};      ///< access latency after the transfer
    double bandwidth_gbps = 64.0; ///< bytes per nanosecond per channel
    unsigned channels = 2;        ///< independent channels per module, line-interleaved
    bool dmi = true;              ///< grant DMI pointers in fast mode

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("size", size, spec("memory per module").range(4096, 1ull << 40).pow2());
        v.value("latency", latency,
                spec("access latency of a channel (row miss average)").range(0, 1e6));
        v.value("bandwidth_gbps", bandwidth_gbps,
                spec("peak bandwidth of one channel").range(0.01, 1e4).unit("GB/s"));
        v.value("channels", channels,
                spec("channels per module, interleaved by cache line").range(1, 64).pow2());
        v.value("dmi", dmi,
                spec("grant direct memory pointers (fast mode only; DMI accesses bypass channel "
                     "timing and statistics)"));
    }
    void validate(config::checker&) const {}
};

} // namespace vgpu::dram
