// Shell tests of the SM's issue stage: warp schedulers, sub-cores, unit latencies and
// throughput.
// See models/sm/README.md.
#include "test/sm/sm_bench.h"

using namespace vgpu::test::sm_bench;

namespace {
const char* independent = R"(
        MOV R1, 1
        MOV R2, 2
        MOV R3, 3
        MOV R4, 4
        MOV R5, 5
        MOV R6, 6
        MOV R7, 7
        MOV R8, 8
        MOV R9, 9
        MOV R10, 10
        MOV R11, 11
        MOV R12, 12
        MOV R13, 13
        MOV R14, 14
        MOV R15, 15
        MOV R16, 16
        MOV R17, 17
        MOV R18, 18
        MOV R19, 19
        MOV R20, 20
        EXIT
)";

/// Runs 4 warps of independent instructions under `policy`; returns warp slot 0's stalls.
double first_warp_stalls(sm::sched_policy policy, double& last_warp_stalls)
{
    auto cfg = default_cfg();
    cfg.scheduler = policy;
    bench tb(cfg);
    const auto bytes = tb.load(independent);
    tb.launch(bytes, 128, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(stat("sm.instructions", -1) == 84);
    last_warp_stalls = stat("sm.w3.stall_cycles", -1);
    return stat("sm.w0.stall_cycles", -1);
}
} // namespace

TEST_CASE("GTO runs the oldest warp to completion before switching")
{
    double last = 0;
    CHECK(first_warp_stalls(sm::sched_policy::gto, last) == 0);
    CHECK(last == 63);
}

TEST_CASE("LRR interleaves warps, so the first warp stalls while the others issue")
{
    double last = 0;
    CHECK(first_warp_stalls(sm::sched_policy::lrr, last) == 60);
    CHECK(last == 63);
}

// ---- sub-cores and functional units (exact cycle counts, computed by hand) ----
// "Execution cycles" below are active_cycles - stall_memory: the cycles from a CTA's first
// issue to its last (the wait for the program fetch is charged to memory).

namespace {
/// `n` copies of `line`, one per line.
std::string repeat(const std::string& line, unsigned n)
{
    std::string s;
    for (unsigned i = 0; i < n; ++i)
        s += line + "\n";
    return s;
}

/// The SM's statistics after a run, by name without "sm." ("instructions").
std::map<std::string, double> last_stats;

/// Runs one CTA of `threads` threads of `text` on an SM with `cfg`; returns execution cycles
/// and keeps the SM's statistics in last_stats.
double exec_cycles(const sm::sm_config& cfg, const std::string& text, unsigned threads,
                   bool accurate = false)
{
    bench tb(cfg, accurate);
    const auto bytes = tb.load(text);
    tb.launch(bytes, threads, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    last_stats.clear();
    for (const auto& e : stats::collect_all())
        if (e.name.rfind("sm.", 0) == 0)
            last_stats[e.name.substr(3)] = e.value.get<double>();
    for (const auto& [k, v] : last_stats)
        UNSCOPED_INFO(k << " = " << v);
    return last_stats.at("active_cycles") - last_stats.at("stall_memory");
}

/// A statistic of the last exec_cycles() run; -1 if absent.
double sm_stat(const std::string& name)
{
    const auto it = last_stats.find(name);
    return it == last_stats.end() ? -1 : it->second;
}

/// 20 independent MOVs and EXIT (21 instructions per warp).
std::string independent_movs()
{
    std::string s;
    for (unsigned r = 1; r <= 20; ++r)
        s += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    return s + "EXIT\n";
}
} // namespace

TEST_CASE("one warp: a dependent FFMA chain issues once per fp32 latency")
{
    auto cfg = default_cfg();
    cfg.fp_latency = 4;
    // FFMA i at cycle 4 i (i = 0..63), EXIT at 4 * 63 + 1: 254 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 64) + "EXIT", 32) == 254);
    CHECK(sm_stat("instructions") == 65);
    CHECK(sm_stat("stall_structural") == 0);
}

TEST_CASE("units.fp32.latency overrides sm.fp_latency")
{
    auto cfg = default_cfg();
    cfg.fp_latency = 4;
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].latency = 6;
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 64) + "EXIT", 32) == 6 * 63 + 2);
}

TEST_CASE("four warps on one scheduler issue one instruction per cycle")
{
    // 4 warps x 21 independent instructions: 84 cycles, every one issuing.
    CHECK(exec_cycles(default_cfg(), independent_movs(), 128) == 84);
    CHECK(sm_stat("issue_cycles") == 84);
    CHECK(sm_stat("core0.instructions") == 84);
}

TEST_CASE("four schedulers issue four instructions per cycle, one per sub-core")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    // Warp slot w on sub-core w mod 4: each of the 4 warps has a sub-core of its own, 21 cycles.
    CHECK(exec_cycles(cfg, independent_movs(), 128) == 21);
    CHECK(sm_stat("instructions") == 84);
    CHECK(sm_stat("issue_cycles") == 21);
    for (int k = 0; k < 4; ++k)
        CHECK(sm_stat("core" + std::to_string(k) + ".instructions") == 21);
}

TEST_CASE("four schedulers with two warps each: 42 cycles")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    CHECK(exec_cycles(cfg, independent_movs(), 256) == 42);
}

TEST_CASE("four schedulers with two warps each, accurate mode: 42 cycles")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    CHECK(exec_cycles(cfg, independent_movs(), 256, true) == 42);
}

TEST_CASE("fp32 with 16 lanes: independent FFMAs of one warp issue every other cycle")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // 20 FFMAs hold the unit 2 cycles each: at 0, 2, ..., 38; EXIT (branch unit) at 39: 40.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R2, R3, R4", 20) + "EXIT", 32) == 40);
    // The 19 cycles between them had a ready warp and a busy unit.
    CHECK(sm_stat("stall_structural") == 19);
    CHECK(sm_stat("core0.structural_stalls") == 19);
    CHECK(sm_stat("stall_scoreboard") == 0);
}

TEST_CASE("a mix of units: FFMA and IADD alternate without a structural stall")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // FFMA at even cycles (fp32 busy 2 cycles), IADD at odd ones on the int unit: 40
    // instructions and EXIT in 41 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R2, R3, R4\nIADD R5, R6, R7", 20) + "EXIT", 32) == 41);
    CHECK(sm_stat("stall_structural") == 0);
}

TEST_CASE("mul with 8 lanes: independent IMULs issue every fourth cycle")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::mul)].lanes = 8;
    // IMUL at 0, 4, ..., 76 (4 cycles each on 8 lanes), EXIT at 77: 78 cycles.
    CHECK(exec_cycles(cfg, repeat("IMUL R1, R2, R3", 20) + "EXIT", 32) == 78);
    CHECK(sm_stat("stall_structural") == 57); // 3 per IMUL after the first 19
}

TEST_CASE("an FFMA chain with 16 lanes on four sub-cores is throughput-bound at 4 warps each")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    cfg.fp_latency = 4;
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // 16 warps, 4 per sub-core, each a chain of 32 dependent FFMAs. Per sub-core the unit takes
    // one FFMA every 2 cycles and a warp's next one is ready 4 cycles after its last: 4 warps
    // keep the unit busy, so the 128 FFMAs issue at 0, 2, ..., 254; the 4 EXITs (branch unit)
    // then fill the cycles between: warp k (k = 0..3) issued its last FFMA at 254 - 2 (3 - k)
    // and exits at the next free cycle, the last at 255. 256 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 32) + "EXIT", 512) == 256);
    CHECK(sm_stat("instructions") == 16 * 33);
    for (int k = 0; k < 4; ++k)
        CHECK(sm_stat("core" + std::to_string(k) + ".instructions") == 4 * 33);
}

TEST_CASE("branch latency holds the warp's next instruction")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::branch)].latency = 5;
    // MOV at 0, BRA (taken, to the next line) at 1, MOV at 1 + 5 = 6, EXIT at 7: 8 cycles.
    CHECK(exec_cycles(cfg, "MOV R1, 1\nBRA next\nnext: MOV R2, 2\nEXIT", 32) == 8);
}

// ---- loads in flight per warp, stores that do not block ----
// The bench's memory answers in 100 ns + 0.25 ns of transfer: a line access issued at cycle c
// (1 GHz) completes at c + 101. Translation takes no time.
