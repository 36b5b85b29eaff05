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
        tlb.validate(c, memory.page_bytes);
        noc.validate(c, platform.timing.mode == timing_mode::accurate,
                     platform.kind == platform_kind::gpu);
        llc.validate(c);
        dram.validate(c);
        cp.validate(c);
        const auto num = [](auto v) { return std::to_string(v); };
        const std::uint64_t sms = std::uint64_t{platform.modules} * platform.clusters_per_module *
                                  platform.sms_per_cluster;
        shader_trace.validate(c, static_cast<unsigned>(std::min<std::uint64_t>(sms, ~0u)));
        if (shader_trace.group_bytes() > l1.line_bytes)
            c.conflict({{"shader_trace.write_bits", num(shader_trace.write_bits)},
                        {"l1.line_bytes", num(l1.line_bytes)}},
                       "one group write must fit in a line",
                       "set shader_trace.write_bits to at most " + num(l1.line_bytes * 8) +
                           " or l1.line_bytes to at least " + num(shader_trace.group_bytes()));
        host.validate(c);
        traffic.validate(c);
        if (l1.line_bytes != llc.line_bytes)
            c.conflict(
                {{"llc.line_bytes", num(llc.line_bytes)}, {"l1.line_bytes", num(l1.line_bytes)}},
                "the L1 and the LLC must have one line size",
                "set l1.line_bytes and llc.line_bytes to the same value");
        if (dram.row_bytes.bytes < llc.line_bytes)
            c.conflict({{"dram.row_bytes", num(dram.row_bytes.bytes)},
                        {"llc.line_bytes", num(llc.line_bytes)}},
                       "a DRAM row shorter than a line",
                       "set dram.row_bytes to at least " + num(llc.line_bytes) +
                           " or llc.line_bytes to at most " + num(dram.row_bytes.bytes));
        if (l1.sharing == l1::sharing_mode::shared &&
            (platform.sms_per_cluster & (platform.sms_per_cluster - 1)) != 0)
            c.conflict({{"l1.sharing", "shared"},
                        {"platform.sms_per_cluster", num(platform.sms_per_cluster)}},
                       "shared L1s need a power-of-two number of SMs per cluster",
                       "set platform.sms_per_cluster to a power of two or l1.sharing to another "
                       "mode");
        if (l1.sharing == l1::sharing_mode::adaptive &&
            (std::uint64_t{platform.modules} * dram.size.bytes >> l1::peer_window_shift) != 0)
            c.conflict({{"l1.sharing", "adaptive"},
                        {"dram.size", format(dram.size)},
                        {"platform.modules", num(platform.modules)}},
                       "adaptive needs the physical memory, platform.modules x dram.size, below "
                       "2^56 bytes, where the L1 windows of the cluster crossbar begin",
                       "use a smaller dram.size or fewer platform.modules, or another "
                       "l1.sharing mode");
        if (memory.page_bytes.bytes < l1.line_bytes)
            c.conflict({{"memory.page_bytes", format(memory.page_bytes)},
                        {"l1.line_bytes", num(l1.line_bytes)}},
                       "a page smaller than a line",
                       "set memory.page_bytes to at least " + num(l1.line_bytes) +
                           " or l1.line_bytes to at most " + num(memory.page_bytes.bytes));
        if (sm.icache_bytes.bytes != 0 && sm.icache_bytes.bytes / l1.line_bytes < sm.icache_ways)
            c.conflict({{"sm.icache_bytes", format(sm.icache_bytes)},
                        {"sm.icache_ways", num(sm.icache_ways)},
                        {"l1.line_bytes", num(l1.line_bytes)}},
                       "the instruction cache holds fewer lines than it has ways",
                       "set sm.icache_bytes to at least " +
                           num(std::uint64_t{sm.icache_ways} * l1.line_bytes) +
                           ", sm.icache_ways to at most " +
                           num(sm.icache_bytes.bytes / l1.line_bytes) +
                           " or a smaller l1.line_bytes");
        // Sizes of up to 2^64 - 1 are valid alone: the sum and product are checked, not formed
        // blindly (a wrapped end would pass the fit check and the regions would overlap).
        std::uint64_t regions = 0, end = 0;
        if (__builtin_mul_overflow(traffic.footprint.bytes, std::uint64_t{traffic.generators},
                                   &regions) ||
            __builtin_add_overflow(regions, traffic.base, &end))
            c.conflict({{"traffic.footprint", format(traffic.footprint)},
                        {"traffic.generators", num(traffic.generators)},
                        {"traffic.base", num(traffic.base)}},
                       "the generators' regions end beyond the 64-bit address space",
                       "make traffic.base + traffic.footprint x traffic.generators less than "
                       "2^64");
        else if (platform.kind == platform_kind::traffic &&
                 end > dram.size.bytes * platform.modules)
            c.conflict({{"traffic.footprint", format(traffic.footprint)},
                        {"traffic.generators", num(traffic.generators)},
                        {"traffic.base", num(traffic.base)},
                        {"dram.size", format(dram.size)},
                        {"platform.modules", num(platform.modules)}},
                       "the generators' regions do not fit in the memory",
                       "make traffic.base + traffic.footprint x traffic.generators at most "
                       "dram.size x platform.modules (" +
                           format(byte_size{dram.size.bytes * platform.modules}) + ")");
        if (platform.kind == platform_kind::gpu)
            check_host_memory(estimate_host_memory(platform, sm, l1, llc, stats.per_warp),
                              platform.max_host_memory.bytes, c);
        else
            check_host_memory(estimate_traffic_memory(traffic), platform.max_host_memory.bytes, c);
    }
};

} // namespace vgpu::platforms
