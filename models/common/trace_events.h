// Chrome/Perfetto trace-event recorder (`--trace` writes trace.json): models report spans and
// instants on named tracks; nothing is recorded unless the platform enabled it.
// See docs/outputs.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::trace {

/// One recorded event (times in picoseconds of simulated time).
struct event {
    std::string process; ///< group of tracks, e.g. "gpu.m0.c0.sm1" or "kernels"
    std::string thread;  ///< track within the group, e.g. "warp 3"
    std::string name;    ///< what happened, e.g. "BAR" or "cta (1,0)"
    std::uint64_t begin_ps;
    std::uint64_t end_ps; ///< == begin_ps for an instant
    bool instant;
};

/// Collects events for the whole run (one simulation per process, like SystemC itself).
class recorder {
public:
    static recorder& instance();
    void enable(bool on) { m_on = on; }
    bool enabled() const { return m_on; } ///< test before building strings on hot paths
    void span(const std::string& process, const std::string& thread, const std::string& name,
              std::uint64_t begin_ps, std::uint64_t end_ps);
    void instant(const std::string& process, const std::string& thread, const std::string& name,
                 std::uint64_t at_ps);
    /// The Chrome trace-event JSON document ({"traceEvents": [...]}, times in microseconds).
    std::string to_json() const;
    std::size_t size() const { return m_events.size(); }

private:
    bool m_on = false;
    std::vector<event> m_events;
};

} // namespace vgpu::trace
