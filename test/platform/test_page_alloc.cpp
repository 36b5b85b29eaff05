// Page allocation at first touch end to end (models/page_alloc/README.md): eager buffers placed
// when a kernel first touches them, on the touching SM's module, with their contents, in zero
// time; the target on stream.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <string>

using vgpu::test::cli_runner;

namespace {

const std::string workloads = VGPU_SOURCE_DIR "/testbenches/workloads/";
const std::string mcm4 = VGPU_SOURCE_DIR "/platforms/mcm4.yaml";

} // namespace

TEST_CASE("page allocation: stream on mcm4 puts at least 15 % of its pages on every module")
{
    for (const std::string mode : {"fast", "accurate"})
        for (const std::string alloc : {"first_touch", "adaptive"}) {
            cli_runner cli("page_alloc_stream_" + mode + "_" + alloc);
            const auto r = vgpu::test::run_with_stats(
                cli, "-c " + mcm4 + " -w " + workloads +
                         "stream.yaml -D n=262144 -s memory.page_alloc=" + alloc +
                         " -s platform.timing.mode=" + mode);
            INFO(mode << " " << alloc << "\n" << r.r.out << r.r.err);
            REQUIRE(r.r.code == 0);
            // 2 buffers of 1 MiB (512 pages of 4 KiB) placed at their first touch, no fault;
            // the program's page at set-up.
            CHECK(r.stat("gpu.host.touch_placements") == 512);
            CHECK(r.stat("gpu.host.fault_services") == 0);
            double total = 0;
            for (int m = 0; m < 4; ++m)
                total += r.stat("gpu.host.pages.m" + std::to_string(m));
            CHECK(total == 513);
            for (int m = 0; m < 4; ++m)
                CHECK(r.stat("gpu.host.pages.m" + std::to_string(m)) >= 0.15 * total);
        }
}

TEST_CASE("page allocation: an eager buffer's page goes to the module of the SM that touches it")
{
    // Kernel `a` on SM 8 (module 1) reads the first page of `in` (initial contents 1, 2, ...)
    // and stores it to `out`; kernel `b` on SM 16 (module 2) stores to the second page. The
    // pages land on modules 1 and 2 (and `out`'s page on module 1), the check sees the data.
    const std::string wl =
        "name: touch\nbuffers:\n"
        "  - {name: in, type: u32, elements: 2048, init: {iota: {start: 1, step: 1}}}\n"
        "  - {name: out, type: u32, elements: 1, init: zero}\n"
        "kernels:\n"
        "  - name: a\n    params:\n      - {name: in, buffer: in}\n"
        "      - {name: out, buffer: out}\n"
        "    grid: [1, 1]\n    block: [1, 1]\n    sms: {first: 8, count: 1}\n"
        "    program: |\n      LDP R1, in\n      LD R2, [R1 + 4]\n      LDP R3, out\n"
        "      ST [R3], R2\n      EXIT\n"
        "  - name: b\n    params:\n      - {name: in, buffer: in}\n"
        "    grid: [1, 1]\n    block: [1, 1]\n    sms: {first: 16, count: 1}\n"
        "    program: |\n      LDP R1, in\n      MOV R2, 7\n      ST [R1 + 4096], R2\n"
        "      EXIT\n"
        "schedule: [[a], [b]]\n"
        "checks:\n  - buffer: out\n    expect: [2]\n";
    cli_runner cli("page_alloc_touch");
    cli.write("w.yaml", wl);
    const auto r = vgpu::test::run_with_stats(cli, "-c " + mcm4 + " -w w.yaml");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    CHECK(r.stat("gpu.host.touch_placements") == 3);
    // Programs at set-up on their kernel's first SM's module: a's on module 1, b's on module
    // 2. At first touch: in's page 0 and out on module 1 (SM 8), in's page 1 on module 2.
    CHECK(r.stat("gpu.host.pages.m0") == 0);
    CHECK(r.stat("gpu.host.pages.m1") == 3);
    CHECK(r.stat("gpu.host.pages.m2") == 2);
    CHECK(r.stat("gpu.host.pages.m3") == 0);
}
