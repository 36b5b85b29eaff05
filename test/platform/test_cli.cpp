// vgpu-sim as users run it: default run, outputs, dump/reload, determinism, docs freshness,
// and simulation failures with exit code 1. See README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/resource.h>

using vgpu::test::cli_runner;

namespace {
nlohmann::json stats_without_host_time(const cli_runner& cli, const std::string& dir)
{
    auto j = nlohmann::json::parse(cli.read(dir + "/stats.json"));
    vgpu::test::erase_host_time(j);
    return j;
}

/// A file of the source tree.
std::string source_file(const std::string& path)
{
    std::ifstream in(VGPU_SOURCE_DIR "/" + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// FNV-1a 64 as 16 hex digits, as docs/outputs.md defines workload_hash.
std::string fnv1a(const std::string& text)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text)
        h = (h ^ c) * 0x100000001b3ull;
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << h;
    return os.str();
}

/// text with the first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
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
    for (const char* key :
         {"version", "git_hash", "config_hash", "seed", "sim_time_ns", "sim_cycles", "host_seconds",
          "kernel_host_seconds", "timing_mode", "verdict"})
        CHECK(j["meta"].contains(key));
    // The kernels' windows are part of the simulation, and take host time.
    CHECK(j["meta"]["kernel_host_seconds"].get<double>() > 0);
    CHECK(j["meta"]["kernel_host_seconds"].get<double>() <=
          j["meta"]["host_seconds"].get<double>());
    CHECK(j["meta"]["verdict"] == "pass");
    CHECK(j["stats"]["gpu.host.checks_failed"] == 0);
    CHECK(j["stats"]["gpu.host.checks_passed"].get<int>() >= 1);
    CHECK(j["stats"]["gpu.m0.c0.sm0.instructions"].get<long>() > 0);
    CHECK(cli.read("out/stats.txt").find("gpu.m0.c1.sm7_l1.hits") != std::string::npos);
    CHECK(cli.read("out/config.yaml").find("kind: gpu") != std::string::npos);
    // The run's record: the embedded default workload, named by config.yaml and meta.
    CHECK(cli.read("out/workload.yaml") == source_file("testbenches/workloads/reduction.yaml"));
    CHECK(cli.read("out/config.yaml").find("workload:\n  file: \"workload.yaml\"\n  vars: {}\n") !=
          std::string::npos);
    CHECK(j["meta"]["workload"] == "reduction");
    CHECK(j["meta"]["workload_hash"] == fnv1a(cli.read("out/workload.yaml")));
}

TEST_CASE("the traffic platform runs its self-checking generators")
{
    cli_runner cli("traffic");
    auto r = cli.run("-c " VGPU_SOURCE_DIR "/platforms/traffic.yaml");
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(j["stats"]["traffic.tg0.mismatches"] == 0);
    CHECK(j["meta"]["kernel_host_seconds"].is_null()); // no kernels
    // No SMs: simulated cycles per host second only (docs/outputs.md, "Rates per host second").
    CHECK(j["meta"]["simulated_cycles_per_host_second"].get<double>() *
              j["meta"]["host_seconds"].get<double>() ==
          Approx(j["meta"]["sim_cycles"].get<double>()).epsilon(1e-9));
    CHECK(j["meta"]["warp_instructions_per_host_second"].is_null());
    CHECK(j["meta"]["line_requests_per_host_second"].is_null());
    CHECK(j["meta"]["kernel_windows"].is_null());
    CHECK(r.out.find("per host second, run: ") != std::string::npos);
    CHECK(r.out.find("per host second, kernels' windows") == std::string::npos);
    CHECK(j["stats"]["traffic.tg0.reads"].get<int>() +
              j["stats"]["traffic.tg0.writes"].get<int>() ==
          50000);
}

TEST_CASE("traffic: a stride longer than the footprint stays in the region and checks clean")
{
    // Regression: the strided walk used to leave the region (heap overflow in the scoreboard).
    // 64 words, 2000 accesses: every word is written and read back many times.
    cli_runner cli("stride");
    auto r = cli.run("-c " VGPU_SOURCE_DIR "/platforms/traffic.yaml -s traffic.generators=2"
                     " -s traffic.pattern=strided -s traffic.footprint=4096"
                     " -s \"traffic.stride=1 MiB\" -s traffic.transactions=2000 -s dram.dmi=false");
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    for (const char* g : {"traffic.tg0.", "traffic.tg1."}) {
        CHECK(j["stats"][g + std::string("mismatches")] == 0);
        CHECK(j["stats"][g + std::string("errors")] == 0);
        CHECK(j["stats"][g + std::string("reads")].get<int>() +
                  j["stats"][g + std::string("writes")].get<int>() ==
              2000);
    }
    // Every access hit a memory inside the regions (generator 1 starts at 4096).
    CHECK(j["stats"]["traffic.mem0.errors"] == 0);
    CHECK(j["stats"]["traffic.mem0.bytes"] == 2 * 2000 * 64);
}

TEST_CASE("traffic: the reference memory holds only what is touched (1 TiB footprint)")
{
    // A dense reference would need 1 TiB; 2000 accesses of 64 bytes touch at most 2000 pages.
    cli_runner cli("sparse");
    auto r = cli.run("-c " VGPU_SOURCE_DIR "/platforms/traffic.yaml -s traffic.generators=1"
                     " -s \"traffic.footprint=1024 GiB\" -s \"dram.size=1024 GiB\""
                     " -s traffic.transactions=2000");
    INFO(r.err);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(j["stats"]["traffic.tg0.mismatches"] == 0);
    // Peak memory of the child (sanitizer builds included) stays far below a dense copy.
    struct rusage ru {};
    REQUIRE(getrusage(RUSAGE_CHILDREN, &ru) == 0);
    CHECK(ru.ru_maxrss < 512 * 1024); // KiB
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

TEST_CASE("vgpu-sim --check builds the workload and exits without simulating: its variables, or "
          "the errors")
{
    cli_runner cli("check");
    const std::string w = " -w " VGPU_SOURCE_DIR "/testbenches/cuda/gemv.yaml";
    auto ok = cli.run(w + " -D n=512 --check -o out");
    REQUIRE(ok.code == 0);
    auto j = nlohmann::json::parse(ok.out);
    CHECK(j["valid"] == true);
    // the values the run would use: -D's, the file's defaults, and those derived from them
    CHECK(j["vars"] == nlohmann::json{{"ctas", "64"}, {"m", "253"}, {"n", "512"}});
    CHECK_FALSE(cli.exists("out/stats.json"));
    auto undeclared = cli.run(w + " -D nn=3 --check");
    CHECK(undeclared.code == 2);
    CHECK(undeclared.out.empty());
    CHECK(undeclared.err.find("workload.vars.nn: undeclared variable 'nn'") != std::string::npos);
    auto bad_key = cli.run(w + " -s l1.wayz=2 --check");
    CHECK(bad_key.code == 2);
    CHECK(bad_key.err.find("l1.wayz: unknown key") != std::string::npos);
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
    auto r = cli.run("-s platform.max_time=\"2 us\"");
    CHECK(r.code == 1);
    CHECK(r.err.find("vgpu-sim: FAIL: the workload did not finish within platform.max_time (2 "
                     "us): kernel 'reduce' (phase 0) had finished 0 of 32 CTAs") !=
          std::string::npos);
    // Reaching the limit is not a deadlock: the message must not blame one.
    CHECK(r.err.find("deadlock") == std::string::npos);
    CHECK(nlohmann::json::parse(cli.read("out/stats.json"))["meta"]["verdict"] == "fail");
}

namespace {
/// A kernel of `grid` one-warp CTAs that never ends.
std::string spin_workload(unsigned grid)
{
    return "name: spin\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n"
           "  - name: spin\n    grid: " +
           std::to_string(grid) + "\n    block: 32\n    program: |\n      top: BRA top\n";
}
} // namespace

TEST_CASE("a run stopped at max_time names the kernel still running and its CTAs")
{
    // 4 CTAs on 8 SMs are all dispatched at once and none can finish.
    cli_runner cli("still_running");
    cli.write("spin.yaml", spin_workload(4));
    auto r = cli.run("-w spin.yaml -s \"platform.max_time=5 us\"");
    CHECK(r.code == 1);
    CHECK(r.err == "vgpu-sim: FAIL: the workload did not finish within platform.max_time (5 us): "
                   "kernel 'spin' (phase 0) had finished 0 of 4 CTAs (4 dispatched)\n");
    CHECK(r.out.find("simulated 5 us") != std::string::npos);
}

TEST_CASE("a run stopped at max_time in the middle of a DMA load fails cleanly")
{
    // The driver is suspended inside a transfer that owns buffers; the sanitizer build (leak
    // check on) fails this test if the end of the run does not free them.
    cli_runner cli("dma_cut");
    auto r = cli.run("-s host.load=dma -s \"platform.max_time=1 us\"");
    CHECK(r.code == 1);
    CHECK(r.err == "vgpu-sim: FAIL: the workload did not finish within platform.max_time (1 us): "
                   "the host driver had launched no kernel yet\n");
}

TEST_CASE("a traffic run stopped at max_time names the generators and their progress")
{
    cli_runner cli("traffic_limit");
    auto r = cli.run("-c " VGPU_SOURCE_DIR "/platforms/traffic.yaml -s traffic.generators=1"
                     " -s \"platform.max_time=1 us\"");
    CHECK(r.code == 1);
    const std::string head = "vgpu-sim: FAIL: the workload did not finish within "
                             "platform.max_time (1 us): traffic.tg0 had done ";
    REQUIRE(r.err.rfind(head, 0) == 0);
    // Some, but far from all, of the 50000 transactions of platforms/traffic.yaml.
    const std::string rest = r.err.substr(head.size());
    const auto done = std::stoull(rest);
    CHECK(done > 0);
    CHECK(done < 50000);
    CHECK(rest == std::to_string(done) + " of 50000 transactions\n");
}

TEST_CASE("a quantum far above the run's length works: the default workload at 200 us")
{
    cli_runner cli("quantum_200us");
    auto r = cli.run("-s platform.timing.quantum_ns=200000");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("verdict: pass") != std::string::npos);
    auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(j["stats"]["gpu.host.checks_failed"] == 0);
    CHECK(j["stats"]["gpu.host.checks_passed"] == 1);
}

TEST_CASE("a quantum equal to platform.max_time is accepted and the run passes")
{
    cli_runner cli("quantum_max");
    auto r = cli.run("-s platform.timing.quantum_ns=1000000 -s \"platform.max_time=1 ms\"");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("verdict: pass") != std::string::npos);
}

TEST_CASE("a quantum longer than platform.max_time is rejected with exit code 2")
{
    cli_runner cli("quantum_over");
    auto r = cli.run("-s platform.timing.quantum_ns=200000 -s \"platform.max_time=100 us\"");
    CHECK(r.code == 2);
    // Reported at the key set last, naming the other.
    CHECK(r.err == "-s platform.max_time=100 us: error: platform.max_time: the quantum is longer "
                   "than the time limit (platform.max_time is 100 us; platform.timing.quantum_ns "
                   "is 200000, set at -s platform.timing.quantum_ns=200000); set "
                   "platform.timing.quantum_ns to at most 100000 or platform.max_time to at least "
                   "200 us\n"
                   "vgpu-sim: 1 configuration error(s); nothing was simulated\n");
    CHECK_FALSE(cli.exists("out/stats.json"));
    // Accurate mode ignores the quantum, so the same settings are fine there.
    auto a = cli.run("-s platform.timing.quantum_ns=200000 -s \"platform.max_time=100 us\""
                     " -s platform.timing.mode=accurate");
    INFO(a.err);
    CHECK(a.code == 0);
}

TEST_CASE("a kernel past host.kernel_timeout fails naming it, and the run stops there")
{
    cli_runner cli("kernel_timeout");
    cli.write("spin.yaml", "name: spin\nbuffers:\n  - {name: a, type: u32, elements: 64}\n"
                           "kernels:\n  - name: k\n    grid: 1\n    block: 32\n"
                           "    program: |\n      # spins forever\n      loop:   BRA loop\n");
    auto r = cli.run("-w spin.yaml -s host.kernel_timeout=\"10 us\" -s platform.max_time=\"1 s\"");
    CHECK(r.code == 1);
    CHECK(r.err.find("vgpu-sim: FAIL: kernel 'k' (phase 0) did not finish within "
                     "host.kernel_timeout (10 us)") != std::string::npos);
    CHECK(r.err.find("max_time") == std::string::npos);
    CHECK(r.err.find("deadlock") == std::string::npos);
    // Stopped when the driver gave up (launch + 10 us), not simulated on to the 1 s limit.
    const auto meta = nlohmann::json::parse(cli.read("out/stats.json"))["meta"];
    CHECK(meta["sim_time_ns"].get<double>() < 20000);
    CHECK(meta["verdict"] == "fail");
}

TEST_CASE("the parameter list (vgpu-sim --list-params) matches docs/configuration.md (run "
          "scripts/gen-docs when it fails)")
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

namespace {
double stat_of(const nlohmann::json& j, const std::string& name)
{
    return j["stats"].at(name).get<double>();
}
} // namespace

TEST_CASE("kernel records: one per launch, figures over the kernel's own window")
{
    cli_runner cli("records");
    auto r = cli.run("-o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    REQUIRE(j["kernels"].size() == 1);
    REQUIRE(j["phases"].size() == 1);
    const auto& k = j["kernels"][0];
    CHECK(k["name"] == "reduce");
    CHECK(k["queue"] == 0);
    CHECK(k["sms"] == 8);
    const double window_ns = k["end_ns"].get<double>() - k["start_ns"].get<double>();
    CHECK(window_ns > 0);
    // 1 ns core clock: cycles are the window in ns.
    CHECK(k["cycles"].get<double>() == Approx(window_ns).margin(0.5));
    // One kernel alone: its instructions are the GPU's, its DRAM bytes the controller's.
    CHECK(k["instructions"].get<double>() == stat_of(j, "gpu.instructions"));
    CHECK(k["ipc"].get<double>() ==
          Approx(k["instructions"].get<double>() / k["cycles"].get<double>()));
    CHECK(k["dram_read_bytes"].get<double>() == stat_of(j, "gpu.m0.dram.bytes_read"));
    const double l1_hits = stat_of(j, "gpu.m0.c0.sm0_l1.hits");
    CHECK(l1_hits > 0);
    // Backdoor set-up takes no simulated time and leaves the caches clean: the run is the
    // kernel, and the kernel time is its window.
    CHECK(stat_of(j, "gpu.host.load_time") == 0);
    CHECK(stat_of(j, "gpu.kernel_time") == Approx(window_ns));
    CHECK(j["meta"]["sim_time_ns"].get<double>() == Approx(k["end_ns"].get<double>()));
    // 128 KiB of input read once from cold DRAM at 2 x 64 GB/s over the window.
    CHECK(k["dram_bw_util"].get<double>() ==
          Approx(k["dram_read_bytes"].get<double>() / (128.0 * window_ns)));
    const std::set<std::string> bounds = {"issue", "alu_latency", "memory_bandwidth",
                                          "memory_latency", "barriers"};
    CHECK(bounds.count(k["bound"].get<std::string>()) == 1);
    CHECK(r.out.find("  kernel reduce (phase 0, queue 0, 8 SMs): ") != std::string::npos);
}

TEST_CASE("kernel_time is the sum of phase windows: kernels side by side count once")
{
    cli_runner cli("overlap");
    auto r = cli.run("-w " VGPU_SOURCE_DIR "/testbenches/workloads/multi_kernel.yaml -o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto& ks = j["kernels"];
    REQUIRE(ks.size() == 3);
    REQUIRE(j["phases"].size() == 2);
    // Phase 0 runs kernels 0 and 1 side by side; phase 1 runs kernel 2.
    const double p0_start =
        std::min(ks[0]["start_ns"].get<double>(), ks[1]["start_ns"].get<double>());
    const double p0_end = std::max(ks[0]["end_ns"].get<double>(), ks[1]["end_ns"].get<double>());
    const double p1 = ks[2]["end_ns"].get<double>() - ks[2]["start_ns"].get<double>();
    CHECK(j["phases"][0]["start_ns"].get<double>() == p0_start);
    CHECK(j["phases"][0]["end_ns"].get<double>() == p0_end);
    CHECK(stat_of(j, "gpu.kernel_time") == Approx(p0_end - p0_start + p1));
    double sum_of_kernels = 0;
    for (const auto& k : ks)
        sum_of_kernels += k["end_ns"].get<double>() - k["start_ns"].get<double>();
    CHECK(stat_of(j, "gpu.kernel_time") < sum_of_kernels);
    // Per-kernel SM-side figures come from the kernel's own SMs.
    CHECK(ks[0]["sms"] == 4);
    CHECK(ks[1]["sms"] == 4);
    CHECK(ks[0]["instructions"].get<double>() + ks[1]["instructions"].get<double>() +
              ks[2]["instructions"].get<double>() ==
          stat_of(j, "gpu.instructions"));
    CHECK(j["phases"][0]["instructions"].get<double>() ==
          ks[0]["instructions"].get<double>() + ks[1]["instructions"].get<double>());
}

TEST_CASE("host.load dma: a timed copy engine at >= 80 % of its NoC port, counted apart")
{
    cli_runner cli("dma");
    auto r = cli.run("-w " VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml "
                     "-s host.load=dma -o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    const double bytes = stat_of(j, "gpu.host.bytes_written");
    const double ns = stat_of(j, "gpu.host.load_time");
    REQUIRE(ns > 0);
    // noc.width_bytes 32 per 1 ns NoC cycle: 32 bytes/ns is the port's peak.
    CHECK(bytes / ns >= 0.8 * 32);
    CHECK(bytes / ns <= 32.0 + 1e-9);
    CHECK(stat_of(j, "gpu.host.dma_transactions") > 0);
    // The kernel window starts after the set-up.
    CHECK(j["kernels"][0]["start_ns"].get<double>() >= ns);
}

TEST_CASE("host.load backdoor: the kernel writes back only what it wrote")
{
    cli_runner cli("backdoor");
    auto r = cli.run("-w " VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml -o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(stat_of(j, "gpu.host.dma_transactions") == 0);
    // c = a + b writes n = 16384 f32 elements (64 KiB); nothing the host wrote is dirty.
    CHECK(j["kernels"][0]["dram_write_bytes"].get<double>() <= 65536);
}

TEST_CASE("a -s platform.timing.mode=accurate alone switches a configuration with a quantum")
{
    cli_runner cli("accurate");
    cli.write("q.yaml", "platform:\n  timing:\n    quantum_ns: 500\n");
    auto r = cli.run("-c q.yaml -s platform.timing.mode=accurate -o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(j["meta"]["timing_mode"] == "accurate");
}

TEST_CASE("vgpu-sim -D gives a workload variable its value: the run and its record change")
{
    cli_runner cli("define");
    const std::string wl = " -w " VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml";
    auto r = cli.run("-o small -D n=1000" + wl);
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(cli.run("-o default" + wl).code == 0);
    auto small = nlohmann::json::parse(cli.read("small/stats.json"));
    auto full = nlohmann::json::parse(cli.read("default/stats.json"));
    // The check reads the result buffer c back: n elements of 4 bytes.
    CHECK(small["stats"]["gpu.host.bytes_read"] == 4000);
    CHECK(full["stats"]["gpu.host.bytes_read"] == 16384 * 4);
    CHECK(small["stats"]["gpu.host.checks_passed"] == 1);
    const std::string source = source_file("testbenches/workloads/vector_add.yaml");
    CHECK(cli.read("small/workload.yaml") ==
          replaced(source, "vars: {n: 16384, ctas: 16}", "vars: {n: 1000, ctas: 16}"));
    CHECK(cli.read("default/workload.yaml") == source);
    CHECK(cli.read("small/config.yaml").find("  vars:\n    n: 1000\n") != std::string::npos);
    CHECK(small["meta"]["workload"] == "vector_add");
    CHECK(small["meta"]["workload_hash"] == fnv1a(cli.read("small/workload.yaml")));
    CHECK(small["meta"]["workload_hash"] != full["meta"]["workload_hash"]);
}

namespace {
/// Words 0.. of splitmix64 from seed, as u32 values of min 0, max 2^32-1 (docs/workloads.md).
std::string splitmix_list(std::uint64_t seed, int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        seed += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        out += (i ? ", " : "") + std::to_string(static_cast<std::uint32_t>(z));
    }
    return "[" + out + "]";
}

/// Buffer r (random, no seed) and s (random, seed 77), each checked against literal values
/// computed for run seed 5; the kernel leaves them alone.
std::string seed_workload()
{
    return "name: seeds\nbuffers:\n"
           "  - {name: r, type: u32, elements: 8, init: {random: {min: 0, max: 4294967295}}}\n"
           "  - {name: s, type: u32, elements: 8, init: {random: {seed: 77, min: 0, max: "
           "4294967295}}}\n"
           "kernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\n"
           "checks:\n  - {buffer: r, expect: " +
           splitmix_list(5, 8) + "}\n  - {buffer: s, expect: " + splitmix_list(77, 8) + "}\n";
}
} // namespace

TEST_CASE("vgpu-sim --seed reaches a random initialiser without a seed, not one with its own")
{
    cli_runner cli("seed");
    cli.write("w.yaml", seed_workload());
    auto five = cli.run("-w w.yaml --seed 5 -o five");
    INFO(five.err);
    CHECK(five.code == 0);
    auto six = cli.run("-w w.yaml --seed 6 -o six");
    CHECK(six.code == 1);
    auto j = nlohmann::json::parse(cli.read("six/stats.json"));
    CHECK(j["stats"]["gpu.host.checks_failed"] == 1); // r changed with the seed
    CHECK(j["stats"]["gpu.host.checks_passed"] == 1); // s did not
    CHECK(six.err.find("of buffer 'r'") != std::string::npos);
    CHECK(six.err.find("of buffer 's'") == std::string::npos);
}

TEST_CASE("vgpu-sim -c OUTDIR/config.yaml repeats the run from another folder")
{
    cli_runner first("rerun_a"), second("rerun_b");
    // vector_add with b drawn from the run's seed; the workload is given by a relative name.
    first.write("w.yaml", replaced(source_file("testbenches/workloads/vector_add.yaml"),
                                   "random: {seed: 1, ", "random: {"));
    auto a = first.run("-w w.yaml -D n=2048 --seed 3 -s platform.timing.mode=accurate -o run");
    INFO(a.err);
    REQUIRE(a.code == 0);
    std::filesystem::remove(first.dir() / "w.yaml"); // the record must be enough
    auto b = second.run("-c '" + (first.dir() / "run" / "config.yaml").string() + "' -o again");
    INFO(b.err);
    REQUIRE(b.code == 0);
    CHECK(b.err.find("warning") == std::string::npos); // a saved configuration's keys are not set
    auto ja = nlohmann::json::parse(first.read("run/stats.json"));
    auto jb = nlohmann::json::parse(second.read("again/stats.json"));
    CHECK(ja["stats"] == jb["stats"]);
    CHECK(ja["meta"]["host_seconds"] != jb["meta"]["host_seconds"]);
    vgpu::test::erase_host_time(ja);
    vgpu::test::erase_host_time(jb);
    CHECK(ja["meta"] == jb["meta"]);
    CHECK(ja["meta"]["seed"] == 3);
    CHECK(ja["meta"]["timing_mode"] == "accurate");
    CHECK(ja["meta"]["workload"] == "vector_add");
    CHECK(ja["stats"]["gpu.host.bytes_read"] == 2048 * 4);
    CHECK(second.read("again/workload.yaml") == first.read("run/workload.yaml"));
    CHECK(second.read("again/config.yaml") == first.read("run/config.yaml"));
}

TEST_CASE("a workload copy that cannot be written fails the run with exit code 1")
{
    cli_runner cli("nocopy");
    std::filesystem::create_directories(cli.dir() / "out" / "workload.yaml");
    auto r = cli.run("-o out");
    CHECK(r.code == 1);
    CHECK(r.err == "vgpu-sim: error: cannot write 'out/workload.yaml'\n");
}

TEST_CASE("vgpu-sim -w and workload.file are one parameter, and a config file's relative file is "
          "relative to its folder")
{
    cli_runner cli("wfile");
    std::filesystem::create_directories(cli.dir() / "sub");
    cli.write("sub/c.yaml", "workload:\n  file: w.yaml\n  vars: {n: 3}\n");
    auto file_of = [&](const std::string& args) {
        auto r = cli.run(args + " --dump-config");
        const auto at = r.out.find("workload:\n  file: ");
        return at == std::string::npos ? std::string("?")
                                       : r.out.substr(at + 18, r.out.find('\n', at + 18) - at - 18);
    };
    CHECK(file_of("-c sub/c.yaml") == "\"sub/w.yaml\"");
    CHECK(file_of("-c sub/c.yaml -w x.yaml") == "\"x.yaml\"");
    CHECK(file_of("-w x.yaml -c sub/c.yaml") == "\"sub/w.yaml\"");
    CHECK(file_of("-w x.yaml -s workload.file=y.yaml") == "\"y.yaml\"");
    auto later = cli.run("-c sub/c.yaml -D n=4 -D m=1 --dump-config");
    CHECK(later.out.find("  vars:\n    m: 1\n    n: 4\n") != std::string::npos);
    auto earlier = cli.run("-D n=4 -c sub/c.yaml --dump-config");
    CHECK(earlier.out.find("  vars:\n    n: 3\n") != std::string::npos);
}

TEST_CASE("vgpu-sim writing --list-params or --dump-config to a full disk exits with 1")
{
    cli_runner cli("full_disk");
    for (const char* opt : {"--list-params", "--dump-config"}) {
        INFO(opt);
        const std::string cmd = "'" VGPU_SIM_PATH "' " + std::string(opt) + " >/dev/full 2>" +
                                (cli.dir() / "err.txt").string();
        const int status = std::system(cmd.c_str());
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 1);
        CHECK(cli.read("err.txt").find("vgpu-sim: error: cannot write") != std::string::npos);
    }
}

namespace {
/// Runs a one-CTA workload on 16 x 16 x 16 = 4096 SMs, the documented maximum, in `mode`.
void run_4096_sms(const char* mode)
{
    cli_runner cli(std::string("sms4096_") + mode);
    cli.write("big.yaml", std::string("platform:\n  kind: gpu\n  modules: 16\n"
                                      "  clusters_per_module: 16\n  sms_per_cluster: 16\n"
                                      "  timing: {mode: ") +
                              mode + "}\n");
    // The last SM writes out[t] = t; the check compares with iota (stream: in * 1 + 0).
    cli.write("tiny.yaml", "name: tiny\nbuffers:\n  - {name: a, type: u32, elements: 64}\n"
                           "  - {name: i, type: u32, elements: 64, init: iota}\n"
                           "kernels:\n  - name: k\n    params:\n      - {name: a, buffer: a}\n"
                           "    grid: 1\n    block: 64\n    sms: {first: 4095, count: 1}\n"
                           "    program: |\n      # a[t] = t\n"
                           "              S2R  R0, SR_TID_X\n"
                           "              LDP  R1, a\n"
                           "              SHL  R2, R0, 2\n"
                           "              IADD R1, R1, R2\n"
                           "              ST   [R1], R0\n"
                           "              EXIT\n"
                           "checks:\n  - buffer: a\n    reference: stream\n"
                           "    args: {in: i, k: 1, c: 0}\n");
    auto r = cli.run("-c big.yaml -w tiny.yaml");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("16 module(s) x 16 cluster(s) x 16 SMs") != std::string::npos);
    CHECK(r.out.find(std::string(mode) + " mode") != std::string::npos);
    CHECK(r.err.find("warn") == std::string::npos);
}
} // namespace

TEST_CASE("4096 SMs, the documented maximum, build and run in fast mode")
{
    run_4096_sms("fast");
}

TEST_CASE("4096 SMs, the documented maximum, build and run in accurate mode")
{
    run_4096_sms("accurate");
}

namespace {
/// "0, 1, ..., n - 1".
std::string iota_list(unsigned n)
{
    std::string out;
    for (unsigned i = 0; i < n; ++i)
        out += (i ? ", " : "") + std::to_string(i);
    return out;
}

/// A workload reading `src` (read_only as given) into `dst`, or (store) writing into `src`.
std::string read_only_workload(bool read_only, bool store)
{
    return std::string("name: ro\nbuffers:\n") +
           "  - {name: src, type: u32, elements: 64, init: iota, read_only: " +
           (read_only ? "true" : "false") +
           "}\n"
           "  - {name: dst, type: u32, elements: 64}\n"
           "kernels:\n"
           "  - name: k\n"
           "    params:\n"
           "      - {name: src, buffer: src}\n"
           "      - {name: dst, buffer: dst}\n"
           "    grid: 1\n"
           "    block: 64\n"
           "    program: |\n"
           "              S2R  R0, SR_TID_X\n"
           "              SHL  R1, R0, 2\n"
           "              LDP  R2, src\n"
           "              LDP  R3, dst\n"
           "              IADD R4, R2, R1\n"
           "              LD   R5, [R4]\n" +
           (store ? "              ST   [R4], R5\n"
                  : "              IADD R6, R3, R1\n"
                    "              ST   [R6], R5\n") +
           "              EXIT\n"
           "checks:\n"
           "  - {buffer: dst, expect: [" +
           iota_list(64) + "]}\n";
}
} // namespace

TEST_CASE("a read_only buffer is read normally and a store to it fails the kernel, naming why")
{
    cli_runner cli("read_only");
    cli.write("read.yaml", read_only_workload(true, false));
    auto r = cli.run("-w read.yaml -o read");
    INFO(r.err);
    CHECK(r.code == 0);
    cli.write("store.yaml", read_only_workload(true, true));
    r = cli.run("-w store.yaml -o store");
    CHECK(r.code == 1);
    CHECK(r.err.find("ST at VA 0x10000000 failed (read-only)") != std::string::npos);
    // The same store to a writable buffer is fine (the check of dst then fails: exit 1 too,
    // but for the data, not the store).
    cli.write("rw.yaml", read_only_workload(false, true));
    r = cli.run("-w rw.yaml -o rw");
    CHECK(r.err.find("failed (read-only)") == std::string::npos);
    for (const char* mode : {"accurate", "fast"}) {
        r = cli.run(std::string("-w store.yaml -o s2 -s tlb.model=timed -s platform.timing.mode=") +
                    mode);
        CHECK(r.code == 1);
        CHECK(r.err.find("ST at VA 0x10000000 failed (read-only)") != std::string::npos);
    }
}
