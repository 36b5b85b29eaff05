// The TLB block's headline: the XOR set index against the modulo index on a strided page
// pattern (tlb_reach.yaml), timed TLB, in both timing modes. See models/tlb/README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using vgpu::test::cli_runner;

namespace {
/// Kernel time (ns) of tlb_reach.yaml with the given index and mode, the L1 TLBs alone.
double kernel_ns(const std::string& index, const std::string& mode, double& l1_misses)
{
    cli_runner cli("tlb_headline_" + index + "_" + mode);
    const auto r = cli.run("-w " VGPU_SOURCE_DIR "/testbenches/workloads/tlb_reach.yaml "
                           "-s tlb.model=timed -s tlb.l2.sets=0 -s tlb.index=" +
                           index + " -s platform.timing.mode=" + mode + " -o out");
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json doc = nlohmann::json::parse(cli.read("out/stats.json"));
    l1_misses = doc["stats"]["gpu.tlb_misses"].get<double>();
    return doc["stats"]["gpu.kernel_time"].get<double>();
}
} // namespace

TEST_CASE("tlb headline: the xor index beats modulo on pages 16 apart, and fast mode agrees",
          "[figures]")
{
    double mm_f = 0, mm_a = 0, xm_f = 0, xm_a = 0;
    const double modulo_f = kernel_ns("modulo", "fast", mm_f);
    const double modulo_a = kernel_ns("modulo", "accurate", mm_a);
    const double xor_f = kernel_ns("xor", "fast", xm_f);
    const double xor_a = kernel_ns("xor", "accurate", xm_a);
    INFO("modulo " << modulo_f << " / " << modulo_a << " ns, xor " << xor_f << " / " << xor_a
                   << " ns (fast / accurate); L1 TLB misses modulo " << mm_f << " / " << mm_a
                   << ", xor " << xm_f << " / " << xm_a);
    // Modulo: a warp's 32 pages share one 4-way set of the 16-set L1 TLB, so (nearly) every
    // one of the 4 SMs x 2 warps x 32 lanes x 8 passes = 2048 page accesses misses.
    CHECK(mm_a > 0.85 * 2048);
    // XOR: they spread over the sets; mostly the 64 x 4 compulsory misses remain.
    CHECK(xm_a < 0.3 * mm_a);
    CHECK(modulo_a / xor_a > 1.5);
    CHECK(modulo_f / xor_f > 1.5);
    CHECK(std::abs(modulo_f / modulo_a - 1) < 0.05);
    CHECK(std::abs(xor_f / xor_a - 1) < 0.05);
}
