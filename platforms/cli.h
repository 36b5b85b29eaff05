// vgpu-sim's command line: options parsed and the configuration loaded, before any platform is
// built (no SystemC). See README.md and docs/configuration.md.
#pragma once

#include "models/common/config.h"
#include "platforms/vgpu_config.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace vgpu::platforms {

constexpr int exit_ok = 0;          ///< the run passed (or help, version, a listing was printed)
constexpr int exit_sim_failure = 1; ///< the simulation failed or an output could not be written
constexpr int exit_usage = 2;       ///< bad command line or configuration; nothing simulated

/// The first line of an effective configuration as vgpu-sim writes it (OUTDIR/config.yaml,
/// --dump-config). In a `-c` file that opens with it, a key set to its default value does not
/// count as set by the user for the warnings of settings without effect, so the record reruns
/// without warnings; a key whose value differs from the default (an edit, or a setting of the
/// original run) counts, as does every `-s` (docs/outputs.md).
inline constexpr const char* saved_config_marker = "# vgpu-sim effective configuration";

/// `yaml` (config::to_yaml of a configuration) as vgpu-sim writes an effective configuration:
/// saved_config_marker's line first.
std::string saved_config_text(const std::string& yaml);

/// Records the values a run uses where they differ from the ones set (accurate mode's quantum),
/// so that the effective configuration reloads to the same run.
void record_effective(vgpu_config& cfg);

/// What the command line asks for, with the configuration it loaded.
struct command_line {
    /// >= 0: the run is over with this exit code (help, --version, --list-params, --dump-config,
    /// usage or configuration errors); -1: build the platform and simulate.
    int exit_code = -1;
    vgpu_config cfg;            ///< the effective configuration
    config::provenance sources; ///< where each parameter set by a layer was set
    std::string effective;      ///< cfg as YAML (the effective configuration)
    std::string outdir = "out"; ///< output folder (-o)
    bool trace = false;         ///< write trace.json (--trace)
    bool vcd = false;           ///< write trace.vcd (--vcd)
    bool check = false;         ///< build the platform (workload included), then exit (--check)
};

/// Parses argv and loads the configuration layers in command-line order; help, listings and
/// errors go to out and err as vgpu-sim prints them.
command_line parse_command_line(int argc, const char* const* argv, std::ostream& out,
                                std::ostream& err);

} // namespace vgpu::platforms
