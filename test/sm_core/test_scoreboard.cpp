// Unit tests of vgpu::sm::scoreboard: hand-computed readiness cycles and wait reasons of
// small instruction sequences, and the planned rule against the rule read from the instruction
// on random warps. See models/sm/README.md.
#include "models/sm/core/assembler.h"
#include "models/sm/core/scoreboard.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

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

namespace {

/// The scoreboard's rule read from the instruction at every call (its form before issue
/// plans): the independent reference of the planned next_issue() and write_alu().
class reference_board {
public:
    reference_board(unsigned regs, const std::array<unsigned, num_unit_classes>& latency,
                    unsigned max_loads, unsigned max_stores)
        : m_regs(regs), m_latency(latency), m_max_loads(max_loads), m_max_stores(max_stores)
    {
    }
    void hold_until(std::uint64_t c) { m_hold = std::max(m_hold, c); }
    void write_alu(const instruction& inst, std::uint64_t cycle)
    {
        const std::uint64_t ready = cycle + m_latency[static_cast<unsigned>(unit_of(inst.op))];
        const syntax form = info(inst.op).form;
        if (writes_predicate(form)) {
            if (inst.dst < pred_true)
                m_pred[inst.dst] = ready;
        } else if (writes_register(form) && form != syntax::ld && form != syntax::cdl &&
                   form != syntax::atom && inst.dst < m_regs) {
            const unsigned n = (pair_mask(inst) & 1) ? 2 : 1;
            for (unsigned r = inst.dst; r < inst.dst + n && r < m_regs; ++r) {
                m_reg[r] = ready;
                m_from_load[r] = false;
            }
        }
    }
    void load_issued(std::uint8_t reg, unsigned count)
    {
        if (reg == reg_zero)
            return;
        for (unsigned r = reg; r < reg + count && r < m_regs; ++r) {
            m_reg[r] = scoreboard::never;
            m_from_load[r] = true;
        }
    }
    void write_load(std::uint8_t reg, std::uint64_t cycle)
    {
        if (reg == reg_zero || reg >= m_regs)
            return;
        m_reg[reg] = cycle;
        m_from_load[reg] = true;
    }
    void memory_issued(bool store, std::uint64_t cycle)
    {
        flight& f = store ? m_stores : m_loads;
        f.ends.erase(std::remove_if(f.ends.begin(), f.ends.end(),
                                    [cycle](std::uint64_t e) { return e <= cycle; }),
                     f.ends.end());
        ++f.unknown;
    }
    void memory_done(bool store, std::uint64_t cycle)
    {
        flight& f = store ? m_stores : m_loads;
        if (f.unknown > 0)
            --f.unknown;
        f.ends.push_back(cycle);
    }
    std::uint64_t reg_ready(unsigned r) const { return r < m_regs ? m_reg[r] : 0; }
    std::uint64_t pred_ready(unsigned p) const { return m_pred[p]; }

    issue_time next_issue(const instruction& inst) const
    {
        std::uint64_t t =
            std::max(m_hold, m_pred[inst.guard <= num_predicates ? inst.guard : pred_true]);
        bool from_mem = false;
        const unsigned pairs = pair_mask(inst);
        for (unsigned i = 0; i < 3; ++i) {
            const operand& o = inst.src[i];
            if (o.kind == operand_kind::reg && o.value < m_regs) {
                for (unsigned r = o.value; r <= o.value + ((pairs >> (i + 1)) & 1) && r < m_regs;
                     ++r)
                    if (m_reg[r] > t) {
                        t = m_reg[r];
                        from_mem = m_from_load[r];
                    }
            } else if (o.kind == operand_kind::pred && o.value <= num_predicates) {
                if (m_pred[o.value] > t) {
                    t = m_pred[o.value];
                    from_mem = false;
                }
            }
        }
        const syntax form = info(inst.op).form;
        if (writes_register(form) && inst.dst < m_regs) {
            unsigned count = 1;
            if (inst.op == opcode::CDL && inst.src[2].kind == operand_kind::imm)
                count = (inst.src[2].value + 31) / 32;
            if (pairs & 1)
                count = 2;
            for (unsigned r = inst.dst; r < inst.dst + count && r < m_regs; ++r)
                if (m_from_load[r] && m_reg[r] > t) {
                    t = m_reg[r];
                    from_mem = true;
                }
        }
        if (t == scoreboard::never)
            return {scoreboard::never, wait_reason::memory};
        std::uint64_t mem = 0;
        switch (inst.op) {
        case opcode::LD:
        case opcode::CDL:
        case opcode::ATOM:
        case opcode::CAS:
            mem = m_loads.free_entry(m_max_loads);
            break;
        case opcode::ST:
            mem = m_stores.free_entry(m_max_stores);
            break;
        case opcode::EXIT:
            mem = m_stores.drained();
            break;
        case opcode::BAR:
        case opcode::MEMBAR:
            mem = std::max(m_loads.drained(), m_stores.drained());
            break;
        default:
            break;
        }
        if (mem == scoreboard::never)
            return {scoreboard::never, wait_reason::memory};
        if (mem > t) {
            t = mem;
            from_mem = true;
        }
        return {t, from_mem ? wait_reason::memory : wait_reason::scoreboard};
    }

private:
    struct flight {
        unsigned unknown = 0;
        std::vector<std::uint64_t> ends;
        std::uint64_t free_entry(unsigned max) const
        {
            if (unknown >= max)
                return scoreboard::never;
            const std::size_t allowed = max - 1 - unknown;
            if (ends.size() <= allowed)
                return 0;
            std::vector<std::uint64_t> e(ends);
            std::sort(e.begin(), e.end(), std::greater<>());
            return e[allowed];
        }
        std::uint64_t drained() const
        {
            if (unknown > 0)
                return scoreboard::never;
            return ends.empty() ? 0 : *std::max_element(ends.begin(), ends.end());
        }
    };
    unsigned m_regs;
    std::array<unsigned, num_unit_classes> m_latency;
    unsigned m_max_loads, m_max_stores;
    std::uint64_t m_hold = 0;
    std::array<std::uint64_t, max_registers> m_reg{};
    std::array<bool, max_registers> m_from_load{};
    std::array<std::uint64_t, num_predicates + 1> m_pred{};
    flight m_loads, m_stores;
};

/// Any instruction the scoreboard may be asked about (well-formed or not): every opcode,
/// registers near the end of the file and RZ, immediates, predicates, pair forms.
instruction random_instruction(std::mt19937_64& rng, unsigned regs)
{
    auto reg_index = [&] {
        const unsigned pick = static_cast<unsigned>(rng() % 8);
        return pick == 0   ? unsigned{reg_zero}
               : pick == 1 ? regs - 1 + static_cast<unsigned>(rng() % 3) // the last, and beyond
                           : static_cast<unsigned>(rng() % 8);
    };
    instruction i;
    i.op = static_cast<opcode>(rng() % (num_opcodes + 1));
    i.guard = static_cast<std::uint8_t>(rng() % (pred_true + 1));
    const syntax form = info(i.op).form;
    i.dst = writes_predicate(form) ? static_cast<std::uint8_t>(rng() % (pred_true + 1))
                                   : static_cast<std::uint8_t>(reg_index());
    for (operand& o : i.src) {
        switch (rng() % 4) {
        case 0:
            break;
        case 1:
            o = reg(reg_index());
            break;
        case 2:
            o = imm(static_cast<std::uint32_t>(rng() % 200));
            break;
        default:
            o = pred(static_cast<unsigned>(rng() % (pred_true + 2)));
            break;
        }
    }
    i.mod = static_cast<std::uint8_t>(rng() % 128);
    i.width = rng() % 2 ? mem_width::b64 : mem_width::b32;
    return i;
}

} // namespace

TEST_CASE("scoreboard's issue plans give the answers of the instruction on random warps")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261203);
    std::cout << "scoreboard random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int w = 0; w < 300; ++w) {
        const unsigned regs = 1 + static_cast<unsigned>(rng() % 12);
        std::array<unsigned, num_unit_classes> latency{};
        for (unsigned& l : latency)
            l = 1 + static_cast<unsigned>(rng() % 9);
        const unsigned max_loads = 1 + static_cast<unsigned>(rng() % 3);
        const unsigned max_stores = 1 + static_cast<unsigned>(rng() % 3);
        scoreboard sb(regs, latency, max_loads, max_stores);
        reference_board ref(regs, latency, max_loads, max_stores);
        std::uint64_t cycle = 0;
        for (int step = 0; step < 300; ++step) {
            INFO("warp " << w << " (" << regs << " registers), step " << step);
            const instruction inst = random_instruction(rng, regs);
            INFO("instruction " << disassemble(inst));
            const issue_plan p = scoreboard::plan(inst);
            const issue_time got = sb.next_issue_planned(&p, true, false);
            const issue_time want = ref.next_issue(inst);
            REQUIRE(got.cycle == want.cycle);
            REQUIRE(got.reason == want.reason);
            cycle += rng() % 4;
            switch (rng() % 6) {
            case 0:
            case 1:
                sb.write_alu(p, cycle);
                ref.write_alu(inst, cycle);
                break;
            case 2: {
                const auto r = static_cast<std::uint8_t>(rng() % 2 ? rng() % (regs + 1) : reg_zero);
                const unsigned count = 1 + static_cast<unsigned>(rng() % 2);
                sb.load_issued(r, count);
                ref.load_issued(r, count);
                const bool store = rng() % 2;
                sb.memory_issued(store, cycle);
                ref.memory_issued(store, cycle);
                break;
            }
            case 3: {
                const auto r = static_cast<std::uint8_t>(rng() % (regs + 1));
                const std::uint64_t at = cycle + rng() % 50;
                sb.write_load(r, at);
                ref.write_load(r, at);
                const bool store = rng() % 2;
                sb.memory_done(store, at);
                ref.memory_done(store, at);
                break;
            }
            case 4: {
                const std::uint64_t until = cycle + rng() % 3;
                sb.hold_until(until);
                ref.hold_until(until);
                break;
            }
            default:
                break;
            }
            for (unsigned r = 0; r < regs; ++r)
                REQUIRE(sb.reg_ready(r) == ref.reg_ready(r));
            for (unsigned q = 0; q <= num_predicates; ++q)
                REQUIRE(sb.pred_ready(q) == ref.pred_ready(q));
        }
    }
}
