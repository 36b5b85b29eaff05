// Translator: every lowering rule against hand-computed results on a functional warp, the exact
// text of a small kernel, the catalogue of unsupported forms, the reconverging layout on
// every block order, and the compiled kernels of issue 36 with their translation time.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

using namespace vgpu::ptx;
using vgpu::ptx::test::entry_text;
using vgpu::ptx::test::instructions;
using vgpu::ptx::test::rule_prefix;
using vgpu::ptx::test::run_warp;
using vgpu::ptx::test::translate_text;

namespace {

struct rule_case {
    const char* ptx; ///< lines that leave the result in %r10
    std::uint32_t a, b, c, f;
    std::uint32_t expect;        ///< value at `addr`
    std::uint32_t addr = 0x1004; ///< where it is checked (the prefix stores %r10 at 0x1004)
};

constexpr std::uint32_t one_f = 0x3f800000;  // 1.0f
constexpr std::uint32_t f1_5 = 0x3fc00000;   // 1.5f
constexpr std::uint32_t f2_25 = 0x40100000;  // 2.25f
constexpr std::uint32_t fm2_75 = 0xc0300000; // -2.75f
constexpr std::uint32_t qnan = 0x7fc00000;   // NaN
constexpr std::uint32_t big = 100000;        // 100000 * 100000 = 10^10
constexpr std::uint32_t neg1 = 0xffffffffu;  // -1
constexpr std::uint32_t sign = 0x80000000u;  // INT_MIN

// Expected values are computed by hand (comments) and not by the host's own arithmetic.
const rule_case rule_cases[] = {
    {"add.s32 %r10, %r1, %r2;", 5, 7, 0, 0, 12},
    {"add.u32 %r10, %r1, -3;", 5, 0, 0, 0, 2},
    {"sub.s32 %r10, %r1, %r2;", 5, 7, 0, 0, 0xfffffffe},        // -2
    {"mul.lo.s32 %r10, %r1, %r2;", big, big, 0, 0, 1410065408}, // 10^10 - 2 * 2^32
    {"mul.lo.u32 %r10, %r1, 3;", 7, 0, 0, 0, 21},
    {"mad.lo.s32 %r10, %r1, %r2, %r3;", 3, 4, 5, 0, 17},
    {"min.s32 %r10, %r1, %r2;", neg1, 1, 0, 0, neg1},
    {"min.u32 %r10, %r1, %r2;", neg1, 1, 0, 0, 1},
    {"max.s32 %r10, %r1, %r2;", neg1, 1, 0, 0, 1},
    {"max.u32 %r10, %r1, %r2;", neg1, 1, 0, 0, neg1},
    {"and.b32 %r10, %r1, %r2;", 0xf0f0, 0xff00, 0, 0, 0xf000},
    {"or.b32 %r10, %r1, %r2;", 0xf0f0, 0xff00, 0, 0, 0xfff0},
    {"xor.b32 %r10, %r1, %r2;", 0xf0f0, 0xff00, 0, 0, 0x0ff0},
    {"not.b32 %r10, %r1;", 0, 0, 0, 0, neg1},
    {"neg.s32 %r10, %r1;", 5, 0, 0, 0, 0xfffffffb}, // -5
    {"shl.b32 %r10, %r1, 4;", 3, 0, 0, 0, 48},
    {"shl.b32 %r10, %r1, 32;", 3, 0, 0, 0, 0}, // PTX clamps: 0
    {"shr.u32 %r10, %r1, 4;", sign, 0, 0, 0, 0x08000000},
    {"shr.b32 %r10, %r1, 33;", sign, 0, 0, 0, 0},
    {"shr.s32 %r10, %r1, 4;", sign, 0, 0, 0, 0xf8000000},
    {"shr.s32 %r10, %r1, 40;", sign, 0, 0, 0, neg1}, // sign fill
    {"setp.lt.s32 %p1, %r1, %r2;\nselp.b32 %r10, %r1, %r2, %p1;", 1, 2, 0, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nselp.b32 %r10, %r1, %r2, %p1;", 3, 2, 0, 0, 2},
    {"setp.lt.s32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", neg1, 1, 0, 0, 1},
    {"setp.lo.u32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", neg1, 1, 0, 0, 0},
    {"setp.lt.u32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", neg1, 1, 0, 0, 0},
    {"setp.hs.u32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", neg1, 1, 0, 0, 1},
    {"setp.hi.u32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", 1, 1, 0, 0, 0},
    {"setp.ls.u32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", 1, 1, 0, 0, 1},
    {"setp.ne.s32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", 1, 1, 0, 0, 0},
    {"setp.eq.b32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", 1, 1, 0, 0, 1},
    {"setp.ge.s32 %p1, %r1, %r2;\nselp.b32 %r10, 1, 0, %p1;", neg1, 0, 0, 0, 0},
    {"setp.gt.s32 %p1, %r1, %r2;\n@%p1 bra L1;\nmov.u32 %r10, 7;\nbra.uni L2;\n"
     "L1:\nmov.u32 %r10, 9;\nL2:",
     4, 3, 0, 0, 9},
    {"setp.gt.s32 %p1, %r1, %r2;\n@!%p1 bra L1;\nmov.u32 %r10, 7;\nbra.uni L2;\n"
     "L1:\nmov.u32 %r10, 9;\nL2:",
     4, 3, 0, 0, 7},
    {"setp.le.s32 %p1, %r1, %r2;\nselp.b32 %r10, %r1, %r2, !%p1;", 4, 3, 0, 0, 4},
    // Predicate logic, on p1 = a < b and p2 = b < c: a truth table per case.
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nand.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     1, 2, 3, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nand.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     1, 2, 2, 0, 0},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nand.pred %p3, %p1, !%p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     1, 2, 2, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nor.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     2, 2, 3, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nor.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     2, 2, 2, 0, 0},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nor.pred %p3, %p1, !%p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     2, 2, 2, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nxor.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     1, 2, 3, 0, 0},
    {"setp.lt.s32 %p1, %r1, %r2;\nsetp.lt.s32 %p2, %r2, %r3;\nxor.pred %p3, %p1, %p2;\n"
     "selp.b32 %r10, 1, 0, %p3;",
     1, 2, 2, 0, 1},
    {"setp.lt.s32 %p1, %r1, %r2;\nnot.pred %p3, %p1;\nselp.b32 %r10, 1, 0, %p3;", 1, 2, 0, 0, 0},
    {"setp.lt.s32 %p1, %r1, %r2;\nnot.pred %p3, %p1;\nselp.b32 %r10, 1, 0, %p3;", 2, 2, 0, 0, 1},
    {"add.f32 %f10, %f2, %f3;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, 0, 0x40700000},    // 3.75
    {"sub.f32 %f10, %f2, %f3;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, 0, 0xbf400000},    // -0.75
    {"mul.rn.f32 %f10, %f2, %f3;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, 0, 0x40580000}, // 3.375
    {"fma.rn.f32 %f10, %f2, %f3, %f1;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, one_f,
     0x408c0000},                                                                       // 4.375
    {"mul.f32 %f10, %f2, 0f3F000000;\nmov.b32 %r10, %f10;", 0, f1_5, 0, 0, 0x3f400000}, // 0.75
    {"neg.f32 %f10, %f2;\nmov.b32 %r10, %f10;", 0, f1_5, 0, 0, 0xbfc00000},
    {"abs.f32 %f10, %f2;\nmov.b32 %r10, %f10;", 0, fm2_75, 0, 0, 0x40300000},
    {"min.f32 %f10, %f2, %f3;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, 0, f1_5},
    {"max.f32 %f10, %f2, %f3;\nmov.b32 %r10, %f10;", 0, qnan, f2_25, 0, f2_25},
    {"cvt.rn.f32.s32 %f10, %r1;\nmov.b32 %r10, %f10;", 0xfffffffd, 0, 0, 0, 0xc0400000}, // -3
    {"cvt.rzi.s32.f32 %r10, %f2;", 0, fm2_75, 0, 0, 0xfffffffe},                         // -2
    {"cvt.rzi.s32.f32 %r10, %f2;", 0, qnan, 0, 0, 0},
    {"setp.lt.f32 %p1, %f2, %f3;\nselp.b32 %r10, 1, 0, %p1;", 0, qnan, one_f, 0, 0},
    {"setp.neu.f32 %p1, %f2, %f3;\nselp.b32 %r10, 1, 0, %p1;", 0, qnan, one_f, 0, 1},
    {"setp.ge.f32 %p1, %f2, %f3;\nselp.b32 %r10, 1, 0, %p1;", 0, f2_25, f1_5, 0, 1},
    {"selp.f32 %f10, %f2, %f3, %p7;\nmov.b32 %r10, %f10;", 0, f1_5, f2_25, 0, f2_25},
    {"mov.u32 %r10, %ntid.x;", 0, 0, 0, 0, 1},
    {"mov.u32 %r10, %ntid.z;", 0, 0, 0, 0, 1},
    {"mov.u32 %r10, %tid.z;\nadd.s32 %r10, %r10, 6;", 0, 0, 0, 0, 6},
    {"mov.u32 %r10, %laneid;\nadd.s32 %r10, %r10, 6;", 0, 0, 0, 0, 6},
    {"cvt.u32.u64 %r10, %rd2;", 0, 0, 0, 0, 0x1000},
    // 64-bit address arithmetic: the word at param0 + 4 * a receives b.
    {"mul.wide.s32 %rd10, %r1, 4;\nadd.s64 %rd11, %rd2, %rd10;\nst.global.u32 [%rd11], %r2;", 3, 77,
     0, 0, 77, 0x100c},
    {"mul.wide.u32 %rd10, %r1, 4;\nadd.s64 %rd11, %rd2, %rd10;\nst.global.u32 [%rd11+-4], %r2;", 3,
     78, 0, 0, 78, 0x1008},
    {"cvt.u64.u32 %rd10, %r1;\nshl.b64 %rd10, %rd10, 2;\nadd.s64 %rd11, %rd2, %rd10;\n"
     "st.global.u32 [%rd11], %r2;",
     5, 79, 0, 0, 79, 0x1014},
    {"cvt.s64.s32 %rd10, %r1;\nmul.lo.s64 %rd10, %rd10, 8;\nsub.s64 %rd11, %rd2, %rd10;\n"
     "st.global.u32 [%rd11+64], %r2;",
     2, 80, 0, 0, 80, 0x1030},
    {"mad.wide.s32 %rd11, %r1, 4, %rd2;\nst.global.u32 [%rd11], %r2;", 0xffffffff, 81, 0, 0, 81,
     0x0ffc}, // a = -1: the word below param0
    {"st.global.v2.u32 [%rd2+16], {%r1, %r2};\nld.global.v2.u32 {%r11, %r12}, [%rd2+16];\n"
     "sub.s32 %r10, %r12, %r11;",
     5, 12, 0, 0, 7},
    {"st.global.u32 [%rd2+8], 40;\natom.global.add.u32 %r11, [%rd2+8], %r1;\n"
     "ld.global.u32 %r12, [%rd2+8];\nadd.s32 %r10, %r11, %r12;",
     2, 0, 0, 0, 82}, // old 40 + new 42
    {"st.global.u32 [%rd2+8], 40;\nred.global.add.u32 [%rd2+8], 3;\nld.global.u32 %r10, "
     "[%rd2+8];",
     0, 0, 0, 0, 43},
    {"mov.u32 %r10, 3;\nbar.sync 0;\nmembar.gl;", 0, 0, 0, 0, 3},
};

} // namespace

TEST_CASE("every lowering rule computes the hand-computed value on a warp")
{
    for (const rule_case& c : rule_cases) {
        const std::string body =
            std::string(rule_prefix) + c.ptx + "\nst.global.u32 [%rd2+4], %r10;\nret;";
        INFO(c.ptx);
        const translation t = translate_text(entry_text(body));
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        REQUIRE(t.pcs.size() == instructions(t.text).size());
        const auto r = run_warp(t, {0x1000, c.a, c.b, c.c, c.f}, {}, 1);
        REQUIRE(r.error.empty());
        const auto it = r.mem.find(c.addr);
        REQUIRE(it != r.mem.end());
        CHECK(it->second == c.expect);
    }
}

TEST_CASE("a small kernel translates to exactly the hand-written program")
{
    // c[i] = a[i] + 1 for i < n, with %tid.x as i.
    const std::string body = "ld.param.u32 %r1, [k_p1];\n"
                             "mov.u32 %r2, %tid.x;\n"
                             "setp.ge.s32 %p1, %r2, %r1;\n"
                             "@%p1 bra DONE;\n"
                             "ld.param.u64 %rd1, [k_p0];\n"
                             "cvta.to.global.u64 %rd2, %rd1;\n"
                             "mul.wide.s32 %rd3, %r2, 4;\n"
                             "add.s64 %rd4, %rd2, %rd3;\n"
                             "ld.global.f32 %f1, [%rd4];\n"
                             "add.f32 %f2, %f1, 0f3F800000;\n"
                             "st.global.f32 [%rd4], %f2;\n"
                             "DONE:\n"
                             "ret;";
    const translation t = translate_text(entry_text(body));
    REQUIRE(t.ok());
    INFO(t.text);
    // Registers: an interval ends after its last point, so a source and the destination of
    // one instruction never share a register.
    // The cvta of the parameter is a copy of an LDP: propagated, it leaves no MOV.
    const std::vector<std::string> expect = {"LDP R0, 1",
                                             "S2R R1, SR_TID_X",
                                             "ISETP.GE P0, R1, R0",
                                             "@P0 BRA L10",
                                             "LDP R0, 0",
                                             "IMUL R2, R1, 4",
                                             "IADD R1, R0, R2",
                                             "LD R0, [R1]",
                                             "FADD R2, R0, 0x3f800000",
                                             "ST [R1], R2",
                                             "EXIT"};
    CHECK(instructions(t.text) == expect);
    CHECK(t.registers == 3);
    CHECK(t.predicates == 1);
    REQUIRE(t.pcs.size() == 11);
    CHECK(t.pcs[0].ptx_line == 11);
    CHECK(t.pcs[3].ptx_line == 14);  // the branch
    CHECK(t.pcs[5].ptx_line == 17);  // mul.wide
    CHECK(t.pcs[9].ptx_line == 21);  // the store
    CHECK(t.pcs[10].ptx_line == 23); // ret
}

TEST_CASE("unsupported forms are located errors naming the form")
{
    struct bad {
        const char* line;
        const char* message;
    };
    const bad cases[] = {
        // (64-bit comparisons, shifts, min/max and f64 loads are register-pair forms now:
        // test_ptx_fp64.cpp)
        {"add.ftz.f32 %f1, %f2, %f3;", "t.ptx:11:1: error: unsupported 'add.ftz.f32'"},
        {"ld.local.f32 %f1, [%rd1];",
         "t.ptx:11:1: error: unsupported 'ld.local.f32': a local access in a kernel that "
         "declares no .local variable"},
        {"cvta.shared.u64 %rd1, %rd2;",
         "t.ptx:11:1: error: unsupported 'cvta.shared.u64': generic addresses of shared memory "
         "are not supported (only cvta.to.shared)"},
        {"atom.global.dec.u64 %rd1, [%rd1], %rd2;",
         "t.ptx:11:1: error: unsupported 'atom.global.dec.u64': 64-bit atomics are add (u64, s64, "
         "f64), min/max (s64, u64), exch, cas, and, or, xor (b64, u64, s64) on global or shared "
         "memory"},
        {"bar.sync 1;",
         "t.ptx:11:1: error: unsupported 'bar.sync': only bar.sync 0 with no thread count maps "
         "onto BAR"},
        {"mov.u32 %r1, %clock;", "t.ptx:11:1: error: unsupported 'mov.u32': special register "
                                 "%clock"},
        {"  @%p1 bar.sync 0;", "t.ptx:11:3: error: unsupported 'bar.sync': a guarded barrier"},
    };
    for (const bad& b : cases) {
        INFO(b.line);
        std::string text = entry_text(std::string(b.line) + "\nret;");
        // f64 registers for the f64 case.
        const auto at = text.find(".reg .b64");
        text.insert(at, ".reg .f64 %fd<4>;\n");
        // The inserted line moves the body one line down: use the body's real line.
        std::string want = b.message;
        want.replace(want.find(":11:"), 4, ":12:");
        const translation t = translate_text(text);
        REQUIRE(t.errors.size() == 1);
        CHECK(t.errors[0] == want);
        CHECK(t.text.empty());
    }
}

TEST_CASE("shared and local variables, calls and too many registers are located errors")
{
    // .local variables are laid out (test_ptx_local.cpp); unused, they need no local area.
    translation t = translate_text(entry_text(".local .align 4 .b8 s[64];\nret;"));
    REQUIRE(t.ok());
    CHECK(t.local_bytes == 0);

    // Three values live at once need three registers.
    const std::string three = "ld.param.u32 %r1, [k_p1];\nld.param.u32 %r2, [k_p2];\n"
                              "ld.param.u32 %r3, [k_p3];\nadd.s32 %r4, %r1, %r2;\n"
                              "add.s32 %r5, %r4, %r3;\nld.param.u64 %rd1, [k_p0];\n"
                              "st.global.u32 [%rd1], %r5;\nret;";
    translate_options o;
    o.max_registers = 3;
    t = translate_text(entry_text(three), o);
    REQUIRE(t.errors.size() == 1);
    // Spilling needs registers for the local addresses: located at the first instruction.
    CHECK(t.errors[0] == "t.ptx:11:1: error: unsupported: the kernel needs more than 3 "
                         "registers per thread here (even with spilling to local memory)");
    o.max_registers = 4;
    t = translate_text(entry_text(three), o);
    CHECK(t.ok());
    CHECK(t.registers == 4);

    const std::string call = ".version 6.0\n.target sm_70\n.address_size 64\n"
                             ".func (.param .b32 r) f(.param .b32 a)\n{\n"
                             ".reg .b32 %r<2>;\nld.param.b32 %r1, [a];\n"
                             "st.param.b32 [r], %r1;\nret;\n}\n"
                             ".visible .entry k()\n{\n.reg .b32 %r<2>;\n"
                             ".param .b32 pa;\n.param .b32 pr;\n"
                             "st.param.b32 [pa], 1;\n"
                             "call.uni (pr), f, (pa);\nret;\n}\n";
    const parse_result p = parse(call, "t.ptx");
    for (const std::string& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    t = translate(p.mod, p.mod.find_function("k"));
    CHECK(t.ok()); // f is inlined (test_ptx_calls.cpp)
}

// --- Layout ------------------------------------------------------------------------------------

namespace {

/// A loop around nested if/else with a break: 0 entry, 1 loop head (exit to 8), 2 if, 3 then-if,
/// 4 then-then, 5 then-else, 6 else (may break to 9), 7 join and latch (back to 1), 8 after the
/// loop, 9 break target, 10 exit join.
flow_graph nested_graph()
{
    flow_graph g;
    g.succs = {{1}, {2, 8}, {3, 6}, {4, 5}, {7}, {7}, {7, 9}, {1}, {10}, {10}, {}};
    return g;
}

flow_graph relabel(const flow_graph& g, const std::vector<std::size_t>& name)
{
    flow_graph r;
    r.succs.resize(g.succs.size());
    for (std::size_t v = 0; v < g.succs.size(); ++v)
        for (const std::size_t w : g.succs[v])
            r.succs[name[v]].push_back(name[w]);
    return r;
}

} // namespace

TEST_CASE("post-dominators of a loop with nested if/else and a break")
{
    const auto ip = post_dominators(nested_graph());
    const std::vector<std::size_t> expect = {1, 10, 10, 7, 7, 7, 10, 1, 10, 10, 11};
    CHECK(ip == expect);
}

TEST_CASE("the reconverging layout holds for the blocks numbered in every order")
{
    const flow_graph g = nested_graph();
    std::vector<std::size_t> name(g.succs.size());
    std::iota(name.begin(), name.end(), 0);
    std::size_t orders = 0, checked = 0;
    do { // the entry keeps number 0; the ten others: one numbering in 37 of the 10! ones
        if (orders++ % 37 != 0)
            continue;
        const flow_graph r = relabel(g, name);
        const std::vector<std::size_t> order = reconverging_layout(r);
        REQUIRE(order.size() == g.succs.size());
        const std::string why = check_layout(r, order);
        INFO(why);
        REQUIRE(why.empty());
        ++checked;
    } while (std::next_permutation(name.begin() + 1, name.end()));
    CHECK(orders == 3628800);
    CHECK(checked == 98076);

    // The checker fails a layout with the loop's exit path after the final join, and one with
    // a forward edge going backward.
    CHECK(check_layout(g, {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9}) ==
          "block 8 reached from branch 1 is placed after its join 10");
    CHECK(check_layout(g, {0, 1, 2, 3, 4, 5, 7, 6, 8, 9, 10}) == "forward edge 6->7 goes backward");
}

TEST_CASE("an irreducible loop and a join behind a back edge have no layout")
{
    flow_graph g;
    g.succs = {{1, 2}, {2}, {1, 3}, {}}; // 1 and 2 both enter the cycle
    std::string why;
    CHECK(reconverging_layout(g, &why).empty());
    CHECK(why == "irreducible control flow (a loop with several entries)");
    // A continue edge straight to the loop head: the head post-dominates the branch.
    g.succs = {{1}, {2, 4}, {1, 3}, {1}, {}};
    why.clear();
    CHECK(reconverging_layout(g, &why).empty());
    CHECK(why == "no block layout puts every join after the blocks that reach it (a join "
                 "reached only through a loop's back edge)");
}

namespace {

/// Blocks of a kernel with a uniform loop, a divergent nested if/else inside it, a barrier
/// after the join, and a divergent early exit: out[tid] = sum over n iterations of 3, 5 or 7
/// by the bits of tid >> i; lane 31 skips the store (a divergent exit after the loop).
const std::vector<std::pair<std::string, std::string>> shuffled_blocks = {
    {"H", "setp.ge.s32 %p1, %r3, %r1;\n@%p1 bra D;\nbra.uni T;"},
    {"T", "and.b32 %r5, %r2, 1;\nsetp.eq.s32 %p2, %r5, 0;\n@%p2 bra E;\nbra.uni A;"},
    {"A", "and.b32 %r5, %r2, 2;\nsetp.eq.s32 %p3, %r5, 0;\n@%p3 bra A2;\nbra.uni A1;"},
    {"A1", "add.s32 %r4, %r4, 3;\nbra.uni J;"},
    {"A2", "add.s32 %r4, %r4, 5;\nbra.uni J;"},
    {"E", "add.s32 %r4, %r4, 7;\nbra.uni J;"},
    {"J", "bar.sync 0;\nshr.u32 %r2, %r2, 1;\nadd.s32 %r3, %r3, 1;\nbra.uni H;"},
    {"D", "setp.eq.s32 %p4, %r6, 31;\n@%p4 bra X;\nbra.uni S;"},
    {"S", "st.global.u32 [%rd3], %r4;\nbra.uni X;"},
    {"X", "ret;"},
};

std::uint32_t shuffled_reference(std::uint32_t tid, std::uint32_t n)
{
    std::uint32_t acc = 0, x = tid;
    for (std::uint32_t i = 0; i < n; ++i, x >>= 1)
        acc += (x & 1) ? ((x & 2) ? 3 : 5) : 7;
    return acc;
}

} // namespace

TEST_CASE("PTX blocks in every textual order translate, reconverge and compute the same")
{
    const std::string entry = "ld.param.u32 %r1, [k_p1];\nmov.u32 %r6, %tid.x;\n"
                              "mov.u32 %r2, %r6;\nmov.u32 %r3, 0;\nmov.u32 %r4, 0;\n"
                              "ld.param.u64 %rd1, [k_p0];\nmul.wide.u32 %rd2, %r6, 4;\n"
                              "add.s64 %rd3, %rd1, %rd2;\nbra.uni H;\n";
    std::vector<std::size_t> perm(shuffled_blocks.size());
    std::iota(perm.begin(), perm.end(), 0);
    const std::uint32_t n = 4;
    std::size_t orders = 0, ran = 0;
    double worst_ms = 0;
    do {
        if (orders++ % 499 != 0) // one textual order in 499 of the 10! ones
            continue;
        std::string body = entry;
        for (const std::size_t k : perm)
            body += shuffled_blocks[k].first + ":\n" + shuffled_blocks[k].second + "\n";
        const auto t0 = std::chrono::steady_clock::now();
        const translation t = translate_text(entry_text(body));
        worst_ms = std::max(worst_ms, std::chrono::duration<double, std::milli>(
                                          std::chrono::steady_clock::now() - t0)
                                          .count());
        INFO(body);
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        const auto r = run_warp(t, {0x1000, n, 0, 0, 0}, {});
        REQUIRE(r.error.empty());
        CHECK(r.barriers == n); // one BAR step per iteration: the lanes reconverged
        CHECK(r.partial_barriers == 0);
        for (std::uint32_t tid = 0; tid < 31; ++tid)
            REQUIRE(r.mem.at(0x1000 + 4 * tid) == shuffled_reference(tid, n));
        CHECK(r.mem.count(0x1000 + 4 * 31) == 0);
        ++ran;
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(orders == 3628800);
    CHECK(ran == 7273);
    std::printf("shuffled PTX blocks: worst translation %.3f ms\n", worst_ms);
}

// --- Compiled kernels ---------------------------------------------------------------------------

namespace {

struct compiled_kernel {
    parse_result p;
    int entry = -1;
};

compiled_kernel compile_kernel(const std::string& cu, const std::string& name)
{
    compile_request req;
    req.source = vgpu::ptx::test::path("kernels/" + cu);
    req.kernel = name;
    const compile_result c = compile_cuda(req);
    for (const std::string& e : c.errors)
        UNSCOPED_INFO(e);
    REQUIRE(c.ok());
    compiled_kernel k;
    k.p = parse(c.ptx, cu + ".ptx");
    REQUIRE(k.p.ok());
    const entry_lookup e = find_entry(k.p.mod, name, {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    k.entry = e.index;
    return k;
}

} // namespace

TEST_CASE("the issue-36 kernels of this slice translate in well under 50 ms")
{
    for (const char* name : {"vector_add", "gather", "ffma_chain"}) {
        const compiled_kernel k = compile_kernel(std::string(name) + ".cu", name);
        translation t;
        double best = 1e9;
        for (int rep = 0; rep < 20; ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            t = translate(k.p.mod, k.entry);
            best = std::min(best, std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count());
        }
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        const auto a = vgpu::sm::assemble(t.text, {}, {"t.vgpu", 1, 1}, t.registers);
        REQUIRE(a.ok());
        std::printf("translate %-10s %3zu PTX instructions -> %3zu vgpu, %2u registers, "
                    "%u predicates, %.3f ms\n",
                    name, k.p.mod.functions[static_cast<std::size_t>(k.entry)].body.size(),
                    a.code.size(), t.registers, t.predicates, best);
        CHECK(best < 50.0);
        // Every PC maps to a PTX line and, from .loc, to the kernel's CUDA line.
        for (const pc_origin& o : t.pcs)
            if (o.ptx_line > 0 && !o.cuda.empty())
                CHECK(o.cuda.find(std::string(name) + ".cu:") != std::string::npos);
    }
}

TEST_CASE("the stencil with shared memory translates its declaration and every access")
{
    const compiled_kernel k = compile_kernel("stencil3.cu", "stencil3");
    const translation t = translate(k.p.mod, k.entry);
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    CHECK(t.shared_bytes == 1032);
    auto count = [&](const std::string& what) {
        int n = 0;
        for (auto at = t.text.find(what); at != std::string::npos; at = t.text.find(what, at + 1))
            ++n;
        return n;
    };
    CHECK(count("LD.SHARED") == 3);
    CHECK(count("ST.SHARED") == 3);
}

TEST_CASE("a loop with a trip count per lane and a guarded early ret run as the PTX says")
{
    // out[tid] = sum of k for k < tid % 5, lanes with tid % 7 == 3 return before storing.
    // rem is not supported: the lanes compute tid % 5 and tid % 7 with loops.
    const std::string ptx = "mov.u32 %r1, %tid.x;\n"
                            "mov.u32 %r2, %r1;\n"
                            "MOD:\n"
                            "setp.lt.u32 %p1, %r2, 5;\n"
                            "@%p1 bra MODDONE;\n"
                            "sub.s32 %r2, %r2, 5;\n"
                            "bra.uni MOD;\n"
                            "MODDONE:\n"
                            "mov.u32 %r3, 0;\n"
                            "mov.u32 %r4, 0;\n"
                            "LOOP:\n"
                            "setp.ge.u32 %p2, %r4, %r2;\n"
                            "@%p2 bra AFTER;\n"
                            "add.s32 %r3, %r3, %r4;\n"
                            "add.s32 %r4, %r4, 1;\n"
                            "bra.uni LOOP;\n"
                            "AFTER:\n"
                            "mov.u32 %r5, %r1;\n"
                            "SEVEN:\n"
                            "setp.lt.u32 %p3, %r5, 7;\n"
                            "@%p3 bra SEVENDONE;\n"
                            "sub.s32 %r5, %r5, 7;\n"
                            "bra.uni SEVEN;\n"
                            "SEVENDONE:\n"
                            "setp.eq.s32 %p4, %r5, 3;\n"
                            "@%p4 ret;\n"
                            "ld.param.u64 %rd1, [k_p0];\n"
                            "mul.wide.u32 %rd2, %r1, 4;\n"
                            "add.s64 %rd3, %rd1, %rd2;\n"
                            "st.global.u32 [%rd3], %r3;\n"
                            "ret;";
    const translation t = translate_text(entry_text(ptx));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    INFO(t.text);
    const auto r = run_warp(t, {0x1000, 0, 0, 0, 0}, {});
    REQUIRE(r.error.empty());
    for (std::uint32_t tid = 0; tid < 32; ++tid) {
        INFO("tid " << tid);
        if (tid % 7 == 3) {
            CHECK(r.mem.count(0x1000 + 4 * tid) == 0);
        } else {
            const std::uint32_t m = tid % 5;
            CHECK(r.mem.at(0x1000 + 4 * tid) == m * (m - 1) / 2); // 0 + 1 + ... + (m - 1)
        }
    }
}
