// Unit tests of vgpu::sm::scoreboard: hand-computed readiness cycles and wait reasons of
// small instruction sequences. See models/sm/README.md.
#include "models/sm/core/assembler.h"
#include "models/sm/core/scoreboard.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

using namespace vgpu::sm;

namespace {

/// The instruction text assembles to (a program must end with EXIT).
instruction one(const std::string& text)
{
    const auto res = assemble(text + "\nEXIT\n", {}, {"t.s", 1, 1});
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    REQUIRE(res.code.size() == 2);
    return res.code[0];
}

} // namespace

TEST_CASE("scoreboard checks its geometry and picks the latency by opcode class")
{
    REQUIRE_THROWS_AS(scoreboard(0, 4, 4), std::invalid_argument);
    REQUIRE_THROWS_WITH(scoreboard(256, 4, 4), Catch::Contains("1..255"));
    const scoreboard sb(64, 3, 7);
    REQUIRE(sb.regs_per_thread() == 64);
    REQUIRE(sb.latency(opcode::IADD) == 3);
    REQUIRE(sb.latency(opcode::ISETP) == 3);
    REQUIRE(sb.latency(opcode::FADD) == 7);
    REQUIRE(sb.latency(opcode::F2I) == 7);
    REQUIRE(sb.latency(opcode::FSETP) == 7);
    REQUIRE(sb.latency(opcode::I2F) == 7); // FADD..F2I are fp32-class, I2F included
    REQUIRE(sb.latency(opcode::SEL) == 3);
}

TEST_CASE("scoreboard: a fresh warp can issue at once, waiting for nothing")
{
    const scoreboard sb(64, 4, 4);
    const instruction add = one("IADD R2, R0, R1");
    const issue_time t = sb.next_issue(&add, true, false);
    REQUIRE(t.cycle == 0);
    REQUIRE(t.reason == wait_reason::scoreboard); // "not later than 0" is charged as scoreboard
    const issue_time none = sb.next_issue(nullptr, true, false);
    REQUIRE(none.cycle == 0);
    REQUIRE(none.reason == wait_reason::none);
}

TEST_CASE("scoreboard: an ALU result is readable alu_latency cycles after issue")
{
    scoreboard sb(64, 4, 9);
    sb.write_alu(one("IADD R2, R0, R1"), 10); // R2 at 14
    REQUIRE(sb.reg_ready(2) == 14);
    REQUIRE_FALSE(sb.reg_from_load(2));
    const instruction use = one("IADD R3, R2, 1");
    const issue_time t = sb.next_issue(&use, true, false);
    REQUIRE(t.cycle == 14);
    REQUIRE(t.reason == wait_reason::scoreboard);
    // An fp32 result uses fp_latency: 20 + 9.
    sb.write_alu(one("FADD R4, R0, R1"), 20);
    REQUIRE(sb.next_issue(&use, true, false).cycle == 14);
    const instruction fuse = one("FMUL R5, R4, R2");
    REQUIRE(sb.next_issue(&fuse, true, false).cycle == 29);
    // An instruction not reading R2 or R4 is not held back.
    const instruction other = one("IADD R6, R0, R1");
    REQUIRE(sb.next_issue(&other, true, false).cycle == 0);
}

TEST_CASE("scoreboard: a load's destination ready at X holds the dependent until X, as memory")
{
    scoreboard sb(64, 4, 4);
    sb.write_alu(one("IADD R1, R0, 4"), 5); // R1 at 9
    sb.write_load(2, 120);                  // LD R2 completes at 120
    REQUIRE(sb.reg_ready(2) == 120);
    REQUIRE(sb.reg_from_load(2));
    const instruction use = one("IADD R3, R2, R1");
    const issue_time t = sb.next_issue(&use, true, false);
    REQUIRE(t.cycle == 120);
    REQUIRE(t.reason == wait_reason::memory);
    // The latest source decides the reason: an ALU result at 204 beats the load at 120.
    sb.write_alu(one("IADD R1, R0, 4"), 200);
    const issue_time later = sb.next_issue(&use, true, false);
    REQUIRE(later.cycle == 204);
    REQUIRE(later.reason == wait_reason::scoreboard);
    // Rewriting R2 with an ALU op clears its load mark.
    sb.write_alu(one("MOV R2, 7"), 300);
    REQUIRE_FALSE(sb.reg_from_load(2));
    const issue_time alu = sb.next_issue(&use, true, false);
    REQUIRE(alu.cycle == 304);
    REQUIRE(alu.reason == wait_reason::scoreboard);
    // RZ and registers beyond regs_per_thread are not tracked.
    scoreboard small(8, 4, 4);
    small.write_load(reg_zero, 50);
    small.write_load(9, 50);
    REQUIRE(small.reg_ready(9) == 0);
    REQUIRE_FALSE(small.reg_from_load(9));
}

TEST_CASE("scoreboard: guards and SEL predicates wait for the SETP that writes them")
{
    scoreboard sb(64, 4, 6);
    sb.write_alu(one("ISETP.LT P1, R0, R1"), 30); // P1 at 34
    REQUIRE(sb.pred_ready(1) == 34);
    const instruction guarded = one("@P1 IADD R2, R0, 1");
    REQUIRE(sb.next_issue(&guarded, true, false).cycle == 34);
    const instruction neg = one("@!P1 IADD R2, R0, 1");
    REQUIRE(sb.next_issue(&neg, true, false).cycle == 34);
    const instruction unguarded = one("IADD R2, R0, 1");
    REQUIRE(sb.next_issue(&unguarded, true, false).cycle == 0);
    sb.write_alu(one("FSETP.GT P2, R0, R1"), 40); // fp: P2 at 46
    const instruction sel = one("SEL R3, R0, R1, P2");
    const issue_time t = sb.next_issue(&sel, true, false);
    REQUIRE(t.cycle == 46);
    REQUIRE(t.reason == wait_reason::scoreboard);
    // A predicate later than a load source makes it a scoreboard wait.
    sb.write_load(0, 45);
    const instruction sel0 = one("SEL R3, R0, R1, P2");
    REQUIRE(sb.next_issue(&sel0, true, false).reason == wait_reason::scoreboard);
    // A SETP writing PT is discarded.
    sb.write_alu(one("ISETP.EQ PT, R0, R1"), 500);
    REQUIRE(sb.pred_ready(pred_true) == 0);
}

TEST_CASE("scoreboard: loads and stores in flight up to their limits, BAR/MEMBAR drain both")
{
    const std::array<unsigned, num_unit_classes> lat{4, 4, 4, 4, 1, 1};
    scoreboard sb(64, lat, 2, 1); // 2 loads, 1 store
    const instruction ld = one("LD R5, [R1]");
    const instruction st = one("ST [R1], R2");
    const instruction bar = one("BAR");
    const instruction membar = one("MEMBAR");
    const instruction exit = one("EXIT");
    const instruction add = one("IADD R6, R0, 1");
    // Accurate mode: one load in flight, completion unknown: a second load may issue, a store
    // too; BAR and MEMBAR wait for it (never while unknown), EXIT does not (loads only).
    sb.memory_issued(false, 10);
    REQUIRE(sb.memory_busy());
    CHECK(sb.next_issue(&ld, true, false).cycle == 0);
    CHECK(sb.next_issue(&st, true, false).cycle == 0);
    CHECK(sb.next_issue(&exit, true, false).cycle == 0);
    for (const instruction* i : {&bar, &membar}) {
        const issue_time t = sb.next_issue(i, true, false);
        CHECK(t.cycle == scoreboard::never);
        CHECK(t.reason == wait_reason::memory);
    }
    // A second load: the limit of 2 is reached, a third waits (never: unknown completions).
    sb.memory_issued(false, 11);
    CHECK(sb.next_issue(&ld, true, false).cycle == scoreboard::never);
    CHECK(sb.next_issue(&add, true, false).cycle == 0);
    // They complete at 80 and 60: the next load may issue when the first of them is done (60).
    sb.memory_done(false, 80);
    sb.memory_done(false, 60);
    REQUIRE_FALSE(sb.memory_busy());
    issue_time t = sb.next_issue(&ld, true, false);
    CHECK(t.cycle == 60);
    CHECK(t.reason == wait_reason::memory);
    CHECK(sb.next_issue(&bar, true, false).cycle == 80);
    CHECK(sb.memory_ready() == 80);
    // A store (fast mode: issued and done at once) completing at 120: a second store waits for
    // it (limit 1), EXIT drains it, MEMBAR waits for everything.
    sb.memory_issued(true, 12);
    sb.memory_done(true, 120);
    CHECK(sb.next_issue(&st, true, false).cycle == 120);
    CHECK(sb.next_issue(&exit, true, false).cycle == 120);
    CHECK(sb.next_issue(&membar, true, false).cycle == 120);
    // Completions at or before a later issue are forgotten: a load issued at 70 leaves only
    // the load ending at 80 in flight (plus the new one).
    sb.memory_issued(false, 70);
    sb.memory_done(false, 90);
    CHECK(sb.next_issue(&ld, true, false).cycle == 80);
    // A source register readable later than the memory condition decides: scoreboard at 204.
    sb.write_alu(one("IADD R1, R0, 1"), 200);
    t = sb.next_issue(&ld, true, false);
    CHECK(t.cycle == 204);
    CHECK(t.reason == wait_reason::scoreboard);
    // reset() forgets everything.
    sb.reset();
    CHECK(sb.next_issue(&ld, true, false).cycle == 0);
    CHECK(sb.memory_ready() == 0);
    CHECK(sb.reg_ready(1) == 0);
    CHECK_THROWS_AS(scoreboard(64, lat, 0, 1), std::invalid_argument);
}

TEST_CASE("scoreboard: a barrier and an unready warp core take precedence")
{
    scoreboard sb(64, 4, 4);
    const instruction add = one("IADD R6, R0, 1");
    const issue_time bar = sb.next_issue(&add, false, true);
    REQUIRE(bar.cycle == scoreboard::never);
    REQUIRE(bar.reason == wait_reason::barrier);
    const issue_time core = sb.next_issue(&add, false, false);
    REQUIRE(core.cycle == scoreboard::never);
    REQUIRE(core.reason == wait_reason::memory);
    const issue_time none = sb.next_issue(nullptr, false, false);
    REQUIRE(none.reason == wait_reason::memory);
}

TEST_CASE("scoreboard: FSETPX and VOTE write predicates, MUFU/FDIV/IDIV/CVT at the SFU's latency")
{
    // Latencies by class: int 4, mul 5, fp32 6, sfu 21 (the V100 figure), lsu 1, branch 1.
    scoreboard sb(64, {4, 5, 6, 21, 1, 1});
    REQUIRE(sb.latency(opcode::MUFU) == 21);
    REQUIRE(sb.latency(opcode::FDIV) == 21);
    REQUIRE(sb.latency(opcode::IDIV) == 21);
    REQUIRE(sb.latency(opcode::CVT) == 21);
    REQUIRE(sb.latency(opcode::IMADX) == 5);
    REQUIRE(sb.latency(opcode::SHFL) == 4);
    sb.write_alu(one("FSETPX.LTU P1, R0, R1"), 10); // fp32: P1 at 16
    REQUIRE(sb.pred_ready(1) == 16);
    sb.write_alu(one("VOTE.ANY P2, P1, -1"), 20); // int: P2 at 24
    REQUIRE(sb.pred_ready(2) == 24);
    const instruction vote = one("VOTE.ALL P3, P2, -1"); // its source predicate
    REQUIRE(sb.next_issue(&vote, true, false).cycle == 24);
    sb.write_alu(one("MUFU.EX2 R5, R0"), 30); // R5 at 51
    const instruction use = one("FADD R6, R5, 1.0");
    REQUIRE(sb.next_issue(&use, true, false).cycle == 51);
    sb.write_alu(one("BALLOT R7, P1, -1"), 40); // a register: R7 at 44
    const instruction use7 = one("IADD R8, R7, 1");
    REQUIRE(sb.next_issue(&use7, true, false).cycle == 44);
    sb.write_alu(one("WARPSYNC -1"), 50); // writes nothing
    REQUIRE(sb.next_issue(&use7, true, false).cycle == 44);
}
