// noc.arbiter_impl in the platform (models/noc/rtl/README.md, "In the platform"): with the
// verilated arbiter behind every NoC port, the shipped barrier-heavy workloads give the
// stats.json of the C++ arbiter (kernel and phase records, every statistic), on the default
// (also with a mesh), mcm4, congested and patents platforms, round_robin and barrier_aware (with
// and without ageing); a vgpu-sim whose RTL has the test-only swapped tie-break
// (VGPU_RTL_BREAK_TIE) does not, so the comparison can fail. And each configuration error of the
// key: its exact message and exit code 2. The reference is the tlm run of the same configuration
// (the C++ core, models/noc/core, written apart from the RTL).
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
const std::string src = VGPU_SOURCE_DIR;
const std::string workloads = src + "/testbenches/workloads/";

/// The first line of stderr.
std::string first_line(const std::string& err)
{
    return err.substr(0, err.find('\n'));
}

#if VGPU_TEST_RTL
/// The parts of stats.json a run's results are in: the kernel and phase records, every
/// statistic and its unit (meta holds the host time and the configuration's hash, which names
/// noc.arbiter_impl).
nlohmann::json results(const cli_runner& cli, const std::string& outdir)
{
    const auto j = nlohmann::json::parse(cli.read(outdir + "/stats.json"));
    return {{"kernels", j.at("kernels")},
            {"phases", j.at("phases")},
            {"stats", j.at("stats")},
            {"units", j.at("units")}};
}

/// "" when a and b are equal, else the first difference (a JSON patch entry from a to b).
std::string difference(const nlohmann::json& a, const nlohmann::json& b)
{
    const nlohmann::json patch = nlohmann::json::diff(a, b);
    return patch.empty()
               ? ""
               : patch.front().dump() + " (" + std::to_string(patch.size()) + " differences)";
}

/// Runs `program` with `args` and noc.arbiter_impl `impl` in accurate mode into `outdir`;
/// the results of a passing run.
nlohmann::json run(const cli_runner& cli, const std::string& program, const std::string& args,
                   const std::string& impl, const std::string& outdir)
{
    const auto r = cli.run_program(program, args + " -s platform.timing.mode=accurate" +
                                                " -s noc.arbiter_impl=" + impl + " -o " + outdir);
    INFO(impl << ": " << args << "\n" << r.err);
    REQUIRE(r.code == 0);
    REQUIRE(r.out.find("verdict: pass") != std::string::npos);
    // The summary names the arbiter the run used.
    CHECK((r.out.find("verilated RTL") != std::string::npos) == (impl == "rtl"));
    return results(cli, outdir);
}

/// The platform configurations each workload runs on: the two shipped shapes with the default
/// policy (round_robin) and barrier_aware, barrier_aware with ageing, a mesh module NoC (its
/// router links hold credits), the congested module with barrier_aware, and the patents
/// platform, which sets barrier_aware itself.
const std::vector<std::string>& configurations()
{
    static const std::vector<std::string> c = {
        "",
        "-s noc.arbiter=barrier_aware",
        "-s noc.arbiter=barrier_aware -s noc.max_wait_cycles=16",
        "-s noc.topology=mesh -s noc.arbiter=barrier_aware",
        "-c " + src + "/platforms/mcm4.yaml",
        "-c " + src + "/platforms/mcm4.yaml -s noc.arbiter=barrier_aware",
        "-c " + src + "/platforms/congested.yaml -s noc.arbiter=barrier_aware",
        "-c " + src + "/platforms/patents.yaml",
    };
    return c;
}

/// tlm and rtl runs of `workload` on every configuration give equal results.
void check_equal(const std::string& workload)
{
    cli_runner cli("noc_rtl_" + workload);
    for (const std::string& c : configurations()) {
        const std::string args = "-w " + workloads + workload + ".yaml " + c;
        CAPTURE(args);
        const auto tlm = run(cli, VGPU_SIM_PATH, args, "tlm", "tlm");
        const auto rtl = run(cli, VGPU_SIM_PATH, args, "rtl", "rtl");
        REQUIRE(!tlm.at("kernels").empty());
        CHECK(difference(tlm, rtl) == "");
    }
}
#endif
} // namespace

#if VGPU_TEST_RTL
TEST_CASE("noc.arbiter_impl rtl gives tlm's records: stencil", "[figures]")
{
    check_equal("stencil");
}

TEST_CASE("noc.arbiter_impl rtl gives tlm's records: reduction", "[figures]")
{
    check_equal("reduction");
}

TEST_CASE("noc.arbiter_impl rtl gives tlm's records: trace_events", "[figures]")
{
    check_equal("trace_events");
}

TEST_CASE("the comparison fails for an RTL with a swapped tie-break, and for an altered record",
          "[figures]")
{
    cli_runner cli("noc_rtl_broken");
    // Ties among the highest barrier counts are frequent (responses carry count 0): the
    // broken RTL gives them to the lowest index instead of round-robin.
    const std::string args = "-w " + workloads + "stencil.yaml -s noc.arbiter=barrier_aware";
    const auto tlm = run(cli, VGPU_SIM_PATH, args, "tlm", "tlm");
    const auto broken = run(cli, VGPU_SIM_RTL_BROKEN_PATH, args, "rtl", "broken");
    CHECK(difference(tlm, broken) != "");
    CHECK(difference(tlm.at("kernels"), broken.at("kernels")) != "");
    // One field of one kernel record changed is found.
    auto altered = tlm;
    altered["kernels"][0]["cycles"] = altered["kernels"][0]["cycles"].get<long long>() + 1;
    CHECK(difference(tlm, altered) ==
          "{\"op\":\"replace\",\"path\":\"/kernels/0/cycles\",\"value\":" +
              altered["kernels"][0]["cycles"].dump() + "} (1 differences)");
}

TEST_CASE("noc.arbiter_impl rtl: each configuration error gives its exact message and exit 2")
{
    cli_runner cli("noc_rtl_errors");
    struct bad {
        std::string yaml, args, expected;
    };
    const std::string mode = "-s platform.timing.mode=accurate ";
    const std::vector<bad> cases = {
        // Fast mode (the default's): the mode is named.
        {"", "-s noc.arbiter_impl=rtl",
         "-s noc.arbiter_impl=rtl: error: noc.arbiter_impl: the RTL arbiter grants cycle by "
         "cycle, in accurate mode only (fast mode books NoC ports in arrival order, without an "
         "arbiter) (noc.arbiter_impl is rtl; platform.timing.mode is fast, the default); set "
         "platform.timing.mode to accurate or noc.arbiter_impl to tlm"},
        // The same from a file: its line and column.
        {"platform:\n  timing:\n    mode: fast\nnoc:\n  arbiter_impl: rtl\n", "-c bad.yaml",
         "bad.yaml:5:17: error: noc.arbiter_impl: the RTL arbiter grants cycle by cycle, in "
         "accurate mode only (fast mode books NoC ports in arrival order, without an arbiter) "
         "(noc.arbiter_impl is rtl; platform.timing.mode is fast, set at bad.yaml:3:11); set "
         "platform.timing.mode to accurate or noc.arbiter_impl to tlm"},
        // fifo: the RTL has none.
        {"platform:\n  timing:\n    mode: accurate\nnoc:\n  arbiter: fifo\n  arbiter_impl: rtl\n",
         "-c bad.yaml",
         "bad.yaml:6:17: error: noc.arbiter_impl: the RTL arbiter has no fifo policy "
         "(noc.arbiter_impl is rtl; noc.arbiter is fifo, set at bad.yaml:5:12); set "
         "noc.arbiter to round_robin or barrier_aware, or noc.arbiter_impl to tlm"},
        // Ageing beyond the RTL's 16 bits.
        {"", mode + "-s noc.arbiter_impl=rtl -s noc.max_wait_cycles=65536",
         "-s noc.max_wait_cycles=65536: error: noc.max_wait_cycles: the RTL arbiter's ages and "
         "max_wait are 16 bits (noc.max_wait_cycles is 65536; noc.arbiter_impl is rtl, set at "
         "-s noc.arbiter_impl=rtl); set noc.max_wait_cycles to at most 65535 or "
         "noc.arbiter_impl to tlm"},
        // A port of 66 inputs (33 SMs x 2 at the cluster crossbar's NoC port), found when the
        // ports are made; the error names the file and the line that chose the RTL.
        {"platform:\n  sms_per_cluster: 33\n  timing:\n    mode: accurate\nnoc:\n"
         "  arbiter_impl: rtl\n",
         "-c bad.yaml",
         "bad.yaml:6:17: error: noc.arbiter_impl: rtl: port gpu.m0.c0.xbar.noc has 66 inputs, "
         "more than the 64 the RTL arbiter serves (noc_arbiter.sv is verilated for N = 64); set "
         "noc.arbiter_impl to tlm, or give the platform fewer inputs per port"},
    };
    for (const bad& c : cases) {
        INFO("args: " << c.args << "\n" << c.yaml);
        if (!c.yaml.empty())
            cli.write("bad.yaml", c.yaml);
        const auto r = cli.run(c.args + " -o out");
        CHECK(r.code == 2);
        CHECK(first_line(r.err) == c.expected);
        CHECK_FALSE(cli.exists("out/stats.json"));
        // --check finds the same (it elaborates the platform with rtl).
        const auto checked = cli.run(c.args + " --check");
        CHECK(checked.code == 2);
        CHECK(first_line(checked.err) == c.expected);
    }
    // 32 SMs per cluster, 64 inputs: the RTL serves it.
    const auto ok =
        cli.run(mode + "-s platform.sms_per_cluster=32 -s noc.arbiter_impl=rtl --check");
    INFO(ok.err);
    CHECK(ok.code == 0);
}
#else
TEST_CASE("noc.arbiter_impl rtl in a build without the RTL: exact message and exit 2")
{
    cli_runner cli("noc_rtl_absent");
    for (const std::string args :
         {"-s platform.timing.mode=accurate -s noc.arbiter_impl=rtl", "-s noc.arbiter_impl=rtl"}) {
        const auto r = cli.run(args + " -o out");
        INFO(args << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK(first_line(r.err) ==
              "-s noc.arbiter_impl=rtl: error: noc.arbiter_impl: rtl: this build has no RTL "
              "(Verilator was not found when it was configured); install the Debian package "
              "'verilator' (scripts/test installs it) and configure and build again, or set "
              "noc.arbiter_impl to tlm");
        CHECK_FALSE(cli.exists("out/stats.json"));
    }
}
#endif
