// What the runner asks of a built platform (finished, failures, summary, records, files), and
// the options and errors of building one. See docs/architecture.md.
#pragma once

#include "platforms/attach/attachment.h"
#include "platforms/outputs.h"
#include "platforms/vgpu_config.h"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

namespace vgpu::host {
struct workload;
}

namespace vgpu::platforms {

/// Options of a run that are not part of the configuration.
struct run_options {
    bool trace = false;         ///< record trace events (Chrome/Perfetto)
    config::provenance sources; ///< where parameters were set (locates workload.vars errors)
    /// Blocks the gpu platform holds after those of its block table: none in vgpu-sim; a test
    /// front end adds one (test/platform/broken_link_sim.cpp: a block that breaks a link).
    std::vector<attach::block_maker> extra_blocks;
};

/// A built platform: the top module plus what the runner asks of it.
class platform {
public:
    virtual ~platform() = default;
    /// True when the workload completed (every initiator finished).
    virtual bool finished() const = 0;
    /// Problems found by scoreboards and checkers; empty on success.
    virtual std::vector<std::string> failures() const = 0;
    /// A few lines for the terminal.
    virtual void summary(std::ostream& os) const = 0;
    /// What was still under way when the run stopped unfinished (e.g. which kernels ran and
    /// how many of their CTAs were done), for the failure message; "" when nothing is known.
    virtual std::string progress() const { return ""; }
    /// Top-level records for stats.json besides meta and stats (e.g. `kernels`, `phases`).
    virtual nlohmann::json records() const { return nlohmann::json::object(); }
    /// Host seconds spent inside the kernels' windows (the phases), or a negative value when
    /// the platform has no kernel windows.
    virtual double kernel_host_seconds() const { return -1; }
    /// The whole run's warp-instructions and line requests (cycles: left 0, the runner has the
    /// simulated time), or nothing on a platform without SMs.
    virtual std::optional<sim_counts> run_counts() const { return std::nullopt; }
    /// The counts of the kernels' windows (the windows kernel_host_seconds() covers), or
    /// nothing when the platform has no kernel windows.
    virtual std::optional<sim_counts> kernel_counts() const { return std::nullopt; }
    /// The workload being run (its text as used, name, vars), or nullptr.
    virtual const host::workload* workload() const { return nullptr; }
    /// Further output files (name in OUTDIR -> contents), after the run.
    virtual std::map<std::string, std::vector<std::uint8_t>> files() const { return {}; }
    /// Registers the platform's signals with a waveform (`--vcd`); before sc_start().
    virtual void trace(sc_core::sc_trace_file* tf) const { (void)tf; }
};

/// A workload or combination that cannot be built; each message is one complete error line.
class build_error : public std::runtime_error {
public:
    explicit build_error(const std::string& message)
        : std::runtime_error(message), messages{"vgpu-sim: error: " + message}
    {
    }
    explicit build_error(std::vector<std::string> lines)
        : std::runtime_error(lines.empty() ? "" : lines.front()), messages(std::move(lines))
    {
    }
    std::vector<std::string> messages; ///< printed one per line
};

} // namespace vgpu::platforms
