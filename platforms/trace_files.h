// The optional trace outputs of a run: trace.vcd (`--vcd`) and trace.json (`--trace`), created
// before the simulation and completed after it. See docs/outputs.md.
#pragma once

#include "platforms/vcd_writer.h"

#include <fstream>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

namespace vgpu::platforms {

/// Opens the trace files a run asks for and reports any that cannot be written completely.
class trace_files {
public:
    /// Creates `dir`/trace.json if `json` and `dir`/trace.vcd if `vcd` (the folder must exist).
    trace_files(const std::string& dir, bool json, bool vcd);

    /// Empty, or "cannot create '<file>': <reason>" for the first file that could not be made.
    const std::string& error() const { return m_error; }
    /// The waveform to register signals with before sc_start(), or nullptr without `--vcd`.
    sc_core::sc_trace_file* waveform() const { return m_wave.get(); }
    /// After the simulation: completes trace.vcd and writes trace.json from the trace-event
    /// recorder. Returns one message per file that could not be written
    /// ("cannot write '<file>': <reason>").
    std::vector<std::string> finish();

private:
    std::string m_json_file, m_error;
    std::ofstream m_json;
    std::unique_ptr<vcd_writer> m_wave;
};

} // namespace vgpu::platforms
