// Shared test support: read a dumped statistic or a trace.json counter of the running
// simulation. Used by the shell tests (test/<block>/); see test/CMakeLists.txt.
#pragma once

#include "models/common/stats.h"
#include "models/common/trace_events.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vgpu::test {

/// Current value of the statistic `name` ("sm.loads"), or `absent` if no such statistic.
inline double stat(const std::string& name, double absent = 0)
{
    for (const auto& e : stats::collect_all())
        if (e.name == name)
            return e.value.get<double>();
    return absent;
}

/// (time in ps, value) of the trace.json counter `name` of process `process`.
inline std::vector<std::pair<std::uint64_t, double>> counter(const std::string& process,
                                                             const std::string& name)
{
    const auto doc = nlohmann::json::parse(trace::recorder::instance().to_json());
    int pid = -1;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == process)
            pid = e["pid"].get<int>();
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "C" && e["pid"] == pid && e["name"] == name)
            out.emplace_back(static_cast<std::uint64_t>(e["ts"].get<double>() * 1e6 + 0.5),
                             e["args"]["value"].get<double>());
    return out;
}

} // namespace vgpu::test
