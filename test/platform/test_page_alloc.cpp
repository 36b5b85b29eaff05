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

TEST_CASE("page allocation: stream on mcm4 puts at least 15 % of its pages on every module",
          "[figures]")
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

namespace {

/// Kernel `name` on SM `sm` alone: lane l < ne stores l + 1 to page l of `early` at once,
/// and lane l < nl to page l of `late` after a delay loop of a few hundred cycles.
std::string early_late_kernel(const std::string& name, unsigned sm, const std::string& early,
                              unsigned ne, const std::string& late, unsigned nl)
{
    return "  - name: " + name + "\n    params:\n      - {name: early, buffer: " + early +
           "}\n      - {name: late, buffer: " + late +
           "}\n    grid: [1, 1]\n    block: [32, 1]\n    sms: {first: " + std::to_string(sm) +
           ", count: 1}\n    program: |\n"
           "      # the first line sets the block's indentation (labels and predicates at 6)\n"
           "              S2R  R0, SR_LANEID\n"
           "              SHL  R4, R0, 12\n"
           "              IADD R6, R0, 1\n"
           "              ISETP.GE P0, R0, " +
           std::to_string(ne) +
           "\n"
           "              LDP  R3, early\n"
           "              IADD R5, R3, R4\n"
           "      @!P0    ST   [R5], R6\n"
           "              MOV  R7, 150\n"
           "      delay:  IADD R7, R7, -1\n"
           "              ISETP.GT P1, R7, 0\n"
           "      @P1     BRA  delay\n"
           "              ISETP.GE P0, R0, " +
           std::to_string(nl) +
           "\n"
           "              LDP  R3, late\n"
           "              IADD R5, R3, R4\n"
           "      @!P0    ST   [R5], R6\n"
           "              EXIT\n";
}

} // namespace

TEST_CASE("page allocation: the earliest touch places a page, at every quantum and in both modes")
{
    // Kernel ka on SM 0 (module 0) touches x's 4 pages at once and y's 2 pages after a delay;
    // kb on SM 8 (module 1) touches y's pages at once and x's after the delay. By hand: x on
    // module 0, y on module 1, with each kernel's program on its own module: 5 / 3 / 0 / 0
    // (x on module 1 would give 3 / 5). The same in fast mode at quanta 0, 100 and 1000 ns
    // (memory_quantum_ns too: the SMs run ahead) and in accurate mode.
    const std::string wl = "name: touch_order\nbuffers:\n"
                           "  - {name: x, type: u32, elements: 4096, init: zero}\n"
                           "  - {name: y, type: u32, elements: 2048, init: zero}\n"
                           "kernels:\n" +
                           early_late_kernel("ka", 0, "x", 4, "y", 2) +
                           early_late_kernel("kb", 8, "y", 2, "x", 4) + "schedule: [[ka, kb]]\n";
    for (const std::string set :
         {"-s platform.timing.quantum_ns=0 -s platform.timing.memory_quantum_ns=0",
          "-s platform.timing.quantum_ns=100 -s platform.timing.memory_quantum_ns=100",
          "-s platform.timing.quantum_ns=1000 -s platform.timing.memory_quantum_ns=1000",
          "-s platform.timing.mode=accurate"}) {
        cli_runner cli("page_alloc_touch_order");
        cli.write("w.yaml", wl);
        const auto r = vgpu::test::run_with_stats(
            cli, "-c " + mcm4 + " -w w.yaml -s memory.page_alloc=first_touch " + set);
        INFO(set << "\n" << r.r.out << r.r.err);
        REQUIRE(r.r.code == 0);
        CHECK(r.stat("gpu.host.touch_placements") == 6);
        CHECK(r.stat("gpu.host.pages.m0") == 5);
        CHECK(r.stat("gpu.host.pages.m1") == 3);
        CHECK(r.stat("gpu.host.pages.m2") == 0);
        CHECK(r.stat("gpu.host.pages.m3") == 0);
    }
}

TEST_CASE("page allocation: random_gather's pages per module do not depend on the quantum")
{
    // Who touches a randomly gathered page first is decided by nanoseconds, often by a tie
    // between SMs of different modules: before, the order of the calls decided (207 / 66,
    // 202 / 71, 206 / 67 pages on modules 0 / 1 at quanta 0, 100, 1000 ns). Now the earliest
    // touch, ties to the lowest SM, at every quantum.
    std::string first;
    for (const char* q : {"0", "100", "1000"}) {
        cli_runner cli(std::string("page_alloc_gather_q") + q);
        const auto r = vgpu::test::run_with_stats(
            cli, "-c " + mcm4 + " -w " + workloads +
                     "random_gather.yaml -s memory.page_alloc=first_touch "
                     "-s platform.timing.quantum_ns=" +
                     q);
        INFO("quantum " << q << "\n" << r.r.out << r.r.err);
        REQUIRE(r.r.code == 0);
        std::string pages;
        for (int m = 0; m < 4; ++m)
            pages += std::to_string(r.stat("gpu.host.pages.m" + std::to_string(m))) + "/";
        if (first.empty())
            first = pages;
        CHECK(pages == first);
    }
}
