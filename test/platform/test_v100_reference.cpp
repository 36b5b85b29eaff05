// platforms/v100.yaml held against a cycle-level GPU simulator's V100 configuration (Accel-Sim)
// on the three kernels of its comparison: the same verdict (`bound`) and a kernel time within
// the stated margin of the cycle-level simulator's kernel-only figure. Fast mode at the default
// quantum (accurate mode: `scripts/bench gpu`). See platforms/v100.yaml for the sources of its
// values and docs/architecture.md ("Platform configurations").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using vgpu::test::cli_runner;

namespace {
/// Runs `args` on platforms/v100.yaml and checks its one kernel's bound and its time (`unit`:
/// "ns" for the kernel window, "cycles" for core cycles) against `reference` within `margin`.
void against_reference(const std::string& tag, const std::string& args, const char* bound,
                       const char* unit, double reference, double margin)
{
    cli_runner r("v100_" + tag);
    const auto res = r.run("-c '" VGPU_SOURCE_DIR "/platforms/v100.yaml' -w '" VGPU_SOURCE_DIR
                           "/testbenches/workloads/" +
                           args + " -o out");
    INFO(res.out << res.err);
    REQUIRE(res.code == 0);
    const auto s = nlohmann::json::parse(r.read("out/stats.json"));
    REQUIRE(s.at("kernels").size() == 1);
    const auto& k = s.at("kernels").at(0);
    const double measured = std::string(unit) == "ns"
                                ? k.at("end_ns").get<double>() - k.at("start_ns").get<double>()
                                : k.at("cycles").get<double>();
    INFO(tag << ": " << measured << " " << unit << " against " << reference << " (" << std::showpos
             << (measured / reference - 1) * 100 << std::noshowpos << " %), bound "
             << k.at("bound"));
    CHECK(k.at("sms") == 80);
    CHECK(k.at("bound") == bound);
    CHECK(measured >= reference * (1 - margin));
    CHECK(measured <= reference * (1 + margin));
}
} // namespace

TEST_CASE("v100 reference: a 1M-element vector add is memory-bandwidth bound, 14.4 us +-25 %",
          "[figures]")
{
    against_reference("vector_add", "vector_add.yaml' -D n=1048576 -D ctas=4096",
                      "memory_bandwidth", "ns", 14400, 0.25);
}

TEST_CASE("v100 reference: 256x256 threads x 1000 dependent FFMAs are issue bound, 21,520 "
          "cycles +-30 %",
          "[figures]")
{
    against_reference("ffma_chain", "ffma_chain.yaml'", "issue", "cycles", 21520, 0.30);
}

TEST_CASE("v100 reference: a 256K random gather from 64 MiB is memory-latency bound, 34.4 us "
          "+-35 %",
          "[figures]")
{
    against_reference("random_gather",
                      "random_gather.yaml' -D n=262144 -D src=16777216 -D ctas=1024",
                      "memory_latency", "ns", 34400, 0.35);
}
