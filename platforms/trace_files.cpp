// The optional trace outputs of a run: trace.vcd and trace.json. See docs/outputs.md.
#include "platforms/trace_files.h"

#include "models/common/trace_events.h"

#include <cerrno>
#include <cstring>

namespace vgpu::platforms {

namespace {
std::string reason()
{
    return errno != 0 ? std::strerror(errno) : "write error";
}
} // namespace

trace_files::trace_files(const std::string& dir, bool json, bool vcd)
{
    if (json) {
        m_json_file = dir + "/trace.json";
        errno = 0;
        m_json.open(m_json_file);
        if (!m_json) {
            m_error = "cannot create '" + m_json_file + "': " + reason();
            return;
        }
        // Written as the run goes: the recorder keeps only a chunk of events in memory.
        trace::recorder::instance().stream_to(m_json, [] {
            return sc_core::sc_time_stamp().value(); // the kernel's resolution is 1 ps
        });
    }
    if (vcd) {
        errno = 0;
        m_wave = std::make_unique<vcd_writer>(dir + "/trace.vcd");
        if (!m_wave->ok()) {
            m_error = "cannot create '" + m_wave->file() + "': " + reason();
            m_wave.reset();
        }
    }
}

std::vector<std::string> trace_files::finish()
{
    std::vector<std::string> problems;
    if (m_wave) {
        errno = 0;
        if (!m_wave->close())
            problems.push_back("cannot write '" + m_wave->file() + "': " + reason());
    }
    if (m_json.is_open()) {
        errno = 0;
        bool ok = trace::recorder::instance().finish_stream();
        m_json.close();
        ok = ok && !m_json.fail();
        if (!ok)
            problems.push_back("cannot write '" + m_json_file + "': " + reason());
    }
    return problems;
}

} // namespace vgpu::platforms
