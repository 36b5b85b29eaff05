// The table of settings that have no effect in a configuration. See platforms/inert_settings.h.
#include "platforms/inert_settings.h"

#include <set>
#include <string>

namespace vgpu::platforms {

namespace {
bool fast(const vgpu_config& c)
{
    return c.platform.timing.mode == timing_mode::fast;
}
bool accurate(const vgpu_config& c)
{
    return c.platform.timing.mode == timing_mode::accurate;
}
bool gpu(const vgpu_config& c)
{
    return c.platform.kind == platform_kind::gpu;
}
bool one_module(const vgpu_config& c)
{
    return c.platform.modules <= 1;
}
bool ideal_tlb(const vgpu_config& c)
{
    return c.tlb.model == tlb::model_kind::ideal;
}
} // namespace

const std::vector<inert_rule>& inert_rules()
{
    // clang-format off
    static const std::vector<inert_rule> rules = {
        // The traffic platform is generators, a bus and a memory per module.
        {"platform.clusters_per_module platform.sms_per_cluster platform.max_host_threads "
         "platform.host_threads "
         "platform.clocks. platform.timing.memory_quantum_ns sm. l1. tlb. cdl. shader_trace. "
         "noc. llc. memory. cp. host. stats.per_warp dram.banks dram.row_bytes dram.tRP "
         "dram.tRAS dram.tBURST dram.queue_entries",
         [](const vgpu_config& c) { return !gpu(c); },
         "platform.kind is traffic (generators, a bus and one memory per module)",
         "platform.kind: gpu"},
        {"traffic.",
         gpu,
         "platform.kind is gpu (the traffic generators are built only by the traffic platform)",
         "platform.kind: traffic"},
        {"platform.timing.quantum_ns",
         accurate,
         "platform.timing.mode is accurate, which always runs in lock-step",
         "platform.timing.mode: fast"},
        {"platform.host_threads",
         accurate,
         "platform.timing.mode is accurate, which runs on one thread",
         "platform.timing.mode: fast"},
        {"platform.timing.memory_quantum_ns",
         accurate,
         "platform.timing.mode is accurate, where SMs reach memory in time order anyway",
         "platform.timing.mode: fast"},
        {"dram.dmi",
         accurate,
         "platform.timing.mode is accurate, which grants no direct memory pointers",
         "platform.timing.mode: fast"},
        {"sm.lsu_threads",
         fast,
         "platform.timing.mode is fast, which starts no LSU threads (in accurate mode it sets "
         "only how many the simulator starts up front)",
         "platform.timing.mode: accurate"},
        {"sm.icache_ways sm.icache_prefetch_lines",
         [](const vgpu_config& c) { return c.sm.icache_bytes.bytes == 0; },
         "sm.icache_bytes is 0 (no instruction cache)",
         "sm.icache_bytes above 0"},
        {"l1.share_index",
         [](const vgpu_config& c) { return c.l1.sharing != l1::sharing_mode::shared; },
         "l1.sharing is not shared (no line has a home L1)",
         "l1.sharing: shared"},
        {"l1.epoch_cycles l1.miss_rate_threshold l1.mem_share_threshold l1.replacement_queue",
         [](const vgpu_config& c) { return c.l1.sharing != l1::sharing_mode::adaptive; },
         "l1.sharing is not adaptive (no SM is classified, no L1 lends)",
         "l1.sharing: adaptive"},
        {"tlb.index tlb.xor_bits tlb.walkers tlb.pwc_entries tlb.l1. tlb.l2.",
         ideal_tlb,
         "tlb.model is ideal (translations take no time: no TLB, page-walk cache or walker is "
         "built)",
         "tlb.model: timed"},
        {"tlb.xor_bits",
         [](const vgpu_config& c) { return c.tlb.index != tlb::index_kind::xor_hash; },
         "tlb.index is modulo (the xor index folds the bits)",
         "tlb.index: xor"},
        {"tlb.l2.ways tlb.l2.hit_latency",
         [](const vgpu_config& c) { return c.tlb.l2.sets == 0; },
         "tlb.l2.sets is 0 (no L2 TLB)",
         "tlb.l2.sets above 0"},
        {"shader_trace.slots shader_trace.token_bits shader_trace.write_bits "
         "shader_trace.full_policy shader_trace.victim shader_trace.sources "
         "shader_trace.region_bytes shader_trace.mode shader_trace.watermark "
         "shader_trace.idle_flush_cycles shader_trace.writes_in_flight "
         "shader_trace.write_interval_cycles shader_trace.impl",
         [](const vgpu_config& c) { return !c.shader_trace.enable; },
         "shader_trace.enable is false (no trace unit is built)",
         "shader_trace.enable: true"},
        {"shader_trace.victim",
         [](const vgpu_config& c) {
             return c.shader_trace.full != ::vgpu::shader_trace::full_policy::replace;
         },
         "shader_trace.full_policy is stall (no group is replaced)",
         "shader_trace.full_policy: replace"},
        {"noc.arbiter noc.max_wait_cycles",
         [](const vgpu_config& c) { return arbiter_inert_in_fast_mode && fast(c); },
         "platform.timing.mode is fast, which books NoC ports in arrival order",
         "platform.timing.mode: accurate"},
        {"noc.max_wait_cycles",
         [](const vgpu_config& c) { return c.noc.arbiter != noc::arbiter_kind::barrier_aware; },
         "noc.arbiter is not barrier_aware (only it ages requests)",
         "noc.arbiter: barrier_aware"},
        {"noc.mesh_columns noc.mesh_rows noc.mesh_buffer_depth",
         [](const vgpu_config& c) { return c.noc.topology != noc::topology_kind::mesh; },
         "noc.topology is crossbar (no mesh is built)",
         "noc.topology: mesh"},
        {"noc.mesh_buffer_depth",
         fast,
         "platform.timing.mode is fast, where mesh routers have no input buffers",
         "platform.timing.mode: accurate"},
        {"noc.link_latency noc.link_bandwidth_gbps noc.link_header_bytes llc.mode "
         "llc.forced_switch_ns memory.page_alloc memory.balance_ratio",
         one_module,
         "platform.modules is 1 (no inter-module link, LLC switcher or page placement across "
         "modules)",
         "platform.modules above 1"},
        {"llc.epoch_cycles llc.switch_margin llc.sample_every",
         [](const vgpu_config& c) { return c.llc.mode != llc::llc_mode::adaptive; },
         "llc.mode is not adaptive (no estimator runs)",
         "llc.mode: adaptive"},
        {"llc.switch_cycles",
         [](const vgpu_config& c) {
             return c.llc.mode != llc::llc_mode::adaptive && c.llc.forced_switch_ns == 0;
         },
         "llc.mode is not adaptive and llc.forced_switch_ns is 0 (the organisation never "
         "switches)",
         "llc.mode: adaptive (or llc.forced_switch_ns above 0)"},
        {"memory.balance_ratio",
         [](const vgpu_config& c) { return c.memory.page_alloc != host::page_alloc::adaptive; },
         "memory.page_alloc is not adaptive",
         "memory.page_alloc: adaptive"},
        {"host.dma_bytes host.dma_outstanding",
         [](const vgpu_config& c) { return c.host.load != host::load_kind::dma; },
         "host.load is backdoor (the host copies no data by DMA)",
         "host.load: dma"},
        {"host.fault_batch",
         [](const vgpu_config& c) {
             return c.host.kind == host::host_kind::native &&
                    c.host.service == host::fault_service::shadow;
         },
         "host.fault_service is shadow (each faulting warp's shadow thread serves its own "
         "record; there are no service rounds)",
         "host.fault_service: batched, or host.kind: riscv (the firmware's rounds)"},
        {"host.shadow_threads",
         [](const vgpu_config& c) {
             return c.host.kind != host::host_kind::native ||
                    c.host.service != host::fault_service::shadow;
         },
         "the faults are served in rounds (host.fault_service batched, or the firmware of "
         "host.kind riscv)",
         "host.fault_service: shadow with host.kind: native"},
        {"host.fault_service",
         [](const vgpu_config& c) { return c.host.kind != host::host_kind::native; },
         "host.kind is riscv (the firmware serves faults in its own rounds)",
         "host.kind: native"},
        {"host.cpu.mips host.cpu.quantum_instructions host.cpu.ram_bytes",
         [](const vgpu_config& c) { return c.host.kind != host::host_kind::riscv; },
         "host.kind is native (no firmware hart is built)",
         "host.kind: riscv"},
    };
    // clang-format on
    return rules;
}

namespace {
/// True when rule key `key` ("a.b" or the prefix "a.") names parameter `path`.
bool names(std::string_view key, const std::string& path)
{
    if (!key.empty() && key.back() == '.')
        return path.compare(0, key.size(), key) == 0;
    return path == key;
}

/// The space-separated keys of a rule.
std::vector<std::string_view> split(std::string_view keys)
{
    std::vector<std::string_view> out;
    for (std::size_t at = 0; at < keys.size();) {
        const std::size_t end = std::min(keys.find(' ', at), keys.size());
        if (end > at)
            out.push_back(keys.substr(at, end - at));
        at = end + 1;
    }
    return out;
}
} // namespace

std::string inert_rules_markdown()
{
    std::string out =
        "\n## Settings without effect\n\n"
        "A setting made in a `-c` file or with `-s` (even to its default value) that has no "
        "effect in the configuration warns once, at the place that set it, naming what would "
        "make it count: `<where>: warning: <key>: has no effect: <why>; it counts with "
        "<setting>`. A saved effective configuration (`OUTDIR/config.yaml`, `--dump-config`: its "
        "first line marks it) sets every key; in it a key at its default value is not counted "
        "as a setting (docs/outputs.md). The rules (platforms/inert_settings.cpp; a key ending "
        "in `.` names every "
        "key below it, and a key warns by the first rule that applies):\n\n"
        "| keys | no effect when | counts with |\n|---|---|---|\n";
    for (const inert_rule& r : inert_rules()) {
        std::string keys;
        for (std::string_view k : split(r.keys))
            keys += (keys.empty() ? "`" : ", `") + std::string(k) + "`";
        out +=
            "| " + keys + " | " + std::string(r.because) + " | `" + std::string(r.counts) + "` |\n";
    }
    return out;
}

void warn_inert_settings(const vgpu_config& cfg, config::checker& c,
                         const std::set<std::string>& not_set)
{
    for (const auto& [path, where] : c.sources()) {
        (void)where;
        if (!c.set_by_user(path) || not_set.count(path) != 0)
            continue;
        for (const inert_rule& r : inert_rules()) {
            bool named = false;
            for (std::string_view k : split(r.keys))
                named = named || names(k, path);
            if (!named || !r.inert(cfg))
                continue;
            c.warn(path, "has no effect: " + std::string(r.because) + "; it counts with " +
                             std::string(r.counts));
            break; // once per setting
        }
    }
}

} // namespace vgpu::platforms
