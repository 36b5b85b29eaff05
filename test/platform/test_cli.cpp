// vgpu-sim as users run it: default run, outputs, dump/reload, determinism, docs freshness,
// and simulation failures with exit code 1. See README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

using vgpu::test::cli_runner;

namespace {
nlohmann::json stats_without_host_time(const cli_runner& cli, const std::string& dir)
{
    auto j = nlohmann::json::parse(cli.read(dir + "/stats.json"));
    j["meta"].erase("host_seconds");
    return j;
}
} // namespace

TEST_CASE("no arguments: the default platform runs, passes and writes its outputs")
{
    cli_runner cli("default");
    auto r = cli.run("");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("verdict: pass") != std::string::npos);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    for (const char* key : {"version", "git_hash", "config_hash", "seed", "sim_time_ns",
                            "sim_cycles", "host_seconds", "timing_mode", "verdict"})
        CHECK(j["meta"].contains(key));
    CHECK(j["meta"]["verdict"] == "pass");
    CHECK(j["stats"]["gpu.host.checks_failed"] == 0);
    CHECK(j["stats"]["gpu.host.checks_passed"].get<int>() >= 1);
    CHECK(j["stats"]["gpu.m0.c0.sm0.instructions"].get<long>() > 0);
    CHECK(cli.read("out/stats.txt").find("gpu.m0.c1.sm7_l1.hits") != std::string::npos);
    CHECK(cli.read("out/config.yaml").find("kind: gpu") != std::string::npos);
}

TEST_CASE("the traffic platform runs its self-checking generators")
{
    cli_runner cli("traffic");
    auto r = cli.run("-c " VGPU_SOURCE_DIR "/platforms/traffic.yaml");
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(j["stats"]["traffic.tg0.mismatches"] == 0);
    CHECK(j["stats"]["traffic.tg0.reads"].get<int>() +
              j["stats"]["traffic.tg0.writes"].get<int>() ==
          50000);
}

TEST_CASE("the trace option writes Chrome trace events with kernels, CTAs, warps and barriers")
{
    cli_runner cli("trace");
    auto r = cli.run("--trace");
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(cli.read("out/trace.json"));
    std::set<std::string> names;
    for (const auto& e : j["traceEvents"])
        if (e["ph"] == "M")
            names.insert(e["args"].value("name", std::string()));
        else
            names.insert(e["name"].get<std::string>().substr(0, 3));
    CHECK(names.count("kernels") == 1);
    CHECK(names.count("gpu.m0.c0.sm0") == 1);
    CHECK(names.count("warp 0") == 1);
    CHECK(names.count("BAR") == 1);
}

TEST_CASE("the dumped configuration reloads to itself, and later layers win")
{
    cli_runner cli("dump");
    cli.write("a.yaml", "platform:\n  modules: 2\n");
    cli.write("b.yaml", "platform:\n  modules: 3\n");
    auto first = cli.run("-c a.yaml -s platform.seed=7 -c b.yaml --dump-config");
    REQUIRE(first.code == 0);
    CHECK(first.out.find("modules: 3") != std::string::npos);
    CHECK(first.out.find("seed: 7") != std::string::npos);
    auto over = cli.run("-c b.yaml -s platform.modules=4 --dump-config");
    CHECK(over.out.find("modules: 4") != std::string::npos);
    auto back = cli.run("-c b.yaml -c a.yaml --dump-config");
    CHECK(back.out.find("modules: 2") != std::string::npos);
    cli.write("dumped.yaml", first.out);
    auto again = cli.run("-c dumped.yaml --dump-config");
    REQUIRE(again.code == 0);
    CHECK(again.out == first.out);
}

TEST_CASE("the same configuration and seed give identical stats.json (minus host time)")
{
    cli_runner cli("determinism");
    const std::string args = " -c " VGPU_SOURCE_DIR "/platforms/traffic.yaml"
                             " -s traffic.transactions=3000 -s traffic.generators=3 --seed 42";
    REQUIRE(cli.run("-o one" + args).code == 0);
    REQUIRE(cli.run("-o two" + args).code == 0);
    REQUIRE(cli.run("-o three -c " VGPU_SOURCE_DIR "/platforms/traffic.yaml"
                    " -s traffic.transactions=3000 -s traffic.generators=3 --seed 43")
                .code == 0);
    CHECK(stats_without_host_time(cli, "one") == stats_without_host_time(cli, "two"));
    CHECK(stats_without_host_time(cli, "one") != stats_without_host_time(cli, "three"));
}

TEST_CASE("the GPU platform is deterministic: same seed, identical stats.json")
{
    cli_runner cli("gpu_determinism");
    const std::string args = " -w " VGPU_SOURCE_DIR "/testbenches/workloads/random_gather.yaml"
                             " -s platform.timing.mode=accurate";
    REQUIRE(cli.run("-o one" + args).code == 0);
    REQUIRE(cli.run("-o two" + args).code == 0);
    CHECK(stats_without_host_time(cli, "one") == stats_without_host_time(cli, "two"));
}

TEST_CASE("lock-step and fast runs give the same data and differ only in timing detail")
{
    cli_runner cli("modes");
    const std::string args = " -c " VGPU_SOURCE_DIR "/platforms/traffic.yaml"
                             " -s traffic.transactions=2000 -s dram.dmi=false";
    REQUIRE(cli.run("-o fast" + args).code == 0);
    REQUIRE(cli.run("-o lock" + args + " -s platform.timing.quantum_ns=0").code == 0);
    auto f = stats_without_host_time(cli, "fast"), l = stats_without_host_time(cli, "lock");
    CHECK(f["stats"]["traffic.tg1.reads"] == l["stats"]["traffic.tg1.reads"]);
    CHECK(f["stats"]["traffic.mem0.bytes"] == l["stats"]["traffic.mem0.bytes"]);
    CHECK(l["stats"]["traffic.tg1.mismatches"] == 0);
}

TEST_CASE("a run that cannot finish within max_time fails with exit code 1")
{
    cli_runner cli("timeout");
    auto r = cli.run("-s platform.max_time=\"10 us\"");
    CHECK(r.code == 1);
    CHECK(r.err.find(
              "vgpu-sim: FAIL: the workload did not finish within platform.max_time (10 us)") !=
          std::string::npos);
    CHECK(nlohmann::json::parse(cli.read("out/stats.json"))["meta"]["verdict"] == "fail");
}

TEST_CASE("the parameter list (vgpu-sim --list-params) matches docs/configuration.md; run "
          "scripts/gen-docs when it fails")
{
    cli_runner cli("docs");
    auto r = cli.run("--list-params");
    REQUIRE(r.code == 0);
    std::ifstream in(VGPU_SOURCE_DIR "/docs/configuration.md");
    std::stringstream doc;
    doc << in.rdbuf();
    CHECK(r.out == doc.str());
}

TEST_CASE("help and version options print and exit 0")
{
    cli_runner cli("help");
    auto h = cli.run("--help");
    CHECK(h.code == 0);
    CHECK(h.out.find("--list-params") != std::string::npos);
    auto v = cli.run("--version");
    CHECK(v.code == 0);
    CHECK(v.out.rfind("vgpu-sim ", 0) == 0);
}

namespace {
/// A one-kernel workload around `program` (64 threads, buffer `a` of 64 words).
std::string one_kernel(const std::string& program)
{
    return "name: failing\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n"
           "  - name: k\n    params:\n      - {name: a, buffer: a}\n    grid: 1\n    block: 64\n"
           "    program: |\n      # k\n" +
           program;
}
} // namespace

TEST_CASE("a kernel fault fails the run with exit code 1 and names SM, warp, PC and source line")
{
    cli_runner cli("fault");
    cli.write("w.yaml", one_kernel("              LDP R1, a\n              IADD R1, R1, 2\n"
                                   "              ST [R1 + 0], R1\n              EXIT\n"));
    auto r = cli.run("-w w.yaml");
    CHECK(r.code == 1);
    CHECK(r.err.find("vgpu-sim: FAIL: kernel 'k' (phase 0, queue 0) failed: CTA fault on SM 0, "
                     "warp 0, PC 2 (w.yaml:14): misaligned address 0x10000002 in lane 0") !=
          std::string::npos);
    CHECK(r.out.find("verdict: fail") != std::string::npos);
}

TEST_CASE("a barrier that can never complete is reported with what each warp waits on")
{
    cli_runner cli("deadlock");
    // Warp 1 (threads 32..63) exits; warp 0 waits at BAR for it forever.
    cli.write("w.yaml", one_kernel("              S2R R0, SR_TID_X\n"
                                   "              ISETP.GE P0, R0, 32\n"
                                   "      @P0     EXIT\n"
                                   "              BAR\n"
                                   "              EXIT\n"));
    auto r = cli.run("-w w.yaml");
    CHECK(r.code == 1);
    CHECK(r.err.find("warp 0 at pc 3: BAR (1 of 2 warps arrived); warp 1: exited") !=
          std::string::npos);
}

TEST_CASE("a CTA running past sm.max_cta_cycles is stopped with a per-warp report")
{
    cli_runner cli("limit");
    cli.write("w.yaml", one_kernel("      spin:   BRA spin\n"));
    auto r = cli.run("-w w.yaml -s sm.max_cta_cycles=5000");
    CHECK(r.code == 1);
    CHECK(r.err.find("max_cta_cycles") != std::string::npos);
    CHECK(r.err.find("warp 0") != std::string::npos);
}
