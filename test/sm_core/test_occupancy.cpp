// Unit tests of vgpu::sm::occupancy: resident CTAs per SM by the CUDA occupancy rules for
// compute capability 7.0. Every expected figure is computed by hand in the comment beside it
// from the rules of NVIDIA's cuda_occupancy.h (registers: regs x 32 rounded up to 256 per warp,
// floor(file / partitions / per warp) warps per partition; shared memory rounded up to 256 per
// CTA; threads in whole warps), not from the implementation.
#include "models/sm/core/cta_slots.h"

#include <catch2/catch.hpp>

using namespace vgpu::sm;

namespace {
// V100: 2048 threads, 64 warps, 32 CTAs, 65,536 registers in 4 partitions, 96 KiB shared.
sm_resources v100()
{
    return {2048, 64, 32, 65536, 4, 96 * 1024};
}
// platforms/default.yaml: 32 warp slots, 8 CTA slots, one sub-core.
sm_resources vgpu_default()
{
    return {2048, 32, 8, 65536, 1, 96 * 1024};
}
} // namespace

TEST_CASE("occupancy: register-limited", "[occupancy]")
{
    // 256 threads = 8 warps, 64 regs: 2048 per warp; 16384 / 2048 = 8 warps per partition,
    // 32 per SM, 32 / 8 = 4 CTAs. Warps 64 / 8 = 8, threads 8, CTAs 32.
    auto r = occupancy(v100(), {256, 64, 0});
    CHECK(r.ctas_per_sm == 4);
    CHECK(r.limit == "sm.registers");
    CHECK(r.regs_per_warp == 2048);
    CHECK(r.regs_per_cta == 16384);
    // 37 regs: 1184 per warp, rounded up to 1280; 16384 / 1280 = 12.8 -> 12 warps per
    // partition, 48 per SM; 128 threads = 4 warps: 12 CTAs (without the rounding: 13).
    r = occupancy(v100(), {128, 37, 0});
    CHECK(r.ctas_per_sm == 12);
    CHECK(r.regs_per_warp == 1280);
    CHECK(r.limit == "sm.registers");
    // 192 regs: 6144 per warp; 16384 / 6144 = 2 warps per partition, 8 per SM; 64 threads =
    // 2 warps: 4 CTAs (the whole file alone would give 65536 / 6144 = 10 warps, 5 CTAs).
    r = occupancy(v100(), {64, 192, 0});
    CHECK(r.ctas_per_sm == 4);
    CHECK(r.by_registers == 4);
    CHECK(r.limit == "sm.registers");
}

TEST_CASE("occupancy: shared-memory-limited", "[occupancy]")
{
    // 128 threads, 32 regs (1024 per warp: 16 warps per partition, 64 per SM, 16 CTAs),
    // 19,500 B of shared memory: 76.2 units of 256 -> 77 -> 19,712 B; 98,304 / 19,712 = 4.99
    // -> 4 CTAs (unrounded 98,304 / 19,500 = 5.04 would give 5).
    auto r = occupancy(v100(), {128, 32, 19500});
    CHECK(r.ctas_per_sm == 4);
    CHECK(r.shared_per_cta == 19712);
    CHECK(r.limit == "sm.shared_bytes");
    CHECK(r.by_registers == 16);
    // 48 KiB exactly: 2 CTAs.
    r = occupancy(v100(), {128, 32, 49152});
    CHECK(r.ctas_per_sm == 2);
    CHECK(r.limit == "sm.shared_bytes");
}

TEST_CASE("occupancy: warp-limited", "[occupancy]")
{
    // Default platform: 256 threads = 8 warps, 32 regs; warp slots 32 / 8 = 4; threads
    // 2048 / 32 / 8 = 8; CTAs 8; registers 65536 / 1024 = 64 warps / 8 = 8.
    auto r = occupancy(vgpu_default(), {256, 32, 0});
    CHECK(r.ctas_per_sm == 4);
    CHECK(r.limit == "sm.warp_slots");
    // 1,024 threads = 32 warps on V100 with 32 regs: warps 64 / 32 = 2, threads 2, registers
    // 16 warps per partition = 64 / 32 = 2: all three bind.
    r = occupancy(v100(), {1024, 32, 0});
    CHECK(r.ctas_per_sm == 2);
    CHECK(r.limit == "sm.max_threads+sm.warp_slots+sm.registers");
}

TEST_CASE("occupancy: thread-limited, threads in whole warps", "[occupancy]")
{
    sm_resources s = v100();
    s.max_threads = 1024;
    // 80 threads take 3 warps = 96 threads: 1024 / 32 = 32 warps / 3 = 10 CTAs (not
    // 1024 / 80 = 12); warps 64 / 3 = 21; CTAs 32; 16 regs: 512 per warp, 32 per partition,
    // 128 warps / 3 = 42.
    auto r = occupancy(s, {80, 16, 0});
    CHECK(r.ctas_per_sm == 10);
    CHECK(r.warps_per_cta == 3);
    CHECK(r.limit == "sm.max_threads");
}

TEST_CASE("occupancy: CTA-limited", "[occupancy]")
{
    // 32 threads, 16 regs: warps 64, threads 64, registers 128 warps = 128 CTAs; CTA slots 32.
    auto r = occupancy(v100(), {32, 16, 0});
    CHECK(r.ctas_per_sm == 32);
    CHECK(r.limit == "sm.cta_slots");
    // Default platform: 64 threads (2 warps), 64 regs: CTA slots 8; warps 16; registers
    // 65536 / 2048 = 32 warps / 2 = 16.
    r = occupancy(vgpu_default(), {64, 64, 0});
    CHECK(r.ctas_per_sm == 8);
    CHECK(r.limit == "sm.cta_slots");
}

TEST_CASE("occupancy: a CTA that does not fit", "[occupancy]")
{
    // 1,024 threads of 255 regs: 8160 -> 8192 per warp; 32 warps need 262,144 > 65,536.
    auto r = occupancy(v100(), {1024, 255, 0});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.limit == "sm.registers");
    CHECK(r.why == "255 registers per thread (8192 per warp, 32 warps per CTA) exceed "
                   "sm.registers 65536");
    // 100,000 B of shared memory (100,096 allocated) > 98,304.
    r = occupancy(v100(), {32, 16, 100000});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.why == "100000 bytes of shared memory per CTA (100096 allocated) exceed "
                   "sm.shared_bytes 98304");
    // 40 warps on 32 warp slots.
    r = occupancy(vgpu_default(), {1280, 8, 0});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.why == "40 warps per CTA exceed sm.warp_slots 32");
}

TEST_CASE("occupancy: huge demands do not wrap to small ones", "[occupancy]")
{
    // 0xFFFFFF01 B rounds up to 2^32 (0 in 32 bits): it must not fit, not be "no limit".
    auto r = occupancy(v100(), {32, 16, 0xFFFFFF01u});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.by_shared == 0);
    CHECK(r.why == "4294967041 bytes of shared memory per CTA (4294967296 allocated) exceed "
                   "sm.shared_bytes 98304");
    // 2^27 registers per thread: 2^32 per warp (0 in 32 bits).
    r = occupancy(v100(), {32, 1u << 27, 0});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.by_registers == 0);
    // 2^22 per thread: 2^27 per warp, fits 32 bits, but 64 warps' worth would wrap.
    r = occupancy(v100(), {2048, 1u << 22, 0});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.by_registers == 0);
}
