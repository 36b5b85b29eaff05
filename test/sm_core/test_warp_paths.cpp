// warp::step's two paths: a warp of a checked program takes the short path for plain lane
// operations of a converged warp; an unchecked one takes the whole path for every step. On
// random programs (plain operations, predicates, guards, forward branches that diverge) both
// must give the same steps, registers and predicates. See models/sm/README.md ("Cores").
#include "models/sm/core/isa.h"
#include "models/sm/core/warp.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <random>

using namespace vgpu::sm;

namespace {

constexpr unsigned regs = 12; // registers a program uses (the warps have 16)
constexpr unsigned preds = 4; // predicates it writes and guards with

/// A source: a register (RZ now and then) or an immediate.
operand random_source(std::mt19937_64& rng)
{
    const unsigned pick = static_cast<unsigned>(rng() % 8);
    if (pick == 0)
        return reg(reg_zero);
    if (pick == 1)
        return imm(static_cast<std::uint32_t>(rng()));
    return reg(static_cast<unsigned>(rng() % regs));
}

/// n instructions and an EXIT: plain lane operations mostly, ISETP and SEL, and guarded forward
/// branches (lanes part and meet again at the EXIT or on the way).
program random_program(std::mt19937_64& rng, unsigned n)
{
    program p;
    for (unsigned pc = 0; pc < n; ++pc) {
        instruction i;
        const unsigned kind = static_cast<unsigned>(rng() % 10);
        if (kind == 0) {
            i.op = opcode::ISETP;
            i.dst = static_cast<std::uint8_t>(rng() % preds);
            i.cond = static_cast<cmp_op>(rng() % num_cmp_ops);
            i.src[0] = reg(static_cast<unsigned>(rng() % regs));
            i.src[1] = random_source(rng);
        } else if (kind == 1) {
            i.op = opcode::SEL;
            i.dst = static_cast<std::uint8_t>(rng() % regs);
            i.src[0] = random_source(rng);
            i.src[1] = random_source(rng);
            i.src[2] = pred(static_cast<unsigned>(rng() % preds));
        } else if (kind == 2 && pc + 2 < n) {
            i.op = opcode::BRA;
            i.src[0] = imm(pc + 2 + static_cast<std::uint32_t>(rng() % (n - pc - 1)));
        } else {
            const unsigned plain = static_cast<unsigned>(opcode::F2I) -
                                   static_cast<unsigned>(opcode::IADD) + 2; // and MOV
            const unsigned k = static_cast<unsigned>(rng() % plain);
            i.op = k == 0 ? opcode::MOV
                          : static_cast<opcode>(static_cast<unsigned>(opcode::IADD) + k - 1);
            i.dst = static_cast<std::uint8_t>(rng() % regs);
            for (operand& s : i.src)
                s = random_source(rng);
            if (i.op == opcode::MOV || i.op == opcode::NOT || i.op == opcode::FNEG ||
                i.op == opcode::FABS || i.op == opcode::I2F || i.op == opcode::F2I)
                i.src[1] = i.src[2] = operand{};
            else if (i.op != opcode::IMAD && i.op != opcode::FFMA)
                i.src[2] = operand{};
        }
        if (rng() % 3 == 0) { // guarded
            i.guard = static_cast<std::uint8_t>(rng() % preds);
            i.guard_neg = rng() % 2 == 0;
        }
        p.push_back(i);
    }
    instruction exit;
    exit.op = opcode::EXIT;
    p.push_back(exit);
    return p;
}

} // namespace

TEST_CASE("warp::step's short path gives the whole path's steps, registers and predicates",
          "[warp]")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261204);
    std::cout << "warp paths random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    launch_context ctx;
    ctx.ntid_x = 32;
    unsigned short_steps = 0; // steps the checked warp took on its short path (at most)
    for (int round = 0; round < 300; ++round) {
        INFO("program " << round);
        const program prog = random_program(rng, 8 + static_cast<unsigned>(rng() % 40));
        for (const instruction& i : prog)
            REQUIRE_FALSE(check(i, 16).has_value());
        warp fast(prog, ctx, 0, 16, {}, true);
        warp whole(prog, ctx, 0, 16, {}, false);
        for (unsigned r = 0; r < regs; ++r)
            for (unsigned l = 0; l < warp_size; ++l) {
                const auto v = static_cast<std::uint32_t>(rng());
                fast.set_reg(r, l, v);
                whole.set_reg(r, l, v);
            }
        for (unsigned q = 0; q < preds; ++q) {
            const auto lanes = static_cast<std::uint32_t>(rng());
            fast.set_pred(q, lanes);
            whole.set_pred(q, lanes);
        }
        for (unsigned n = 0; !whole.done(); ++n) {
            INFO("step " << n << ", pc " << whole.pc());
            REQUIRE(n < 10 * prog.size());
            const bool converged = fast.active_mask() == fast.live_mask();
            const step_result a = fast.step();
            const step_result b = whole.step();
            short_steps += converged && a.kind == step_kind::alu;
            REQUIRE(a.kind == b.kind);
            REQUIRE(a.pc == b.pc);
            REQUIRE(a.lane_mask == b.lane_mask);
            REQUIRE(a.lanes == b.lanes);
            REQUIRE(fast.pc() == whole.pc());
            REQUIRE(fast.active_mask() == whole.active_mask());
            REQUIRE(fast.done() == whole.done());
            for (unsigned r = 0; r < regs; ++r)
                for (unsigned l = 0; l < warp_size; ++l)
                    REQUIRE(fast.reg(r, l) == whole.reg(r, l));
            for (unsigned q = 0; q < preds; ++q)
                for (unsigned l = 0; l < warp_size; ++l)
                    REQUIRE(fast.pred(q, l) == whole.pred(q, l));
        }
        REQUIRE(fast.warp_instructions() == whole.warp_instructions());
        REQUIRE(fast.lane_instructions() == whole.lane_instructions());
    }
    CHECK(short_steps > 1000); // the short path was exercised
}
