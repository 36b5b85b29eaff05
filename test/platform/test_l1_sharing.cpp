// L1 sharing in a cluster (seed 004), `l1.sharing: shared`: the broadcast read of the issue.
// N = 4 SMs of a cluster each sweep the same array, twice one L1's capacity, R = 10 times:
// private L1s hit never, shared ones 1 - 1/(N R) (a request merged into a miss of the cluster
// counts as a hit), and the data is right. See models/l1_share/README.md.
#include "models/l1_share/core/l1_share.h"
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
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

TEST_CASE("l1 sharing: the broadcast read hits 1 - 1/(N R) when shared and never when private",
          "[figures]")
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

namespace {
const std::string workloads = VGPU_SOURCE_DIR "/testbenches/workloads/";

/// Sum of `stat` over the L1s of cluster 0.
double cluster_sum(const vgpu::test::stats_run& r, const std::string& stat)
{
    double total = 0;
    for (unsigned s = 0; s < sms; ++s)
        total += r.stat("gpu.m0.c0.sm" + std::to_string(s) + "_l1." + stat);
    return total;
}

/// SM 0's hit rate: its L1's hits and merged misses, and its misses its partner served, over
/// its lookups.
double sm0_hit_rate(const vgpu::test::stats_run& r)
{
    const std::string l1 = "gpu.m0.c0.sm0_l1.";
    const double lookups = r.stat(l1 + "hits") + r.stat(l1 + "misses") + r.stat(l1 + "mshr_merges");
    const double served =
        r.stat(l1 + "hits") + r.stat(l1 + "mshr_merges") + cluster_sum(r, "remote_hits");
    return lookups > 0 ? served / lookups : 0.0;
}
} // namespace

TEST_CASE("l1 sharing adaptive: a memory-intensive SM borrows a compute SM's L1, both modes")
{
    // testbenches/workloads/l1_borrow.yaml: `sweep` (SM 0) reads 512 lines, twice one L1, ten
    // times; `spin` (SMs 1-3) only computes. SM 0 is memory-intensive from its second epoch on
    // and borrows SM 1's L1 (the 0th compute SM): the lines it evicts are stored there and its
    // later passes find them.
    std::map<std::string, double> kernel_ns;
    for (const char* mode : {"fast", "accurate"}) {
        CAPTURE(mode);
        cli_runner cli(std::string("l1adaptive_") + mode);
        const std::string args =
            "-w " + workloads + "l1_borrow.yaml -s platform.timing.mode=" + mode;
        const auto priv = vgpu::test::run_with_stats(cli, args);
        INFO(priv.r.err);
        REQUIRE(priv.r.code == 0);
        const auto adap = vgpu::test::run_with_stats(cli, args + " -s l1.sharing=adaptive");
        INFO(adap.r.err);
        REQUIRE(adap.r.code == 0); // the sums are right
        kernel_ns[std::string("private_") + mode] = priv.stat("gpu.kernel_time");
        kernel_ns[std::string("adaptive_") + mode] = adap.stat("gpu.kernel_time");
        // Hit rate: private never hits (an LRU sweep of twice its L1); adaptive serves the later
        // passes from the partner (all but the first pass and the first epoch: above 0.8).
        CHECK(sm0_hit_rate(priv) < 0.01);
        CHECK(sm0_hit_rate(adap) > 0.8);
        // NoC traffic: the cluster's read data from the LLC falls to a fifth or less.
        const double priv_noc = priv.stat("gpu.m0.noc.c0.response_bytes");
        const double adap_noc = adap.stat("gpu.m0.noc.c0.response_bytes");
        CHECK(adap_noc < 0.2 * priv_noc);
        // Classification: SM 0 memory-intensive from the first boundary on, once changed; the
        // others compute-intensive throughout.
        const std::string cls = "gpu.m0.c0.l1_share.";
        const double epochs = adap.stat(cls + "epochs");
        CHECK(epochs > 50);
        CHECK(adap.stat(cls + "sm0_memory_epochs") == epochs - 1);
        CHECK(adap.stat(cls + "sm0_class_changes") == 1);
        for (const char* s : {"sm1", "sm2", "sm3"})
            CHECK(adap.stat(cls + s + "_memory_epochs") == 0);
        // Partner rule: every borrowed read went to SM 1, and only there.
        const double borrowed = adap.stat("gpu.m0.c0.sm0_l1.borrowed_reads");
        CHECK(borrowed > 0.9 * lines * passes);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.remote_reads") == borrowed);
        CHECK(adap.stat("gpu.m0.c0.sm2_l1.remote_reads") == 0);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.remote_hits") +
                  adap.stat("gpu.m0.c0.sm1_l1.remote_misses") ==
              borrowed);
        // Queues: every block SM 0 sent reached SM 1; there, one is stored after each remote
        // request (S24), so at most one waits at the end and none is dropped.
        const double sent = adap.stat("gpu.m0.c0.sm0_l1.replacements_sent");
        CHECK(sent > 0);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.replacements_received") == sent);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.replacements_dropped") == 0);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.replacements_stored") >= sent - 1);
        CHECK(adap.stat("gpu.m0.c0.sm1_l1.replacements_stored") <= sent);
        // The crossbar carried the partner's data back and the blocks there.
        CHECK(adap.stat("gpu.m0.c0.l1_route.sm0_peer.response_bytes") == Approx(borrowed * 128));
        CHECK(adap.stat("gpu.m0.c0.l1_route.sm1_l1.bytes") >= sent * 128);
    }
    // Fast mode stays within 5 % of accurate mode.
    for (const char* sharing : {"private", "adaptive"}) {
        CAPTURE(sharing);
        const double fast = kernel_ns[std::string(sharing) + "_fast"];
        const double accurate = kernel_ns[std::string(sharing) + "_accurate"];
        CHECK(fast == Approx(accurate).epsilon(0.05));
    }
}

TEST_CASE("l1 sharing adaptive: the classification timeline is on the trace")
{
    cli_runner cli("l1adaptive_trace");
    const auto r =
        cli.run("-w " + workloads + "l1_borrow.yaml -s l1.sharing=adaptive --trace -o out");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const std::string trace = cli.read("out/trace.json");
    CHECK(trace.find("sm0 memory-intensive, borrows sm1") != std::string::npos);
    CHECK(trace.find("gpu.m0.c0.l1_share") != std::string::npos);
}

TEST_CASE("l1 sharing: without reuse across SMs, shared and adaptive cost little", "[figures]")
{
    // stream.yaml: every SM streams its own part; nothing to share, nothing to borrow (every
    // busy SM is memory-intensive). The cost of shared is the routing crossbar, of adaptive the
    // store updates to the other L1s.
    for (const char* mode : {"fast", "accurate"}) {
        CAPTURE(mode);
        cli_runner cli(std::string("l1noreuse_") + mode);
        const std::string args = "-w " + workloads +
                                 "stream.yaml -D n=262144 -s platform.timing.mode=" + mode +
                                 " -s l1.sharing=";
        std::map<std::string, double> ns;
        for (const char* sharing : {"private", "shared", "adaptive"}) {
            const auto r = vgpu::test::run_with_stats(cli, args + sharing);
            INFO(sharing << ": " << r.r.err);
            REQUIRE(r.r.code == 0);
            ns[sharing] = r.stat("gpu.kernel_time");
        }
        CHECK(ns["shared"] < 1.05 * ns["private"]);
        CHECK(ns["adaptive"] < 1.05 * ns["private"]);
    }
}

TEST_CASE("l1 sharing adaptive: bad classification parameters are configuration errors")
{
    cli_runner cli("l1adaptive_config");
    for (const char* bad : {"l1.epoch_cycles=0", "l1.miss_rate_threshold=1.5",
                            "l1.mem_share_threshold=-0.1", "l1.replacement_queue=0"}) {
        CAPTURE(bad);
        const auto r = cli.run(std::string("-s l1.sharing=adaptive -s ") + bad + " -o out");
        CHECK(r.code == 2);
        const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
        CHECK(r.err.find(key + ": value out of range") != std::string::npos);
    }
}

namespace {
/// One warp on SM 0 reads four lines 8 KiB apart (one set of every L1) `rounds` times, one line
/// per load; the other SMs are idle. Its lanes' sums are checked.
std::string four_lines(unsigned rounds)
{
    const unsigned stride = 2048; // u32: 8 KiB, 64 lines of 128 B: the same set of a 64-set L1
    std::vector<std::uint32_t> a(4 * stride);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<std::uint32_t>((i * 13 + 5) % 997);
    std::ostringstream w;
    w << "name: four_lines\nbuffers:\n  - {name: a, type: u32, elements: " << a.size()
      << ", init: {values: [";
    for (std::size_t i = 0; i < a.size(); ++i)
        w << (i ? ", " : "") << a[i];
    w << "]}}\n  - {name: out, type: u32, elements: 32, init: zero}\n"
      << "kernels:\n  - name: rounds\n"
      << "    params: [{name: a, buffer: a}, {name: out, buffer: out}, {name: rounds, value: "
      << rounds << "}]\n"
      << "    grid: [1, 1]\n    block: [32, 1]\n    sms: {first: 0, count: 1}\n    program: |\n"
      << "      # lines a, b, c, d (8 KiB apart), `rounds` times\n"
      << "              S2R  R0, SR_LANEID\n"
      << "              LDP  R2, a\n"
      << "              LDP  R4, rounds\n"
      << "              SHL  R5, R0, 2\n"
      << "              IADD R2, R2, R5\n"
      << "              MOV  R6, 0\n"
      << "              MOV  R7, 0\n"
      << "      round:  ISETP.GE P0, R7, R4\n"
      << "      @P0     BRA  done\n"
      << "              MOV  R8, 0\n"
      << "              MOV  R9, R2\n"
      << "      line:   ISETP.GE P1, R8, 4\n"
      << "      @P1     BRA  next\n"
      << "              LD   R10, [R9]\n"
      << "              IADD R6, R6, R10\n"
      << "              IADD R9, R9, 8192\n"
      << "              IADD R8, R8, 1\n"
      << "              BRA  line\n"
      << "      next:   IADD R7, R7, 1\n"
      << "              BRA  round\n"
      << "      done:   LDP  R11, out\n"
      << "              IADD R11, R11, R5\n"
      << "              ST   [R11], R6\n"
      << "              EXIT\n"
      << "checks:\n  - buffer: out\n    expect: [";
    for (unsigned lane = 0; lane < 32; ++lane) {
        std::uint32_t sum = 0;
        for (unsigned l = 0; l < 4; ++l)
            sum += a[l * stride + lane];
        w << (lane ? ", " : "") << sum * rounds;
    }
    w << "]\n";
    return w.str();
}
} // namespace

TEST_CASE("l1 sharing adaptive: queue order and partner by hand (two-way L1s, four lines)")
{
    // Two-way L1s; SM 0 cycles over lines a b c d of one set, SMs 1-3 idle. With 1-cycle epochs
    // (each miss closes one: a load among at most 15 instructions, over the 0.05 threshold) SM 0
    // is memory-intensive from its second data miss on and borrows SM 1 (the 0th compute SM). By
    // hand, once SM 1 holds blocks: SM 0's set holds the last two lines, so every access misses it;
    // the miss of x goes to SM 1, which holds x (stored as a block two accesses earlier) and
    // answers with a hit without touching its LRU; then S24 stores the one pending block (the line
    // SM 0 evicted at its previous fill), replacing SM 1's older line; SM 0's fill of x evicts the
    // line it used three accesses ago and sends it as the next block. So each further round of four
    // adds exactly: 4 local misses, 4 borrowed reads, 4 remote hits, 0 remote misses, 4 blocks
    // sent, 4 received, 4 stored, 0 dropped, and no read below SM 0's L1 except through SM 1 (SM
    // 1's L1 never fills from its remote misses).
    for (const char* mode : {"fast", "accurate"}) {
        CAPTURE(mode);
        cli_runner cli(std::string("l1hand_") + mode);
        std::map<unsigned, vgpu::test::stats_run> runs;
        for (unsigned rounds : {3u, 6u}) {
            cli.write("w.yaml", four_lines(rounds));
            runs[rounds] = vgpu::test::run_with_stats(
                cli, std::string("-w w.yaml -s l1.sharing=adaptive -s l1.ways=2 "
                                 "-s l1.epoch_cycles=1 -s l1.mem_share_threshold=0.05 "
                                 "-s platform.timing.mode=") +
                         mode);
            INFO(runs[rounds].r.err);
            REQUIRE(runs[rounds].r.code == 0);
        }
        // The whole run by hand, R rounds: the first data miss (a, before any boundary with a
        // data read) goes to the LLC; b, c, d of round 1 find SM 1 empty (3 remote misses;
        // c's and d's fills evict a and b, the first blocks, and d's request stores a); from
        // round 2 on, every access hits at SM 1. Borrowed 4R - 1, remote hits 4(R - 1), blocks
        // sent 4R - 2 (every fill but a's and b's evicts), stored 4R - 3 (after every remote
        // request but b's and c's; the last block still waits).
        for (const auto& [rounds, r] : runs) {
            CAPTURE(rounds);
            const double R = rounds;
            auto stat = [&](const std::string& name) { return r.stat("gpu.m0.c0." + name); };
            // memory-intensive from its second data read, compute-intensive after its last
            CHECK(stat("l1_share.sm0_class_changes") == 2);
            CHECK(stat("sm0_l1.borrowed_reads") == 4 * R - 1);
            CHECK(stat("sm1_l1.remote_hits") == 4 * (R - 1));
            CHECK(stat("sm1_l1.remote_misses") == 3);
            CHECK(stat("sm0_l1.replacements_sent") == 4 * R - 2);
            CHECK(stat("sm1_l1.replacements_stored") == 4 * R - 3);
        }
        auto more = [&](const std::string& stat) {
            return runs[6].stat("gpu.m0.c0." + stat) - runs[3].stat("gpu.m0.c0." + stat);
        };
        CHECK(more("sm0_l1.misses") == 12);
        CHECK(more("sm0_l1.hits") == 0);
        CHECK(more("sm0_l1.borrowed_reads") == 12);
        CHECK(more("sm1_l1.remote_reads") == 12);
        CHECK(more("sm1_l1.remote_hits") == 12);
        CHECK(more("sm1_l1.remote_misses") == 0);
        CHECK(more("sm0_l1.replacements_sent") == 12);
        CHECK(more("sm1_l1.replacements_received") == 12);
        CHECK(more("sm1_l1.replacements_stored") == 12);
        CHECK(more("sm1_l1.replacements_dropped") == 0);
        CHECK(more("sm1_l1.misses") == 0); // SM 1 runs nothing of its own
        for (const char* other : {"sm2_l1.remote_reads", "sm3_l1.remote_reads"})
            CHECK(runs[6].stat(std::string("gpu.m0.c0.") + other) == 0);
        // SM 0's data reads from the LLC: the same number for 3 and 6 rounds (first round only).
        CHECK(more("sm0_l1.bytes_fetched") == 12 * 128);
        CHECK(runs[6].stat("gpu.m0.noc.c0.response_bytes") ==
              runs[3].stat("gpu.m0.noc.c0.response_bytes"));
    }
}

TEST_CASE("l1 sharing adaptive: the classification follows program phases")
{
    // l1_borrow.yaml with both kernels on SM 0, one phase after the other: SM 0 is
    // compute-intensive at first (nothing known), memory-intensive while it sweeps, and
    // compute-intensive again while it spins (no data reads): two changes.
    std::ifstream in(workloads + "l1_borrow.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string w = ss.str();
    const auto replace = [&w](const std::string& from, const std::string& to) {
        const auto at = w.find(from);
        REQUIRE(at != std::string::npos);
        w.replace(at, from.size(), to);
    };
    replace("sms: {first: 1, count: 3}", "sms: {first: 0, count: 1}");
    replace("schedule:\n  - [sweep, spin]", "schedule:\n  - [sweep]\n  - [spin]");
    cli_runner cli("l1phases");
    cli.write("w.yaml", w);
    const auto r = vgpu::test::run_with_stats(cli, "-w w.yaml -s l1.sharing=adaptive");
    INFO(r.r.err);
    REQUIRE(r.r.code == 0);
    const std::string cls = "gpu.m0.c0.l1_share.";
    CHECK(r.stat(cls + "sm0_class_changes") == 2);
    CHECK(r.stat(cls + "sm0_memory_epochs") > 50);
    CHECK(r.stat(cls + "sm0_compute_epochs") > 5);
    CHECK(r.stat(cls + "sm0_memory_epochs") + r.stat(cls + "sm0_compute_epochs") ==
          r.stat(cls + "epochs"));
    // While it swept, nobody else needed a partner: SM 0 borrowed SM 1's L1.
    CHECK(r.stat("gpu.m0.c0.sm1_l1.remote_hits") > 0);
}
