// The root of the configuration: one member per section. See docs/configuration.md.
#pragma once

#include "models/cdl/cdl_config.h"
#include "models/cp/cp_config.h"
#include "models/dram/dram_config.h"
#include "models/host/host_config.h"
#include "models/l1/l1_config.h"
#include "models/llc/llc_config.h"
#include "models/noc/noc_config.h"
#include "models/shader_trace/shader_trace_config.h"
#include "models/sm/sm_config.h"
#include "models/tlb/tlb_config.h"
#include "models/traffic/traffic_config.h"
#include "platforms/host_memory.h"
#include "platforms/platform_config.h"

namespace vgpu::platforms {

/// Everything a run is configured with; `vgpu-sim --list-params` prints its declaration.
struct vgpu_config {
    platform_config platform;
    sm::sm_config sm;
    l1::l1_config l1;
    tlb::tlb_config tlb;
    cdl::cdl_config cdl;
    ::vgpu::shader_trace::shader_trace_config shader_trace;
    noc::noc_config noc;
    llc::llc_config llc;
    memory_config memory;
    dram::dram_config dram;
    cp::cp_config cp;
    host::host_config host;
    workload_config workload;
    log_config log;
    stats_config stats;
    traffic::traffic_config traffic;

    void declare(config::visitor& v)
    {
        v.section("platform", platform,
                  "Shape of the platform, clocks, timing mode, seed, limits.");
        v.section("sm", sm, "Streaming multiprocessors (models/sm/README.md).");
        v.section("l1", l1, "L1 data cache of each SM (models/l1/README.md).");
        v.section("tlb", tlb,
                  "TLBs, page-walk caches and page-table walkers (models/tlb/README.md).");
        v.section("cdl", cdl,
                  "CDL access controller: CBV table and bulk constant-data loads "
                  "(models/cdl/README.md).");
        v.section("shader_trace", shader_trace,
                  "Shader-trace unit: events of the CP and the SMs as token groups in memory "
                  "(models/shader_trace/README.md, docs/trace-format.md).");
        v.section("noc", noc,
                  "Cluster crossbars, module NoC and inter-module links (models/noc/README.md).");
        v.section("llc", llc, "Last-level cache slices of each module (models/llc/README.md).");
        v.section("memory", memory, "Virtual memory and page placement across modules.");
        v.section("dram", dram, "DRAM of each module (models/dram/README.md).");
        v.section("cp", cp, "Command processor (models/cp/README.md).");
        v.section("host", host, "Host driver (models/host/README.md).");
        v.section("workload", workload,
                  "The workload the host driver runs (gpu platform; docs/workloads.md).");
        v.section("log", log, "Log levels.");
        v.section("stats", stats, "Which statistics are collected.");
        v.section("traffic", traffic, "Traffic generators of the `traffic` platform.");
    }

    void validate(config::checker& c) const
    {
        platform.validate(c);
        sm.validate(c);
        l1.validate(c);
        tlb.validate(c, memory.page_bytes.bytes);
        noc.validate(c);
        llc.validate(c);
        dram.validate(c);
        cp.validate(c);
        shader_trace.validate(c);
        if (shader_trace.group_bytes() > l1.line_bytes)
            c.error("shader_trace.write_bits",
                    "one group write must fit in a line (l1.line_bytes = " +
                        std::to_string(l1.line_bytes) + " bytes)");
        host.validate(c);
        traffic.validate(c);
        if (l1.line_bytes != llc.line_bytes)
            c.conflict("llc.line_bytes",
                       "must equal l1.line_bytes (" + std::to_string(l1.line_bytes) + ")",
                       "l1.line_bytes",
                       "must equal llc.line_bytes (" + std::to_string(llc.line_bytes) + ")");
        if (dram.row_bytes.bytes < llc.line_bytes)
            c.error("dram.row_bytes",
                    "must be at least llc.line_bytes (" + std::to_string(llc.line_bytes) + ")");
        if (l1.sharing == l1::sharing_mode::shared &&
            (platform.sms_per_cluster & (platform.sms_per_cluster - 1)) != 0)
            c.error("l1.sharing", "shared needs platform.sms_per_cluster to be a power of two "
                                  "(it is " +
                                      std::to_string(platform.sms_per_cluster) + ")");
        if (l1.sharing == l1::sharing_mode::adaptive &&
            (std::uint64_t{platform.modules} * dram.size.bytes >> l1::peer_window_shift) != 0)
            c.error("l1.sharing", "adaptive needs the physical memory (platform.modules x "
                                  "dram.size) below 2^56 bytes (the L1 windows of the cluster "
                                  "crossbar lie above it)");
        if (memory.page_bytes.bytes < l1.line_bytes)
            c.error("memory.page_bytes", "must be at least l1.line_bytes");
        if (sm.icache_bytes.bytes != 0 && sm.icache_bytes.bytes / l1.line_bytes < sm.icache_ways)
            c.error("sm.icache_bytes", "must hold at least sm.icache_ways (" +
                                           std::to_string(sm.icache_ways) + ") lines of " +
                                           std::to_string(l1.line_bytes) + " B (l1.line_bytes)");
        // Sizes of up to 2^64 - 1 are valid alone: the sum and product are checked, not formed
        // blindly (a wrapped end would pass the fit check and the regions would overlap).
        std::uint64_t regions = 0, end = 0;
        if (__builtin_mul_overflow(traffic.footprint.bytes, std::uint64_t{traffic.generators},
                                   &regions) ||
            __builtin_add_overflow(regions, traffic.base, &end))
            c.error("traffic.footprint",
                    "the generators' regions (traffic.base + traffic.footprint x "
                    "traffic.generators) end beyond the 64-bit address space");
        else if (platform.kind == platform_kind::traffic &&
                 end > dram.size.bytes * platform.modules)
            c.error("traffic.footprint", "the generators' regions do not fit in the memory "
                                         "(dram.size x platform.modules)");
        if (platform.kind == platform_kind::gpu)
            check_host_memory(estimate_host_memory(platform, sm, l1, llc, stats.per_warp),
                              platform.max_host_memory.bytes, c);
        else
            check_host_memory(estimate_traffic_memory(traffic), platform.max_host_memory.bytes, c);
    }
};

} // namespace vgpu::platforms
