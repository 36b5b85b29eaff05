// The GPU platform's window snapshots: the statistics at each window mark, and their changes
// over a kernel's or phase's window. See docs/outputs.md.
#include "platforms/gpu_platform.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace vgpu::platforms {

std::vector<const sm::sm*> gpu_platform::all_sms() const
{
    std::vector<const sm::sm*> v;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& s : cl->sms)
                v.push_back(s.get());
    return v;
}

std::vector<const l1::l1*> gpu_platform::all_l1s() const
{
    std::vector<const l1::l1*> v;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& l : cl->l1s)
                v.push_back(l.get());
    return v;
}

std::vector<bool> gpu_platform::sm_set(unsigned first, unsigned count) const
{
    std::vector<bool> set(all_sms().size(), false);
    for (unsigned i = first; i < first + count && i < set.size(); ++i)
        set[i] = true;
    return set;
}

int gpu_platform::take_mark()
{
    std::vector<double> values;
    if (stats::layout_version() == m_layout_version) { // the same statistics: no names needed
        values = stats::collect_values();
    } else {
        std::vector<stats::number> numbers = stats::collect_numbers();
        m_layout.resize(numbers.size());
        values.resize(numbers.size());
        for (std::size_t k = 0; k < numbers.size(); ++k) {
            const auto [it, added] = m_mark_index.try_emplace(numbers[k].name, m_mark_names.size());
            if (added)
                m_mark_names.push_back(std::move(numbers[k].name));
            m_layout[k] = it->second;
            values[k] = numbers[k].value;
        }
        m_layout_version = stats::layout_version();
    }
    snapshot snap(m_mark_names.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = values.size(); k-- > 0;) // of entries with one name, the first wins
        snap[m_layout[k]] = values[k];
    m_marks.push_back(std::move(snap));
    m_mark_host_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
    return static_cast<int>(m_marks.size() - 1);
}

window_deltas gpu_platform::deltas(int start_mark, int end_mark, const std::vector<bool>& sms,
                                   sc_core::sc_time window) const
{
    const snapshot& a = m_marks.at(static_cast<std::size_t>(start_mark));
    const snapshot& b = m_marks.at(static_cast<std::size_t>(end_mark));
    // A statistic not collected at a mark counts as 0 there.
    auto at = [](const snapshot& s, std::size_t i) {
        return i < s.size() && !std::isnan(s[i]) ? s[i] : 0.0;
    };
    auto delta = [&](const std::string& name) {
        const auto it = m_mark_index.find(name);
        return it == m_mark_index.end() ? 0.0 : at(b, it->second) - at(a, it->second);
    };
    window_deltas d;
    d.window_ps = static_cast<double>(window.value());
    d.core_ps = static_cast<double>(m_cfg.platform.clocks.core.ps);
    const auto sm_list = all_sms();
    const auto l1_list = all_l1s();
    for (std::size_t i = 0; i < sm_list.size(); ++i) {
        if (!sms[i])
            continue;
        const std::string sm = sm_list[i]->name(), l1 = l1_list[i]->name();
        ++d.sms;
        const double active = delta(sm + ".active_cycles");
        d.sms_active += active > 0;
        d.active_cycles += active;
        d.instructions += delta(sm + ".instructions");
        d.line_requests += delta(sm + ".mem_requests");
        d.stall_memory += delta(sm + ".stall_memory");
        d.stall_scoreboard += delta(sm + ".stall_scoreboard");
        d.stall_barrier += delta(sm + ".stall_barrier");
        d.issue_cycles += delta(sm + ".issue_cycles");
        d.stall_structural += delta(sm + ".stall_structural");
        d.l1_hits += delta(l1 + ".hits");
        d.l1_misses += delta(l1 + ".misses");
        d.l1_merges += delta(l1 + ".mshr_merges");
    }
    for (const auto& mod : modules) {
        for (const auto& l : mod->llcs) {
            const std::string n = l->name();
            d.llc_hits += delta(n + ".hits");
            d.llc_misses += delta(n + ".misses");
            d.llc_merges += delta(n + ".mshr_merges");
        }
        const std::string dr = mod->dram.name();
        d.dram_read_bytes += delta(dr + ".bytes_read");
        d.dram_write_bytes += delta(dr + ".bytes_written");
    }
    d.dram_peak_bytes_per_ps =
        m_cfg.dram.bandwidth_gbps / 1000.0 * m_cfg.dram.channels * m_cfg.platform.modules;
    for (const auto& l : links)
        d.link_bytes += delta(std::string(l->name()) + ".bytes");
    // Every shared resource (crossbar and NoC ports, links, LLC banks, DRAM channels) is on
    // the memory side and reports its occupied time as `<path>.busy_ps`.
    static const std::string suffix = ".busy_ps";
    for (std::size_t i = 0; i < b.size(); ++i) {
        const std::string& name = m_mark_names[i];
        if (std::isnan(b[i]) || name.size() <= suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const double busy = b[i] - at(a, i);
        if (busy > d.busiest_busy_ps || (busy == d.busiest_busy_ps && name < d.busiest)) {
            d.busiest_busy_ps = busy;
            d.busiest = name.substr(0, name.size() - suffix.size());
        }
    }
    return d;
}

} // namespace vgpu::platforms
