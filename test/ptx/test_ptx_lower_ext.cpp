// Translator: the lowering of division, SFU functions, conversions with their rounding modes,
// float comparisons (ordered, unordered, num/nan), setp with a combining predicate or two
// destinations, and the warp-level operations (shfl.sync, vote.sync, activemask,
// bar.warp.sync), each run on a functional warp against values computed by hand.
#include "translate_test_util.h"

#include <algorithm>

using namespace vgpu::ptx;
using vgpu::ptx::test::entry_text;
using vgpu::ptx::test::rule_prefix;
using vgpu::ptx::test::run_warp;
using vgpu::ptx::test::translate_text;

namespace {

struct rule_case {
    const char* ptx;
    std::uint32_t a, b, c;
    std::uint32_t expect;
};

constexpr std::uint32_t f1 = 0x3f800000;     // 1.0f
constexpr std::uint32_t f2_5 = 0x40200000;   // 2.5f
constexpr std::uint32_t f3 = 0x40400000;     // 3.0f
constexpr std::uint32_t fm2_75 = 0xc0300000; // -2.75f
constexpr std::uint32_t f2_25 = 0x40100000;  // 2.25f
constexpr std::uint32_t f4 = 0x40800000;     // 4.0f
constexpr std::uint32_t qnan = 0x7fc00000;
constexpr std::uint32_t tiny = 0x00000001; // the smallest subnormal
constexpr std::uint32_t m1 = 0xffffffffu;  // -1

const char* const to_r10 = "mov.b32 %r10, %f10;";
const char* const pred_r10 = "selp.u32 %r10, 1, 0, %p1;";

// Expected values by hand (the comments); fp32 bit patterns of decimal values written out.
const rule_case cases[] = {
    // div / rem
    {"div.rn.f32 %f10, %f2, %f3;", 0, f1, f3, 0x3eaaaaab},          // 1/3
    {"div.full.f32 %f10, %f2, %f3;", 0, f2_25, fm2_75, 0xbf51745d}, // -0.8181818
    {"div.approx.ftz.f32 %f10, %f2, %f3;", 0, f1, 0, 0x7f800000},   // 1/0 = inf
    {"div.rn.ftz.f32 %f10, %f2, %f3;", 0, tiny, f1, 0},             // flushed
    {"div.u32 %r10, %r2, %r3;", 0, 7, 2, 3},
    {"div.s32 %r10, %r2, %r3;", 0, 0xfffffff9u, 2, 0xfffffffdu}, // -7/2 = -3
    {"div.u32 %r10, %r2, %r3;", 0, 7, 0, m1},                    // by zero: all ones
    {"rem.u32 %r10, %r2, %r3;", 0, 7, 0, 7},                     // by zero: the dividend
    {"rem.s32 %r10, %r2, %r3;", 0, 0xfffffff9u, 2, m1},          // -7 % 2 = -1
    {"rem.u32 %r10, %r2, 5;", 0, 23, 0, 3},
    // SFU
    {"ex2.approx.f32 %f10, %f2;", 0, f3, 0, 0x41000000},          // 8
    {"ex2.approx.ftz.f32 %f10, %f2;", 0, 0xc3140000, 0, 0},       // 2^-148 flushed
    {"ex2.approx.f32 %f10, %f2;", 0, 0xc3140000, 0, 2},           // 2^-148 subnormal
    {"lg2.approx.f32 %f10, %f2;", 0, 0x41000000, 0, f3},          // log2(8) = 3
    {"rcp.approx.f32 %f10, %f2;", 0, f4, 0, 0x3e800000},          // 0.25
    {"rcp.rn.f32 %f10, %f2;", 0, fm2_75, 0, 0xbeba2e8c},          // -0.36363637
    {"rsqrt.approx.f32 %f10, %f2;", 0, f4, 0, 0x3f000000},        // 0.5
    {"sqrt.rn.f32 %f10, %f2;", 0, f2_25, 0, 0x3fc00000},          // 1.5
    {"sqrt.approx.f32 %f10, %f2;", 0, 0x40000000, 0, 0x3fb504f3}, // sqrt(2)
    {"sin.approx.f32 %f10, %f2;", 0, 0, 0, 0},                    // sin 0
    {"cos.approx.ftz.f32 %f10, %f2;", 0, 0x80000000, 0, f1},      // cos -0
    // cvt
    {"cvt.rni.f32.f32 %f10, %f2;", 0, f2_5, 0, 0x40000000},        // 2 (even)
    {"cvt.rzi.f32.f32 %f10, %f2;", 0, fm2_75, 0, 0xc0000000},      // -2
    {"cvt.rmi.f32.f32 %f10, %f2;", 0, fm2_75, 0, 0xc0400000},      // -3
    {"cvt.rpi.f32.f32 %f10, %f2;", 0, fm2_75, 0, 0xc0000000},      // -2
    {"cvt.rni.sat.f32.f32 %f10, %f2;", 0, f2_5, 0, f1},            // 2 -> 1
    {"cvt.ftz.f32.f32 %f10, %f2;", 0, 0x80000001, 0, 0x80000000},  // -0
    {"cvt.rn.f32.u32 %f10, %r2;", 0, m1, 0, 0x4f800000},           // 2^32
    {"cvt.rz.f32.u32 %f10, %r2;", 0, m1, 0, 0x4f7fffff},           // below 2^32
    {"cvt.rm.f32.s32 %f10, %r2;", 0, 0xfefffffful, 0, 0xcb800001}, // -16777217 -> -16777218
    {"cvt.rp.f32.s32 %f10, %r2;", 0, 16777217, 0, 0x4b800001},     // 16777218
    {"cvt.rni.s32.f32 %r10, %f2;", 0, f2_5, 0, 2},
    {"cvt.rmi.s32.f32 %r10, %f2;", 0, fm2_75, 0, 0xfffffffdu},    // -3
    {"cvt.rpi.u32.f32 %r10, %f2;", 0, fm2_75, 0, 0},              // saturates at 0
    {"cvt.rzi.u32.f32 %r10, %f2;", 0, qnan, 0, 0},                // NaN -> 0
    {"cvt.rzi.s32.f32 %r10, %f2;", 0, 0x4f000000, 0, 0x7fffffff}, // 2^31 saturates
    // float compares
    {"setp.ne.f32 %p1, %f2, %f3;", 0, qnan, f1, 0}, // ordered: NaN false
    {"setp.ne.f32 %p1, %f2, %f3;", 0, f3, f1, 1},
    {"setp.equ.f32 %p1, %f2, %f3;", 0, qnan, f1, 1},
    {"setp.ltu.f32 %p1, %f2, %f3;", 0, f3, f1, 0},
    {"setp.geu.f32 %p1, %f2, %f3;", 0, qnan, qnan, 1},
    {"setp.num.f32 %p1, %f2, %f3;", 0, f3, qnan, 0},
    {"setp.nan.f32 %p1, %f2, %f3;", 0, f3, qnan, 1},
    {"setp.eq.ftz.f32 %p1, %f2, %f3;", 0, tiny, 0, 1},
    // combining predicate and two destinations; %p2 = (%r1 != 0)
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.and.s32 %p1, %r2, %r3, %p2;", 1, 2, 3, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.and.s32 %p1, %r2, %r3, %p2;", 0, 2, 3, 0},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.or.f32 %p1, %f2, %f3, !%p2;", 1, f3, f1, 0},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.or.f32 %p1, %f2, %f3, !%p2;", 0, f3, f1, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.xor.u32 %p1, %r2, %r3, %p2;", 1, 2, 3, 0},
    // c is the destination itself: p = (a < b) and p
    {"setp.ne.s32 %p1, %r1, 0;\nsetp.lt.and.s32 %p1, %r2, %r3, %p1;", 1, 2, 3, 1},
    // p|q: q is the complement (with combining: !(a < b) and c)
    {"setp.ge.s32 %p3|%p1, %r2, %r3;", 0, 2, 3, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.ltu.and.f32 %p3|%p1, %f2, %f3, %p2;", 1, f3, f1, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.lt.or.s32 %p2|%p1, %r2, %r3, %p2;", 0, 2, 3, 0},
    // guarded by p, which it writes first: q's write still obeys the old p
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.eq.s32 %p1, %r1, 0;\n@%p2 setp.lt.s32 %p2|%p1, %r2, %r3;", 1,
     3, 2, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nsetp.eq.s32 %p1, %r1, 0;\nsetp.eq.s32 %p3, %r1, 0;\n"
     "@%p2 setp.lt.or.s32 %p2|%p1, %r2, %r3, %p3;",
     1, 3, 2, 1},
    // warp-level on one lane
    {"activemask.b32 %r10;", 0, 0, 0, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nvote.sync.ballot.b32 %r10, %p2, -1;", 5, 0, 0, 1},
    {"setp.ne.s32 %p2, %r1, 0;\nvote.sync.all.pred %p1, !%p2, 1;", 5, 0, 0, 0},
    {"shfl.sync.idx.b32 %r10, %r2, 0, 31, -1;", 0, 42, 0, 42},
    {"bar.warp.sync -1;\nmov.u32 %r10, 9;", 0, 0, 0, 9},
    // multiply high and 24-bit
    {"mul.hi.u32 %r10, %r2, %r3;", 0, m1, m1, 0xfffffffeu},              // (2^32 - 1)^2 >> 32
    {"mul.hi.s32 %r10, %r2, %r3;", 0, m1, m1, 0},                        // (-1)(-1) = 1
    {"mul.hi.s32 %r10, %r2, %r3;", 0, 0x80000000u, 2, m1},               // -2^32 >> 32 = -1
    {"mad.hi.u32 %r10, %r2, %r3, %r1;", 5, 0x10000, 0x10000, 6},         // 2^32 >> 32 + 5
    {"mul24.lo.u32 %r10, %r2, %r3;", 0, 0x1000001, 2, 2},                // only the low 24 bits
    {"mul24.hi.s32 %r10, %r2, %r3;", 0, 0x800000, 0x800000, 0x40000000}, // (-2^23)^2 >> 16
    {"mad24.lo.s32 %r10, %r2, %r3, %r1;", 10, 0xffffff, 3, 7},           // -1 * 3 + 10
    // bit counts and fields
    {"popc.b32 %r10, %r2;", 0, 0xf0f0, 0, 8},
    {"clz.b32 %r10, %r2;", 0, 0x10000, 0, 15},
    {"clz.b32 %r10, %r2;", 0, 0, 0, 32},
    {"brev.b32 %r10, %r2;", 0, 1, 0, 0x80000000u},
    {"bfind.u32 %r10, %r2;", 0, 0x10000, 0, 16},
    {"bfind.u32 %r10, %r2;", 0, 0, 0, m1},
    {"bfind.s32 %r10, %r2;", 0, 0xfffffff0u, 0, 3}, // -16: the highest 0 is bit 3
    {"bfind.shiftamt.u32 %r10, %r2;", 0, 1, 0, 31},
    {"bfe.u32 %r10, %r2, 8, 8;", 0, 0x12345678, 0, 0x56},
    {"bfe.s32 %r10, %r2, %r3, 4;", 0, 0xf000, 12, m1}, // field 0xf, negative
    {"bfe.s32 %r10, %r2, 4, 0;", 0, 0xf0, 0, 0},       // len 0
    {"bfi.b32 %r10, %r2, %r3, 8, 8;", 0, 0xab, 0x11111111, 0x1111ab11},
    {"bfi.b32 %r10, %r2, %r3, %r1, 4;", 4, 0xf, 0, 0xf0},
    {"prmt.b32 %r10, %r2, %r3, 0x3210;", 0, 0x11223344, 0x55667788, 0x11223344},
    {"prmt.b32 %r10, %r2, %r3, 0x7654;", 0, 0x11223344, 0x55667788, 0x55667788},
    {"prmt.b32 %r10, %r2, %r3, 0x0088;", 0, 0x80, 0, 0x8080ffff}, // sign of byte 0 twice
    {"prmt.b32.rc8 %r10, %r2, %r3, 1;", 0, 0x11223344, 0, 0x33333333},
    {"prmt.b32.ecr %r10, %r2, %r3, 1;", 0, 0x11223344, 0, 0x33333344},
    // copysign, abs, ftz forms, testp
    {"copysign.f32 %f10, %f2, %f3;", 0, 0xbf800000u, f2_5, 0xc0200000u}, // -2.5
    {"abs.s32 %r10, %r2;", 0, 0xfffffffbu, 0, 5},
    {"abs.s32 %r10, %r2;", 0, 0x80000000u, 0, 0x80000000u},
    {"abs.ftz.f32 %f10, %f2;", 0, 0x80000001u, 0, 0},
    {"neg.ftz.f32 %f10, %f2;", 0, tiny, 0, 0x80000000u},
    {"min.ftz.f32 %f10, %f2, %f3;", 0, tiny, 0x80000001u, 0x80000000u}, // +0 vs -0
    {"max.ftz.f32 %f10, %f2, %f3;", 0, f3, tiny, f3},
    {"testp.finite.f32 %p1, %f2;", 0, 0x7f800000, 0, 0},
    {"testp.subnormal.f32 %p1, %f2;", 0, tiny, 0, 1},
    {"testp.notanumber.f32 %p1, %f2;", 0, qnan, 0, 1},
    {"testp.normal.f32 %p1, %f2;", 0, f1, 0, 1},
};

} // namespace

TEST_CASE("division, SFU, conversion and compare rules compute the hand-computed value")
{
    for (const rule_case& c : cases) {
        const std::string p = c.ptx;
        const bool fp = p.find("%f10") != std::string::npos;
        const bool pr = p.find("%p1,") != std::string::npos || p.find("|%p1") != std::string::npos;
        const std::string body = std::string(rule_prefix) + p + "\n" +
                                 (fp   ? to_r10
                                  : pr ? pred_r10
                                       : "") +
                                 "\nst.global.u32 [%rd2+4], %r10;\nret;";
        INFO(c.ptx);
        const translation t = translate_text(entry_text(body));
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        const auto r = run_warp(t, {0x1000, c.a, c.b, c.c, 0}, {}, 1);
        REQUIRE(r.error.empty());
        const auto it = r.mem.find(0x1004);
        REQUIRE(it != r.mem.end());
        CHECK(it->second == c.expect);
    }
}

TEST_CASE("shfl.sync, vote.sync and activemask on a full and a divergent warp")
{
    // Lane l holds 10 * l; results at 0x1000 + 4 * l (down 3), 0x2000 (bfly 5 with width 8),
    // 0x3000 (ballot of odd lanes), 0x4000 (vote.any of l == 7 among lanes < 16, taken by
    // lanes < 16 only, with their active mask as the membermask).
    const std::string body = "ld.param.u64 %rd1, [k_p0];\n"
                             "mov.u32 %r1, %tid.x;\n"
                             "mul.lo.s32 %r2, %r1, 10;\n"
                             "mul.wide.u32 %rd2, %r1, 4;\n"
                             "add.s64 %rd3, %rd1, %rd2;\n"
                             "shfl.sync.down.b32 %r3, %r2, 3, 31, -1;\n"
                             "st.global.u32 [%rd3], %r3;\n"
                             "shfl.sync.bfly.b32 %r4, %r2, 5, 6175, -1;\n" // 0x181f: width 8
                             "st.global.u32 [%rd3+4096], %r4;\n"
                             "and.b32 %r5, %r1, 1;\n"
                             "setp.eq.s32 %p1, %r5, 1;\n"
                             "vote.sync.ballot.b32 %r6, %p1, -1;\n"
                             "st.global.u32 [%rd3+8192], %r6;\n"
                             "setp.ge.u32 %p2, %r1, 16;\n"
                             "@%p2 bra DONE;\n"
                             "activemask.b32 %r7;\n"
                             "setp.eq.s32 %p3, %r1, 7;\n"
                             "vote.sync.any.pred %p4, %p3, %r7;\n"
                             "selp.u32 %r8, 1, 0, %p4;\n"
                             "add.s32 %r8, %r8, %r7;\n"
                             "st.global.u32 [%rd3+12288], %r8;\n"
                             "DONE:\n"
                             "ret;";
    const translation t = translate_text(entry_text(body));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    INFO(t.text);
    const auto r = run_warp(t, {0x1000}, {}, 32);
    REQUIRE(r.error.empty());
    for (unsigned l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(r.mem.at(0x1000 + 4 * l) == (l + 3 < 32 ? 10 * (l + 3) : 10 * l));
        CHECK(r.mem.at(0x2000 + 4 * l) == 10 * (l ^ 5)); // l ^ 5 stays in l's group of 8
        CHECK(r.mem.at(0x3000 + 4 * l) == 0xaaaaaaaau);
        if (l < 16)
            CHECK(r.mem.at(0x4000 + 4 * l) == 0xffffu + 1);
        else
            CHECK(r.mem.count(0x4000 + 4 * l) == 0);
    }
    // A full membermask under divergence: the lanes that shuffle wait for the others, which
    // exit (Volta's convergence; test_ptx_converge.cpp has the loop and the error case).
    const std::string bad = "mov.u32 %r1, %tid.x;\n"
                            "setp.ge.u32 %p2, %r1, 16;\n"
                            "@%p2 bra DONE;\n"
                            "shfl.sync.idx.b32 %r3, %r1, 0, 31, -1;\n"
                            "DONE:\n"
                            "ret;";
    const translation tb = translate_text(entry_text(bad));
    REQUIRE(tb.ok());
    const auto rb = run_warp(tb, {0x1000}, {}, 32);
    CHECK(rb.error.empty());
}

TEST_CASE("forms still outside the ISA are located errors")
{
    struct bad {
        const char* line;
        const char* message;
    };
    const bad cases[] = {
        {"div.rz.f32 %f1, %f2, %f3;",
         "t.ptx:11:1: error: unsupported 'div.rz.f32': FDIV rounds to nearest (div.rn, "
         "div.full, div.approx)"},
        {"tanh.approx.f32 %f1, %f2;", "t.ptx:11:1: error: unsupported 'tanh.approx.f32'"},
        {"sqrt.rz.f32 %f1, %f2;",
         "t.ptx:11:1: error: unsupported 'sqrt.rz.f32': the SFU has ex2/lg2/rcp/rsqrt/sqrt/sin/"
         "cos.approx and rcp/sqrt.rn (f32)"},
        {"cvt.f32.u32 %f1, %r1;",
         "t.ptx:11:1: error: unsupported 'cvt.f32.u32': a conversion needs its rounding "
         "modifier (PTX requires one)"},
        {"shfl.sync.up.b32 %r1|%p1, %r2, 1, 0, -1;",
         "t.ptx:11:1: error: unsupported 'shfl.sync.up.b32': the predicate output of shfl (d|p) "
         "is not in the ISA yet"},
        {"shfl.down.b32 %r1, %r2, 1, 31;",
         "t.ptx:11:1: error: unsupported 'shfl.down.b32': only the .sync forms of warp "
         "operations (PTX 6.0)"},
        {"setp.lt.and.b64 %p1, %rd1, %rd2, %p2;", // .b64 compares for equality only
         "t.ptx:11:1: error: unsupported 'setp.lt.and.b64'"},
    };
    for (const bad& b : cases) {
        INFO(b.line);
        const translation t = translate_text(entry_text(std::string(b.line) + "\nret;"));
        REQUIRE(t.errors.size() == 1);
        CHECK(t.errors[0] == b.message);
    }
}
