// The CDL access controller end to end (seed 001): both forms load the same registers (the
// host checks every scaled dword against memory), the bulk form is faster, bytes beyond a CBV
// read as zero and are counted, and illegal CDLs are reported. See models/cdl/README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using vgpu::test::cli_runner;

namespace {
const std::string workloads = VGPU_SOURCE_DIR "/testbenches/workloads/";

using run_result = vgpu::test::stats_run;

run_result run(const cli_runner& cli, const std::string& args)
{
    return vgpu::test::run_with_stats(cli, args);
}

/// A one-warp kernel running `body` with buffer c (16 dwords... `dwords` of them) bound to
/// CBV 0 and out (64 dwords) as a parameter.
std::string one_warp(const std::string& body, unsigned cbv_dwords)
{
    std::string vals = "[";
    for (unsigned i = 0; i < cbv_dwords; ++i)
        vals += (i ? ", " : "") + std::to_string(i + 1);
    vals += "]";
    return "name: cdl_case\n"
           "buffers:\n"
           "  - {name: c, type: u32, elements: " +
           std::to_string(cbv_dwords) + ", init: {values: " + vals +
           "}}\n"
           "  - {name: out, type: u32, elements: 128, init: zero}\n"
           "kernels:\n"
           "  - name: k\n"
           "    params: [{name: out, buffer: out}]\n"
           "    cbvs: [{slot: 0, buffer: c}]\n"
           "    grid: [1, 1]\n"
           "    block: [32, 1]\n"
           "    program: |\n"
           "      # one warp\n"
           "              S2R  R2, SR_LANEID\n"
           "              SHL  R2, R2, 2\n"
           "              LDP  R4, out\n"
           "              IADD R7, R4, R2\n" +
           body + "              EXIT\n";
}
} // namespace

TEST_CASE("cdl: both forms load the matrix (16x16 and 64x64) and the host checks it")
{
    for (const char* n : {"16", "64"})
        for (const char* form : {"bulk", "legacy"})
            for (const char* mode : {"fast", "accurate"}) {
                cli_runner cli(std::string("cdl_") + form + "_" + n + "_" + mode);
                const run_result r =
                    run(cli, "-w " + workloads + "cdl_" + form + ".yaml -D n=" + n +
                                 " -s platform.timing.mode=" + mode);
                INFO(form << " n=" << n << " " << mode << "\n" << r.r.out << r.r.err);
                CHECK(r.r.code == 0);
                const double bulk = r.stat("gpu.m0.c0.sm0_cdl.controller.bulk");
                CHECK(bulk == (std::string(form) == "bulk" ? (std::string(n) == "16" ? 1 : 2) : 0));
            }
}

TEST_CASE("cdl: a 256-dword bulk load finishes before eight legacy CDLs, in both modes")
{
    for (const char* mode : {"fast", "accurate"}) {
        double t[2] = {0, 0}, instr[2] = {0, 0};
        for (int f = 0; f < 2; ++f) {
            cli_runner cli(std::string("cdl_speed_") + mode + std::to_string(f));
            const run_result r = run(cli, "-w " + workloads + (f ? "cdl_legacy" : "cdl_bulk") +
                                              ".yaml -s platform.timing.mode=" + mode);
            REQUIRE(r.r.code == 0);
            t[f] = r.stat("gpu.kernel_time");
            instr[f] = r.stat("gpu.instructions");
        }
        INFO(mode << ": bulk " << t[0] << " ns, legacy " << t[1] << " ns");
        CHECK(t[0] < t[1]);
        // n = 16: one chunk of 256 dwords; the bulk form's one CDL against the legacy form's
        // 8 CDLs and 8 IADDs (per-lane offsets) = 15 more warp-instructions.
        CHECK(instr[1] - instr[0] == 15);
    }
}

TEST_CASE("cdl: bytes beyond the CBV read as zero and are counted, both forms")
{
    // CBV of 40 dwords: a bulk load of 64 dwords fills R16 (dwords 0..31) and R17 (32..39,
    // then zero); the legacy form at lane offsets 128 + 4 l does the same for R18.
    const std::string body = "              CDL  R16, 0, cbv[0], 64\n"
                             "              ST   [R7], R16\n"
                             "              ST   [R7 + 128], R17\n"
                             "              IADD R8, R2, 128\n"
                             "              CDL  R18, R8, cbv[0]\n"
                             "              ST   [R7 + 256], R18\n";
    std::string expect = "[";
    for (unsigned i = 0; i < 128; ++i) {
        unsigned v = 0;
        if (i < 64)
            v = i < 40 ? i + 1 : 0; // bulk
        else if (i < 96)
            v = i - 64 + 32 < 40 ? i - 64 + 32 + 1 : 0; // legacy, dwords 32..63
        expect += (i ? ", " : "") + std::to_string(v);
    }
    expect += "]";
    for (const char* mode : {"fast", "accurate"}) {
        cli_runner cli(std::string("cdl_range_") + mode);
        cli.write("w.yaml",
                  one_warp(body, 40) + "checks:\n  - {buffer: out, expect: " + expect + "}\n");
        const run_result r = run(cli, std::string("-w w.yaml -s platform.timing.mode=") + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        // Bulk: 24 dwords beyond; legacy: 24 lanes beyond.
        CHECK(r.stat("gpu.m0.c0.sm0_cdl.core.out_of_range_bytes") == 24 * 4 + 24 * 4);
        CHECK(r.stat("gpu.m0.c0.sm0_cdl.core.registers_written") == 2);
    }
}

TEST_CASE("cdl: a CBV that is not programmed and registers past the file are illegal")
{
    cli_runner cli("cdl_illegal");
    cli.write("w.yaml", one_warp("              CDL  R16, 0, cbv[1], 64\n", 40));
    run_result r = run(cli, "-w w.yaml");
    INFO(r.r.out << r.r.err);
    CHECK(r.r.code == 1);
    CHECK(r.r.err.find("CTA fault on SM 0, warp 0, PC 4") != std::string::npos);
    CHECK(r.r.err.find("illegal instruction: CBV 1 is not programmed (size 0)") !=
          std::string::npos);
    CHECK(r.stat("gpu.m0.c0.sm0_cdl.controller.illegal") == 1);
    // Past the register file the platform has (32 registers per thread): found when it runs.
    cli.write("w.yaml", one_warp("              CDL  R20, 0, cbv[0], 512\n", 40));
    r = run(cli, "-w w.yaml -s sm.regs_per_thread=32");
    INFO(r.r.out << r.r.err);
    CHECK(r.r.code == 1);
    CHECK(r.r.err.find("CDL destination R20..R35 past the register file (R0..R31)") !=
          std::string::npos);
    // Past the registers the assembler knows (sm.regs_per_thread, 64): refused, located.
    cli.write("w.yaml", one_warp("              CDL  R60, 0, cbv[0], 256\n", 40));
    r = run(cli, "-w w.yaml");
    CHECK(r.r.code == 2);
    CHECK(r.r.err.find("w.yaml:") != std::string::npos);
    CHECK(r.r.err.find("error: kernels[0].program: CDL destination R60..R67 past the register "
                       "file (R0..R63)") != std::string::npos);
}

TEST_CASE("cdl: with the constants reused (64x64, 16 loads a chunk), bulk is 1.5x faster")
{
    double t[2][2] = {{0, 0}, {0, 0}}; // [mode][form]
    for (int m = 0; m < 2; ++m)
        for (int f = 0; f < 2; ++f) {
            const std::string mode = m ? "accurate" : "fast";
            cli_runner cli("cdl_reuse_" + mode + std::to_string(f));
            const run_result r =
                run(cli, "-w " + workloads + (f ? "cdl_legacy" : "cdl_bulk") +
                             ".yaml -D n=64 -D reps=16 -D warps=8 -s platform.timing.mode=" + mode);
            REQUIRE(r.r.code == 0);
            t[m][f] = r.stat("gpu.kernel_time");
        }
    INFO("bulk / legacy ns: fast " << t[0][0] << " / " << t[0][1] << ", accurate " << t[1][0]
                                   << " / " << t[1][1]);
    CHECK(t[0][1] / t[0][0] > 1.5);
    CHECK(t[1][1] / t[1][0] > 1.5);
    for (int f = 0; f < 2; ++f)
        CHECK(std::abs(t[0][f] / t[1][f] - 1) < 0.05);
}
