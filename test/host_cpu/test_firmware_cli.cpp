// vgpu-sim with host.kind riscv as users run it: bad firmware images, a firmware bug, a
// firmware that never wakes, interrupts under load. See docs/firmware.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

using vgpu::test::cli_runner;

namespace {
const std::string workload = " -w '" VGPU_SOURCE_DIR "/testbenches/workloads/vector_add.yaml' ";

std::string riscv(const std::string& firmware)
{
    return workload + "-s host.kind=riscv -s host.firmware='" + firmware + "' ";
}
} // namespace

TEST_CASE("bad firmware images end the run with exit 2 naming the file and the problem")
{
    cli_runner r("fw_bad_elf");
    r.write("text.elf", "this is not firmware\n");
    r.write("empty.elf", "");
    std::ifstream fw(VGPU_FIRMWARE_ELF, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(fw)), std::istreambuf_iterator<char>());
    r.write("truncated.elf", bytes.substr(0, 600));
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"text.elf", "not an ELF file"},
        {"empty.elf", "empty file"},
        {"truncated.elf", "segment 0 [0x80000000"},
        {"missing.elf", "cannot open"},
        {"/bin/true", "wrong ELF class: ELF64"},
    };
    for (const auto& [file, problem] : cases) {
        const auto res = r.run(riscv(file) + "-o out");
        INFO(file << ": " << res.err);
        CHECK(res.code == 2);
        CHECK(res.err.find(file + ": " + problem) != std::string::npos);
    }
}

TEST_CASE("a host service that fails stops the firmware: an undersized trace buffer")
{
    cli_runner r("fw_trace_undersize");
    const auto res = r.run("-w '" VGPU_SOURCE_DIR "/testbenches/workloads/instrumented.yaml' "
                           "-s host.kind=riscv -s host.instrument_undersize=5 -o out");
    INFO(res.out + res.err);
    REQUIRE(res.code == 1);
    // The host's report of the refused records (as natively), then the firmware's stop.
    REQUIRE(res.err.find("kernel 'loops': 5 control records did not fit") != std::string::npos);
    REQUIRE(res.err.find("the firmware reported failure code 4") != std::string::npos);
    REQUIRE(r.read("out/console.txt").find("phase 0: stopped") != std::string::npos);
}

TEST_CASE("firmware options without host.kind riscv are refused, not ignored")
{
    cli_runner r("fw_native_options");
    const auto fw = r.run(workload + "-s host.firmware=fw.elf -o out");
    INFO(fw.err);
    REQUIRE(fw.code == 2);
    REQUIRE(fw.err.find("is run only with host.kind riscv") != std::string::npos);
    const auto gdb = r.run(workload + "--gdb 3333 -o out");
    INFO(gdb.err);
    REQUIRE(gdb.code == 2);
    REQUIRE(gdb.err.find("it needs host.kind riscv") != std::string::npos);
}

TEST_CASE("an MMIO access to an unmapped address is a precise fault with PC and address")
{
    cli_runner r("fw_mmio_fault");
    const auto res = r.run(riscv(VGPU_FW_MMIO_FAULT) + "-o out");
    const std::string all = res.out + res.err;
    INFO(all);
    REQUIRE(res.code == 1);
    // The shell's report of the bus error and the firmware's own report from its trap handler.
    REQUIRE(all.find("load access fault") != std::string::npos);
    REQUIRE(all.find("address 0x70000040") != std::string::npos);
    REQUIRE(all.find("by the instruction at PC 0x8000") != std::string::npos);
    const std::string console = r.read("out/console.txt");
    REQUIRE(console.find("firmware trap: load access fault (mcause 5) at PC 0x8000") !=
            std::string::npos);
    REQUIRE(console.find("address 0x70000040") != std::string::npos);
    // mepc is the load itself: the PC the shell saw the access from.
    const auto at = all.find("by the instruction at PC ");
    const std::string pc = all.substr(at + 25, 10);
    REQUIRE(console.find("at PC " + pc) != std::string::npos);
}

TEST_CASE("a firmware that sleeps forever: the time limit names the sleeping CPU")
{
    cli_runner r("fw_sleep");
    const auto res = r.run(riscv(VGPU_FW_SLEEP_FOREVER) + "-s platform.max_time='200 us' -o out");
    const std::string all = res.out + res.err;
    INFO(all);
    REQUIRE(res.code == 1);
    REQUIRE(all.find("did not finish within platform.max_time (200 us): the firmware CPU was "
                     "asleep in WFI at PC 0x8000") != std::string::npos);
    REQUIRE(all.find("mie 0x80,") != std::string::npos); // only the timer, not yet due
}

TEST_CASE("timer interrupts under load return to the interrupted code and wake WFI")
{
    cli_runner r("fw_timer");
    const auto res = r.run(riscv(VGPU_FW_TIMER_IRQ) + "-o out");
    const std::string console = r.read("out/console.txt");
    INFO(res.out + res.err + console);
    // The test firmware launches nothing, so the host reports the missing launches (exit 1)
    // after the firmware's own verdict, which is PASS.
    REQUIRE(console.find("woke from WFI by the timer") != std::string::npos);
    REQUIRE((res.out + res.err).find("the firmware reported PASS after 0 of 1 launches") !=
            std::string::npos);
    const auto stats = nlohmann::json::parse(r.read("out/stats.json"))["stats"];
    REQUIRE(stats["gpu.host.cpu.interrupts"].get<double>() >= 50);
    REQUIRE(stats["gpu.host.cpu.idle_ns"].get<double>() > 0);
}

TEST_CASE("a firmware eviction drops each evicted page's frame from every L1, as natively")
{
    // strided_sum with an `evict` entry (its eager `in`, 1 us into the kernel, then faulted in
    // again): after the shootdowns and the drain, the firmware writes the CP's L1_INV_* registers
    // once per evicted page (its frame, from the host's FRAME register), each L1 counting one
    // range, so that a page given the frame later is not read from a stale L1 line.
    cli_runner r("fw_evict_l1");
    std::ifstream in(VGPU_SOURCE_DIR "/testbenches/workloads/strided_sum.yaml");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    r.write("w.yaml", text + "evict:\n  - {buffer: in, phase: 0, after_ns: 1000}\n");
    for (const char* kind : {"native", "riscv"}) {
        const auto res = r.run(std::string("-w w.yaml -s host.kind=") + kind + " -o out");
        INFO(kind << "\n" << res.out << res.err);
        REQUIRE(res.code == 0);
        REQUIRE(res.out.find("verdict: pass") != std::string::npos);
        const auto stats = nlohmann::json::parse(r.read("out/stats.json"))["stats"];
        const double evicted = stats["gpu.host.evictions"].get<double>();
        CHECK(evicted == 64);
        CHECK(stats["gpu.cp.l1_invalidations"].get<double>() == evicted);
        CHECK(stats["gpu.m0.c0.sm0_l1.range_invalidations"].get<double>() == evicted);
    }
}
