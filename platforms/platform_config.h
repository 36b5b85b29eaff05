// Configuration of the platform as a whole (sections `platform`, `log` and `stats`).
// See docs/configuration.md.
#pragma once

#include "models/common/config.h"
#include "models/common/logger.h"
#include "models/host/host_config.h"

namespace vgpu::platforms {

/// How time is kept (ARCHITECTURE.md, Timing).
enum class timing_mode { fast, accurate };
/// Which top level the builder assembles.
enum class platform_kind { traffic, gpu };
} // namespace vgpu::platforms

template <> struct vgpu::enum_names<vgpu::platforms::timing_mode> {
    static constexpr std::pair<std::string_view, platforms::timing_mode> table[] = {
        {"fast", platforms::timing_mode::fast}, {"accurate", platforms::timing_mode::accurate}};
};
template <> struct vgpu::enum_names<vgpu::platforms::platform_kind> {
    static constexpr std::pair<std::string_view, platforms::platform_kind> table[] = {
        {"traffic", platforms::platform_kind::traffic}, {"gpu", platforms::platform_kind::gpu}};
};
template <> struct vgpu::enum_names<vgpu::log_level> {
    static constexpr std::pair<std::string_view, log_level> table[] = {{"error", log_level::error},
                                                                       {"warn", log_level::warn},
                                                                       {"info", log_level::info},
                                                                       {"debug", log_level::debug}};
};

namespace vgpu::platforms {

/// `platform.clocks`: one period per clock domain.
struct clocks_config {
    duration core{1000}; ///< SM and cache clock period
    duration noc{1000};  ///< NoC and link clock period
    duration dram{1250}; ///< DRAM controller clock period

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("core", core, spec("period of the SM/L1 clock").range(0.001, 1000));
        v.value("noc", noc,
                spec("period of the NoC, LLC and inter-module link clock").range(0.001, 1000));
        v.value("dram", dram, spec("period of the DRAM controller clock").range(0.001, 1000));
    }
};

/// `platform.timing`.
struct timing_config {
    timing_mode mode = timing_mode::fast; ///< fast (loosely timed) or accurate (cycle arbitration)
    std::uint64_t quantum_ns = 100;       ///< fast mode: global quantum; 0 = lock-step
    std::uint64_t memory_quantum_ns = 0;  ///< fast mode: an SM syncs before memory if further ahead

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice(
            "mode", mode,
            spec("fast: temporal decoupling and occupancy booking at shared resources; accurate: "
                 "per-cycle arbitration at shared resources"));
        v.value("quantum_ns", quantum_ns,
                spec("global quantum of fast mode, at most platform.max_time; 0 runs initiators "
                     "in lock-step; accurate mode always runs in lock-step and ignores it")
                    .range(0, 1e9)
                    .unit("ns"));
        v.value("memory_quantum_ns", memory_quantum_ns,
                spec("fast mode: an SM further ahead of global time than this synchronises "
                     "before it issues a memory instruction, so SMs reach the shared memory "
                     "system in time order and each gets its share of a saturated port; 0 = "
                     "always; at or above quantum_ns it never acts; accurate mode ignores it")
                    .range(0, 1e9)
                    .unit("ns"));
    }
};

/// Section `platform`: shape, clocks, timing, seed and limits.
struct platform_config {
    platform_kind kind = platform_kind::traffic; ///< what to assemble
    unsigned modules = 1;                        ///< GPU modules (chiplets)
    unsigned clusters_per_module = 2;            ///< clusters in each module
    unsigned sms_per_cluster = 4;                ///< SMs in each cluster
    clocks_config clocks;
    timing_config timing;
    std::uint64_t seed = 1; ///< seed of every random generator (--seed overrides)
    /// Simulated-time limit; reaching it fails the run. 10 ms: a runaway kernel (every SM
    /// issuing every cycle) on the default platform reaches it in about 12 s of host time in
    /// fast mode and 22 s in accurate mode (docs/architecture.md, "Host limits").
    duration max_time{10000000000ull};

    byte_size max_host_memory{4ull << 30}; ///< host memory a gpu configuration may need
    /// SystemC threads a run may start on demand (0: host_resources::default_budget).
    std::uint64_t max_host_threads = 0;
    /// Host threads that run the SMs' local cycles (fast mode; docs/architecture.md,
    /// "Parallel simulation").
    std::uint64_t host_threads = 1;
    /// Put the TLM-2.0 base-protocol checker on every socket link; a violation fails the run.
    bool check_protocol = false;

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("kind", kind,
                 spec("traffic: generators -> router -> memory; gpu: the virtual GPU"));
        v.value("modules", modules, spec("GPU modules (chiplets)").range(1, 16));
        v.value("clusters_per_module", clusters_per_module,
                spec("clusters per module").range(1, 64));
        v.value("sms_per_cluster", sms_per_cluster, spec("SMs per cluster").range(1, 64));
        v.section("clocks", clocks, "Clock periods of the three clock domains.");
        v.section("timing", timing, "Timing mode and temporal decoupling.");
        v.value("seed", seed, spec("seed of every random generator in the platform"));
        v.value("max_time", max_time,
                spec("simulated time after which the run is stopped and fails; at least the "
                     "quantum of fast mode; raise it for kernels that run longer")
                    .min(1));
        v.value("max_host_memory", max_host_memory,
                spec("host memory a gpu configuration may need by the estimate of its arrays, "
                     "register files, model state and thread stacks (docs/architecture.md, "
                     "\"Host limits\"); a configuration above it is refused")
                    .range(64ull << 20, 1ull << 50));
        v.value("max_host_threads", max_host_threads,
                spec("SystemC threads the SMs may start on demand, each carrying a line request "
                     "(accurate mode) or an access that waits (fast mode); past it, requests "
                     "wait for a thread, the same on every host. 0: what Linux's default "
                     "vm.max_map_count (65530) leaves after the platform's own threads (28,309 "
                     "for platforms/v100.yaml in accurate mode). Each thread takes two memory "
                     "mappings: a run that needs more than the host's vm.max_map_count allows "
                     "fails (docs/architecture.md, \"Host limits\")")
                    .range(0, 1ull << 26));
        v.value("host_threads", host_threads,
                spec("host threads that simulate the SMs in fast mode: the cycles in which an "
                     "SM touches nothing but its own state (its warps' ALU and branch "
                     "instructions) run on these threads, the SMs of one simulated time side by "
                     "side; memory, launches and everything shared stay on the simulation "
                     "thread, in SM-id order. The results are the same for every value; more "
                     "threads than host cores only slow the run (docs/architecture.md, "
                     "\"Parallel simulation\"). Accurate mode runs on one thread")
                    .range(1, 256));
        v.value("check_protocol", check_protocol,
                spec("put the TLM-2.0 base-protocol checker (docs/protocol-checker.md) on every "
                     "socket link of the platform; a violation fails the run (exit 1) naming the "
                     "link's checker, `<from>_to_<to>`; stats `<checker>.calls` and "
                     "`<checker>.violations` and a summary line; off, the platform has no "
                     "checker and no extra call"));
    }

    void validate(config::checker& c) const
    {
        const std::uint64_t sms = std::uint64_t{modules} * clusters_per_module * sms_per_cluster;
        if (sms > 4096)
            c.conflict({{"platform.sms_per_cluster", std::to_string(sms_per_cluster)},
                        {"platform.clusters_per_module", std::to_string(clusters_per_module)},
                        {"platform.modules", std::to_string(modules)}},
                       std::to_string(sms) + " SMs in total, more than 4096",
                       "make platform.modules x platform.clusters_per_module x "
                       "platform.sms_per_cluster at most 4096");
        // A quantum longer than the whole run lets an initiator run past the limit unchecked.
        // Accurate mode ignores the quantum.
        const duration quantum{effective_quantum_ns() * 1000};
        if (quantum.ps > max_time.ps)
            c.conflict({{"platform.timing.quantum_ns", std::to_string(timing.quantum_ns)},
                        {"platform.max_time", format(max_time)}},
                       "the quantum is longer than the time limit",
                       "set platform.timing.quantum_ns to at most " +
                           std::to_string(max_time.ps / 1000) +
                           " or platform.max_time to at least " + format(quantum));
    }
    /// The global quantum in ns that the timing settings imply.
    std::uint64_t effective_quantum_ns() const
    {
        return timing.mode == timing_mode::accurate ? 0 : timing.quantum_ns;
    }
};

/// Section `workload`: what the host driver runs on the gpu platform (docs/workloads.md).
struct workload_config {
    std::string file;        ///< workload file (-w); "" = the embedded default workload
    config::string_map vars; ///< values of variables the workload declares (-D NAME=VALUE)

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("file", file,
                spec("workload file (-w); \"\" runs the embedded default workload; a relative name "
                     "in a config file is relative to that file's folder")
                    .file());
        v.value("vars", vars,
                spec("values of variables the workload declares under `vars:` (-D NAME=VALUE); "
                     "a name it does not declare is an error"));
    }
};

/// Section `memory`: virtual memory and page placement across modules.
struct memory_config {
    host::page_alloc page_alloc = host::page_alloc::first_touch; ///< home-module policy
    byte_size page_bytes{4096}; ///< page size of the GPU's virtual memory
    double balance_ratio = 1.5; ///< adaptive: most pages a module may hold / the mean

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("page_alloc", page_alloc,
                 spec("first_touch: a page lives on the module of the SM whose access first "
                      "touches it (placed then, in zero time, when there is more than one "
                      "module); round_robin: page i on module i mod modules, placed at "
                      "set-up; adaptive (seed 004): after each placement, first touch for the "
                      "next page if the pages are balanced (memory.balance_ratio), else round "
                      "robin (models/page_alloc/README.md)"));
        v.value("page_bytes", page_bytes, spec("page size").range(4096, 1 << 21).pow2());
        v.value("balance_ratio", balance_ratio,
                spec("adaptive placement: the pages are balanced while the most pages on one "
                     "module are at most this times the mean pages per module; balanced, the "
                     "next page goes by first touch, else by round robin")
                    .range(1.0, 1024.0));
    }
};

/// Section `log`.
struct log_config {
    log_level level = log_level::warn; ///< level of every logger
    std::string debug;                 ///< comma-separated instance-path prefixes at debug level

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("level", level, spec("messages below this level are not printed"));
        v.value("debug", debug,
                spec("comma-separated instance paths (prefixes) that log at debug level"));
    }
};

/// Section `stats`: which statistics are collected.
struct stats_config {
    bool per_warp = false; ///< per-warp-slot statistics of every SM (wN.*)

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("per_warp", per_warp,
                spec("add the statistics of each SM's warp slot N (wN.instructions, "
                     "wN.barrier_wait_cycles, wN.stall_cycles)"));
    }
};

} // namespace vgpu::platforms
