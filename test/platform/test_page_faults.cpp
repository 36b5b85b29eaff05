// Page faults end to end (seed 003): on_demand buffers faulted in by the host's shadow thread,
// coalescing, eviction, fatal faults, time-outs and placement at fault time. Every expected
// count is computed here from the workload's shape. See models/host/README.md ("Page faults").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using vgpu::test::cli_result;
using vgpu::test::cli_runner;

namespace {

const std::string workloads = VGPU_SOURCE_DIR "/testbenches/workloads/";

using run_result = vgpu::test::stats_run;

run_result run(const cli_runner& cli, const std::string& args)
{
    return vgpu::test::run_with_stats(cli, args);
}

/// A kernel of `ctas` x 256 threads on SMs [first, first + count) (count 0: all) whose
/// thread i stores i + 1 to dst[i * stride] for i < n, and loads src[0] first when `src`.
std::string store_kernel(const std::string& name, const std::string& dst, unsigned ctas, unsigned n,
                         unsigned stride, unsigned first = 0, unsigned count = 0,
                         const std::string& src = "")
{
    std::string k = "  - name: " + name + "\n    params:\n      - {name: dst, buffer: " + dst +
                    "}\n      - {name: n, value: " + std::to_string(n) + "}\n";
    if (!src.empty())
        k += "      - {name: src, buffer: " + src + "}\n";
    k += "    grid: [" + std::to_string(ctas) + ", 1]\n    block: [256, 1]\n";
    if (count != 0)
        k += "    sms: {first: " + std::to_string(first) + ", count: " + std::to_string(count) +
             "}\n";
    k += "    program: |\n"
         "      # the first line sets the block's indentation (labels and predicates at 6)\n"
         "              S2R  R0, SR_GLOBAL_TID_X\n"
         "              LDP  R2, n\n"
         "              ISETP.GE P0, R0, R2\n"
         "      @P0     EXIT\n"
         "              LDP  R3, dst\n";
    if (!src.empty())
        k += "              LDP  R5, src\n"
             "              LD   R6, [R5]\n"
             "              IADD R6, R6, R0\n";
    else
        k += "              IADD R6, R0, 1\n";
    k += "              IMUL R4, R0, " + std::to_string(stride * 4) +
         "\n"
         "              IADD R4, R3, R4\n"
         "              ST   [R4], R6\n"
         "              EXIT\n";
    return k;
}

const char* const modes[] = {"fast", "accurate"};

/// "[start, start + 1, ..., start + n - 1]"
std::string iota_list(unsigned start, unsigned n)
{
    std::string s = "[";
    for (unsigned i = 0; i < n; ++i)
        s += (i ? ", " : "") + std::to_string(start + i);
    return s + "]";
}

} // namespace

TEST_CASE("faults: every on_demand page touched is serviced exactly once, both modes")
{
    // page_faults.yaml: `pages` threads, each loading from its own page of src, then one store
    // each to the on_demand out (pages * 4 bytes).
    const unsigned pages = 300;
    const unsigned out_pages = (pages * 4 + 4095) / 4096;
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_once_") + mode);
        const run_result r =
            run(cli, "-w " + workloads + "page_faults.yaml -D pages=" + std::to_string(pages) +
                         " -s platform.timing.mode=" + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        CHECK(r.stat("gpu.fault_services") == pages + out_pages);
        CHECK(r.stat("gpu.page_faults") == pages + out_pages);
        CHECK(r.stat("gpu.host.fault_records") == pages + out_pages);
        CHECK(r.stat("gpu.host.fatal_faults") == 0);
        // The default service: a shadow thread per faulting warp (the 300 threads' 10 warps
        // fault on src; the out page's record comes from one of them), no rounds.
        CHECK(r.stat("gpu.fault_batches") == 0);
        CHECK(r.stat("gpu.host.shadow_threads") >= 1);
        CHECK(r.stat("gpu.host.shadow_threads") <= (pages + 31) / 32);
        CHECK(r.stat("gpu.fault_stall_cycles") > 0);
        // Batched: several records per round (host.fault_batch 256), fewer rounds than pages.
        const run_result b =
            run(cli, "-w " + workloads + "page_faults.yaml -D pages=" + std::to_string(pages) +
                         " -s host.fault_service=batched -s platform.timing.mode=" + mode);
        INFO(b.r.out << b.r.err);
        CHECK(b.r.code == 0);
        CHECK(b.stat("gpu.fault_services") == pages + out_pages);
        CHECK(b.stat("gpu.host.shadow_threads") == 0);
        CHECK(b.stat("gpu.fault_batches") >= (pages + out_pages + 255) / 256);
        CHECK(b.stat("gpu.fault_batches") < pages + out_pages);
    }
}

TEST_CASE("faults: batched with host.fault_batch 1 every record is its own service round")
{
    cli_runner cli("faults_batch1");
    const run_result r =
        run(cli, "-w " + workloads +
                     "page_faults.yaml -D pages=40 -s host.fault_service=batched -s "
                     "host.fault_batch=1");
    INFO(r.r.out << r.r.err);
    CHECK(r.r.code == 0);
    CHECK(r.stat("gpu.fault_services") == 41);
    CHECK(r.stat("gpu.fault_batches") == 41);
}

TEST_CASE("faults: 256 warps faulting on one page make one record and one service")
{
    // 32 CTAs x 256 threads = 256 warps, all loading src[0] (one on_demand page, value 5),
    // each thread storing src[0] + i to its own word of an eager buffer.
    const std::string wl =
        "name: one_page\n"
        "buffers:\n"
        "  - {name: src, type: u32, elements: 16, init: {fill: 5}, alloc: on_demand}\n"
        "  - {name: dst, type: u32, elements: 8192, init: zero}\n"
        "kernels:\n" +
        store_kernel("k", "dst", 32, 8192, 1, 0, 0, "src") +
        "checks:\n"
        "  - {buffer: dst, expect: " +
        iota_list(5, 8192) + "}\n";
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_one_page_") + mode);
        cli.write("w.yaml", wl);
        const run_result r = run(cli, std::string("-w w.yaml -s platform.timing.mode=") + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        CHECK(r.stat("gpu.page_faults") == 1);
        CHECK(r.stat("gpu.fault_services") == 1);
        // Every warp's load faults before the host's answer (20 us away).
        CHECK(r.stat("gpu.faults.faults") == 256);
        CHECK(r.stat("gpu.faults.coalesced") == 255);
    }
}

TEST_CASE("faults: an evicted page is faulted in again from the host's copy")
{
    // strided_sum reads `in` (eager) for a while; the driver evicts it 1 us into the kernel.
    // Every page of `in` read after that faults once more and is served from the copy, and
    // the sums are still right.
    const unsigned in_pages = 65536 * 4 / 4096;
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_evict_") + mode);
        std::string text;
        {
            std::ifstream f(workloads + "strided_sum.yaml");
            std::stringstream ss;
            ss << f.rdbuf();
            text = ss.str();
        }
        cli.write("w.yaml", text + "evict:\n  - {buffer: in, phase: 0, after_ns: 1000}\n");
        const run_result r =
            run(cli, std::string("-w w.yaml -D count=64 -s platform.timing.mode=") + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        CHECK(r.stat("gpu.host.evictions") > 0);
        CHECK(r.stat("gpu.host.evictions") <= in_pages);
        // Each evicted page that the kernel touches again: one fault, one service.
        CHECK(r.stat("gpu.fault_services") > 0);
        CHECK(r.stat("gpu.fault_services") <= r.stat("gpu.host.evictions"));
        CHECK(r.stat("gpu.fault_services") == r.stat("gpu.page_faults"));
    }
}

TEST_CASE("faults: a store to a read_only on_demand buffer is fatal and reported")
{
    const std::string wl = "name: ro\n"
                           "buffers:\n"
                           "  - {name: t, type: u32, elements: 1024, init: zero, read_only: true,"
                           " alloc: on_demand}\n"
                           "kernels:\n" +
                           store_kernel("k", "t", 1, 1, 1);
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_ro_") + mode);
        cli.write("w.yaml", wl);
        const run_result r = run(cli, std::string("-w w.yaml -s platform.timing.mode=") + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 1);
        // One message naming SM, warp, PC, the VA in hex and the reason.
        CHECK(r.r.err.find("CTA fault on SM 0, warp 0, PC 8") != std::string::npos);
        CHECK(r.r.err.find("VA 0x10000000: ST at VA 0x10000000 failed (read-only)") !=
              std::string::npos);
        CHECK(r.stat("gpu.host.fatal_faults") == 1);
        CHECK(r.stat("gpu.fault_services") == 0);
    }
}

TEST_CASE("faults: an access outside every allocation is refused by the host")
{
    // Thread 0 stores 4 KiB past a one-page buffer: the guard page after it.
    const std::string wl = "name: guard\n"
                           "buffers:\n"
                           "  - {name: b, type: u32, elements: 1024, init: zero,"
                           " alloc: on_demand}\n"
                           "kernels:\n" +
                           store_kernel("k", "b", 1, 2, 1024);
    cli_runner cli("faults_guard");
    cli.write("w.yaml", wl);
    const run_result r = run(cli, "-w w.yaml");
    INFO(r.r.out << r.r.err);
    CHECK(r.r.code == 1);
    CHECK(r.r.err.find("ST at VA 0x10001000 failed (not mapped)") != std::string::npos);
    CHECK(r.stat("gpu.host.fatal_faults") == 1);
    CHECK(r.stat("gpu.fault_services") == 1); // thread 0's page of b was mapped
}

TEST_CASE("faults: a fault the host does not answer in time is reported, not a hang")
{
    cli_runner cli("faults_timeout");
    // The host needs 20 us per round; the accesses wait at most 5 us.
    const run_result r =
        run(cli, "-w " + workloads + "page_faults.yaml -D pages=8 -s host.fault_timeout=5us");
    INFO(r.r.out << r.r.err);
    CHECK(r.r.code == 1);
    CHECK(r.r.err.find("failed (page fault not answered by the host within "
                       "host.fault_timeout)") != std::string::npos);
}

TEST_CASE("faults: first_touch places each page on the module whose SM touched it first")
{
    // mcm4 (4 modules of 8 SMs): four kernels side by side, kernel m on module m's SMs,
    // each storing one word per page into its own on_demand buffer of 24 pages.
    std::string wl = "name: partitioned\nbuffers:\n";
    for (int m = 0; m < 4; ++m)
        wl += "  - {name: b" + std::to_string(m) +
              ", type: u32, elements: 24576, init: zero, alloc: on_demand}\n";
    wl += "kernels:\n";
    for (unsigned m = 0; m < 4; ++m)
        wl += store_kernel("k" + std::to_string(m), "b" + std::to_string(m), 1, 24, 1024, 8 * m, 8);
    wl += "schedule: [[k0, k1, k2, k3]]\n";
    cli_runner cli("faults_first_touch");
    cli.write("w.yaml", wl);
    const std::string mcm4 = VGPU_SOURCE_DIR "/platforms/mcm4.yaml";
    const run_result r = run(cli, "-c " + mcm4 + " -w w.yaml");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    CHECK(r.stat("gpu.fault_services") == 96);
    // Each module: its kernel's program page (eager, first touch) and its buffer's 24 pages;
    // module 0 also holds nothing else.
    for (int m = 0; m < 4; ++m)
        CHECK(r.stat("gpu.host.pages.m" + std::to_string(m)) == 1 + 24);
}

TEST_CASE("faults: adaptive placement balances pages one module first touches")
{
    // One kernel on module 0's SMs touches 64 pages of an on_demand buffer.
    const std::string wl = "name: one_module\nbuffers:\n"
                           "  - {name: b, type: u32, elements: 65536, init: zero,"
                           " alloc: on_demand}\nkernels:\n" +
                           store_kernel("k", "b", 1, 64, 1024, 0, 8);
    const std::string mcm4 = VGPU_SOURCE_DIR "/platforms/mcm4.yaml";
    cli_runner cli("faults_adaptive");
    cli.write("w.yaml", wl);
    const run_result ft = run(cli, "-c " + mcm4 + " -w w.yaml");
    INFO(ft.r.out << ft.r.err);
    REQUIRE(ft.r.code == 0);
    CHECK(ft.stat("gpu.host.pages.m0") == 1 + 64); // first touch: all on module 0
    const run_result ad = run(cli, "-c " + mcm4 +
                                       " -w w.yaml -s memory.page_alloc=adaptive -s "
                                       "memory.balance_ratio=1.5");
    INFO(ad.r.out << ad.r.err);
    REQUIRE(ad.r.code == 0);
    // The program page and 64 data pages (65 placed): seed 004's rule (first touch while the
    // pages are balanced, else round robin for the next page) keeps module 0 near 1.5 x the
    // mean and spreads the rest by round robin over every module (exact sequences:
    // test/page_alloc_core).
    std::vector<double> pages;
    for (int m = 0; m < 4; ++m)
        pages.push_back(ad.stat("gpu.host.pages.m" + std::to_string(m)));
    const double total = pages[0] + pages[1] + pages[2] + pages[3];
    CHECK(total == 65);
    CHECK(*std::max_element(pages.begin(), pages.end()) <= 1.5 * total / 4 + 1);
    CHECK(*std::min_element(pages.begin(), pages.end()) >= 4);
}

namespace {

/// N warps (N a multiple of 8), warp w storing to page w of an on_demand buffer (thread i
/// stores to word 32 i: one 128-byte line per thread, 32 lines = one 4 KiB page per warp).
std::string warp_pages_workload(unsigned warps)
{
    return "name: warp_pages\nbuffers:\n"
           "  - {name: b, type: u32, elements: " +
           std::to_string(warps * 1024) +
           ", init: zero, alloc: on_demand}\n"
           "kernels:\n" +
           store_kernel("k", "b", warps / 8, warps * 32, 32);
}

} // namespace

TEST_CASE("faults, shadow: N concurrent faults with S shadow threads take ceil(N/S) handler times")
{
    // 32 warps fault at once, each on its own page (zero pages: no copy). Each fault costs the
    // OS handler host.fault_latency = 100 us on one of S host cores, so the faults are served
    // in ceil(32 / S) waves of 100 us. By hand: S = 1 -> 3,200 us; 5 -> 700 us; 8 -> 400 us;
    // 32 -> 100 us; 64 -> 100 us (more threads than faults gain nothing). On top of the waves:
    // the kernel's own few microseconds, the driver's register reads of the 32 records
    // (7 MMIO accesses each) and each page's PTE write and shootdown (under the memory
    // manager's lock): under 10 us here.
    const double latency_ns = 100000;
    cli_runner cli("faults_shadow_waves");
    cli.write("w.yaml", warp_pages_workload(32));
    for (const unsigned s : {1u, 5u, 8u, 32u, 64u}) {
        for (const char* mode : modes) {
            const run_result r =
                run(cli, "-w w.yaml -s host.fault_latency=100us -s "
                         "host.shadow_threads=" +
                             std::to_string(s) + " -s platform.timing.mode=" + mode);
            INFO("S = " << s << ", " << mode << "\n" << r.r.out << r.r.err);
            REQUIRE(r.r.code == 0);
            CHECK(r.stat("gpu.page_faults") == 32);
            CHECK(r.stat("gpu.fault_services") == 32);
            CHECK(r.stat("gpu.host.shadow_threads") == 32); // one per faulting warp
            const double waves = (32 + s - 1) / s;
            const double t = r.stat("gpu.host.kernel_time.k");
            CHECK(t >= waves * latency_ns);
            CHECK(t < waves * latency_ns + 10000);
        }
    }
}

TEST_CASE("faults, batched: the same 32 faults are one round of one handler time")
{
    const double latency_ns = 100000;
    cli_runner cli("faults_batched_round");
    cli.write("w.yaml", warp_pages_workload(32));
    const run_result r = run(cli, "-w w.yaml -s host.fault_latency=100us -s "
                                  "host.fault_service=batched");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    CHECK(r.stat("gpu.fault_services") == 32);
    // The records arrive within a few hundred ns: one or two rounds, each 100 us.
    const double rounds = r.stat("gpu.fault_batches");
    CHECK(rounds >= 1);
    CHECK(rounds <= 2);
    const double t = r.stat("gpu.host.kernel_time.k");
    CHECK(t >= rounds * latency_ns);
    CHECK(t < rounds * latency_ns + 10000);
}

TEST_CASE("faults, shadow: the steps of one fault come in the patent's order")
{
    // One thread stores to one on_demand page: the driver hands the record to the warp's
    // shadow thread (60), which runs (50), checks the type (52), repeats the store against the
    // host's page table (54: the page is absent), runs the OS handler (42: places and maps it,
    // 44: shootdown) and answers (56). The handler's time separates (50) from (56).
    std::string expect = "[1";
    for (int i = 1; i < 1024; ++i)
        expect += ", 0";
    expect += "]";
    const std::string text = "name: one\nbuffers:\n"
                             "  - {name: b, type: u32, elements: 1024, init: zero,"
                             " alloc: on_demand}\nkernels:\n" +
                             store_kernel("k", "b", 1, 1, 1) +
                             "checks:\n  - {buffer: b, expect: " + expect + "}\n";
    cli_runner cli("faults_step_order");
    cli.write("w.yaml", text);
    const run_result r = run(cli, "-w w.yaml -s log.debug=gpu.host -s host.fault_latency=50us");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    const std::string& log = r.r.err;
    const char* const steps[] = {"(60) the driver hands it", "(50) shadow thread",
                                 "(52) type 0; (54) the repeated store: allocate",
                                 "(42) the OS handler: allocate, PTE written, (44) TLBs shot down",
                                 "(56) answered mapped"};
    std::size_t at = 0;
    for (const char* s : steps) {
        const std::size_t p = log.find(s, at);
        INFO("step " << s);
        CHECK(p != std::string::npos);
        if (p != std::string::npos)
            at = p;
    }
    CHECK(r.stat("gpu.fault_services") == 1);
    CHECK(r.stat("gpu.host.shadow_threads") == 1);
    // One service: the handler's 50 us and a few register and PTE accesses.
    CHECK(r.stat("gpu.host.fault_service_time") >= 50000);
    CHECK(r.stat("gpu.host.fault_service_time") < 51000);
}

TEST_CASE("faults: a store to a copy-on-write page is a protection fault the host resolves")
{
    // 8 eager pages shared copy-on-write (init 7); warp 0's threads 0..3 store to pages 0..3:
    // four protection faults, four copies; the other pages stay shared; the data is right.
    std::string expect = "[";
    for (unsigned i = 0; i < 8192; ++i)
        expect +=
            (i ? ", " : "") + std::to_string(i % 1024 == 0 && i / 1024 < 4 ? i / 1024 + 1 : 7);
    expect += "]";
    const std::string wl = "name: cow\nbuffers:\n"
                           "  - {name: b, type: u32, elements: 8192, init: {fill: 7},"
                           " copy_on_write: true}\nkernels:\n" +
                           store_kernel("k", "b", 1, 4, 1024) +
                           "checks:\n  - {buffer: b, expect: " + expect + "}\n";
    for (const char* service : {"shadow", "batched"})
        for (const char* mode : modes) {
            cli_runner cli(std::string("faults_cow_") + service + mode);
            cli.write("w.yaml", wl);
            const run_result r = run(cli, std::string("-w w.yaml -s host.fault_service=") +
                                              service + " -s platform.timing.mode=" + mode);
            INFO(service << " " << mode << "\n" << r.r.out << r.r.err);
            CHECK(r.r.code == 0);
            CHECK(r.stat("gpu.page_faults") == 4);
            CHECK(r.stat("gpu.host.protection_faults") == 4);
            CHECK(r.stat("gpu.host.cow_copies") == 4);
            CHECK(r.stat("gpu.host.fatal_faults") == 0);
        }
}

TEST_CASE("faults: a store to an eager read_only page reaches the host, which refuses it")
{
    const std::string wl = "name: ro\nbuffers:\n"
                           "  - {name: t, type: u32, elements: 1024, init: zero,"
                           " read_only: true}\nkernels:\n" +
                           store_kernel("k", "t", 1, 1, 1);
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_ro_eager_") + mode);
        cli.write("w.yaml", wl);
        const run_result r = run(cli, std::string("-w w.yaml -s platform.timing.mode=") + mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 1);
        CHECK(r.r.err.find("ST at VA 0x10000000 failed (read-only)") != std::string::npos);
        CHECK(r.stat("gpu.host.protection_faults") == 1);
        CHECK(r.stat("gpu.host.fatal_faults") == 1);
        CHECK(r.stat("gpu.host.cow_copies") == 0);
    }
}

TEST_CASE("faults: buffers larger than the GPU's memory run by evicting under pressure")
{
    // page_faults.yaml with 1,024 pages of src (4 MiB) on a 1 MiB module: once the frames run
    // out each fault evicts the oldest resident page (its PTE cleared, every SM's TLB shot
    // down, the drain, the copy-out) and takes its frame. The gather is still right.
    for (const char* service : {"shadow", "batched"}) {
        cli_runner cli(std::string("faults_pressure_") + service);
        const run_result r = run(cli, "-w " + workloads +
                                          "page_faults.yaml -D pages=1024 -s dram.size=1MiB -s "
                                          "host.fault_service=" +
                                          service);
        INFO(service << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        CHECK(r.stat("gpu.host.pressure_evictions") > 0);
        CHECK(r.stat("gpu.host.evictions") == r.stat("gpu.host.pressure_evictions"));
        CHECK(r.stat("gpu.host.shootdowns") == r.stat("gpu.host.evictions"));
        CHECK(r.stat("gpu.host.eviction_time") >= 2000); // at least the drain
        CHECK(r.stat("gpu.host.fatal_faults") == 0);
        // 1,025 pages brought in (src and out) and whatever was evicted and needed again.
        CHECK(r.stat("gpu.fault_services") >= 1025);
    }
}

TEST_CASE("faults: a frame reused under pressure is not read from a stale L1 line, both modes")
{
    // page_faults.yaml in one CTA (every load through one SM's L1) with 1,024 pages of src on a
    // 1 MiB module, and an L1 of 1,024 sets x 64 ways that keeps every line the gather reads
    // (each at the start of a page: the sets of a multiple of 32 lines, 2,048 ways in all).
    // Pressure evicts src's oldest pages and gives their frames to later pages, whose first
    // line is the one the L1 still holds for the evicted page: without the L1 invalidation of
    // each evicted page (the CP's L1_INVALIDATE after the shootdown), 776 of the 1,024
    // elements read an older page's value.
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_pressure_l1_") + mode);
        const run_result r =
            run(cli, "-w " + workloads +
                         "page_faults.yaml -D pages=1024 -D ctas=1 -s dram.size=1MiB -s "
                         "l1.sets=1024 -s l1.ways=64 -s platform.timing.mode=" +
                         mode);
        INFO(mode << "\n" << r.r.out << r.r.err);
        CHECK(r.r.code == 0);
        CHECK(r.r.out.find("verdict: pass") != std::string::npos);
        CHECK(r.stat("gpu.host.pressure_evictions") > 0);
        // One range per evicted page, each dropped from every L1.
        CHECK(r.stat("gpu.cp.l1_invalidations") == r.stat("gpu.host.evictions"));
        CHECK(r.stat("gpu.m0.c0.sm0_l1.range_invalidations") == r.stat("gpu.host.evictions"));
        CHECK(r.stat("gpu.m0.c0.sm0_l1.lines_invalidated") > 0);
    }
}

TEST_CASE("faults: a scripted eviction drops the evicted pages from every L1")
{
    // k1 stores to b's one page, k2 loads it; the driver evicts b early in phase 1: one
    // L1_INVALIDATE of the page, each L1 counting one range.
    std::string wl = "name: evict_l1\nbuffers:\n"
                     "  - {name: b, type: u32, elements: 1024, init: zero, alloc: on_demand}\n"
                     "kernels:\n" +
                     store_kernel("k1", "b", 1, 1, 1) +
                     store_kernel("k2", "b", 1, 1, 1, 0, 0, "b") +
                     "schedule: [[k1], [k2]]\n"
                     "evict:\n  - {buffer: b, phase: 1, after_ns: 100}\n";
    cli_runner cli("faults_evict_l1");
    cli.write("w.yaml", wl);
    const run_result r = run(cli, "-w w.yaml");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    CHECK(r.stat("gpu.host.evictions") == 1);
    CHECK(r.stat("gpu.cp.l1_invalidations") == 1);
    CHECK(r.stat("gpu.m0.c0.sm0_l1.range_invalidations") == 1);
}

TEST_CASE("faults: an evicted page is swapped back in at host.swap_in_latency")
{
    // k1 stores to an on_demand page of b; early in phase 1 the driver evicts b; k2 first
    // loads from another on_demand buffer (one handler time, long after the eviction), then
    // stores to b's page, which the host's page table now has swapped out.
    std::string wl = "name: swap\nbuffers:\n"
                     "  - {name: b, type: u32, elements: 1024, init: zero, alloc: on_demand}\n"
                     "  - {name: s, type: u32, elements: 1024, init: zero, alloc: on_demand}\n"
                     "kernels:\n" +
                     store_kernel("k1", "b", 1, 1, 1) +
                     store_kernel("k2", "b", 1, 1, 1, 0, 0, "s") +
                     "schedule: [[k1], [k2]]\n"
                     "evict:\n  - {buffer: b, phase: 1, after_ns: 100}\n";
    cli_runner cli("faults_swap_in");
    cli.write("w.yaml", wl);
    const run_result r = run(cli, "-w w.yaml -s host.swap_in_latency=40us");
    INFO(r.r.out << r.r.err);
    REQUIRE(r.r.code == 0);
    CHECK(r.stat("gpu.host.evictions") == 1);
    CHECK(r.stat("gpu.host.swap_ins") == 1);
    CHECK(r.stat("gpu.fault_services") == 3);
    // k1: the handler (20 us); k2: the handler for s, then the handler and the swap-in for b
    // (20 + 20 + 40 us), plus register, PTE and copy accesses.
    CHECK(r.stat("gpu.host.kernel_time.k1") >= 20000);
    CHECK(r.stat("gpu.host.kernel_time.k1") < 22000);
    CHECK(r.stat("gpu.host.kernel_time.k2") >= 80000);
    CHECK(r.stat("gpu.host.kernel_time.k2") < 83000);
}

TEST_CASE("faults: pages placed at their first touch are evicted under memory pressure, both modes")
{
    // mcm4 with 128 KiB (32 frames) per module, first_touch: k1 on module 0's SMs stores
    // i + 1 to the first word of each of a's 16 pages (each placed on module 0 at its first
    // touch, no fault), then k2 on the same SMs does so to b's 16 pages. Module 0 also holds
    // both programs and the page-table nodes, so it fills during k2: the later pages of b take
    // the fault path, which must evict resident pages for them, and the only resident buffer
    // pages are a's and b's, all placed at first touch. Were they not candidates, the fault
    // would find no page to give and fail (memory full). The checks read a's evicted pages
    // from the host's copies.
    std::string wl = "name: touch_pressure\nbuffers:\n"
                     "  - {name: a, type: u32, elements: 16384, init: zero}\n"
                     "  - {name: b, type: u32, elements: 16384, init: zero}\n"
                     "kernels:\n";
    // k0 names b on module 1's SMs and stores nothing: the set-up's fit check, which puts a
    // buffer on the module of the first kernel naming it, then sees b on module 1.
    wl += store_kernel("k0", "b", 1, 0, 1024, 8, 8);
    wl += store_kernel("k1", "a", 1, 16, 1024, 0, 8);
    wl += store_kernel("k2", "b", 1, 16, 1024, 0, 8);
    wl += "schedule: [[k0, k1], [k2]]\nchecks:\n";
    std::string expect = "[";
    for (unsigned i = 0; i < 16384; ++i)
        expect += (i ? "," : "") + std::to_string(i % 1024 == 0 ? i / 1024 + 1 : 0);
    expect += "]";
    wl += "  - {buffer: a, expect: " + expect + "}\n  - {buffer: b, expect: " + expect + "}\n";
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_touch_pressure_") + mode);
        cli.write("w.yaml", wl);
        const run_result r =
            run(cli, "-c " VGPU_SOURCE_DIR "/platforms/mcm4.yaml -w w.yaml -s dram.size=128KiB "
                     "-s memory.page_alloc=first_touch -s platform.timing.mode=" +
                         std::string(mode));
        INFO(mode << "\n" << r.r.out << r.r.err);
        REQUIRE(r.r.code == 0);
        CHECK(r.stat("gpu.host.touch_placements") > 0);
        CHECK(r.stat("gpu.host.pressure_evictions") > 0);
        CHECK(r.stat("gpu.host.evictions") == r.stat("gpu.host.pressure_evictions"));
        CHECK(r.stat("gpu.host.fatal_faults") == 0);
        // Every page of a and b placed once at its first touch or by a fault, and a's evicted
        // pages not brought back (nothing reads them).
        CHECK(r.stat("gpu.host.touch_placements") + r.stat("gpu.fault_services") == 32);
    }
}

TEST_CASE("faults: a CBV's buffer evicted mid-kernel is read back by the CDL's replays, both modes")
{
    // cdl_on_demand.yaml's kernel with its constant buffer m (64 x 64 floats, 4 pages) eager,
    // evicted 500 ns into the kernel on the default platform, while the CTAs still read it with
    // CDL: each CDL line read then faults, waits for the swap-in and replays, and the result is
    // still the reference's.
    std::string text;
    {
        std::ifstream f(VGPU_SOURCE_DIR "/test/platform/workloads/cdl_on_demand.yaml");
        std::stringstream ss;
        ss << f.rdbuf();
        text = ss.str();
    }
    const std::string od = ",\n     alloc: on_demand}";
    const auto at = text.find(od);
    REQUIRE(at != std::string::npos);
    text.replace(at, od.size(), "}");
    text += "evict:\n  - {buffer: m, phase: 0, after_ns: 500}\n";
    for (const char* mode : modes) {
        cli_runner cli(std::string("faults_cbv_evict_") + mode);
        cli.write("w.yaml", text);
        const run_result r =
            run(cli, "-w w.yaml -D n=64 -D reps=4 -s platform.timing.mode=" + std::string(mode));
        INFO(mode << "\n" << r.r.out << r.r.err);
        REQUIRE(r.r.code == 0);
        CHECK(r.stat("gpu.host.evictions") == 4);
        CHECK(r.stat("gpu.host.swap_ins") > 0);
        CHECK(r.stat("gpu.host.fatal_faults") == 0);
    }
}
