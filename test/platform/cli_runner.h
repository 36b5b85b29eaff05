// Runs vgpu-sim as a child process in a scratch folder and captures its outputs.
// See test/platform/CMakeLists.txt.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace vgpu::test {

/// What one vgpu-sim run printed and returned.
struct cli_result {
    int code = -1;
    std::string out, err;
};

/// A scratch folder holding input files; vgpu-sim runs inside it.
class cli_runner {
public:
    explicit cli_runner(const std::string& tag)
        : m_dir(std::filesystem::temp_directory_path() /
                ("vgpu_cli_" + tag + "_" + std::to_string(::getpid())))
    {
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir);
    }
    ~cli_runner() { std::filesystem::remove_all(m_dir); }
    void write(const std::string& name, const std::string& text) const
    {
        std::ofstream(m_dir / name) << text;
    }
    std::string read(const std::string& name) const
    {
        std::ifstream in(m_dir / name);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    bool exists(const std::string& name) const { return std::filesystem::exists(m_dir / name); }
    /// The scratch folder (vgpu-sim's working directory).
    const std::filesystem::path& dir() const { return m_dir; }
    const std::filesystem::path& path() const { return m_dir; } ///< the scratch folder
    cli_result run(const std::string& args) const { return run_program(VGPU_SIM_PATH, args); }
    /// Runs `program` (a vgpu-sim front end, e.g. a test's) instead of vgpu-sim.
    cli_result run_program(const std::string& program, const std::string& args) const
    {
        std::string cmd = "cd '" + m_dir.string() + "' && '" + program + "' " + args +
                          " >stdout.txt 2>stderr.txt </dev/null";
        int status = std::system(cmd.c_str());
        cli_result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = read("stdout.txt");
        r.err = read("stderr.txt");
        return r;
    }

private:
    std::filesystem::path m_dir;
};

/// stats.json meta's host-time fields (docs/outputs.md): the only ones that differ between
/// identical runs.
inline const char* const host_time_keys[] = {"host_seconds",
                                             "kernel_host_seconds",
                                             "warp_instructions_per_host_second",
                                             "line_requests_per_host_second",
                                             "simulated_cycles_per_host_second",
                                             "kernel_windows"};

/// Removes the host-time fields from a stats.json's meta.
inline void erase_host_time(nlohmann::json& stats_json)
{
    for (const char* key : host_time_keys)
        stats_json["meta"].erase(key);
}

/// A run of vgpu-sim with `-o out` and the "stats" object of its stats.json (empty when none
/// was written).
struct stats_run {
    cli_result r;
    nlohmann::json stats = nlohmann::json::object();
    /// A statistic's value, or -1 when it is absent.
    double stat(const std::string& name) const
    {
        return stats.contains(name) ? stats[name].get<double>() : -1.0;
    }
};

/// Runs vgpu-sim `args -o out` in cli's folder and reads its statistics.
inline stats_run run_with_stats(const cli_runner& cli, const std::string& args)
{
    stats_run out;
    out.r = cli.run(args + " -o out");
    if (cli.exists("out/stats.json"))
        out.stats = nlohmann::json::parse(cli.read("out/stats.json"))["stats"];
    return out;
}

} // namespace vgpu::test
