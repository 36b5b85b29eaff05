// ATOM.ADD end to end: many warps of many SMs add to two words of one line at the LLC, in both
// timing modes; the counters end at the exact sums and the returned old values are a
// permutation. Randomized shape, seed printed (VGPU_TEST_SEED reruns one). See docs/isa.md.
#include "test/platform/cli_runner.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {

/// Thread t: old = ATOM.ADD [ctr], 1; ATOM.ADD [ctr + 4], t + 1; out[old] = 1. The checks
/// expect ctr = {n, n(n+1)/2 mod 2^32} and out all ones, which holds only if the old values
/// of the first counter are exactly 0..n-1.
std::string atomics_workload(unsigned ctas, unsigned threads)
{
    const std::uint64_t n = std::uint64_t{ctas} * threads;
    std::string ones;
    for (std::uint64_t i = 0; i < n; ++i)
        ones += i ? ", 1" : "1";
    const auto sum = static_cast<std::uint32_t>(n * (n + 1) / 2);
    return "buffers:\n"
           "  - {name: ctr, type: u32, elements: 2}\n"
           "  - {name: out, type: u32, elements: " +
           std::to_string(n) +
           "}\n"
           "kernels:\n"
           "  - name: count\n"
           "    params: [{name: ctr, buffer: ctr}, {name: out, buffer: out}]\n"
           "    grid: " +
           std::to_string(ctas) + "\n    block: " + std::to_string(threads) +
           "\n"
           "    program: |\n"
           "      S2R R0, SR_GLOBAL_TID_X\n"
           "      LDP R1, ctr\n"
           "      MOV R2, 1\n"
           "      ATOM.ADD R3, [R1], R2\n"
           "      IADD R4, R0, 1\n"
           "      ATOM.ADD RZ, [R1 + 4], R4\n"
           "      LDP R5, out\n"
           "      SHL R6, R3, 2\n"
           "      IADD R5, R5, R6\n"
           "      ST [R5], R2\n"
           "      EXIT\n"
           "checks:\n"
           "  - {buffer: ctr, expect: [" +
           std::to_string(n) + ", " + std::to_string(sum) +
           "]}\n"
           "  - {buffer: out, expect: [" +
           ones + "]}\n";
}

void run_atomics(const std::string& mode, std::uint32_t default_seed)
{
    const std::uint32_t seed = vgpu::test::seed_or(default_seed);
    INFO("seed " << seed << " (VGPU_TEST_SEED=" << seed << " reruns it)");
    std::mt19937 rng(seed);
    const unsigned ctas = 8 + rng() % 25;          // more CTAs than one SM holds
    const unsigned threads = 32 * (1 + rng() % 8); // 1..8 warps each
    INFO(ctas << " CTAs of " << threads << " threads, " << mode);
    cli_runner cli("atomics_" + mode);
    cli.write("w.yaml", atomics_workload(ctas, threads));
    const vgpu::test::stats_run r =
        vgpu::test::run_with_stats(cli, "-w w.yaml -s platform.timing.mode=" + mode);
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    // Every lane's ATOM is one request of the SM and one read-modify-write at an LLC slice.
    double atomics = 0;
    for (const auto& [name, v] : r.stats.items())
        if (name.size() > 8 && name.compare(name.size() - 8, 8, ".atomics") == 0)
            atomics += v.get<double>();
    CHECK(atomics == 2.0 * ctas * threads / 32);
}

/// One warp: ATOM.ADD [ctr], lane + 1 (every lane on one word), then ATOM.ADD [ctr + 8 + 4 *
/// (lane & 1)], lane + 1 (even and odd lanes on two words); out[2 lane] and out[2 lane + 1]
/// take the old values. The expected values are the lane-order prefix sums, computed here.
void run_warp_aggregation(const std::string& mode)
{
    std::vector<std::uint32_t> ctr(4, 0), out(64, 0);
    for (std::uint32_t l = 0; l < 32; ++l) {
        out[2 * l] = ctr[0];
        ctr[0] += l + 1;
        out[2 * l + 1] = ctr[2 + (l & 1)];
        ctr[2 + (l & 1)] += l + 1;
    }
    auto list = [](const std::vector<std::uint32_t>& v) {
        std::string s;
        for (std::uint32_t x : v)
            s += (s.empty() ? "" : ", ") + std::to_string(x);
        return s;
    };
    cli_runner cli("atomics_warp_" + mode);
    cli.write("w.yaml", "buffers:\n"
                        "  - {name: ctr, type: u32, elements: 4}\n"
                        "  - {name: out, type: u32, elements: 64}\n"
                        "kernels:\n"
                        "  - name: aggregate\n"
                        "    params: [{name: ctr, buffer: ctr}, {name: out, buffer: out}]\n"
                        "    grid: 1\n"
                        "    block: 32\n"
                        "    program: |\n"
                        "      S2R R0, SR_GLOBAL_TID_X\n"
                        "      LDP R1, ctr\n"
                        "      IADD R2, R0, 1\n"
                        "      ATOM.ADD R3, [R1], R2\n"
                        "      AND R4, R0, 1\n"
                        "      SHL R4, R4, 2\n"
                        "      IADD R4, R1, R4\n"
                        "      ATOM.ADD R5, [R4 + 8], R2\n"
                        "      LDP R6, out\n"
                        "      SHL R7, R0, 3\n"
                        "      IADD R6, R6, R7\n"
                        "      ST [R6], R3\n"
                        "      ST [R6 + 4], R5\n"
                        "      EXIT\n"
                        "checks:\n"
                        "  - {buffer: ctr, expect: [" +
                            list(ctr) +
                            "]}\n"
                            "  - {buffer: out, expect: [" +
                            list(out) + "]}\n");
    const vgpu::test::stats_run r =
        vgpu::test::run_with_stats(cli, "-w w.yaml -s platform.timing.mode=" + mode);
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    // One request per distinct word of each ATOM (1 + 2), and two lines for each of the two
    // strided stores (32 lanes 8 bytes apart span 256 bytes): 7, where a request per lane
    // would be 64 + 4.
    CHECK(r.stats["gpu.mem_requests"].get<double>() == 7);
}

} // namespace

TEST_CASE("ATOM.ADD of a warp: one request per word, old values in lane order: fast", "[atomics]")
{
    run_warp_aggregation("fast");
}

TEST_CASE("ATOM.ADD of a warp: one request per word, old values in lane order: accurate",
          "[atomics]")
{
    run_warp_aggregation("accurate");
}

TEST_CASE("ATOM.ADD under contention from many warps and SMs: fast", "[atomics]")
{
    run_atomics("fast", 2002);
}

TEST_CASE("ATOM.ADD under contention from many warps and SMs: accurate", "[atomics]")
{
    run_atomics("accurate", 2003);
}
