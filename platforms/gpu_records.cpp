// The GPU platform's records: one per kernel and per phase, each with the figures of its own
// window (stats.json `kernels` and `phases`). See docs/outputs.md.
#include "platforms/gpu_platform.h"

#include <string>

namespace vgpu::platforms {

nlohmann::json gpu_platform::record(const std::string& name, int start_mark, int end_mark,
                                    const std::vector<bool>& sms, sc_core::sc_time start,
                                    sc_core::sc_time end, bool ended) const
{
    nlohmann::json r;
    r["name"] = name;
    unsigned count = 0;
    for (bool b : sms)
        count += b;
    r["sms"] = count;
    r["start_ns"] = static_cast<double>(start.value()) / 1000.0;
    r["completed"] = ended;
    if (!ended || start_mark < 0 || end_mark < 0) {
        r["end_ns"] = nullptr; // cut off before its interrupt: no window to measure
        return r;
    }
    r["end_ns"] = static_cast<double>(end.value()) / 1000.0;
    to_json(r, compute_figures(deltas(start_mark, end_mark, sms, end - start)));
    return r;
}

double gpu_platform::kernel_host_seconds() const
{
    double s = 0;
    for (const auto& ph : host.phases())
        if (ph.start_mark >= 0 && ph.end_mark >= 0)
            s += m_mark_host_seconds.at(static_cast<std::size_t>(ph.end_mark)) -
                 m_mark_host_seconds.at(static_cast<std::size_t>(ph.start_mark));
    return s;
}

std::optional<sim_counts> gpu_platform::run_counts() const
{
    sim_counts c;
    c.warp_instructions = m_figures.instructions.value();
    c.line_requests = m_figures.mem_requests.value();
    return c;
}

std::optional<sim_counts> gpu_platform::kernel_counts() const
{
    // The phases' windows, as kernel_host_seconds() sums them, over every SM.
    const std::vector<bool> sms(all_sms().size(), true);
    sim_counts c;
    for (const auto& ph : host.phases()) {
        if (ph.start_mark < 0 || ph.end_mark < 0)
            continue;
        const window_deltas d = deltas(ph.start_mark, ph.end_mark, sms, ph.end - ph.start);
        c.warp_instructions += d.instructions;
        c.line_requests += d.line_requests;
        c.cycles += d.window_ps / d.core_ps;
    }
    return c;
}

nlohmann::json gpu_platform::records() const
{
    nlohmann::json kernels = nlohmann::json::array(), phases = nlohmann::json::array();
    const auto& runs = host.runs();
    for (const auto& k : runs) {
        nlohmann::json r = record(k.name, k.start_mark, k.end_mark, sm_set(k.sm_first, k.sm_count),
                                  k.start, k.end, k.ended);
        r["queue"] = k.queue;
        r["phase"] = k.phase;
        r["pass"] = k.pass;
        r["ok"] = k.ok;
        if (k.kernel < m_workload.kernels.size()) {
            const host::kernel_decl& d = m_workload.kernels[k.kernel];
            const auto occ =
                host::kernel_occupancy(d, m_cfg.sm.resources(), m_cfg.sm.regs_per_thread);
            r["registers"] = d.registers != 0 ? d.registers : m_cfg.sm.regs_per_thread;
            r["shared_bytes"] = d.shared_bytes;
            r["ctas_per_sm"] = occ.ctas_per_sm;
            r["occupancy_limit"] = occ.limit;
        }
        kernels.push_back(std::move(r));
    }
    for (const auto& ph : host.phases()) {
        std::vector<bool> sms(all_sms().size(), false);
        std::string name;
        for (std::size_t i : ph.kernels) {
            const auto set = sm_set(runs[i].sm_first, runs[i].sm_count);
            for (std::size_t s = 0; s < sms.size(); ++s)
                sms[s] = sms[s] || set[s];
            name += (name.empty() ? "" : "+") + runs[i].name;
        }
        nlohmann::json r =
            record(name, ph.start_mark, ph.end_mark, sms, ph.start, ph.end, ph.ended);
        r["phase"] = ph.index;
        r["pass"] = ph.pass;
        r["kernels"] = ph.kernels.size();
        phases.push_back(std::move(r));
    }
    return {{"kernels", kernels}, {"phases", phases}};
}

} // namespace vgpu::platforms
