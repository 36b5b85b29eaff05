// platform.check_protocol as users run it: a checker on every link of the platform, named after
// its link, on the path of the traffic, with its statistics and summary line and no effect on the
// results; a broken link (test/platform/broken_link_sim.cpp) fails the run naming the link. See
// docs/protocol-checker.md ("In the platform").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <string>

using vgpu::test::cli_runner;
using vgpu::test::run_with_stats;

namespace {
/// The default platform's shape, set explicitly so that the links below follow from it.
const std::string shape = " -s platform.modules=1 -s platform.clusters_per_module=2"
                          " -s platform.sms_per_cluster=4 -s llc.slices_per_module=4";
const std::string vector_add = " -w " VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml";

/// The links of that platform, from its structure (docs/architecture.md): each SM's memory path
/// SM -> L1 TLB -> L1 -> cluster crossbar, its TLB's walks to the crossbar, the CP's dispatch to
/// it and its completions to the CP; each crossbar to the NoC; the NoC to each LLC slice and
/// each slice to DRAM; the host's DMA into the NoC and its MMIO into the MMIO bus, whose windows
/// are the CP's, the fault unit's and the CBV table's. Named `<from>_to_<to>` relative to the
/// module that binds them.
std::set<std::string> expected_links()
{
    std::set<std::string> out;
    for (unsigned s = 0; s < 8; ++s) {
        const std::string sm = "sm" + std::to_string(s), c = "c" + std::to_string(s / 4);
        const std::string cl = "gpu.m0." + c + ".";
        out.insert(cl + sm + "_mem_to_" + sm + "_tlb_in");
        out.insert(cl + sm + "_tlb_out_to_" + sm + "_l1_in");
        out.insert(cl + sm + "_l1_out_to_xbar_" + sm + "_l1");
        out.insert(cl + sm + "_tlb_walk_to_xbar_" + sm + "_tlb_walk");
        out.insert("gpu.cp_dispatch" + std::to_string(s) + "_to_m0_" + c + "_" + sm + "_ctrl");
        out.insert("gpu.m0_" + c + "_" + sm + "_done_to_cp_cta_done");
    }
    for (unsigned c = 0; c < 2; ++c)
        out.insert("gpu.m0.c" + std::to_string(c) + "_xbar_noc_to_noc_c" + std::to_string(c));
    for (unsigned k = 0; k < 4; ++k) {
        const std::string llc = "llc" + std::to_string(k);
        out.insert("gpu.m0.noc_" + llc + "_to_" + llc + "_in");
        out.insert("gpu.m0." + llc + "_out_to_dram_in");
    }
    for (const char* link : {"gpu.host_dma_to_m0_noc_host", "gpu.host_mmio_to_mmio_bus_in",
                             "gpu.mmio_bus_cp_to_cp_mmio", "gpu.mmio_bus_faults_to_faults_mmio",
                             "gpu.mmio_bus_cbvs_to_cbvs_mmio"})
        out.insert(link);
    return out;
}

/// The checkers a run's statistics name: every group with both `calls` and `violations`.
std::set<std::string> checkers(const nlohmann::json& stats)
{
    std::set<std::string> out;
    for (const auto& [name, value] : stats.items()) {
        (void)value;
        const std::string suffix = ".violations";
        if (name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            const std::string group = name.substr(0, name.size() - suffix.size());
            if (stats.contains(group + ".calls"))
                out.insert(group);
        }
    }
    return out;
}
} // namespace

TEST_CASE("platform.check_protocol: a checker on every link of the gpu platform, on the path of "
          "its traffic, counted in stats and the summary, changing no result")
{
    cli_runner cli("protocol_on");
    const auto on = run_with_stats(cli, vector_add + shape + " -s platform.check_protocol=true");
    INFO(on.r.err);
    REQUIRE(on.r.code == 0);
    const std::set<std::string> links = expected_links();
    REQUIRE(links.size() == 63);
    CHECK(checkers(on.stats) == links);
    double calls = 0;
    for (const auto& link : links) {
        INFO(link);
        CHECK(on.stat(link + ".violations") == 0);
        calls += on.stat(link + ".calls");
        // Every SM runs vector_add: its memory path, dispatch and completions, the crossbars, the
        // NoC, the slices, DRAM and the host's links carry traffic (the fault unit's and the CBV
        // table's windows may see none).
        if (link.find("faults_mmio") == std::string::npos &&
            link.find("cbvs_mmio") == std::string::npos)
            CHECK(on.stat(link + ".calls") > 0);
    }
    CHECK(on.r.out.find("  protocol checks: 63 links, " +
                        std::to_string(static_cast<std::uint64_t>(calls)) +
                        " calls, 0 violations\n") != std::string::npos);

    // Off (the default): no checker, no summary line, and the same results.
    const nlohmann::json on_records = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto off = run_with_stats(cli, vector_add + shape);
    REQUIRE(off.r.code == 0);
    CHECK(checkers(off.stats).empty());
    CHECK(off.r.out.find("protocol checks") == std::string::npos);
    const nlohmann::json off_records = nlohmann::json::parse(cli.read("out/stats.json"));
    CHECK(on_records["kernels"] == off_records["kernels"]);
    nlohmann::json on_stats = on.stats;
    for (const auto& link : links) {
        on_stats.erase(link + ".calls");
        on_stats.erase(link + ".violations");
    }
    CHECK(on_stats == off.stats);
}

TEST_CASE("platform.check_protocol: a checker on every link of the traffic platform")
{
    cli_runner cli("protocol_traffic");
    const auto on = run_with_stats(cli, "-s platform.kind=traffic -s platform.modules=2 -s "
                                        "traffic.generators=2 -s platform.check_protocol=true");
    INFO(on.r.err);
    REQUIRE(on.r.code == 0);
    const std::set<std::string> links = {"traffic.tg0_mem_to_bus_in", "traffic.tg1_mem_to_bus_in",
                                         "traffic.bus_mem0_to_mem0_in",
                                         "traffic.bus_mem1_to_mem1_in"};
    CHECK(checkers(on.stats) == links);
    for (const auto& link : links) {
        INFO(link);
        CHECK(on.stat(link + ".violations") == 0);
        // The generators' footprints lie in module 0's memory.
        if (link != "traffic.bus_mem1_to_mem1_in")
            CHECK(on.stat(link + ".calls") > 0);
    }
    CHECK(on.r.out.find("  protocol checks: 4 links, ") != std::string::npos);
}

TEST_CASE("platform.check_protocol: a target that changes the address on a leaf link fails the "
          "run with exit 1, naming the link (unchecked, the run passes)")
{
    cli_runner cli("protocol_broken");
    ::setenv("VGPU_BROKEN_LINK", "address", 1);
    const auto off = cli.run_program(BROKEN_LINK_SIM_PATH, vector_add + " -o out");
    const std::string link = "gpu.m0.c0.sm0_tlb_out_to_sm0_bad_in";
    {
        INFO(off.err);
        // The broken stage is on the path (the run is the same as vgpu-sim's) and unnoticed.
        REQUIRE(off.code == 0);
        CHECK(off.out.find("verdict: pass") != std::string::npos);
    }
    // The violation ends the run with a SystemC error, after which SystemC cannot unwind the
    // suspended threads (platforms/thread_unwinder.h): what their stacks own is still held at
    // exit. In the sanitizer build LeakSanitizer would report that; its leak check is off for
    // this one run (every other check stays on).
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string saved = asan != nullptr ? asan : "";
    ::setenv("ASAN_OPTIONS", (saved.empty() ? "" : saved + ":").append("detect_leaks=0").c_str(),
             1);
    const auto on = cli.run_program(BROKEN_LINK_SIM_PATH,
                                    vector_add + " -s platform.check_protocol=true -o out");
    if (asan != nullptr)
        ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
    else
        ::unsetenv("ASAN_OPTIONS");
    INFO(on.err);
    CHECK(on.code == 1);
    CHECK(on.err.find("vgpu-sim: FAIL: vgpu/protocol_checker: " + link +
                      ": b_transport: target changed the address from 0x") != std::string::npos);
    const auto stats = nlohmann::json::parse(cli.read("out/stats.json"))["stats"];
    CHECK(stats[link + ".violations"] == 1);
    CHECK(stats["gpu.m0.c0.sm0_mem_to_sm0_tlb_in.violations"] == 0);
    CHECK(stats["gpu.m0.c0.sm0_bad_out_to_sm0_l1_in.violations"] == 0);
}

TEST_CASE("platform.check_protocol: a link bound around the link seam fails the run with exit 1, "
          "naming its initiator")
{
    cli_runner cli("protocol_bypass");
    ::setenv("VGPU_BROKEN_LINK", "bypass", 1);
    const auto off = cli.run_program(BROKEN_LINK_SIM_PATH, vector_add + " -o out");
    {
        INFO(off.err);
        REQUIRE(off.code == 0);
    }
    const auto on = cli.run_program(BROKEN_LINK_SIM_PATH,
                                    vector_add + " -s platform.check_protocol=true -o out");
    INFO(on.err);
    CHECK(on.code == 1);
    CHECK(on.err.find("links bound without tlm_bus::bind_link, so without a checker, from: "
                      "gpu.m0.c0.sm0_bad.out") != std::string::npos);
}
