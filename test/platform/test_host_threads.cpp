// platform.host_threads is a simulator detail: every shipped workload and CUDA application gives
// the same stats.json (stats, kernels and phases, byte for byte; meta holds host times and the
// configuration's hash) on 1, 2, 4 and 16 host threads. See docs/architecture.md ("Parallel
// simulation").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
/// The parts of stats.json that must not depend on the host, serialised.
std::string results(const cli_runner& r, const std::string& out)
{
    const nlohmann::json s = nlohmann::json::parse(r.read(out + "/stats.json"));
    return s.at("stats").dump() + "\n" + s.at("kernels").dump() + "\n" + s.at("phases").dump();
}

/// The local SM cycles the run summary of a run on several threads gives (-1: no such line).
double local_share(const std::string& out)
{
    const std::string key = "host threads: ";
    const auto at = out.find(key);
    if (at == std::string::npos)
        return -1.0;
    const auto semi = out.find("; ", at);
    return semi == std::string::npos ? -1.0 : std::stod(out.substr(semi + 2));
}

/// Runs `workload` (a path) with `args` on 1 host thread and on each of `threads`: the results
/// are the same, and the runs on several threads ran local cycles (their summary's count of
/// local SM cycles is above 0).
void same_on_threads(const std::string& workload, const std::string& args,
                     const std::vector<unsigned>& threads)
{
    const std::string name = std::filesystem::path(workload).stem().string();
    cli_runner r("host_threads_" + name);
    const auto one = r.run("-w '" + workload + "' " + args + " -o t1");
    INFO(name << ": " << one.out << one.err);
    REQUIRE(one.code == 0);
    const std::string base = results(r, "t1");
    CHECK(local_share(one.out) == -1.0); // one thread: no batches, no such line
    for (const unsigned t : threads) {
        const std::string out = "t" + std::to_string(t);
        const auto res = r.run("-w '" + workload + "' " + args +
                               " -s platform.host_threads=" + std::to_string(t) + " -o " + out);
        INFO(name << " on " << t << " host threads: " << res.out << res.err);
        REQUIRE(res.code == 0);
        CHECK(results(r, out) == base);
        CHECK(local_share(res.out) > 0.0);
    }
}

std::vector<std::string> yaml_files(const std::string& dir)
{
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".yaml")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}
} // namespace

TEST_CASE("host_threads: every shipped workload gives the same results on 1 and 2 threads",
          "[host_threads]")
{
    const auto files = yaml_files(VGPU_SOURCE_DIR "/testbenches/workloads");
    REQUIRE(files.size() >= 20);
    for (const std::string& w : files) // llc_handoff needs modules: on mcm4
        same_on_threads(w,
                        w.find("llc_handoff") == std::string::npos ? ""
                                                                   : "-c '" VGPU_SOURCE_DIR
                                                                     "/platforms/mcm4.yaml'",
                        {2});
}

TEST_CASE("host_threads: every CUDA application gives the same results on 1 and 2 threads",
          "[host_threads]")
{
    const auto files = yaml_files(VGPU_SOURCE_DIR "/testbenches/cuda");
    REQUIRE(files.size() >= 20);
    for (const std::string& w : files)
        same_on_threads(w, "", {2});
}

TEST_CASE("host_threads: the V100 kernels and the multi-module platform on 1, 2, 4 and 16 "
          "threads",
          "[host_threads]")
{
    const std::string v100 = "-c '" VGPU_SOURCE_DIR "/platforms/v100.yaml'";
    const std::string dir = VGPU_SOURCE_DIR "/testbenches/workloads/";
    same_on_threads(dir + "ffma_chain.yaml", v100 + " -D ctas=160 -D n=40960", {2, 4, 16});
    same_on_threads(dir + "vector_add.yaml", v100, {2, 4, 16});
    same_on_threads(dir + "matmul.yaml", "-c '" VGPU_SOURCE_DIR "/platforms/mcm4.yaml'",
                    {2, 4, 16});
    same_on_threads(dir + "reduction.yaml", "", {4, 16});
}

TEST_CASE("host_threads: accurate mode warns that the setting does nothing", "[host_threads]")
{
    cli_runner r("host_threads_accurate");
    const auto res = r.run("-w '" VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml' -s "
                           "platform.timing.mode=accurate -s platform.host_threads=2 -o out");
    INFO(res.out << res.err);
    REQUIRE(res.code == 0);
    CHECK(res.err.find("platform.host_threads") != std::string::npos);
}

TEST_CASE("host_threads: out of range is refused", "[host_threads]")
{
    cli_runner r("host_threads_range");
    for (const char* v : {"0", "257", "two"}) {
        const auto res = r.run("-s platform.host_threads=" + std::string(v) + " -o out");
        INFO(v << ": " << res.out << res.err);
        CHECK(res.code == 2);
        CHECK(res.err.find("platform.host_threads") != std::string::npos);
    }
}
