// Platform assembly: picks the top level from the configuration. See docs/architecture.md.
#include "platforms/builder.h"

#include "models/common/location.h"
#include "models/common/logger.h"
#include "models/common/trace_events.h"
#include "platforms/default_config.h"
#include "platforms/gpu_platform.h"
#include "platforms/traffic_platform.h"

namespace vgpu::platforms {

namespace {
/// host.kind riscv: the firmware image must load (docs/firmware.md).
std::vector<std::string> check_firmware(const vgpu_config& cfg)
{
    std::vector<std::string> errors;
    std::string why;
    const std::string path = host::firmware_image(cfg.host, why);
    if (path.empty())
        return {why};
    try {
        host_cpu::load_elf(path, host_cpu::ram_base,
                           static_cast<std::uint32_t>(cfg.host.cpu.ram_bytes.bytes));
    } catch (const host_cpu::elf_error& e) {
        errors.push_back(std::string("host.firmware: ") + e.what());
    }
    return errors;
}

/// The built platform, unless a log.debug entry is the prefix of no instance path of it (only
/// the built platform knows its instances): a silently ignored entry would be a typo unnoticed.
std::unique_ptr<platform> checked(std::unique_ptr<platform> top, const std::string& name,
                                  const run_options& opts)
{
    const std::vector<std::string> unmatched = logger::unmatched_debug_prefixes();
    if (unmatched.empty())
        return top;
    const auto at = opts.sources.find("log.debug");
    const config::location where =
        at == opts.sources.end() ? config::location{"(configuration)"} : at->second;
    config::errors errors;
    for (const auto& p : unmatched)
        errors.add(where, "log.debug",
                   "'" + p + "' is the start of no instance path of this platform (they begin '" +
                       name + ".')");
    throw build_error(errors.messages());
}
} // namespace

std::unique_ptr<platform> build(const vgpu_config& cfg, const run_options& opts)
{
    trace::recorder::instance().enable(opts.trace);
    if (cfg.platform.kind == platform_kind::traffic) {
        if (!cfg.workload.file.empty())
            throw build_error("the traffic platform takes no workload (-w); its stimulus is the "
                              "`traffic` section");
        if (!cfg.workload.vars.empty())
            throw build_error("the traffic platform takes no workload variables (-D)");
        return checked(std::make_unique<traffic_platform>("traffic", cfg), "traffic", opts);
    }
    host::workload_options wo;
    wo.seed = cfg.platform.seed;
    wo.regs_per_thread = cfg.sm.regs_per_thread; // kernels from CUDA/PTX are translated for it
    wo.sm_registers = cfg.sm.registers;
    wo.bulk_cdl = cfg.cdl.bulk_loads;
    wo.printf_buffer_bytes = cfg.host.printf_buffer_bytes.bytes;
    for (const auto& [name, value] : cfg.workload.vars) {
        const auto at = opts.sources.find("workload.vars." + name);
        wo.vars.push_back(
            {name, value,
             at == opts.sources.end() ? config::location{"(configuration)"} : at->second});
    }
    host::parse_result parsed =
        cfg.workload.file.empty()
            ? host::parse_workload_text(
                  default_workload_yaml(),
                  "testbenches/workloads/" + std::string(default_workload_name) + " (embedded)", wo)
            : host::parse_workload(cfg.workload.file, wo);
    std::vector<std::string> errors = parsed.errors;
    if (parsed.ok()) {
        host::platform_limits limits;
        limits.num_sms =
            cfg.platform.modules * cfg.platform.clusters_per_module * cfg.platform.sms_per_cluster;
        limits.warp_slots = cfg.sm.warp_slots;
        limits.regs_per_thread = cfg.sm.regs_per_thread;
        limits.sm = cfg.sm.resources();
        limits.queues = cfg.cp.queues;
        limits.core_period_ps = cfg.platform.clocks.core.ps;
        limits.dispatch_latency = cfg.cp.dispatch_latency;
        limits.cta_dispatch_interval = cfg.cp.cta_dispatch_interval;
        limits.max_time_ps = cfg.platform.max_time.ps;
        limits.kernel_timeout_ps = cfg.host.kernel_timeout.ps;
        for (auto& e : host::check_against_platform(parsed.wl, limits))
            errors.push_back(e);
        // What the driver would find only when it allocates: the DRAM fit.
        for (auto& e : host::check_memory_fit(parsed.wl, driver_facts(cfg)))
            errors.push_back(e);
        if (cfg.host.kind == host::host_kind::riscv) {
            for (auto& e : check_firmware(cfg))
                errors.push_back(e);
            // The firmware's launch table has no loops: a `times` loop is written out pass by
            // pass; an `until` loop needs the host to read memory between passes.
            for (const host::loop_decl& l : parsed.wl.loops)
                if (l.until())
                    errors.push_back(l.where.str() + ": error: schedule[" +
                                     std::to_string(l.entry) +
                                     "]: an until loop needs host.kind native (the firmware's "
                                     "launch table has no loops)");
            // The firmware's launch table carries 2-D launches of assembly kernels only.
            for (std::size_t i = 0; i < parsed.wl.kernels.size(); ++i) {
                const host::kernel_decl& k = parsed.wl.kernels[i];
                if (k.grid_z != 1 || k.block_z != 1 || k.registers != 0 || k.shared_bytes != 0)
                    errors.push_back(k.where.str() + ": error: kernels[" + std::to_string(i) +
                                     "]: kernel '" + k.name +
                                     "' has a 3-D grid or block, or a translated kernel's "
                                     "registers or shared memory, which host.kind riscv's launch "
                                     "table does not carry (host.kind native runs it)");
            }
        } else if (cfg.host.cpu.gdb_port != 0)
            errors.push_back("--gdb (host.cpu.gdb_port) debugs firmware: it needs host.kind riscv");
        else if (!cfg.host.firmware.empty())
            errors.push_back("host.firmware '" + cfg.host.firmware +
                             "' is run only with host.kind riscv (host.kind is native)");
    }
    if (!errors.empty())
        throw build_error(errors);
    try {
        return checked(std::make_unique<gpu_platform>("gpu", cfg, parsed.wl, opts.extra_blocks),
                       "gpu", opts);
    } catch (const host_cpu::gdb_error& e) {
        throw build_error(e.what());
    }
}

} // namespace vgpu::platforms
