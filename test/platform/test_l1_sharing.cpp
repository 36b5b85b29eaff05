// L1 sharing in a cluster (seed 004), `l1.sharing: shared`: the broadcast read of the issue.
// N = 4 SMs of a cluster each sweep the same array, twice one L1's capacity, R = 10 times:
// private L1s hit never, shared ones 1 - 1/(N R) (a request merged into a miss of the cluster
// counts as a hit), and the data is right. See models/l1_share/README.md.
#include "models/l1_share/core/l1_share.h"
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
constexpr unsigned lines = 512, passes = 10, sms = 4; // 512 lines = 2 x the 256-line L1

/// Every CTA (one per SM of cluster 0) sweeps the array `passes` times, one line per load,
/// and stores its lanes' sums (checked with `expect`).
std::string workload()
{
    std::vector<std::uint32_t> a(lines * 32);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<std::uint32_t>((i * 7 + 3) % 1000);
    std::ostringstream w;
    w << "name: broadcast\nbuffers:\n  - {name: a, type: u32, elements: " << a.size()
      << ", init: {values: [";
    for (std::size_t i = 0; i < a.size(); ++i)
        w << (i ? ", " : "") << a[i];
    w << "]}}\n  - {name: out, type: u32, elements: " << 32 * sms << ", init: zero}\n"
      << "kernels:\n  - name: sweep\n"
      << "    params: [{name: a, buffer: a}, {name: out, buffer: out}, {name: lines, value: "
      << lines << "}, {name: passes, value: " << passes << "}]\n"
      << "    grid: [" << sms << ", 1]\n    block: [32, 1]\n    sms: {first: 0, count: " << sms
      << "}\n    program: |\n"
      << "      # each CTA sweeps the whole array `passes` times\n"
      << "              S2R  R0, SR_LANEID\n"
      << "              S2R  R1, SR_CTAID_X\n"
      << "              LDP  R2, a\n"
      << "              LDP  R3, lines\n"
      << "              LDP  R4, passes\n"
      << "              SHL  R5, R0, 2\n"
      << "              IADD R2, R2, R5\n"
      << "              MOV  R6, 0\n"
      << "              MOV  R7, 0\n"
      << "      pass:   ISETP.GE P0, R7, R4\n"
      << "      @P0     BRA  done\n"
      << "              MOV  R8, 0\n"
      << "              MOV  R9, R2\n"
      << "      line:   ISETP.GE P1, R8, R3\n"
      << "      @P1     BRA  next\n"
      << "              LD   R10, [R9]\n"
      << "              IADD R6, R6, R10\n"
      << "              IADD R9, R9, 128\n"
      << "              IADD R8, R8, 1\n"
      << "              BRA  line\n"
      << "      next:   IADD R7, R7, 1\n"
      << "              BRA  pass\n"
      << "      done:   LDP  R11, out\n"
      << "              SHL  R12, R1, 7\n"
      << "              IADD R11, R11, R12\n"
      << "              IADD R11, R11, R5\n"
      << "              ST   [R11], R6\n"
      << "              EXIT\n"
      << "checks:\n  - buffer: out\n    expect: [";
    for (unsigned c = 0; c < sms; ++c)
        for (unsigned lane = 0; lane < 32; ++lane) {
            std::uint32_t sum = 0;
            for (unsigned l = 0; l < lines; ++l)
                sum += a[l * 32 + lane];
            w << (c || lane ? ", " : "") << sum * passes;
        }
    w << "]\n";
    return w.str();
}

/// Cluster 0's L1 lookups and those served in the cluster (hits + merged misses).
std::pair<double, double> lookups(const vgpu::test::stats_run& r)
{
    double total = 0, served = 0;
    for (unsigned s = 0; s < sms; ++s) {
        const std::string l1 = "gpu.m0.c0.sm" + std::to_string(s) + "_l1.";
        total += r.stat(l1 + "hits") + r.stat(l1 + "misses") + r.stat(l1 + "mshr_merges");
        served += r.stat(l1 + "hits") + r.stat(l1 + "mshr_merges");
    }
    return {total, served};
}
} // namespace

TEST_CASE("l1 sharing: the broadcast read hits 1 - 1/(N R) when shared and never when private")
{
    const double shared_expect =
        vgpu::l1_share::broadcast_hit_rate_shared(lines, 4 * 256, passes, sms);
    CHECK(shared_expect == Approx(0.975));
    CHECK(vgpu::l1_share::broadcast_hit_rate_private(lines, 256, passes, sms) == 0.0);
    for (const char* mode : {"fast", "accurate"}) {
        CAPTURE(mode);
        cli_runner cli(std::string("l1share_") + mode);
        cli.write("w.yaml", workload());
        const std::string m = std::string(" -s platform.timing.mode=") + mode;
        const auto priv = vgpu::test::run_with_stats(cli, "-w w.yaml" + m);
        INFO(priv.r.err);
        REQUIRE(priv.r.code == 0);
        const auto [pt, ps] = lookups(priv);
        const auto shared = vgpu::test::run_with_stats(cli, "-w w.yaml -s l1.sharing=shared" + m);
        INFO(shared.r.err);
        REQUIRE(shared.r.code == 0); // the sums are right too
        const auto [st, ss] = lookups(shared);
        // The data lookups, plus the program's 4 lines fetched by each SM (16 lookups).
        CHECK(pt == Approx(sms * lines * passes + 16.0));
        CHECK(st == Approx(sms * lines * passes + 16.0));
        CHECK(ps / pt < 0.001);
        CHECK(ss / st == Approx(shared_expect).margin(0.001));
        // Three of every four lookups come from the SMs that are not the line's home.
        double remote = 0, priv_remote = 0;
        for (unsigned s = 0; s < sms; ++s) {
            const std::string l1 = "gpu.m0.c0.sm" + std::to_string(s) + "_l1.remote_reads";
            remote += shared.stat(l1);
            priv_remote += priv.stat(l1);
        }
        CHECK(priv_remote == 0);
        CHECK(remote == Approx(0.75 * sms * lines * passes).epsilon(0.01));
        // With the array in the cluster, the kernel is faster.
        CHECK(shared.stat("gpu.kernel_time") < priv.stat("gpu.kernel_time"));
    }
}
