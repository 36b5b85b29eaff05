// The host-memory estimate of a configuration and its check against platform.max_host_memory,
// against sums computed by hand. See docs/architecture.md ("Host limits").
#include "platforms/vgpu_config.h"

#include <catch2/catch.hpp>

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
    // 8 L1s of 64 sets x 4 ways x (128 + 24) B, plus 2 x 32 MSHR buffers of 128 B.
    CHECK(e.shares[0].bytes == 8 * (64 * 4 * 152 + 2 * 32 * 128));
    // 4 LLC slices of 256 sets x 8 ways x 152 B, plus 2 x 64 MSHR buffers.
    CHECK(e.shares[1].bytes == 4 * (256 * 8 * 152 + 2 * 64 * 128));
    // 8 SMs x 32 warp slots x 32 threads x 64 registers x 4 B.
    CHECK(e.shares[2].bytes == 8ull * 32 * 32 * 64 * 4);
    // 8 x (112 KiB + 32 x 5 KiB).
    CHECK(e.shares[3].bytes == 8ull * (112 + 32 * 5) * 1024);
    // fast mode: one thread per SM, 16 KiB each.
    CHECK(e.shares[4].bytes == 8ull * 16 * 1024);
    // 16 MiB of process, 1 MiB for the one module, no links.
    CHECK(e.shares[5].bytes == 17ull << 20);
    CHECK(e.total == 23969792); // the sum of the above
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
    CHECK(fast.total == 2544893952ull);
    c.platform.timing.mode = timing_mode::accurate;
    const memory_estimate acc = estimate(c);
    CHECK(acc.shares[4].bytes == 4096ull * 11 * 16 * 1024);
    CHECK(acc.total == 2544893952ull - 4096ull * 16 * 1024 + 4096ull * 11 * 16 * 1024);
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
    const memory_estimate e = estimate(c);
    CHECK(e.largest().what == "the L1 data arrays");
    CHECK(e.largest().bytes == 8 * ((65536ull * 8) * (4096 + 24) + 2 * 32 * 4096));

    config::errors errs;
    config::provenance prov;
    prov["l1.ways"] = config::location{"big.yaml", 3, 9};
    config::checker chk(errs, prov);
    check_host_memory(e, 4ull << 30, chk);
    REQUIRE(errs.messages().size() == 1);
    CHECK(errs.messages()[0] ==
          "big.yaml:3:9: error: l1.ways: the configuration could need about 16.1 GiB of host "
          "memory, more than platform.max_host_memory (4 GiB): the L1 data arrays take 16.1 GiB "
          "(8 L1s of 65536 sets x 8 ways x 4096 B)");

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
    CHECK(e.shares[1].bytes == 1024ull * ((1ull << 26) * 4120 + 2 * 64 * 4096));
    // 65536 SMs (more than validate() allows, so the product is as large as it can get).
    CHECK(e.shares[0].bytes == 65536ull * ((1ull << 22) * 4120 + 2 * 32 * 4096));
    CHECK(e.total > e.shares[0].bytes);
}
