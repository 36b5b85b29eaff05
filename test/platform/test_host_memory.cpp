// The host-memory estimate of a configuration and its check against platform.max_host_memory,
// against sums computed by hand, and the peak memory of runs with caches far larger than what
// they touch. See docs/architecture.md ("Host limits").
#include "platforms/vgpu_config.h"
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace vgpu;
using namespace vgpu::platforms;

namespace {
/// The default platform's shape: 1 module x 2 clusters x 4 SMs.
vgpu_config default_gpu()
{
    vgpu_config c;
    c.platform.kind = platform_kind::gpu;
    c.platform.modules = 1;
    c.platform.clusters_per_module = 2;
    c.platform.sms_per_cluster = 4;
    return c;
}

memory_estimate estimate(const vgpu_config& c)
{
    return estimate_host_memory(c.platform, c.sm, c.l1, c.llc, c.stats.per_warp);
}
} // namespace

TEST_CASE("host memory estimate: every share of the default platform, by hand", "[host_memory]")
{
    const memory_estimate e = estimate(default_gpu());
    REQUIRE(e.shares.size() == 6);
    // A line: 128 B of data, 16 B of tag and flags, 24 B of LRU stamp and sector bits, and in
    // fast mode 4 sectors x 8 B of arrival times: 200 B.
    // 8 L1s of 64 sets x 4 ways x 200 B, plus 2 x 32 MSHR buffers of 128 B.
    CHECK(e.shares[0].bytes == 8 * (64 * 4 * 200 + 2 * 32 * 128));
    // 4 LLC slices of 256 sets x 8 ways x 200 B, plus 2 x 64 MSHR buffers and 16 write-back
    // buffer entries of 128 B.
    CHECK(e.shares[1].bytes == 4 * (256 * 8 * 200 + (2 * 64 + 16) * 128));
    // 8 SMs x 32 warp slots x 32 threads x 64 registers x 4 B.
    CHECK(e.shares[2].bytes == 8ull * 32 * 32 * 64 * 4);
    // 8 x (112 KiB + 32 x 5 KiB).
    CHECK(e.shares[3].bytes == 8ull * (112 + 32 * 5) * 1024);
    // fast mode: one thread per SM, 16 KiB each.
    CHECK(e.shares[4].bytes == 8ull * 16 * 1024);
    // 16 MiB of process, 1 MiB for the one module, no links.
    CHECK(e.shares[5].bytes == 17ull << 20);
    CHECK(e.total == 24469504); // the sum of the above
}

TEST_CASE("host memory estimate: 4096 SMs fit the default limit in both modes", "[host_memory]")
{
    vgpu_config c = default_gpu();
    c.platform.modules = 16;
    c.platform.clusters_per_module = 16;
    c.platform.sms_per_cluster = 16;
    const memory_estimate fast = estimate(c);
    // 240 links of 64 KiB; 11 threads per SM in accurate mode (issue, 8 LSU, 2 crossbar ports).
    CHECK(fast.shares[5].bytes == (16ull << 20) + (16ull << 20) + 240 * (64ull << 10));
    CHECK(fast.shares[0].bytes == 4096ull * (64 * 4 * 200 + 2 * 32 * 128));
    CHECK(fast.shares[1].bytes == 64ull * (256 * 8 * 200 + (2 * 64 + 16) * 128));
    CHECK(fast.total == 2601648128ull);
    c.platform.timing.mode = timing_mode::accurate;
    const memory_estimate acc = estimate(c);
    CHECK(acc.shares[4].bytes == 4096ull * 11 * 16 * 1024);
    // Accurate mode keeps no arrival times: 32 B less per line.
    CHECK(acc.shares[0].bytes == 4096ull * (64 * 4 * 168 + 2 * 32 * 128));
    CHECK(acc.shares[1].bytes == 64ull * (256 * 8 * 168 + (2 * 64 + 16) * 128));
    CHECK(acc.total == 2601648128ull - 4096ull * 64 * 4 * 32 - 64ull * 256 * 8 * 32 -
                           4096ull * 16 * 1024 + 4096ull * 11 * 16 * 1024);
    CHECK(acc.total < c.platform.max_host_memory.bytes);
    c.stats.per_warp = true; // 4096 x 32 x 5 KiB more
    CHECK(estimate(c).total == acc.total + 4096ull * 32 * 5 * 1024);
}

TEST_CASE("host memory check: the error names the key the user set in the largest share",
          "[host_memory]")
{
    vgpu_config c = default_gpu();
    c.l1.sets = 1 << 16;
    c.l1.ways = 8;
    c.l1.line_bytes = 4096;
    c.l1.sector_bytes = 64;
    const memory_estimate e = estimate(c);
    CHECK(e.largest().what == "the L1 data arrays");
    // 64 sectors per line: 4096 + 40 + 64 x 8 B.
    CHECK(e.largest().bytes == 8 * ((65536ull * 8) * (4096 + 40 + 512) + 2 * 32 * 4096));

    config::errors errs;
    config::provenance prov;
    prov["l1.ways"] = config::location{"big.yaml", 3, 9};
    config::checker chk(errs, prov);
    check_host_memory(e, 4ull << 30, chk);
    REQUIRE(errs.messages().size() == 1);
    CHECK(errs.messages()[0] ==
          "big.yaml:3:9: error: l1.ways: the configuration could need about 18.2 GiB of host "
          "memory, more than platform.max_host_memory (4 GiB, the default): the L1 data arrays "
          "take 18.2 GiB (8 L1s of 65536 sets x 8 ways x 4096 B); lower l1.ways or raise "
          "platform.max_host_memory");

    // Within the limit: nothing to say; a raised limit accepts the same configuration.
    config::errors none;
    config::checker chk2(none, prov);
    check_host_memory(e, 32ull << 30, chk2);
    CHECK(none.empty());
}

TEST_CASE("host memory estimate: the largest values in range give exact sums", "[host_memory]")
{
    vgpu_config c = default_gpu();
    c.platform.modules = 16;
    c.platform.clusters_per_module = 64;
    c.platform.sms_per_cluster = 64;
    c.llc.sets = 1 << 20;
    c.llc.ways = 64;
    c.llc.line_bytes = 4096;
    c.llc.slices_per_module = 64;
    c.l1.sets = 1 << 16;
    c.l1.ways = 64;
    c.l1.line_bytes = 4096;
    const memory_estimate e = estimate(c);
    // 128 sectors of 32 B (more than validate() allows): 4096 + 40 + 128 x 8 B per line.
    CHECK(e.shares[1].bytes == 1024ull * ((1ull << 26) * 5160 + (2 * 64 + 16) * 4096));
    // 65536 SMs (more than validate() allows, so the product is as large as it can get).
    CHECK(e.shares[0].bytes == 65536ull * ((1ull << 22) * 5160 + 2 * 32 * 4096));
    CHECK(e.total > e.shares[0].bytes);
}

namespace {
/// A vgpu-sim run's exit code and the peak resident memory of the process, in bytes.
struct measured_run {
    int code = -1;
    std::uint64_t peak_rss = 0;
};

/// Runs vgpu-sim with args in a forked child, so that getrusage(RUSAGE_CHILDREN) there covers
/// this run alone (a fork starts with no children's usage): its ru_maxrss is the largest peak
/// resident set of the processes the child waited for, vgpu-sim among them.
measured_run run_measured(const vgpu::test::cli_runner& cli, const std::string& args)
{
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        measured_run m;
        m.code = cli.run(args).code;
        rusage u{};
        ::getrusage(RUSAGE_CHILDREN, &u);
        m.peak_rss = static_cast<std::uint64_t>(u.ru_maxrss) * 1024; // reported in KiB
        const bool ok = ::write(fds[1], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    measured_run m;
    const bool got = ::read(fds[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(got);
    return m;
}

// Sanitized builds keep shadow memory and quarantine besides what the run uses.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint64_t rss_bound = 1536ull << 20;
#else
constexpr std::uint64_t rss_bound = 512ull << 20;
#endif
} // namespace

TEST_CASE("host memory: L1s of 4 GiB in all take memory only for the lines a run uses",
          "[host_memory][rss]")
{
    vgpu::test::cli_runner cli("rss_l1");
    // 8 L1s of 65536 sets x 64 ways x 128 B = 8 x 512 MiB of data; the estimate (every line
    // touched, 6.27 GiB) needs a raised limit.
    const std::string big = "-s platform.max_host_memory=\"8 GiB\" -s l1.sets=65536 -s l1.ways=64";
    const measured_run small = run_measured(cli, "-o small");
    const measured_run r = run_measured(cli, big + " -o big");
    CHECK(small.code == 0);
    CHECK(r.code == 0);
    INFO("default caches: " << small.peak_rss << " B; 4 GiB of L1s: " << r.peak_rss << " B");
    CHECK(r.peak_rss < rss_bound);
    // The default workload touches a few hundred lines per L1: the large L1s add little.
    CHECK(r.peak_rss < small.peak_rss + (64ull << 20));
    // stream.yaml moves 16 MiB through every L1 (each line once, a set per line): the memory
    // grows with the lines used, not with the size of the L1s.
    const measured_run s =
        run_measured(cli, big + " -w '" VGPU_SOURCE_DIR "/testbenches/workloads/stream.yaml' -o s");
    CHECK(s.code == 0);
    INFO("stream: " << s.peak_rss << " B");
    CHECK(s.peak_rss < rss_bound);
}

TEST_CASE("host memory: LLC slices of 4 GiB in all take memory only for the lines a run uses",
          "[host_memory][rss]")
{
    vgpu::test::cli_runner cli("rss_llc");
    // 4 slices of 1048576 sets x 8 ways x 128 B = 4 x 1 GiB of data (6.27 GiB estimated).
    const std::string big = "-s platform.max_host_memory=\"8 GiB\" -s llc.sets=1048576";
    for (const char* mode : {"fast", "accurate"}) {
        INFO("mode " << mode);
        const measured_run small =
            run_measured(cli, std::string("-s platform.timing.mode=") + mode + " -o small");
        const measured_run r =
            run_measured(cli, big + " -s platform.timing.mode=" + mode + " -o big");
        CHECK(small.code == 0);
        CHECK(r.code == 0);
        INFO("default caches: " << small.peak_rss << " B; 4 GiB of LLC: " << r.peak_rss << " B");
        CHECK(r.peak_rss < rss_bound);
        CHECK(r.peak_rss < small.peak_rss + (64ull << 20));
    }
}

TEST_CASE("host memory estimate of a traffic configuration: the pages its generators may write",
          "[host_memory]")
{
    traffic::traffic_config t;
    t.generators = 4;
    t.footprint = byte_size{1 << 20};
    t.access_bytes = 64;
    t.transactions = 20000;
    t.check = true;
    // The footprint bounds it: 256 + 1 pages (a region need not start on a page), each a DRAM
    // page, a reference page and a 64-byte map entry, per generator; plus the process.
    memory_estimate e = estimate_traffic_memory(t);
    CHECK(e.shares[0].bytes == 4ull * 257 * (2 * 4096 + 64));
    CHECK(e.total == 4ull * 257 * (2 * 4096 + 64) + (16ull << 20));
    // Few transactions bound it: 10 writes touch at most 2 pages each; no reference memory.
    t.transactions = 10;
    t.check = false;
    e = estimate_traffic_memory(t);
    CHECK(e.shares[0].bytes == 4ull * 20 * (4096 + 64));
    // 64 generators over 16 GiB each with 10^9 transactions: far above the default limit, at
    // the key the user set.
    t.generators = 64;
    t.footprint = byte_size{16ull << 30};
    t.transactions = 1000000000;
    t.check = true;
    e = estimate_traffic_memory(t);
    CHECK(e.largest().bytes == 64ull * ((16ull << 30) / 4096 + 1) * (2 * 4096 + 64));
    config::errors errs;
    config::provenance prov;
    prov["traffic.footprint"] = config::location{"t.yaml", 7, 14};
    config::checker chk(errs, prov);
    check_host_memory(e, 4ull << 30, chk);
    REQUIRE(errs.messages().size() == 1);
    CHECK(errs.messages()[0].rfind("t.yaml:7:14: error: traffic.footprint: the configuration "
                                   "could need about ",
                                   0) == 0);
}
