// 3-D launches and occupancy end to end: every thread of a 3-D grid of 3-D CTAs writes its
// special registers, which the test compares with CUDA's numbering computed here (threads: x
// fastest, then y, then z, warps of 32 consecutive threads), in both timing modes; kernels
// whose CTA fits no SM are located errors (exit 2); the kernel records carry the occupancy.
// See docs/isa.md ("Special registers") and docs/outputs.md ("Occupancy").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {

constexpr unsigned gx = 3, gy = 2, gz = 2; // grid
constexpr unsigned bx = 5, by = 3, bz = 4; // block: 60 threads, 2 warps (the last partial)
constexpr unsigned slots = 64;             // output slots per CTA: warp * 32 + lane
constexpr unsigned words = 8;              // words per slot

/// Thread slot (cta, warp * 32 + lane) writes tid.x/y/z, ctaid.x/y/z, ntid.z, nctaid.z + 100
/// (the +100 tells a written 0 from an unwritten one). The CTA index is computed from the
/// CTA's own special registers; the slot from the hardware lane, not from tid.
std::string workload()
{
    const unsigned n = gx * gy * gz * slots * words;
    return "buffers:\n"
           "  - {name: out, type: u32, elements: " +
           std::to_string(n) +
           "}\n"
           "kernels:\n"
           "  - name: ids\n"
           "    params: [{name: out, buffer: out}]\n"
           "    grid: [" +
           std::to_string(gx) + ", " + std::to_string(gy) + ", " + std::to_string(gz) +
           "]\n"
           "    block: [" +
           std::to_string(bx) + ", " + std::to_string(by) + ", " + std::to_string(bz) +
           "]\n"
           "    program: |\n"
           "      S2R R0, SR_WARPID\n"
           "      S2R R1, SR_LANEID\n"
           "      SHL R0, R0, 5\n"
           "      IADD R0, R0, R1\n"
           "      S2R R2, SR_CTAID_Z\n"
           "      S2R R3, SR_NCTAID_Y\n"
           "      IMUL R2, R2, R3\n"
           "      S2R R3, SR_CTAID_Y\n"
           "      IADD R2, R2, R3\n"
           "      S2R R3, SR_NCTAID_X\n"
           "      IMUL R2, R2, R3\n"
           "      S2R R3, SR_CTAID_X\n"
           "      IADD R2, R2, R3\n"
           "      SHL R2, R2, 6\n"
           "      IADD R2, R2, R0\n"
           "      SHL R2, R2, 5\n"
           "      LDP R4, out\n"
           "      IADD R4, R4, R2\n"
           "      S2R R5, SR_TID_X\n"
           "      ST [R4], R5\n"
           "      S2R R5, SR_TID_Y\n"
           "      ST [R4 + 4], R5\n"
           "      S2R R5, SR_TID_Z\n"
           "      ST [R4 + 8], R5\n"
           "      S2R R5, SR_CTAID_X\n"
           "      ST [R4 + 12], R5\n"
           "      S2R R5, SR_CTAID_Y\n"
           "      ST [R4 + 16], R5\n"
           "      S2R R5, SR_CTAID_Z\n"
           "      ST [R4 + 20], R5\n"
           "      S2R R5, SR_NTID_Z\n"
           "      ST [R4 + 24], R5\n"
           "      S2R R5, SR_NCTAID_Z\n"
           "      IADD R5, R5, 100\n"
           "      ST [R4 + 28], R5\n"
           "      EXIT\n";
}

/// CUDA's numbering: the thread of linear index t in its CTA has tid.x = t % bx,
/// tid.y = (t / bx) % by, tid.z = t / (bx * by); CTAs counted with x fastest.
std::vector<std::uint32_t> reference()
{
    std::vector<std::uint32_t> out(gx * gy * gz * slots * words, 0);
    for (unsigned cz = 0; cz < gz; ++cz)
        for (unsigned cy = 0; cy < gy; ++cy)
            for (unsigned cx = 0; cx < gx; ++cx) {
                const unsigned cta = (cz * gy + cy) * gx + cx;
                unsigned t = 0;
                for (unsigned z = 0; z < bz; ++z)
                    for (unsigned y = 0; y < by; ++y)
                        for (unsigned x = 0; x < bx; ++x, ++t) {
                            std::uint32_t* w = &out[(cta * slots + t) * words];
                            const std::uint32_t v[words] = {x, y, z, cx, cy, cz, bz, gz + 100};
                            for (unsigned i = 0; i < words; ++i)
                                w[i] = v[i];
                        }
            }
    return out;
}

std::string expect_list(const std::vector<std::uint32_t>& v)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
}

void run_ids(const std::string& mode)
{
    cli_runner cli("launch3d_" + mode);
    cli.write("w.yaml", workload() + "checks:\n  - {buffer: out, expect: [" +
                            expect_list(reference()) + "]}\n");
    const auto r = cli.run("-w w.yaml -s platform.timing.mode=" + mode + " -o out");
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    REQUIRE(j["kernels"].size() == 1);
    const auto& k = j["kernels"][0];
    // Default platform: 2 warps per CTA, 64 registers per thread (2,048 per warp, one
    // partition: 32 warps = 16 CTAs), 32 warp slots (16), 2,048 threads (32), 8 CTA slots.
    CHECK(k["ctas_per_sm"] == 8);
    CHECK(k["occupancy_limit"] == "sm.cta_slots");
    CHECK(k["registers"] == 64);
    CHECK(k["shared_bytes"] == 0);
}

} // namespace

TEST_CASE("3-D launch: every thread's ids match CUDA's numbering (fast mode)", "[launch3d]")
{
    run_ids("fast");
}

TEST_CASE("3-D launch: every thread's ids match CUDA's numbering (accurate mode)", "[launch3d]")
{
    run_ids("accurate");
}

TEST_CASE("occupancy: a kernel whose CTA fits no SM is a located error", "[launch3d]")
{
    cli_runner cli("occupancy_error");
    cli.write("w.yaml", workload());
    // 60 threads = 2 warps of 64 registers: 4,096 registers, more than the 2,048 of the file.
    const auto r = cli.run("-w w.yaml -s sm.registers=2048 -o out");
    CHECK(r.code == 2);
    CHECK(r.err.find("w.yaml:4:5: error: kernels[0]: kernel 'ids': not even one CTA fits an SM: "
                     "64 registers per thread (2048 per warp, 2 warps per CTA) exceed "
                     "sm.registers 2048") != std::string::npos);
}

TEST_CASE("3-D launch: block and grid limits are located errors", "[launch3d]")
{
    cli_runner cli("launch3d_limits");
    std::string w = workload();
    w.replace(w.find("block: [5, 3, 4]"), 16, "block: [1, 1, 65]");
    cli.write("w.yaml", w);
    auto r = cli.run("-w w.yaml -o out");
    CHECK(r.code == 2);
    CHECK(r.err.find("kernels[0].block[2]") != std::string::npos);
    CHECK(r.err.find("65") != std::string::npos);
    w = workload();
    w.replace(w.find("block: [5, 3, 4]"), 16, "block: [32, 8, 8]");
    cli.write("w.yaml", w);
    r = cli.run("-w w.yaml -o out");
    CHECK(r.code == 2);
    CHECK(r.err.find("block has 2048 threads (expected 1..1024)") != std::string::npos);
    w = workload();
    w.replace(w.find("grid: [3, 2, 2]"), 15, "grid: [1, 1, 65536]");
    cli.write("w.yaml", w);
    r = cli.run("-w w.yaml -o out");
    CHECK(r.code == 2);
    CHECK(r.err.find("kernels[0].grid[2]") != std::string::npos);
}

TEST_CASE("3-D launch: the firmware host refuses a 3-D kernel, located", "[launch3d]")
{
    cli_runner cli("launch3d_riscv");
    cli.write("w.yaml", workload());
    const auto r = cli.run("-w w.yaml -s host.kind=riscv -o out");
    CHECK(r.code == 2);
    CHECK(r.err.find("w.yaml:4:5: error: kernels[0]: kernel 'ids' has a 3-D grid or block, or a "
                     "translated kernel's registers or shared memory, which host.kind riscv's "
                     "launch table does not carry (host.kind native runs it)") !=
          std::string::npos);
}
