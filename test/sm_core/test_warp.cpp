// Unit tests of warp execution: small programs checked against host computations, divergence,
// predication, the load scoreboard and the error paths. See docs/isa.md.
#include "models/sm/core/assembler.h"
#include "models/sm/core/warp.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <type_traits>

using namespace vgpu::sm;

namespace {

std::uint32_t bits_of(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

float float_of(std::uint32_t b)
{
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

program assemble_ok(std::string_view text, const symbol_table& params = {})
{
    const auto res = assemble(text, params, {"t.s", 1, 1});
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    return res.code;
}

/// Word-addressed memory that serves loads at once; unwritten words read as 0.
struct memory {
    std::map<std::uint32_t, std::uint32_t> words;
    std::uint32_t& at(std::uint32_t addr) { return words[addr]; }
};

/// Runs w to completion, carrying out its memory accesses; fails on an error step.
void run(warp& w, memory& mem, unsigned max_steps = 100000)
{
    for (unsigned n = 0; n < max_steps && !w.done(); ++n) {
        REQUIRE(w.ready());
        const step_result r = w.step();
        if (r.kind == step_kind::error)
            FAIL("pc " << r.pc << ": " << r.message);
        if (r.kind == step_kind::load) {
            lane_values v{};
            for (unsigned l = 0; l < warp_size; ++l)
                if ((r.access->lane_mask >> l) & 1)
                    v[l] = mem.at(r.access->addr[l]);
            w.complete_load(r.access->reg, v, r.access->lane_mask);
        } else if (r.kind == step_kind::store) {
            for (unsigned l = 0; l < warp_size; ++l)
                if ((r.access->lane_mask >> l) & 1)
                    mem.at(r.access->addr[l]) = r.access->data[l];
        } else if (r.kind == step_kind::atomic) {
            lane_values v{};
            for (unsigned l = 0; l < warp_size; ++l)
                if ((r.access->lane_mask >> l) & 1) {
                    v[l] = mem.at(r.access->addr[l]);
                    mem.at(r.access->addr[l]) += r.access->data[l];
                }
            w.complete_load(r.access->reg, v, r.access->lane_mask);
        }
    }
    REQUIRE(w.done());
    REQUIRE_FALSE(w.faulted());
}

launch_context cta(std::uint32_t ntid_x, std::uint32_t ntid_y = 1)
{
    launch_context c;
    c.ntid_x = ntid_x;
    c.ntid_y = ntid_y;
    return c;
}

/// Runs "OP R2, R0, R1" (or with R2 as third source) for per-lane inputs; returns R3.
lane_values run_binary(const char* op, const lane_values& a, const lane_values& b,
                       const lane_values& c = {})
{
    const std::string text =
        std::string(op) + " R3, R0, R1" +
        (std::string(op) == "IMAD" || std::string(op) == "FFMA" ? ", R2" : "") + "\nEXIT";
    const program p = assemble_ok(text);
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    for (unsigned l = 0; l < warp_size; ++l) {
        w.set_reg(0, l, a[l]);
        w.set_reg(1, l, b[l]);
        w.set_reg(2, l, c[l]);
    }
    memory mem;
    run(w, mem);
    lane_values out{};
    for (unsigned l = 0; l < warp_size; ++l)
        out[l] = w.reg(3, l);
    return out;
}

} // namespace

TEST_CASE("a per-lane loop sums 1..n with divergent trip counts", "[warp]")
{
    // Lane l sums 1..(l+1) into out[l]: lanes leave the loop at different iterations.
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        IADD R1, R0, 1          # n = lane + 1
        MOV R2, 0               # sum
loop:   IADD R2, R2, R1
        IADD R1, R1, -1
        ISETP.GT P0, R1, 0
        @P0 BRA loop
        LDP R3, out
        SHL R4, R0, 2
        IADD R3, R3, R4
        ST [R3], R2
        EXIT
    )",
                                  {{"out", 0}});
    launch_context ctx = cta(32);
    ctx.params = {0x1000};
    warp w(p, ctx, 0);
    memory mem;
    run(w, mem);
    for (std::uint32_t l = 0; l < warp_size; ++l) {
        const std::uint32_t n = l + 1;
        CHECK(mem.at(0x1000 + 4 * l) == n * (n + 1) / 2);
    }
    // 3 + 4 * 32 iterations of the longest lane + 5 = 136 warp instructions.
    CHECK(w.warp_instructions() == 3 + 4 * 32 + 5);
    std::uint64_t lanes = 32 * 3 + 32 * 5;
    // A lane runs the body l+1 times; its last BRA has a false guard and does not count.
    for (unsigned l = 0; l < warp_size; ++l)
        lanes += 4 * (l + 1) - 1;
    CHECK(w.lane_instructions() == lanes);
}

TEST_CASE("SAXPY lane math matches host fp32 with fused multiply-add", "[warp]")
{
    // y[i] = a * x[i] + y[i] for i < n, one thread per element, two CTAs of 24 threads.
    const char* text = R"(
        S2R R0, SR_GLOBAL_TID_X
        LDP R1, n
        ISETP.GE P0, R0, R1
        @P0 EXIT
        LDP R2, x
        LDP R3, y
        LDP R4, a
        SHL R5, R0, 2
        IADD R2, R2, R5
        IADD R3, R3, R5
        LD R6, [R2]
        LD R7, [R3]
        FFMA R7, R4, R6, R7
        ST [R3], R7
        EXIT
    )";
    const program p = assemble_ok(text, {{"n", 0}, {"x", 1}, {"y", 2}, {"a", 3}});
    const std::uint32_t n = 40;
    const float a = 1.7f;
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 99u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    memory mem;
    std::vector<float> x(n), y(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        x[i] = dist(rng);
        y[i] = dist(rng);
        mem.at(0x1000 + 4 * i) = bits_of(x[i]);
        mem.at(0x2000 + 4 * i) = bits_of(y[i]);
    }
    for (std::uint32_t c = 0; c < 2; ++c) {
        launch_context ctx = cta(24);
        ctx.nctaid_x = 2;
        ctx.ctaid_x = c;
        ctx.params = {n, 0x1000, 0x2000, bits_of(a)};
        warp w(p, ctx, 0);
        CHECK(w.live_mask() == 0x00ffffffu);
        run(w, mem);
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(mem.at(0x2000 + 4 * i) == bits_of(std::fma(a, x[i], y[i])));
    }
    CHECK(mem.words.count(0x2000 + 4 * n) == 0);
}

TEST_CASE("divergent if/else reconverges at the minimum PC", "[warp]")
{
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        AND R1, R0, 1
        ISETP.EQ P0, R1, 0
        @!P0 BRA odd
        IADD R2, R0, 100        # even lanes
        BRA join
odd:    IADD R2, R0, 200        # odd lanes
        IMUL R2, R2, 2
join:   IADD R3, R2, 1          # all lanes again
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> trace; // (pc, lanes)
    while (!w.done()) {
        REQUIRE(w.ready());
        const step_result r = w.step();
        REQUIRE(r.kind != step_kind::error);
        trace.emplace_back(r.pc, r.lane_mask);
        if (r.pc == 3) {
            CHECK(w.lane_pc(0) == 4);
            CHECK(w.lane_pc(1) == 6);
        }
        if (r.pc == 7) {
            CHECK(w.lane_pc(1) == 8);
            CHECK(w.active_mask() == ~0u);
        }
    }
    const std::uint32_t even = 0x55555555u;
    const std::uint32_t odd = 0xaaaaaaaau;
    // After the branch the odd lanes wait at PC 6 while the even lanes (lower PC) run first.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected = {
        {0, ~0u},  {1, ~0u}, {2, ~0u}, {3, odd}, {4, even},
        {5, even}, {6, odd}, {7, odd}, {8, ~0u}, {9, ~0u}};
    CHECK(trace == expected);
    for (unsigned l = 0; l < warp_size; ++l) {
        const std::uint32_t r2 = l % 2 == 0 ? l + 100 : (l + 200) * 2;
        CHECK(w.reg(2, l) == r2);
        CHECK(w.reg(3, l) == r2 + 1);
    }
}

TEST_CASE("a predicated store writes only the lanes whose guard is true", "[warp]")
{
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        SHL R1, R0, 2
        ISETP.LT P2, R0, 10
        @P2 ST [R1 + 0x400], R0
        @!P2 ST [R1 + 0x800], R0
        @!PT ST [R1], R0
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    for (int i = 0; i < 3; ++i)
        w.step();
    step_result r = w.step();
    REQUIRE(r.kind == step_kind::store);
    CHECK(r.lane_mask == 0x3ffu);
    CHECK(r.access->lane_mask == 0x3ffu);
    CHECK(r.access->addr[9] == 0x400 + 36);
    CHECK(r.access->data[9] == 9);
    r = w.step();
    REQUIRE(r.kind == step_kind::store);
    CHECK(r.access->lane_mask == ~0x3ffu);
    // No lane passes @!PT: the instruction does nothing and reports alu.
    r = w.step();
    CHECK(r.kind == step_kind::alu);
    CHECK(r.lane_mask == 0);
    CHECK(r.access == nullptr);
    CHECK(w.step().kind == step_kind::exit);
    CHECK(w.done());
    CHECK(w.lane_instructions() == 32 * 3 + 10 + 22 + 0 + 32);
}

TEST_CASE("a load keeps its register pending until complete_load", "[warp]")
{
    const program p = assemble_ok(R"(
        LD R1, [RZ + 0x40]
        IADD R2, R3, 1          # independent of R1
        IADD R4, R1, 5          # waits for R1
        LD R5, [RZ]
        MOV R5, 0               # write after a pending load waits too
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    step_result r = w.step();
    REQUIRE(r.kind == step_kind::load);
    CHECK(r.access->reg == 1);
    CHECK(r.access->lane_mask == ~0u);
    CHECK(r.access->addr[31] == 0x40);
    CHECK(w.pending(1));
    CHECK(w.any_pending());
    CHECK(w.ready()); // IADD R2, R3, 1 does not touch R1
    w.step();
    CHECK_FALSE(w.ready());
    lane_values v{};
    for (unsigned l = 0; l < warp_size; ++l)
        v[l] = 1000 + l;
    w.complete_load(1, v, ~0u);
    CHECK_FALSE(w.pending(1));
    REQUIRE(w.ready());
    w.step();
    CHECK(w.reg(4, 7) == 1012);
    r = w.step();
    REQUIRE(r.kind == step_kind::load);
    CHECK_FALSE(w.ready());
    w.complete_load(5, v, 0x1);
    CHECK(w.ready());
    w.step();
    CHECK(w.reg(5, 0) == 0);
    CHECK(w.step().kind == step_kind::exit);
    CHECK(w.done());
    CHECK_FALSE(w.ready());
}

TEST_CASE("EXIT retires only the lanes that execute it", "[warp]")
{
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        ISETP.GE P0, R0, 8
        @P0 EXIT
        MOV R1, 7
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    w.step();
    step_result r = w.step();
    CHECK(r.kind == step_kind::exit);
    CHECK(r.lane_mask == 0xffffff00u);
    CHECK(w.live_mask() == 0xffu);
    CHECK_FALSE(w.done());
    CHECK(w.pc() == 3);
    CHECK(w.active_mask() == 0xffu);
    w.step();
    CHECK(w.step().kind == step_kind::exit);
    CHECK(w.done());
    CHECK(w.reg(1, 7) == 7);
    CHECK(w.reg(1, 8) == 0);
    r = w.step();
    CHECK(r.kind == step_kind::error);
    CHECK(r.message == "step() on a warp that has exited");
}

TEST_CASE("special registers describe the thread, CTA, grid and SM", "[warp]")
{
    const program p = assemble_ok(R"(
        S2R R0, SR_TID_X
        S2R R1, SR_TID_Y
        S2R R2, SR_NTID_X
        S2R R3, SR_NTID_Y
        S2R R4, SR_CTAID_X
        S2R R5, SR_CTAID_Y
        S2R R6, SR_NCTAID_X
        S2R R7, SR_NCTAID_Y
        S2R R8, SR_LANEID
        S2R R9, SR_WARPID
        S2R R10, SR_SMID
        S2R R11, SR_GLOBAL_TID_X
        EXIT
    )");
    launch_context ctx = cta(12, 5); // 60 threads: warp 1 holds threads 32..59
    ctx.ctaid_x = 3;
    ctx.ctaid_y = 4;
    ctx.nctaid_x = 6;
    ctx.nctaid_y = 7;
    ctx.sm_id = 9;
    warp w(p, ctx, 1);
    CHECK(w.live_mask() == 0x0fffffffu);
    memory mem;
    run(w, mem);
    for (unsigned l = 0; l < 28; ++l) {
        const unsigned tid = 32 + l;
        CAPTURE(l);
        CHECK(w.reg(0, l) == tid % 12);
        CHECK(w.reg(1, l) == tid / 12);
        CHECK(w.reg(2, l) == 12);
        CHECK(w.reg(3, l) == 5);
        CHECK(w.reg(4, l) == 3);
        CHECK(w.reg(5, l) == 4);
        CHECK(w.reg(6, l) == 6);
        CHECK(w.reg(7, l) == 7);
        CHECK(w.reg(8, l) == l);
        CHECK(w.reg(9, l) == 1);
        CHECK(w.reg(10, l) == 9);
        CHECK(w.reg(11, l) == 3 * 12 + tid % 12);
    }
    CHECK(w.reg(8, 28) == 0); // dead lanes never execute
    CHECK(w.lane_instructions() == 13 * 28);
}

TEST_CASE("warps are values and reject impossible configurations", "[warp]")
{
    static_assert(std::is_copy_assignable_v<warp> && std::is_move_constructible_v<warp>);
    const program p = assemble_ok("EXIT");
    const launch_context ctx = cta(32);
    CHECK_THROWS_AS(warp(p, ctx, 0, 0), std::invalid_argument);
    CHECK_THROWS_AS(warp(p, ctx, 0, 256), std::invalid_argument);
    const launch_context empty = cta(0);
    CHECK_THROWS_AS(warp(p, empty, 0), std::invalid_argument);
    warp a(p, ctx, 0, 8);
    a.set_reg(3, 1, 9);
    warp b(p, ctx, 1);
    b = a;
    CHECK(b.reg(3, 1) == 9);
    CHECK(b.nregs() == 8);
}

TEST_CASE("a warp past the CTA's last thread is done from the start", "[warp]")
{
    const program p = assemble_ok("EXIT");
    const launch_context ctx = cta(32);
    const warp w(p, ctx, 1);
    CHECK(w.done());
    CHECK(w.live_mask() == 0);
    CHECK_FALSE(w.ready());
    CHECK(w.next() == nullptr);
}

TEST_CASE("integer operations wrap, mask shifts and compare signed or unsigned", "[warp]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 5u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    lane_values a{}, b{}, c{};
    const std::uint32_t edge[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 31, 32, 33};
    for (unsigned l = 0; l < warp_size; ++l) {
        a[l] = l < 8 ? edge[l] : static_cast<std::uint32_t>(rng());
        b[l] = l < 8 ? edge[7 - l] : static_cast<std::uint32_t>(rng());
        c[l] = static_cast<std::uint32_t>(rng());
    }
    auto sx = [](std::uint32_t v) {
        return static_cast<std::int64_t>(static_cast<std::int32_t>(v));
    };
    const auto iadd = run_binary("IADD", a, b);
    const auto isub = run_binary("ISUB", a, b);
    const auto imul = run_binary("IMUL", a, b);
    const auto imad = run_binary("IMAD", a, b, c);
    const auto imin = run_binary("IMIN", a, b);
    const auto imax = run_binary("IMAX", a, b);
    const auto umin = run_binary("UMIN", a, b);
    const auto umax = run_binary("UMAX", a, b);
    const auto shl = run_binary("SHL", a, b);
    const auto shr = run_binary("SHR", a, b);
    const auto sar = run_binary("SAR", a, b);
    const auto band = run_binary("AND", a, b);
    const auto bor = run_binary("OR", a, b);
    const auto bxor = run_binary("XOR", a, b);
    for (unsigned l = 0; l < warp_size; ++l) {
        CAPTURE(l, a[l], b[l], c[l]);
        const std::uint64_t ua = a[l], ub = b[l], uc = c[l];
        CHECK(iadd[l] == static_cast<std::uint32_t>(ua + ub));
        CHECK(isub[l] == static_cast<std::uint32_t>(ua - ub));
        CHECK(imul[l] == static_cast<std::uint32_t>(ua * ub));
        CHECK(imad[l] == static_cast<std::uint32_t>(ua * ub + uc));
        CHECK(sx(imin[l]) == std::min(sx(a[l]), sx(b[l])));
        CHECK(sx(imax[l]) == std::max(sx(a[l]), sx(b[l])));
        CHECK(umin[l] == std::min(a[l], b[l]));
        CHECK(umax[l] == std::max(a[l], b[l]));
        const unsigned s = b[l] % 32;
        CHECK(shl[l] == static_cast<std::uint32_t>(ua << s));
        CHECK(shr[l] == static_cast<std::uint32_t>(ua >> s));
        CHECK(sx(sar[l]) == static_cast<std::int64_t>(std::floor(sx(a[l]) / std::pow(2.0, s))));
        CHECK(band[l] == (a[l] & b[l]));
        CHECK(bor[l] == (a[l] | b[l]));
        CHECK(bxor[l] == (a[l] ^ b[l]));
    }
    // INT_MIN * -1 wraps to INT_MIN.
    const auto m = run_binary("IMUL", {0x80000000u}, {0xffffffffu});
    CHECK(m[0] == 0x80000000u);
}

TEST_CASE("fp32 operations follow IEEE single precision", "[warp]")
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const float xs[] = {1.5f, -2.25f, 0.1f, 3e38f, -0.0f, nan, 1e-40f, 7.0f, -inf, 2.5f};
    const float ys[] = {2.0f, 0.5f, 0.2f, 3e38f, 0.0f, 1.0f, 1e-40f, nan, 1.0f, -1e10f};
    lane_values a{}, b{}, c{};
    for (unsigned l = 0; l < 10; ++l) {
        a[l] = bits_of(xs[l]);
        b[l] = bits_of(ys[l]);
        c[l] = bits_of(0.3f * static_cast<float>(l));
    }
    const auto fadd = run_binary("FADD", a, b);
    const auto fsub = run_binary("FSUB", a, b);
    const auto fmul = run_binary("FMUL", a, b);
    const auto ffma = run_binary("FFMA", a, b, c);
    const auto fmin = run_binary("FMIN", a, b);
    const auto fmax = run_binary("FMAX", a, b);
    auto same = [](std::uint32_t got, float want) {
        return std::isnan(want) ? std::isnan(float_of(got)) : got == bits_of(want);
    };
    for (unsigned l = 0; l < 10; ++l) {
        CAPTURE(l, xs[l], ys[l]);
        CHECK(same(fadd[l], xs[l] + ys[l]));
        CHECK(same(fsub[l], xs[l] - ys[l]));
        CHECK(same(fmul[l], xs[l] * ys[l]));
        CHECK(same(ffma[l], std::fma(xs[l], ys[l], float_of(c[l]))));
        if (xs[l] != 0.0f || ys[l] != 0.0f) {
            CHECK(same(fmin[l], std::fmin(xs[l], ys[l])));
            CHECK(same(fmax[l], std::fmax(xs[l], ys[l])));
        }
    }
    CHECK(fmin[5] == bits_of(1.0f)); // a NaN operand yields the other one
    CHECK(fmax[7] == bits_of(7.0f));
    CHECK(fmin[4] == bits_of(-0.0f)); // -0 is below +0, whatever the C library does
    CHECK(fmax[4] == bits_of(0.0f));
    const auto both_nan = run_binary("FMIN", {bits_of(nan)}, {bits_of(nan)});
    CHECK(std::isnan(float_of(both_nan[0])));
}

TEST_CASE("conversions saturate, FNEG/FABS flip bits, SETP and SEL", "[warp]")
{
    const program p = assemble_ok(R"(
        F2I R1, R0
        I2F R2, R0
        FNEG R3, R0
        FABS R4, R0
        FSETP.NE P0, R0, R0     # true only for NaN
        FSETP.LT P1, R0, 0.0
        ISETP.LT P2, R0, 0
        USETP.LT P3, R0, 5
        SEL R5, 1, 2, P2
        NOT R6, R0
        EXIT
    )");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::uint32_t in[] = {bits_of(2.9f),  bits_of(-2.9f),        bits_of(3e9f),
                                bits_of(-3e9f), bits_of(nan),          bits_of(-0.0f),
                                0xffffffffu,    bits_of(2147483520.0f)};
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    for (unsigned l = 0; l < 8; ++l)
        w.set_reg(0, l, in[l]);
    memory mem;
    run(w, mem);
    const std::int32_t f2i[] = {2, -2, INT32_MAX, INT32_MIN, 0, 0, 0, 2147483520};
    for (unsigned l = 0; l < 8; ++l) {
        CAPTURE(l);
        CHECK(static_cast<std::int32_t>(w.reg(1, l)) == f2i[l]);
        CHECK(w.reg(2, l) == bits_of(static_cast<float>(static_cast<std::int32_t>(in[l]))));
        CHECK(w.reg(3, l) == (in[l] ^ 0x80000000u));
        CHECK(w.reg(4, l) == (in[l] & 0x7fffffffu));
        CHECK(w.pred(0, l) == (l == 4 || l == 6)); // 0xffffffff is a NaN too
        CHECK(w.pred(1, l) == (l == 1 || l == 3));
        CHECK(w.pred(2, l) == (static_cast<std::int32_t>(in[l]) < 0));
        CHECK(w.pred(3, l) == (in[l] < 5));
        CHECK(w.reg(5, l) == (static_cast<std::int32_t>(in[l]) < 0 ? 1u : 2u));
        CHECK(w.reg(6, l) == ~in[l]);
    }
}

TEST_CASE("writes to RZ and PT are discarded", "[warp]")
{
    const program p = assemble_ok(R"(
        MOV RZ, 5
        IADD R1, RZ, 3
        ISETP.EQ PT, R1, 0
        @PT MOV R2, 1
        LD RZ, [RZ]
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    memory mem;
    run(w, mem);
    CHECK(w.reg(1, 0) == 3);
    CHECK(w.reg(2, 31) == 1);
    CHECK(w.reg(reg_zero, 0) == 0);
    CHECK_FALSE(w.any_pending());
}

TEST_CASE("BAR, TRACE and CDL steps tell the shell what to do", "[warp]")
{
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        SHL R1, R0, 2
        BAR
        TRACE 77
        CDL R4, R1, cbv[2]
        CDL R8, 64, cbv[1], 40
        IADD R20, R9, 1
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    w.step();
    CHECK(w.step().kind == step_kind::barrier);
    step_result r = w.step();
    CHECK(r.kind == step_kind::trace);
    CHECK(r.trace_code == 77);
    r = w.step();
    REQUIRE(r.kind == step_kind::cdl);
    CHECK(r.access->reg == 4);
    CHECK(r.access->cbv == 2);
    CHECK(r.access->count == 0);
    CHECK(r.access->addr[5] == 20);
    CHECK(w.pending(4));
    r = w.step();
    REQUIRE(r.kind == step_kind::cdl);
    CHECK(r.access->reg == 8);
    CHECK(r.access->cbv == 1);
    CHECK(r.access->count == 40);
    CHECK(r.access->addr[0] == 64);
    CHECK(w.pending(8));
    CHECK(w.pending(9)); // 40 dwords fill R8 and R9
    CHECK_FALSE(w.pending(10));
    CHECK_FALSE(w.ready()); // IADD reads R9
    lane_values v{};
    v.fill(41);
    w.complete_load(8, v, ~0u);
    CHECK_FALSE(w.ready());
    w.complete_load(9, v, ~0u);
    REQUIRE(w.ready());
    w.step();
    CHECK(w.reg(20, 3) == 42);
}

TEST_CASE("a CDL's access is a global dword read whatever the step before it", "[warp]")
{
    // The per-lane form goes to memory as a load of the CDL's access (models/cdl): after a
    // ST.U8.SHARED it must not be read as a shared byte store's space and width.
    const program p = assemble_ok(R"(
        S2R R0, SR_LANEID
        ST.U8.SHARED [R0], R0
        CDL R4, R0, cbv[0]
        EXIT
    )");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    step_result r = w.step();
    REQUIRE(r.kind == step_kind::store);
    CHECK(r.access->space == mem_space::shared);
    CHECK(r.access->width == mem_width::u8);
    r = w.step();
    REQUIRE(r.kind == step_kind::cdl);
    CHECK(r.access->space == mem_space::global);
    CHECK(r.access->width == mem_width::b32);
}

TEST_CASE("execution errors stop the warp with a message and never crash", "[warp]")
{
    const launch_context ctx = cta(32);
    SECTION("misaligned address")
    {
        const program p = assemble_ok("S2R R0, SR_LANEID\nLD R1, [R0 + 4]\nEXIT");
        warp w(p, ctx, 0);
        w.step();
        const step_result r = w.step();
        CHECK(r.kind == step_kind::error);
        CHECK(r.message == "misaligned address 0x00000005 in lane 1 (LD needs 4-byte alignment)");
        CHECK(w.faulted());
        CHECK(w.done());
        CHECK(w.pc() == 1);
        CHECK_FALSE(w.pending(1));
        CHECK(w.step().message == r.message);
        CHECK(w.warp_instructions() == 1);
    }
    SECTION("misaligned store")
    {
        const program p = assemble_ok("ST [RZ + 2], R1\nEXIT");
        warp w(p, ctx, 0);
        CHECK(w.step().message ==
              "misaligned address 0x00000002 in lane 0 (ST needs 4-byte alignment)");
    }
    SECTION("PC outside the program")
    {
        const program p = {instruction{}};
        warp w(p, ctx, 0);
        CHECK(w.step().kind == step_kind::alu);
        CHECK(w.next() == nullptr);
        const step_result r = w.step();
        CHECK(r.kind == step_kind::error);
        CHECK(r.message == "PC 1 is outside the program (1 instructions)");
        CHECK(r.inst == nullptr);
    }
    SECTION("undecodable instruction word")
    {
        std::vector<std::uint8_t> bytes(32, 0xff);
        const program p = decode_program(bytes.data(), bytes.size());
        warp w(p, ctx, 0);
        CHECK(w.step().message == "illegal instruction (undecodable instruction word)");
    }
    SECTION("register beyond the warp's register count")
    {
        const program p = assemble_ok("MOV R40, 1\nEXIT");
        warp w(p, ctx, 0, 32);
        CHECK(w.step().message == "register R40 out of range (R0..R31)");
    }
    SECTION("parameter index out of range")
    {
        const program p = assemble_ok("LDP R1, 2\nEXIT");
        warp w(p, ctx, 0);
        CHECK(w.step().message == "parameter index 2 out of range (0 parameters)");
    }
    SECTION("branch target outside the program")
    {
        program p = assemble_ok("BRA 0");
        p[0].src[0] = imm(9);
        warp w(p, ctx, 0);
        CHECK(w.step().message == "branch target 9 is outside the program (1 instructions)");
    }
    SECTION("bulk CDL past the register file")
    {
        // The assembler refuses it; a program image may still hold it.
        program p = assemble_ok("CDL R60, 0, cbv[0], 64\nEXIT");
        p[0].src[2] = imm(200);
        warp w(p, ctx, 0);
        CHECK(w.step().message == "CDL destination R60..R66 past the register file (R0..R63)");
        CHECK_FALSE(w.any_pending());
    }
    SECTION("bulk CDL of zero dwords")
    {
        program p = assemble_ok("CDL R1, 0, cbv[0], 1\nEXIT");
        p[0].src[2] = imm(0);
        warp w(p, ctx, 0);
        CHECK(w.step().message == "CDL with a data amount of 0 dwords");
    }
    SECTION("bad hand-built fields")
    {
        program p = assemble_ok("EXIT");
        p[0].guard = 12;
        warp w(p, ctx, 0);
        CHECK(w.step().message == "bad guard predicate 12 on EXIT");
    }
}

TEST_CASE("random decoded programs run without crashing", "[warp]")
{
    // Garbage words decode to INVALID slots or odd but legal instructions; every step must
    // either execute or report an error.
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 1234u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    launch_context ctx = cta(20);
    ctx.params = {1, 2, 3};
    for (int n = 0; n < 300; ++n) {
        program p;
        for (int i = 0; i < 16; ++i) {
            instruction inst;
            inst.op = static_cast<opcode>(rng() % num_opcodes);
            inst.dst = static_cast<std::uint8_t>(rng() % 70);
            if (info(inst.op).form == syntax::setp)
                inst.dst = static_cast<std::uint8_t>(rng() % 9);
            inst.guard = static_cast<std::uint8_t>(rng() % 9);
            inst.guard_neg = rng() % 2 != 0;
            inst.cond = static_cast<cmp_op>(rng() % num_cmp_ops);
            inst.sreg = static_cast<special_reg>(rng() % num_special_regs);
            const operand_kind kinds[] = {operand_kind::reg, operand_kind::imm};
            for (auto& s : inst.src)
                s = {kinds[rng() % 2], static_cast<std::uint32_t>(rng() % 80)};
            inst.offset = static_cast<std::int32_t>(rng() % 64) * 4;
            // Re-encode so that unused fields are canonical, as a decoder would produce.
            const auto d = decode(encode(inst));
            p.push_back(d ? *d : instruction{opcode::INVALID});
        }
        warp w(p, ctx, 0);
        for (int s = 0; s < 200 && !w.done(); ++s) {
            const step_result r = w.step();
            if (r.access != nullptr && r.kind == step_kind::load)
                w.complete_load(r.access->reg, {}, r.access->lane_mask);
            if (r.kind == step_kind::cdl)
                for (unsigned k = 0; k < 8; ++k)
                    w.complete_load(r.access->reg + k, {}, ~0u);
            if (r.kind == step_kind::error)
                CHECK_FALSE(r.message.empty());
        }
    }
}

TEST_CASE("the vector-add example of docs/isa.md", "[warp]")
{
    const char* text = R"(
# c[i] = a[i] + b[i] for i < n        (parameters: n, a, b, c)
        S2R  R0, SR_GLOBAL_TID_X        // i
        LDP  R1, n
        ISETP.GE P0, R0, R1             // lanes past the end...
@P0     EXIT                            // ...leave
        SHL  R2, R0, 2                  // byte offset i * 4
        LDP  R3, a
        IADD R3, R3, R2
        LD   R4, [R3]
        LDP  R3, b
        IADD R3, R3, R2
        LD   R5, [R3]
        FADD R4, R4, R5
        LDP  R3, c
        IADD R3, R3, R2
        ST   [R3], R4
        EXIT
)";
    const program p = assemble_ok(text, {{"n", 0}, {"a", 1}, {"b", 2}, {"c", 3}});
    const std::uint32_t n = 70;
    memory mem;
    for (std::uint32_t i = 0; i < n; ++i) {
        mem.at(0x10000 + 4 * i) = bits_of(0.5f * static_cast<float>(i));
        mem.at(0x20000 + 4 * i) = bits_of(1000.25f - static_cast<float>(i));
    }
    for (std::uint32_t c = 0; c < 2; ++c) {
        launch_context ctx = cta(64);
        ctx.nctaid_x = 2;
        ctx.ctaid_x = c;
        ctx.params = {n, 0x10000, 0x20000, 0x30000};
        for (unsigned w = 0; w < 2; ++w) {
            warp wp(p, ctx, w);
            run(wp, mem);
        }
    }
    for (std::uint32_t i = 0; i < n; ++i)
        CHECK(mem.at(0x30000 + 4 * i) ==
              bits_of(0.5f * static_cast<float>(i) + (1000.25f - static_cast<float>(i))));
    CHECK(mem.words.count(0x30000 + 4 * n) == 0);
}

TEST_CASE("FFMA is bit-exact with std::fma in every lane", "[warp]")
{
    // The warp may compute FFMA with the CPU's fused multiply-add instruction; its results must
    // be those of std::fma bit for bit (rounding, subnormals, infinities, signed zeros), and a
    // NaN operand in any lane must not change the other lanes.
    const std::uint64_t seed = 12345;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const float inf = std::numeric_limits<float>::infinity();
    const float specials[] = {0.0f,     -0.0f, 1e-45f, -1e-40f, 1.17549435e-38f, 3.4e38f,
                              -3.4e38f, inf,   -inf,   1.0f,    -1.0f,           0.1f};
    auto pick = [&]() -> std::uint32_t {
        if (rng() % 4 == 0)
            return bits_of(specials[rng() % (sizeof specials / sizeof specials[0])]);
        std::uint32_t v = static_cast<std::uint32_t>(rng());
        if (std::isnan(float_of(v)))
            v &= ~0x00400000u & 0xff7fffffu; // not a NaN: clear an exponent bit
        return v;
    };
    for (unsigned round = 0; round < 200; ++round) {
        lane_values a{}, b{}, c{};
        for (unsigned l = 0; l < warp_size; ++l) {
            a[l] = pick();
            b[l] = pick();
            c[l] = pick();
        }
        if (round % 10 == 9)
            a[round % warp_size] = bits_of(std::numeric_limits<float>::quiet_NaN());
        const auto got = run_binary("FFMA", a, b, c);
        for (unsigned l = 0; l < warp_size; ++l) {
            CAPTURE(round, l, a[l], b[l], c[l]);
            const float want = std::fma(float_of(a[l]), float_of(b[l]), float_of(c[l]));
            CHECK(got[l] == bits_of(want));
        }
    }
}

TEST_CASE("ATOM.ADD returns the old values, lane by lane, and keeps its register pending", "[warp]")
{
    // Every lane adds its lane id + 1 to one counter at 0x100 and keeps the old value.
    const program p = assemble_ok("S2R R0, SR_LANEID\n"
                                  "IADD R1, R0, 1\n"
                                  "MOV R2, 0x100\n"
                                  "ATOM.ADD R3, [R2 + 4], R1\n"
                                  "IADD R4, R3, 0\n"
                                  "EXIT");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    for (int i = 0; i < 3; ++i)
        w.step();
    REQUIRE(w.ready());
    const step_result r = w.step();
    REQUIRE(r.kind == step_kind::atomic);
    CHECK(r.access->lane_mask == 0xffffffffu);
    CHECK(r.access->reg == 3);
    CHECK(r.access->addr[31] == 0x104);
    CHECK(r.access->data[31] == 32);
    CHECK(w.pending(3));
    CHECK_FALSE(w.ready()); // IADD R4, R3 waits for the old values
    lane_values old{};
    std::uint32_t counter = 0;
    for (unsigned l = 0; l < warp_size; ++l) {
        old[l] = counter;
        counter += r.access->data[l];
    }
    w.complete_load(3, old, r.access->lane_mask);
    CHECK(w.ready());
    memory mem;
    run(w, mem);
    CHECK(counter == 32 * 33 / 2);
    for (unsigned l = 0; l < warp_size; ++l)
        CHECK(w.reg(4, l) == l * (l + 1) / 2);
}

TEST_CASE("a misaligned ATOM stops the warp", "[warp]")
{
    const program p = assemble_ok("MOV R2, 0x102\nATOM.ADD R3, [R2], R1\nEXIT");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    const step_result r = w.step();
    REQUIRE(r.kind == step_kind::error);
    CHECK(std::string(r.message) ==
          "misaligned address 0x00000102 in lane 0 (ATOM needs 4-byte alignment)");
}

TEST_CASE("sub-word and shared LD/ST steps carry their width and space", "[warp]")
{
    const program p = assemble_ok("MOV R2, 0x101\nLD.S8 R3, [R2]\nST.U16.SHARED [R2 + 1], R3\n"
                                  "LD.U16 R4, [R2 + 3]\nEXIT");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    step_result r = w.step();
    REQUIRE(r.kind == step_kind::load);
    CHECK(r.access->width == mem_width::s8);
    CHECK(r.access->space == mem_space::global);
    CHECK(r.access->addr[5] == 0x101u);
    w.complete_load(3, lane_values{}, r.access->lane_mask);
    r = w.step();
    REQUIRE(r.kind == step_kind::store);
    CHECK(r.access->width == mem_width::u16);
    CHECK(r.access->space == mem_space::shared);
    CHECK(r.access->addr[0] == 0x102u);
    r = w.step(); // 0x104 is 2-byte aligned: no fault
    REQUIRE(r.kind == step_kind::load);
    CHECK(r.access->addr[31] == 0x104u);
    const program q = assemble_ok("MOV R2, 0x101\nLD.U16 R4, [R2]\nEXIT");
    warp v(q, ctx, 0);
    v.step();
    r = v.step();
    REQUIRE(r.kind == step_kind::error);
    CHECK(std::string(r.message) ==
          "misaligned address 0x00000101 in lane 0 (LD needs 2-byte alignment)");
}

TEST_CASE("ATOM operations and CAS report their operation and operands", "[warp]")
{
    const program p = assemble_ok("S2R R1, SR_LANEID\nMOV R2, 64\nATOM.UMAX.SHARED R3, [R2], R1\n"
                                  "IADD R5, R1, 7\nCAS R4, [R2], R1, R5\nEXIT");
    const launch_context ctx = cta(32);
    warp w(p, ctx, 0);
    w.step();
    w.step();
    step_result r = w.step();
    REQUIRE(r.kind == step_kind::atomic);
    CHECK(r.access->aop == atom_op::UMAX);
    CHECK_FALSE(r.access->cas);
    CHECK(r.access->space == mem_space::shared);
    CHECK(r.access->data[9] == 9u);
    CHECK(w.pending(3));
    w.step();
    r = w.step();
    REQUIRE(r.kind == step_kind::atomic);
    CHECK(r.access->cas);
    CHECK(r.access->data[9] == 9u);
    CHECK(r.access->data2[9] == 16u);
    CHECK(w.pending(4));
}
