// The GPU platform's terminal summary, what bounds the workload, and what was under way when a
// run stopped unfinished. See docs/outputs.md.
#include "platforms/gpu_platform.h"

#include "models/host/printf_part.h"
#include "platforms/attach/blocks.h"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <string>

namespace vgpu::platforms {

std::string gpu_platform::mechanisms() const
{
    // The platform-wide mechanisms of the patents that are settings, not attached blocks: the
    // NoC's arbiter (it acts in accurate mode), page placement (with several modules) and the
    // host's fault service.
    std::string out;
    // The RTL arbiter (noc.arbiter_impl rtl) is named whatever the policy.
    const bool rtl = m_cfg.noc.arbiter_impl == noc::arbiter_impl_kind::rtl;
    if (m_cfg.noc.arbiter != noc::arbiter_kind::round_robin || rtl)
        out += ", noc (" + std::string(name_of(m_cfg.noc.arbiter)) + " arbiter" +
               (rtl ? ", verilated RTL" : "") +
               (m_cfg.platform.timing.mode == timing_mode::fast ? ", inert in fast mode" : "") +
               ")";
    if (m_cfg.platform.modules > 1)
        out += ", page_alloc (" + std::string(name_of(m_cfg.memory.page_alloc)) + ")";
    if (m_cfg.host.kind != host::host_kind::native)
        out += ", faults (the firmware's rounds)";
    else
        out += ", faults (" + std::string(name_of(m_cfg.host.service)) +
               (m_cfg.host.service == host::fault_service::shadow
                    ? ", " + std::to_string(m_cfg.host.shadow_threads) + " threads"
                    : std::string()) +
               ")";
    return out;
}

void gpu_platform::summary(std::ostream& os) const
{
    const auto& p = m_cfg.platform;
    os << "gpu: " << p.modules << " module(s) x " << p.clusters_per_module << " cluster(s) x "
       << p.sms_per_cluster << " SMs, workload '" << m_workload.name << "'\n";
    os << "  blocks active: " << attach::active_blocks(m_blocks) << mechanisms() << "\n";
    m_link_checks.summary(os);
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::fixed;
    const nlohmann::json recs = records();
    for (const auto& k : recs["kernels"]) {
        os << "  kernel " << k["name"].get<std::string>() << " (phase " << k["phase"];
        if (m_workload.loop_of(k["phase"].get<std::size_t>()))
            os << " pass " << k["pass"];
        os << ", queue " << k["queue"] << ", " << k["sms"] << " SMs): ";
        if (k["end_ns"].is_null()) {
            os << "did not complete\n";
            continue;
        }
        os << std::setprecision(1) << k["end_ns"].get<double>() - k["start_ns"].get<double>()
           << " ns, " << k["cycles"] << " cycles, IPC " << std::setprecision(2)
           << k["ipc"].get<double>() << ", L1 hit " << std::setprecision(1)
           << 100 * k["l1_hit_rate"].get<double>() << "%, LLC hit "
           << 100 * k["llc_hit_rate"].get<double>() << "%, DRAM "
           << k["dram_read_bytes"].get<std::uint64_t>() << " B read / "
           << k["dram_write_bytes"].get<std::uint64_t>() << " B written ("
           << 100 * k["dram_bw_util"].get<double>()
           << "% of peak), bound: " << k["bound"].get<std::string>()
           << (k["ok"].get<bool>() ? "" : " FAILED") << "\n";
    }
    os << "  kernel time " << std::setprecision(1) << m_figures.kernel_time.value() << " ns in "
       << host.phases().size() << " phase(s); set-up " << host.load_time().to_seconds() * 1e9
       << " ns (host.load " << (m_cfg.host.load == host::load_kind::dma ? "dma" : "backdoor")
       << ")\n";
    os << "  " << static_cast<std::uint64_t>(m_figures.instructions.value())
       << " warp-instructions, " << static_cast<std::uint64_t>(m_figures.mem_requests.value())
       << " memory line requests\n";
    os << std::setprecision(1) << "  bound by " << bound_by() << ": of the active SM cycles "
       << 100 * m_figures.issue_share.value() << "% issued, "
       << 100 * m_figures.memory_share.value() << "% waited for memory, "
       << 100 * m_figures.alu_share.value() << "% for ALU results, "
       << 100 * m_figures.barrier_share.value() << "% at barriers\n";
    if (host_pool) {
        std::uint64_t local = 0, active = 0;
        for (const sm::sm* s : all_sms()) {
            local += s->local_cycles();
            active += s->active_cycles();
        }
        os << "  host threads: " << host_pool->threads() << "; " << local << " local SM cycles ("
           << 100.0 * static_cast<double>(local) /
                  static_cast<double>(std::max<std::uint64_t>(active, 1))
           << "% of the active ones), in " << sm_order->batches() << " batches of "
           << static_cast<double>(sm_order->batched_runs()) /
                  static_cast<double>(std::max<std::uint64_t>(sm_order->batches(), 1))
           << " SMs on average\n";
    }
    if (const auto* pf = host.part<vgpu::host::printf_part>()) // nothing lost silently
        for (const std::string& w : pf->warnings())
            os << "  warning: " << w << "\n";
    os.flags(flags);
    os.precision(precision);
}

std::string gpu_platform::bound_by() const
{
    const std::pair<double, const char*> shares[] = {
        {m_figures.issue_share.value(), "issue"},
        {m_figures.memory_share.value(), "memory"},
        {m_figures.alu_share.value(), "alu latency"},
        {m_figures.barrier_share.value(), "barriers"},
    };
    const auto largest = std::max_element(std::begin(shares), std::end(shares));
    // A memory-side resource saturated over the kernels' time bounds the run, however the SM
    // cycles split (the window rule, over the span from the first phase to the last).
    const auto& phases = host.phases();
    if (!phases.empty() && phases.front().start_mark >= 0 && phases.back().ended &&
        phases.back().end_mark >= 0) {
        const std::vector<bool> sms(all_sms().size(), true);
        const window_figures f =
            compute_figures(deltas(phases.front().start_mark, phases.back().end_mark, sms,
                                   phases.back().end - phases.front().start));
        if (f.busiest_busy_share >= saturated_busy_share && f.busiest_busy_share > largest->first)
            return "memory";
    }
    return largest->second;
}

std::string gpu_platform::progress() const
{
    const std::string cpu = host.cpu() ? host.cpu()->state() + "; " : "";
    if (host.runs().empty())
        return cpu + "the host driver had launched no kernel yet";
    std::string out = cpu;
    for (const auto& r : host.runs()) {
        if (r.ended)
            continue;
        const int k = m_workload.kernel_index(r.name);
        const std::uint64_t ctas =
            k < 0 ? 0
                  : std::uint64_t{m_workload.kernels[static_cast<std::size_t>(k)].grid_x} *
                        m_workload.kernels[static_cast<std::size_t>(k)].grid_y;
        const auto reg = [&](std::uint64_t off) {
            return cp.regs().get(cp::reg::queue(r.queue, off));
        };
        out += std::string(out.empty() ? "" : "; ") + "kernel '" + r.name + "' (phase " +
               std::to_string(r.phase) +
               (m_workload.loop_of(r.phase) ? " pass " + std::to_string(r.pass) : "") +
               ") had finished " + std::to_string(reg(cp::reg::CTAS_DONE)) + " of " +
               std::to_string(ctas) + " CTAs (" + std::to_string(reg(cp::reg::CTAS_DISPATCHED)) +
               " dispatched)";
    }
    return out == cpu
               ? cpu + "every kernel launched so far had finished, but the host driver had not"
               : out;
}

} // namespace vgpu::platforms
