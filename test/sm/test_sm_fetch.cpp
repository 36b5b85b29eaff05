// Shell tests of the SM's fetch stage: the instruction cache and prefetch.
// See models/sm/README.md.
#include "test/sm/sm_bench.h"

using namespace vgpu::test::sm_bench;

namespace {
/// 15 independent MOVs and EXIT: 16 instructions = 4 lines of 64 B.
std::string four_line_program()
{
    std::string s;
    for (unsigned r = 1; r <= 15; ++r)
        s += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    return s + "EXIT\n";
}

/// Three CTAs of two warps (kernel 1 CTAs 0 and 1, kernel 2 CTA 0; warp slots 0..5) run
/// four_line_program. Cycle 0: warp 0 misses line 0 (fill 0 -> 101) and prefetches line 1
/// (1 -> 102); warps 1..5 wait for line 0's fill. 101..104: warp 0 (GTO, oldest) issues line 0;
/// at 104 line 1 hits, a prefetched line's first use: line 2 prefetched (104 -> 205). Warp 0
/// issues line 1 (105..108), at 108 finds line 2 in flight, its first use: line 3 prefetched
/// (108 -> 209). Warps 1..5 each issue lines 0 and 1 in 8 cycles (109..148: line 1 hits, line
/// 2 in flight). 205: warp 5 (the last to issue) issues line 2 (205..208), finds line 3 in
/// flight (the program ends there: no prefetch), issues it 209..212 and exits. 213..252:
/// warps 0..4 issue lines 2 and 3 (both hits) in 8 cycles each. CTAs end one cycle after
/// their last EXIT: kernel 1 CTA 0 (warp 1) at 229, CTA 1 (warp 3) at 245, kernel 2 (warp 4)
/// at 253.
void icache_misses_once_per_line(bool accurate)
{
    bench tb(icache_cfg(), accurate);
    const auto bytes = tb.load(four_line_program());
    REQUIRE(bytes == 4 * line_bytes);
    tb.launch(bytes, 64, {}, 0, 2, 1);
    tb.launch(bytes, 64, {}, 1, 2, 1);
    tb.launch(bytes, 64, {}, 0, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 3);
    std::map<std::pair<std::uint32_t, std::uint32_t>, sc_time> at;
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        at[{d.d.kernel_seq, d.d.cta_x}] = d.at;
    }
    CHECK(at[{1, 0}] == sc_time(229, SC_NS));
    CHECK(at[{1, 1}] == sc_time(245, SC_NS));
    CHECK(at[{2, 0}] == sc_time(253, SC_NS));
    CHECK(tb.sm.instructions() == 6u * 16);
    // Each of the 4 lines is read once for the SM: line 0 by a miss, lines 1..3 by prefetches.
    CHECK(stat("sm.fetch_requests", -1) == 4);
    CHECK(tb.sm.icache_misses() == 1u);
    CHECK(tb.sm.icache_prefetches() == 3u);
    // 6 warps x 4 line lookups: 11 present, 12 waited for a fill in flight, 1 miss.
    CHECK(tb.sm.icache_hits() == 11u);
    CHECK(tb.sm.icache_pending_hits() == 12u);
    CHECK(stat("sm.issue_cycles", -1) == 96);
}

/// Two CTAs of one warp (slots 0 and 1); CTA 1 branches to line 5, CTA 0 loops on line 1.
const char* branch_far = R"(
        S2R R0, SR_CTAID_X
        ISETP.EQ P0, R0, 1
        @P0 BRA far
        MOV R1, 0
loop:   IADD R1, R1, 1
        ISETP.LT P1, R1, 10
        @P1 BRA loop
        EXIT
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
far:    MOV R7, 7
        EXIT
)";

/// Cycle 0: warp 0 misses line 0 (0 -> 101), prefetches line 1 (1 -> 102); warp 1 waits for
/// line 0. S2R 101 / 102, ISETP 105 / 106 (ALU latency 4), warp 0's BRA (no lane taken) at
/// 109, its MOV at 110 (line 1 hits: line 2 prefetched, 110 -> 211). Warp 1's BRA at 111 goes
/// to line 5: a miss (111 -> 212, the program ends in it: no prefetch), so warp 1 stalls until
/// 212 while warp 0, on a present line, runs its 10 iterations of IADD, ISETP, BRA (9 cycles
/// each, from 114) and exits at 204: CTA 0 ends at 205. Warp 1: MOV at 212, EXIT at 213, CTA 1
/// ends at 214.
void icache_miss_stalls_only_its_warp(bool accurate)
{
    bench tb(icache_cfg(), accurate);
    const auto bytes = tb.load(branch_far);
    tb.launch(bytes, 32, {}, 0, 2);
    tb.launch(bytes, 32, {}, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 2);
    std::map<std::uint32_t, sc_time> at;
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        at[d.d.cta_x] = d.at;
    }
    CHECK(at[0] == sc_time(205, SC_NS));
    CHECK(at[1] == sc_time(214, SC_NS));
    CHECK(stat("sm.w0.instructions", -1) == 35); // 4 + 10 x 3 + EXIT
    CHECK(stat("sm.w1.instructions", -1) == 5);
    CHECK(stat("sm.w1.stall_cycles", -1) == 214 - 5);
    CHECK(tb.sm.icache_misses() == 2u);       // lines 0 and 5
    CHECK(tb.sm.icache_prefetches() == 2u);   // lines 1 and 2
    CHECK(tb.sm.icache_hits() == 1u);         // warp 0 on line 1
    CHECK(tb.sm.icache_pending_hits() == 1u); // warp 1 on line 0
    CHECK(stat("sm.fetch_requests", -1) == 4);
}
} // namespace

TEST_CASE("icache: a program run by several warps and CTAs misses once per line per SM (fast)")
{
    icache_misses_once_per_line(false);
}

TEST_CASE("icache: a program run by several warps and CTAs misses once per line per SM "
          "(accurate)")
{
    icache_misses_once_per_line(true);
}

TEST_CASE("icache: a miss stalls only the warp that needs the line (fast)")
{
    icache_miss_stalls_only_its_warp(false);
}

TEST_CASE("icache: a miss stalls only the warp that needs the line (accurate)")
{
    icache_miss_stalls_only_its_warp(true);
}

TEST_CASE("icache: a program that cannot be read faults the CTA at pc 0 with its VA")
{
    bench tb(icache_cfg());
    tb.launch(64, 32, {}); // nothing mapped at prog_va
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    const cp::cta_done& d = tb.cp.dones[0].d;
    CHECK(d.status == cp::cta_status::fault);
    CHECK(d.pc == 0u);
    CHECK(d.vaddr == prog_va);
    CHECK(std::string(d.message) == "instruction fetch at VA 0x10000 failed (not readable)");
    CHECK(stat("sm.fetch_requests", -1) == 0);
}

namespace {
/// Done time of one warp running 32 independent MOVs and EXIT (33 instructions, 9 lines of
/// 64 B) with the instruction cache and `depth` lines of prefetch.
sc_time straight_line_with_prefetch(unsigned depth)
{
    auto cfg = icache_cfg();
    cfg.icache_prefetch_lines = depth;
    bench tb(cfg);
    std::string text;
    for (unsigned r = 1; r <= 32; ++r)
        text += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    const auto bytes = tb.load(text + "EXIT\n");
    tb.launch(bytes, 32, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(stat("sm.icache_misses", -1) == 1); // every other line was prefetched
    CHECK(stat("sm.icache_prefetches", -1) == 8);
    return tb.cp.dones[0].at;
}
} // namespace

TEST_CASE("instruction prefetch, one line ahead: straight-line code gets two lines per fill")
{
    // A warp looks up its next line when it issues the last instruction of the current one.
    // Line 0 misses at 0 (ready 101) and line 1 is prefetched (ready 102); the first use of a
    // prefetched line, even in flight, prefetches the next: line 2 at about 104 (ready about
    // 205), line 3 when the warp reaches line 2, and so on: two lines per 104 cycles or so,
    // 101 + 4 x 104 = 517 for the 9 lines (a fill per line would need about 9 x 101).
    const sc_time t = straight_line_with_prefetch(1);
    CHECK(t >= sc_time(505, SC_NS));
    CHECK(t <= sc_time(530, SC_NS));
}

TEST_CASE("instruction prefetch, four lines ahead: the fills overlap")
{
    // Line 0 misses at 0 (ready 101), lines 1..4 are prefetched at cycles 1..4 (ready 102..105);
    // the first use of lines 1..4 (cycles 104..117) prefetches lines 5..8 (ready about 206,
    // 210, 214, 218): the warp waits once more, and EXIT (line 8) issues at about 218.
    const sc_time t = straight_line_with_prefetch(4);
    CHECK(t >= sc_time(212, SC_NS));
    CHECK(t <= sc_time(225, SC_NS));
}

// ---- CDL: the access controller and its scheduling/execution core in the SM ----
