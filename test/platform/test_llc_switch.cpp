// The LLC organisations of a multi-module GPU (llc.mode shared | private | adaptive) and the
// switch engine, on platforms/mcm4.yaml. Every run checks its own data against the host-side
// reference, so a lost write or a stale read fails it. See models/llc/README.md ("LLC
// switcher").
#include "test/platform/cli_runner.h"
#include "test/seed.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using vgpu::test::cli_runner;

namespace {
const std::string mcm4 = "-c '" VGPU_SOURCE_DIR "/platforms/mcm4.yaml' ";

/// Runs vgpu-sim on mcm4 with a shipped workload and `args` into `out`; returns stats.json.
nlohmann::json run(const cli_runner& r, const std::string& workload, const std::string& args,
                   const std::string& out)
{
    const auto res = r.run(mcm4 + "-w '" VGPU_SOURCE_DIR "/testbenches/workloads/" + workload +
                           ".yaml' " + args + " -o " + out);
    INFO(res.out << res.err);
    REQUIRE(res.code == 0);
    return nlohmann::json::parse(r.read(out + "/stats.json"));
}

double stat(const nlohmann::json& s, const std::string& name)
{
    return s.at("stats").at(name).get<double>();
}

/// Sum of the statistics named prefix...suffix (e.g. every slice's home_writes).
double sum_of(const nlohmann::json& s, const std::string& prefix, const std::string& suffix)
{
    double sum = 0;
    for (const auto& kv : s.at("stats").items()) {
        const std::string& k = kv.key();
        if (k.size() > prefix.size() + suffix.size() && k.compare(0, prefix.size(), prefix) == 0 &&
            k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
            sum += kv.value().get<double>();
    }
    return sum;
}

double link_bytes(const nlohmann::json& s)
{
    return sum_of(s, "gpu.link_", ".bytes");
}

/// Kernel time and link bytes of one workload under shared, private and adaptive (in that
/// order), and adaptive's switches.
struct organisations {
    double time[3], link[3], switches;
    std::string summary() const
    {
        return "kernel ns (shared, private, adaptive): " + std::to_string(time[0]) + ", " +
               std::to_string(time[1]) + ", " + std::to_string(time[2]) +
               "; link bytes: " + std::to_string(link[0]) + ", " + std::to_string(link[1]) + ", " +
               std::to_string(link[2]) + "; adaptive switches " + std::to_string(switches);
    }
};

organisations each_mode(const std::string& workload, const std::string& args)
{
    cli_runner r("llc_" + workload);
    organisations o{};
    const char* modes[] = {"shared", "private", "adaptive"};
    for (int i = 0; i < 3; ++i) {
        const nlohmann::json s =
            run(r, workload, args + "-s llc.mode=" + modes[i], std::string("out_") + modes[i]);
        o.time[i] = stat(s, "gpu.kernel_time");
        o.link[i] = link_bytes(s);
        if (i == 2)
            o.switches = stat(s, "gpu.llc_switch.switches");
    }
    return o;
}

} // namespace

TEST_CASE("llc switch: 1000 forced random switches under read-modify-write from every module "
          "lose no write (fast mode)")
{
    const unsigned seed = vgpu::test::seed_or(7);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    cli_runner r("llc_forced_fast");
    // Thread-owned words interleaved over lines, pages and modules (round-robin pages): every
    // value read feeds the final array and the sums the references check.
    const nlohmann::json s = run(r, "owned_rmw",
                                 "-D ctas=32 -D k=48 -s memory.page_alloc=round_robin "
                                 "-s llc.forced_switch_ns=20 --seed " +
                                     std::to_string(seed),
                                 "out");
    CHECK(stat(s, "gpu.host.checks_passed") == 2);
    CHECK(stat(s, "gpu.host.checks_failed") == 0);
    CHECK(stat(s, "gpu.llc_switch.switches") >= 1000);
    // Modules switched on their own (random modules, and every module at once): each module's
    // count is part of the total, and the register-level state was mixed at times.
    double per_module = 0;
    for (int m = 0; m < 4; ++m) {
        const double n = stat(s, "gpu.llc_switch.m" + std::to_string(m) + ".switches");
        CHECK(n >= 100);
        per_module += n;
    }
    CHECK(per_module == stat(s, "gpu.llc_switch.switches"));
    // Both organisations really ran: private copies were made and dropped, writes to lines
    // homed elsewhere went through to their home.
    CHECK(stat(s, "gpu.llc_switch.dropped_lines") > 0);
    CHECK(sum_of(s, "gpu.m", ".home_writes") > 0);
    CHECK(sum_of(s, "gpu.m", ".switch_waits") > 0);
}

TEST_CASE("llc switch: forced random switches lose no write in accurate mode")
{
    const unsigned seed = vgpu::test::seed_or(11);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    cli_runner r("llc_forced_accurate");
    const nlohmann::json s = run(r, "owned_rmw",
                                 "-D ctas=16 -D k=24 -s memory.page_alloc=round_robin "
                                 "-s llc.forced_switch_ns=40 -s platform.timing.mode=accurate "
                                 "--seed " +
                                     std::to_string(seed),
                                 "out");
    CHECK(stat(s, "gpu.host.checks_passed") == 2);
    CHECK(stat(s, "gpu.llc_switch.switches") >= 50);
    CHECK(stat(s, "gpu.llc_switch.dropped_lines") > 0);
}

TEST_CASE("llc organisations: a table every module reads favours private, adaptive follows",
          "[figures]")
{
    const organisations o = each_mode("llc_table", "-s memory.page_alloc=round_robin ");
    INFO(o.summary());
    CHECK(o.time[1] < o.time[0]);
    CHECK(o.link[1] < o.link[0] / 2);
    CHECK(o.time[2] <= 1.05 * std::min(o.time[0], o.time[1]));
    CHECK(o.switches >= 1);
    // Shared with remote ways (the table is a read_only buffer): its reads fill the remote
    // ways of each module's slices through the home, so most of them stay local too.
    cli_runner r("llc_table_remote_ways");
    const nlohmann::json rw =
        run(r, "llc_table", "-s memory.page_alloc=round_robin -s llc.remote_ways=4", "out");
    INFO("shared + 4 remote ways: kernel " << stat(rw, "gpu.kernel_time") << " ns, link bytes "
                                           << link_bytes(rw));
    CHECK(stat(rw, "gpu.kernel_time") < o.time[0]);
    CHECK(link_bytes(rw) < o.link[0] / 2);
    CHECK(sum_of(rw, "gpu.m", ".remote_way_hits") > 10 * sum_of(rw, "gpu.m", ".remote_way_misses"));
}

TEST_CASE("llc organisations: producer-consumer across modules favours shared, adaptive within "
          "10 %",
          "[figures]")
{
    // DRAM slower than the links: a private copy that misses costs more than a crossing.
    const organisations o = each_mode("llc_handoff", "-s dram.latency=150ns ");
    INFO(o.summary());
    CHECK(o.time[0] < o.time[1]);
    CHECK(o.time[2] <= 1.10 * std::min(o.time[0], o.time[1]));
}

TEST_CASE("llc organisations: a kernel's llc key makes the driver write ARCH and CHANGE before "
          "its launch")
{
    cli_runner r("llc_key");
    std::string text = r.read(VGPU_SOURCE_DIR "/testbenches/workloads/llc_handoff.yaml");
    auto after = [&](const std::string& anchor, const std::string& line) {
        const auto at = text.find(anchor);
        REQUIRE(at != std::string::npos);
        text.insert(at + anchor.size(), line);
    };
    after("  - name: produce\n", "    llc: private\n");
    after("  - name: consume\n", "    llc: shared\n");
    r.write("w.yaml", text);
    const auto res = r.run(mcm4 + "-w w.yaml -o out");
    INFO(res.out << res.err);
    REQUIRE(res.code == 0);
    const nlohmann::json s = nlohmann::json::parse(r.read("out/stats.json"));
    CHECK(stat(s, "gpu.llc_switch.requests") == 2); // GPU-wide ARCH and CHANGE writes
    for (int m = 0; m < 4; ++m)                     // every module to private, back to shared
        CHECK(stat(s, "gpu.llc_switch.m" + std::to_string(m) + ".switches") == 2);
    CHECK(stat(s, "gpu.llc_switch.switches") == 8);
    CHECK(stat(s, "gpu.host.checks_passed") == 2);
    // On one module there is no switcher: the key is accepted and changes nothing.
    const auto one = r.run("-w w.yaml -D sms=4 -o one");
    CHECK(one.code == 0);
}

TEST_CASE("llc private: copies of a frame's lines are dropped when the host reuses the frame")
{
    // Under memory pressure the host evicts pages and reuses their frames within the kernel;
    // a private copy (or remote way) of the old page's line would serve stale data to the
    // gather. The CP's L1_INVALIDATE of each eviction makes the slices drop them.
    for (const char* mode : {"fast", "accurate"}) {
        INFO("timing mode " << mode);
        cli_runner r(std::string("llc_frame_reuse_") + mode);
        const nlohmann::json s =
            run(r, "page_faults",
                "-D pages=1024 -D ctas=1 -s dram.size=256KiB -s memory.page_alloc=round_robin "
                "-s llc.mode=private -s platform.timing.mode=" +
                    std::string(mode),
                "out");
        CHECK(stat(s, "gpu.host.checks_passed") == 1);
        CHECK(stat(s, "gpu.host.checks_failed") == 0);
        CHECK(stat(s, "gpu.host.evictions") > 100);
        CHECK(stat(s, "gpu.llc_switch.range_drops") == stat(s, "gpu.host.evictions"));
        CHECK(stat(s, "gpu.llc_switch.range_dropped_lines") > 0);
        CHECK(sum_of(s, "gpu.m", ".range_dropped") ==
              stat(s, "gpu.llc_switch.range_dropped_lines"));
    }
}

TEST_CASE("llc remote ways: a reused frame's read-only lines are dropped from other modules")
{
    // page_faults with its gathered buffer read-only: the remote ways of the modules that do
    // not home a page cache its lines; under memory pressure the frame is reused, and a line
    // left in a remote way would serve the old page's data.
    std::ifstream in(VGPU_SOURCE_DIR "/testbenches/workloads/page_faults.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "init: {iota: {start: 7, step: 1}},\n     alloc: on_demand}";
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(),
                 "init: {iota: {start: 7, step: 1}},\n     alloc: on_demand, read_only: true}");
    for (const char* mode : {"fast", "accurate"}) {
        INFO("timing mode " << mode);
        cli_runner r(std::string("llc_remote_frame_reuse_") + mode);
        r.write("w.yaml", text);
        const auto res = r.run(mcm4 +
                               "-w w.yaml -D pages=1024 -D ctas=1 -s dram.size=256KiB "
                               "-s memory.page_alloc=round_robin -s llc.remote_ways=4 "
                               "-s platform.timing.mode=" +
                               std::string(mode) + " -o out");
        INFO(res.out << res.err);
        REQUIRE(res.code == 0);
        const auto s = nlohmann::json::parse(r.read("out/stats.json"));
        CHECK(stat(s, "gpu.host.checks_passed") == 1);
        CHECK(stat(s, "gpu.host.evictions") > 100);
        CHECK(stat(s, "gpu.llc_switch.range_drops") == stat(s, "gpu.host.evictions"));
        CHECK(stat(s, "gpu.llc_switch.range_dropped_lines") > 0);
    }
}

TEST_CASE("llc adaptive: a congested link measured by the monitor moves the decision to private",
          "[figures]")
{
    // The table read twice, over a 2 ns link, DRAM 300 ns: at the unloaded figures shared is
    // cheaper while the table is first read (a private copy misses once per module) and
    // private only on the second pass. With 4 GB/s links the crossings queue: the monitor
    // measures them and switches at once, close to static private; with 256 GB/s it keeps
    // shared through the first pass.
    cli_runner r("llc_congested_link");
    const std::string base = "-s memory.page_alloc=round_robin -s noc.link_latency=2ns "
                             "-s dram.latency=300ns ";
    auto go = [&](const std::string& args, const std::string& out) {
        return run(r, "llc_table", base + args, out);
    };
    const nlohmann::json idle = go("-s llc.mode=adaptive -s noc.link_bandwidth_gbps=256", "idle");
    const nlohmann::json busy = go("-s llc.mode=adaptive -s noc.link_bandwidth_gbps=4", "busy");
    const nlohmann::json priv = go("-s llc.mode=private -s noc.link_bandwidth_gbps=4", "priv");
    const nlohmann::json shrd = go("-s llc.mode=shared -s noc.link_bandwidth_gbps=4", "shrd");
    INFO("epochs under shared before the switch (module 0), idle link: "
         << stat(idle, "gpu.llc_switch.m0.epochs_shared")
         << ", congested: " << stat(busy, "gpu.llc_switch.m0.epochs_shared")
         << "; measured crossing (cycles) idle " << stat(idle, "gpu.llc_switch.measured_link")
         << ", congested " << stat(busy, "gpu.llc_switch.measured_link") << "; kernel ns adaptive "
         << stat(busy, "gpu.kernel_time") << ", private " << stat(priv, "gpu.kernel_time")
         << ", shared " << stat(shrd, "gpu.kernel_time"));
    CHECK(stat(idle, "gpu.llc_switch.m0.epochs_shared") >= 10);
    CHECK(stat(busy, "gpu.llc_switch.m0.epochs_shared") <= 2);
    CHECK(stat(busy, "gpu.llc_switch.measured_link") >
          10 * stat(idle, "gpu.llc_switch.measured_link"));
    CHECK(stat(busy, "gpu.kernel_time") <= 1.05 * stat(priv, "gpu.kernel_time"));
    CHECK(stat(busy, "gpu.kernel_time") < 0.6 * stat(shrd, "gpu.kernel_time"));
    CHECK(stat(busy, "gpu.host.checks_passed") == 1);
}
