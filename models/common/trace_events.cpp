// Chrome/Perfetto trace-event recorder. See docs/outputs.md.
#include "models/common/trace_events.h"

#include <map>
#include <nlohmann/json.hpp>

namespace vgpu::trace {

recorder& recorder::instance()
{
    static recorder r;
    return r;
}

void recorder::span(const std::string& process, const std::string& thread, const std::string& name,
                    std::uint64_t begin_ps, std::uint64_t end_ps)
{
    if (m_on)
        m_events.push_back({process, thread, name, begin_ps, end_ps, false});
}

void recorder::instant(const std::string& process, const std::string& thread,
                       const std::string& name, std::uint64_t at_ps)
{
    if (m_on)
        m_events.push_back({process, thread, name, at_ps, at_ps, true});
}

std::string recorder::to_json() const
{
    // Processes and threads get small integer ids in order of first appearance, plus metadata
    // events carrying their names so Perfetto shows "gpu.m0.c0.sm1 / warp 3".
    std::map<std::string, int> pids;
    std::map<std::pair<int, std::string>, int> tids;
    nlohmann::json events = nlohmann::json::array();
    auto pid_of = [&](const std::string& p) {
        auto [it, added] = pids.emplace(p, static_cast<int>(pids.size()) + 1);
        if (added)
            events.push_back({{"ph", "M"},
                              {"name", "process_name"},
                              {"pid", it->second},
                              {"args", {{"name", p}}}});
        return it->second;
    };
    auto tid_of = [&](int pid, const std::string& t) {
        auto [it, added] = tids.emplace(std::make_pair(pid, t), static_cast<int>(tids.size()) + 1);
        if (added)
            events.push_back({{"ph", "M"},
                              {"name", "thread_name"},
                              {"pid", pid},
                              {"tid", it->second},
                              {"args", {{"name", t}}}});
        return it->second;
    };
    for (const auto& e : m_events) {
        int pid = pid_of(e.process);
        int tid = tid_of(pid, e.thread);
        nlohmann::json j = {{"name", e.name},
                            {"pid", pid},
                            {"tid", tid},
                            {"ts", static_cast<double>(e.begin_ps) / 1e6}};
        if (e.instant) {
            j["ph"] = "i";
            j["s"] = "t";
        } else {
            j["ph"] = "X";
            j["dur"] = static_cast<double>(e.end_ps - e.begin_ps) / 1e6;
        }
        events.push_back(std::move(j));
    }
    return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

} // namespace vgpu::trace
