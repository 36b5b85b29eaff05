// Run outputs: stats.json, stats.txt and the effective config.yaml in the output folder.
// See docs/outputs.md.
#pragma once

#include "models/common/config.h"
#include "models/common/stats.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::platforms {

/// What a stretch of a run simulated: the counts that its rates per host second divide
/// (stats.json meta; docs/outputs.md, "Rates per host second").
struct sim_counts {
    double warp_instructions = 0; ///< warp-instructions issued by all SMs (gpu.instructions)
    double line_requests = 0;     ///< the SMs' line requests (gpu.mem_requests)
    double cycles = 0;            ///< simulated time in core clock cycles
};

/// Facts about a run that go into stats.json's "meta".
struct run_meta {
    std::string effective_config; ///< YAML text; hashed into config_hash
    std::uint64_t seed = 0;
    std::uint64_t sim_time_ps = 0;
    std::uint64_t core_period_ps = 1;
    double host_seconds = 0;         ///< the simulation (sc_start), host seconds
    double kernel_host_seconds = -1; ///< of that, inside the phases' windows (< 0: none)
    /// The run's warp-instructions and line requests (cycles: sim_time_ps / core_period_ps);
    /// nothing without SMs.
    std::optional<sim_counts> run_counts;
    std::optional<sim_counts> kernel_counts; ///< of the phases' windows; nothing without them
    std::string mode;
    std::string verdict;
    std::string workload;      ///< the workload's name ("" without one)
    std::string workload_text; ///< the workload as used (workload.yaml); hashed into workload_hash
};

/// The rates per host second of a run (its keys at the top level) and of its kernels' windows
/// (`kernel_windows`): warp_instructions_per_host_second, line_requests_per_host_second and
/// simulated_cycles_per_host_second, each null when its count or host time is missing.
nlohmann::json host_rates(const run_meta& meta);
/// Those rates as the run summary prints them: a line for the run, one for the kernels' windows.
std::string host_rates_text(const run_meta& meta);

/// Writes the files of one run into a folder (created if needed).
class output_writer {
public:
    explicit output_writer(std::string dir);
    bool ok() const { return m_ok; }
    /// stats.json (meta, stats, and each key of `records`, e.g. kernels and phases),
    /// stats.txt and config.yaml.
    bool write(const run_meta& meta, const std::vector<stats::entry>& stats,
               const nlohmann::json& records = nlohmann::json::object()) const;
    const std::string& dir() const { return m_dir; }
    /// Writes each file (path relative to the folder, subfolders created: kernels/k.ptx);
    /// "" on success, else the path that could not be written.
    std::string write_files(const std::map<std::string, std::string>& files) const;

private:
    std::string m_dir;
    bool m_ok;
};

/// vgpu version and git hash, e.g. "0.1.0 (abc1234)".
std::string version_string();
/// The Markdown configuration reference (docs/configuration.md) from the declarations.
std::string configuration_reference(const config::param_lister& l);
/// FNV-1a 64-bit hash as 16 hex digits.
std::string fnv1a_hex(const std::string& text);

} // namespace vgpu::platforms
