// shader_trace.impl rtl against tlm in vgpu-sim: the verilated OUTLis buffer behind its adapter
// gives the same kernel records, statistics and OUTDIR/shader_trace.bin as the C++ core on the
// shipped workloads, with the buffer full under stall and under replace; rtl's configuration
// errors; and a vgpu-sim on the test-only broken RTL differs. See
// models/shader_trace/rtl/README.md, "In the platform".
#include "models/shader_trace/core/group_buffer.h"
#include "models/shader_trace/shader_trace_config.h"
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
const std::string source_dir = VGPU_SOURCE_DIR;
/// The trace path throttled to one write per 200 cycles: the 16 slots fill (the SMs stall under
/// stall; groups are replaced under replace).
const std::string throttled = " -s shader_trace.enable=true -s shader_trace.writes_in_flight=1 "
                              "-s shader_trace.write_interval_cycles=200";

struct sim_run {
    vgpu::test::cli_result r;
    nlohmann::json json;
    std::string bin;
    double stat(const std::string& name) const { return json["stats"].value(name, -1.0); }
};

sim_run run(const std::string& program, const std::string& tag, const std::string& args)
{
    cli_runner cli(tag);
    sim_run s;
    s.r = cli.run_program(program, args + " -o out");
    INFO(program << " " << args << "\n" << s.r.err);
    REQUIRE(s.r.code == 0);
    s.json = nlohmann::json::parse(cli.read("out/stats.json"));
    s.bin = cli.read("out/shader_trace.bin");
    REQUIRE(!s.bin.empty());
    return s;
}

std::string args_of(const std::string& workload, const std::string& platform,
                    const std::string& extra)
{
    return "-w " + source_dir + "/testbenches/workloads/" + workload + ".yaml" +
           (platform == "default" ? "" : " -c " + source_dir + "/platforms/" + platform + ".yaml") +
           throttled + " " + extra;
}

/// Runs `args` with tlm and with rtl (on `program`); the buffer filled in both.
struct pair_run {
    sim_run tlm, rtl;
};
pair_run run_pair(const std::string& args, const std::string& program = VGPU_SIM_PATH)
{
    pair_run p{run(VGPU_SIM_PATH, "impl_tlm", args + " -s shader_trace.impl=tlm"),
               run(program, "impl_rtl", args + " -s shader_trace.impl=rtl")};
    CHECK(p.tlm.stat("gpu.trace_unit.rtl_cycles") == 0);
    CHECK(p.rtl.stat("gpu.trace_unit.rtl_cycles") > 0); // the RTL was evaluated
    const bool replace = args.find("full_policy=replace") != std::string::npos;
    CHECK(p.tlm.stat(replace ? "gpu.trace_unit.groups_replaced" : "gpu.trace_unit.stall_cycles") >
          0);
    return p;
}

/// Everything but the host's figures (meta) and rtl_cycles is the same.
void check_same(const pair_run& p)
{
    CHECK(p.rtl.json["kernels"] == p.tlm.json["kernels"]);
    CHECK(p.rtl.json["phases"] == p.tlm.json["phases"]);
    nlohmann::json a = p.tlm.json["stats"], b = p.rtl.json["stats"];
    a.erase("gpu.trace_unit.rtl_cycles");
    b.erase("gpu.trace_unit.rtl_cycles");
    for (const auto& [k, v] : a.items()) {
        CAPTURE(k);
        CHECK(b.value(k, nlohmann::json()) == v);
    }
    CHECK(a.size() == b.size());
    CHECK(p.rtl.bin == p.tlm.bin); // byte for byte
}

void check_workload(const std::string& workload, const std::string& timing)
{
    for (const char* platform : {"default", "mcm4"})
        for (const char* policy : {"stall", "replace"}) {
            CAPTURE(workload, platform, policy, timing);
            check_same(run_pair(args_of(workload, platform,
                                        std::string("-s shader_trace.full_policy=") + policy +
                                            " -s platform.timing.mode=" + timing)));
        }
}
} // namespace

TEST_CASE("shader trace impl: rtl gives tlm's records and shader_trace.bin: stencil")
{
    check_workload("stencil", "fast");
}

TEST_CASE("shader trace impl: rtl gives tlm's records and shader_trace.bin: reduction")
{
    check_workload("reduction", "fast");
}

TEST_CASE("shader trace impl: rtl gives tlm's records and shader_trace.bin: trace_events")
{
    check_workload("trace_events", "fast");
}

TEST_CASE("shader trace impl: rtl gives tlm's records and shader_trace.bin in accurate mode")
{
    check_workload("trace_events", "accurate");
}

TEST_CASE("shader trace impl: rtl maps the sources' priority order and both victims")
{
    // ISUs first: the RTL's source numbers are not the unit's ids, and the lowest_priority
    // victim is the RM's or the CE's group when they hold one (an adapter that passed the ids
    // through unmapped fails the first two); same_source: the arriving source's own group.
    for (const auto& [platform, extra] : std::vector<std::pair<std::string, std::string>>{
             {"default", "-s shader_trace.full_policy=replace -s shader_trace.sources=isu,ce,rm"},
             {"mcm4", "-s shader_trace.full_policy=replace -s shader_trace.sources=isu,rm,ce "
                      "-D ctas=64"},
             {"default", "-s shader_trace.full_policy=replace -s shader_trace.sources=rm,isu,ce "
                         "-s shader_trace.victim=same_source"},
             {"mcm4", "-s shader_trace.full_policy=stall -s shader_trace.sources=isu,rm"},
             // 80 SMs: all 82 of the RTL's source numbers.
             {"v100", "-s shader_trace.full_policy=replace -s shader_trace.sources=isu,rm,ce "
                      "-D ctas=160"}}) {
        CAPTURE(platform, extra);
        check_same(run_pair(args_of("trace_events", platform, extra)));
    }
}

TEST_CASE("shader trace impl: the test-only broken RTL writes another shader_trace.bin")
{
    // VGPU_RTL_BREAK_ORDER takes the lowest_priority victim from the highest-priority source:
    // a replace-heavy run loses other groups, so the trace differs (the comparison can fail).
    const pair_run p =
        run_pair(args_of("trace_events", "default", "-s shader_trace.full_policy=replace"),
                 BROKEN_OUTLIS_SIM_PATH);
    CHECK(p.rtl.bin != p.tlm.bin);
    // The same program with the correct order's settings of a stall run (no victim) agrees.
    check_same(run_pair(args_of("trace_events", "default", "-s shader_trace.full_policy=stall"),
                        BROKEN_OUTLIS_SIM_PATH));
}

namespace {
/// The first line of stderr of a run that must fail with exit code 2, and no outputs.
std::string config_error(cli_runner& cli, const std::string& args)
{
    const auto r = cli.run(args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK_FALSE(cli.exists("out/stats.json"));
    return r.err.substr(0, r.err.find('\n'));
}
} // namespace

TEST_CASE("shader trace impl: rtl at another size is a located configuration error")
{
    cli_runner cli("impl_cfg");
    const std::string w = "-w " + source_dir + "/testbenches/workloads/trace_events.yaml ";
    CHECK(config_error(cli, w + "-s shader_trace.enable=true -s shader_trace.impl=rtl "
                                "-s shader_trace.slots=8") ==
          "-s shader_trace.slots=8: error: shader_trace.slots: the verilated OUTLis buffer has 16 "
          "slots (shader_trace.slots is 8; shader_trace.impl is rtl, set at -s "
          "shader_trace.impl=rtl); set shader_trace.slots to 16 or shader_trace.impl to tlm");
    cli.write("trace.yaml", "shader_trace:\n  enable: true\n  slots: 32\n  impl: rtl\n");
    CHECK(config_error(cli, w + "-c trace.yaml") ==
          "trace.yaml:4:9: error: shader_trace.impl: the verilated OUTLis buffer has 16 slots "
          "(shader_trace.impl is rtl; shader_trace.slots is 32, set at trace.yaml:3:10); set "
          "shader_trace.slots to 16 or shader_trace.impl to tlm");
    // 82 SMs: 84 sources, 2 more than the RTL has; v100's 80 are accepted.
    cli.write("big.yaml", "platform:\n  clusters_per_module: 41\nshader_trace:\n  enable: true\n"
                          "  impl: rtl\n");
    CHECK(config_error(cli, w + "-c " + source_dir + "/platforms/v100.yaml -c big.yaml") ==
          "big.yaml:5:9: error: shader_trace.impl: the verilated OUTLis buffer takes at most 82 "
          "sources (CE, RM and 80 SMs), and this GPU has 82 SMs (platform.modules x "
          "platform.clusters_per_module x platform.sms_per_cluster); use a GPU of at most 80 SMs "
          "or set shader_trace.impl to tlm");
    const auto ok = cli.run(w + "-c " + source_dir +
                            "/platforms/v100.yaml -s shader_trace.enable=true "
                            "-s shader_trace.impl=rtl --check");
    INFO(ok.err);
    CHECK(ok.code == 0);
}

TEST_CASE("shader trace impl: rtl in a build without verilator is a located configuration error")
{
    // This build has the RTL (the folder is built only then); the check a build without it
    // makes, on its own (test/platform's test_shader_trace runs vgpu-sim in such a build).
    REQUIRE(vgpu::shader_trace::outlis_rtl_built());
    vgpu::shader_trace::shader_trace_config cfg;
    cfg.enable = true;
    cfg.impl = vgpu::shader_trace::buffer_impl::rtl;
    vgpu::config::errors errs;
    vgpu::config::provenance prov;
    prov["shader_trace.impl"] = vgpu::config::location{"trace.yaml", 3, 9};
    vgpu::config::checker chk(errs, prov);
    cfg.validate_rtl(chk, 8, false);
    REQUIRE(errs.messages().size() == 1);
    CHECK(errs.messages()[0] ==
          "trace.yaml:3:9: error: shader_trace.impl: rtl needs the verilated OUTLis buffer, which "
          "this build does not have (verilator was not found when it was configured): install "
          "verilator 5 (the Debian package 'verilator'; scripts/test installs it) and configure "
          "the build again, or set shader_trace.impl to tlm");
    vgpu::config::errors none;
    vgpu::config::checker ok(none, prov);
    cfg.validate_rtl(ok, 8, true);
    CHECK(none.empty());
}
