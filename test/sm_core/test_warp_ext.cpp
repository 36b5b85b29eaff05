// Unit tests of the division, SFU, conversion, float-compare and warp-level instructions
// (FDIV, IDIV, MUFU, CVT, FSETPX, SHFL, VOTE, BALLOT, WARPSYNC): every form against the host's
// own computation, written here apart from the warp's code, with the IEEE edge cases (NaN,
// infinities, subnormals with and without .FTZ, overflow, division by zero). See docs/isa.md.
#include "models/sm/core/assembler.h"
#include "models/sm/core/warp.h"

#include <catch2/catch.hpp>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

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

program assemble_ok(std::string_view text)
{
    const auto res = assemble(text, {}, {"t.s", 1, 1});
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    return res.code;
}

launch_context cta(std::uint32_t n)
{
    launch_context c;
    c.ntid_x = n;
    return c;
}

/// Runs `text` (no memory accesses) on one warp of 32 lanes with R0, R1, R2 = a, b, c.
warp run_with(const program& p, const launch_context& ctx, const std::vector<std::uint32_t>& a,
              const std::vector<std::uint32_t>& b = {}, const std::vector<std::uint32_t>& c = {})
{
    warp w(p, ctx, 0);
    for (unsigned l = 0; l < warp_size; ++l) {
        w.set_reg(0, l, a.empty() ? 0 : a[l % a.size()]);
        w.set_reg(1, l, b.empty() ? 0 : b[l % b.size()]);
        w.set_reg(2, l, c.empty() ? 0 : c[l % c.size()]);
    }
    for (unsigned n = 0; n < 1000 && !w.done(); ++n) {
        const step_result r = w.step();
        if (r.kind == step_kind::error)
            FAIL("pc " << r.pc << ": " << r.message);
    }
    REQUIRE(w.done());
    return w;
}

/// Inputs 32 at a time through "OP R3, R0[, R1]"; returns R3 for every input.
std::vector<std::uint32_t> lanes_of(const std::string& op, const std::vector<std::uint32_t>& a,
                                    const std::vector<std::uint32_t>& b = {})
{
    const program p = assemble_ok(op + " R3, R0" + (b.empty() ? "" : ", R1") + "\nEXIT");
    const launch_context ctx = cta(32);
    std::vector<std::uint32_t> out;
    for (std::size_t base = 0; base < a.size(); base += warp_size) {
        std::vector<std::uint32_t> ca(warp_size), cb(warp_size);
        for (unsigned l = 0; l < warp_size; ++l) {
            ca[l] = a[(base + l) % a.size()];
            cb[l] = b.empty() ? 0 : b[(base + l) % b.size()];
        }
        const warp w = run_with(p, ctx, ca, cb);
        for (unsigned l = 0; l < warp_size && base + l < a.size(); ++l)
            out.push_back(w.reg(3, l));
    }
    return out;
}

/// Predicate P1 of "OP P1, R0, R1" for every input pair.
std::vector<bool> preds_of(const std::string& op, const std::vector<std::uint32_t>& a,
                           const std::vector<std::uint32_t>& b)
{
    const program p = assemble_ok(op + " P1, R0, R1\nEXIT");
    const launch_context ctx = cta(32);
    std::vector<bool> out;
    for (std::size_t base = 0; base < a.size(); base += warp_size) {
        std::vector<std::uint32_t> ca(warp_size), cb(warp_size);
        for (unsigned l = 0; l < warp_size; ++l) {
            ca[l] = a[(base + l) % a.size()];
            cb[l] = b[(base + l) % b.size()];
        }
        const warp w = run_with(p, ctx, ca, cb);
        for (unsigned l = 0; l < warp_size && base + l < a.size(); ++l)
            out.push_back(w.pred(1, l));
    }
    return out;
}

// Interesting fp32 values: zeros, subnormals, normals, extremes, infinities, NaNs.
const std::vector<std::uint32_t> special_floats = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
    0x80800000, 0x3f800000, 0xbf800000, 0x3fc00000, 0xc0200000, 0x40490fdb, 0x7f7fffff,
    0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x3effffff,
    0x3f000000, 0x3f000001, 0xbf000000, 0x4b000000, 0x4b7fffff, 0xcf000000, 0x4f000000,
    0x4f800000, 0xcf000001, 0x42fe0000, 0xc2fe0000, 0x3e800000, 0x1e3ce508, 0x0a000000};

std::vector<std::uint32_t> with_random(unsigned seed, std::size_t n)
{
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> v = special_floats;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(static_cast<std::uint32_t>(rng()));
    return v;
}

bool subnormal(std::uint32_t b)
{
    return (b & 0x7f800000u) == 0 && (b & 0x7fffffu) != 0;
}
/// The reference's flush-to-zero: a subnormal becomes a zero of its sign.
std::uint32_t ftz_ref(std::uint32_t b)
{
    return subnormal(b) ? (b & 0x80000000u) : b;
}
/// The reference's result rule: NaN is 0x7fffffff, subnormals flushed when ftz.
std::uint32_t result_ref(float f, bool ftz)
{
    if (f != f)
        return 0x7fffffffu;
    return ftz ? ftz_ref(bits_of(f)) : bits_of(f);
}

unsigned test_seed()
{
    return Catch::rngSeed() ? Catch::rngSeed() : 20261202u;
}

} // namespace

TEST_CASE("FDIV is the IEEE quotient, with and without FTZ", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    const std::vector<std::uint32_t> a = with_random(seed, 200);
    std::vector<std::uint32_t> b = with_random(seed + 1, 200);
    std::rotate(b.begin(), b.begin() + 7, b.end());
    for (const bool ftz : {false, true}) {
        const auto got = lanes_of(ftz ? "FDIV.FTZ" : "FDIV", a, b);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::uint32_t x = ftz ? ftz_ref(a[i]) : a[i];
            const std::uint32_t y = ftz ? ftz_ref(b[i]) : b[i];
            const volatile float q = float_of(x) / float_of(y);
            INFO(std::hex << a[i] << " / " << b[i] << " ftz " << ftz);
            CHECK(got[i] == result_ref(q, ftz));
        }
    }
    // Division by zero, 0/0, inf/inf and overflow by hand.
    const auto z = lanes_of("FDIV", {0x3f800000, 0xbf800000, 0, 0x7f800000, 0x7f7fffff, 0x00000001},
                            {0, 0, 0, 0x7f800000, 0x3e800000, 0x4f800000});
    CHECK(z == std::vector<std::uint32_t>{0x7f800000, 0xff800000, 0x7fffffff, 0x7fffffff,
                                          0x7f800000, 0});
    // A subnormal quotient survives without FTZ and is flushed with it.
    CHECK(lanes_of("FDIV", {0x00800000}, {0x40000000})[0] == 0x00400000);
    CHECK(lanes_of("FDIV.FTZ", {0x00800000}, {0x40000000})[0] == 0);
}

TEST_CASE("IDIV divides and takes remainders of signed and unsigned words", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> a = {7, 0xfffffff9u, 7, 0xfffffff9u, 0x80000000u, 0x80000000u, 5, 0};
    std::vector<std::uint32_t> b = {2, 2, 0xfffffffeu, 0xfffffffeu, 0xffffffffu, 1, 0, 0};
    for (int i = 0; i < 120; ++i) {
        a.push_back(static_cast<std::uint32_t>(rng()));
        b.push_back(static_cast<std::uint32_t>(rng()) >> (rng() % 32));
    }
    const auto du = lanes_of("IDIV.U", a, b), ru = lanes_of("IDIV.U.REM", a, b);
    const auto ds = lanes_of("IDIV.S", a, b), rs = lanes_of("IDIV.S.REM", a, b);
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO(a[i] << " / " << b[i]);
        if (b[i] == 0) { // all ones, remainder = dividend
            CHECK(du[i] == 0xffffffffu);
            CHECK(ds[i] == 0xffffffffu);
            CHECK(ru[i] == a[i]);
            CHECK(rs[i] == a[i]);
            continue;
        }
        CHECK(du[i] == a[i] / b[i]);
        CHECK(ru[i] == a[i] % b[i]);
        const std::int64_t x = static_cast<std::int32_t>(a[i]), y = static_cast<std::int32_t>(b[i]);
        // 64-bit host arithmetic: INT_MIN / -1 = 2^31 wraps to INT_MIN in 32 bits.
        CHECK(ds[i] == static_cast<std::uint32_t>(x / y));
        CHECK(rs[i] == static_cast<std::uint32_t>(x % y));
    }
    // By hand: -7 / 2 = -3 rem -1 (truncation), 7 / -2 = -3 rem 1, INT_MIN / -1 = INT_MIN.
    CHECK(ds[1] == 0xfffffffdu);
    CHECK(rs[1] == 0xffffffffu);
    CHECK(ds[2] == 0xfffffffdu);
    CHECK(rs[2] == 1);
    CHECK(ds[4] == 0x80000000u);
    CHECK(rs[4] == 0);
}

TEST_CASE("MUFU functions are the correctly rounded value, within PTX's stated error",
          "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> in = special_floats;
    std::uniform_real_distribution<float> mid(-100.0f, 100.0f), angle(-3.14159f, 3.14159f);
    for (int i = 0; i < 100; ++i) {
        in.push_back(bits_of(mid(rng)));
        in.push_back(bits_of(angle(rng)));
        in.push_back(static_cast<std::uint32_t>(rng()));
    }
    struct fn {
        const char* name;
        double (*ref)(double);
        double max_ulp; ///< PTX ISA's error bound (where stated in ulp) or 1 ulp
    };
    const fn fns[] = {
        {"EX2", [](double x) { return std::exp2(x); }, 2},
        {"LG2", [](double x) { return std::log2(x); }, 1},
        {"RCP", [](double x) { return 1.0 / x; }, 1},
        {"RSQ", [](double x) { return 1.0 / std::sqrt(x); }, 2},
        {"SQRT", [](double x) { return std::sqrt(x); }, 1},
        {"SIN", [](double x) { return std::sin(x); }, 1},
        {"COS", [](double x) { return std::cos(x); }, 1},
    };
    for (const fn& f : fns) {
        for (const bool ftz : {false, true}) {
            const auto got = lanes_of(std::string("MUFU.") + f.name + (ftz ? ".FTZ" : ""), in);
            for (std::size_t i = 0; i < in.size(); ++i) {
                const float x = float_of(ftz ? ftz_ref(in[i]) : in[i]);
                const long double exact = f.ref(x);
                INFO(f.name << " ftz " << ftz << " x " << std::hexfloat << x);
                CHECK(got[i] == result_ref(static_cast<float>(exact), ftz));
                const float g = float_of(got[i]);
                if (std::isfinite(g) && std::isfinite(static_cast<double>(exact)) && g != 0) {
                    const double ulp = std::nextafter(std::fabs(g), INFINITY) - std::fabs(g);
                    CHECK(std::fabs(static_cast<double>(g - exact)) <= f.max_ulp * ulp);
                }
            }
        }
    }
    // Special values by hand.
    // 2^-148 is the subnormal 0x00000002.
    CHECK(lanes_of("MUFU.EX2", {0xff800000, 0x7f800000, 0x00000000, 0x43000000, 0xc3140000}) ==
          std::vector<std::uint32_t>{0, 0x7f800000, 0x3f800000, 0x7f800000, 0x00000002});
    CHECK(lanes_of("MUFU.LG2", {0, 0x80000000, 0xbf800000, 0x7f800000, 0x40800000}) ==
          std::vector<std::uint32_t>{0xff800000, 0xff800000, 0x7fffffff, 0x7f800000, 0x40000000});
    CHECK(lanes_of("MUFU.RSQ", {0, 0x80000000, 0x7f800000, 0x40800000}) ==
          std::vector<std::uint32_t>{0x7f800000, 0xff800000, 0, 0x3f000000});
    CHECK(lanes_of("MUFU.RCP", {0x80000000})[0] == 0xff800000);
    CHECK(lanes_of("MUFU.SIN", {0x7f800000})[0] == 0x7fffffff);
    // FTZ: a subnormal input is zero, a subnormal result is zero.
    CHECK(lanes_of("MUFU.EX2.FTZ", {0xc3140000})[0] == 0);
    CHECK(lanes_of("MUFU.RCP.FTZ", {0x00000001})[0] == 0x7f800000);
}

TEST_CASE("MUFU.RCP_RN and MUFU.SQRT_RN are IEEE-exact", "[warp][ext]")
{
    const std::vector<std::uint32_t> in = with_random(test_seed(), 300);
    for (const bool ftz : {false, true}) {
        const auto r = lanes_of(ftz ? "MUFU.RCP_RN.FTZ" : "MUFU.RCP_RN", in);
        const auto s = lanes_of(ftz ? "MUFU.SQRT_RN.FTZ" : "MUFU.SQRT_RN", in);
        for (std::size_t i = 0; i < in.size(); ++i) {
            const float x = float_of(ftz ? ftz_ref(in[i]) : in[i]);
            const volatile float one = 1.0f;
            CHECK(r[i] == result_ref(one / x, ftz));
            CHECK(s[i] == result_ref(std::sqrt(x), ftz));
        }
    }
}

TEST_CASE("CVT rounds to integral values, between integers and floats, saturates", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    const std::vector<std::uint32_t> f = with_random(seed, 200);
    const char* const modes[] = {"RN", "RZ", "RM", "RP"};
    const int fe[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    for (int m = 0; m < 4; ++m) {
        INFO(modes[m]);
        // FRND: round to an integral float.
        const auto got = lanes_of(std::string("CVT.FRND.") + modes[m], f);
        const auto got_ftz = lanes_of(std::string("CVT.FRND.") + modes[m] + ".FTZ", f);
        const auto got_sat = lanes_of(std::string("CVT.FRND.") + modes[m] + ".SAT", f);
        // Float to int, signed and unsigned, saturating; int to float.
        const auto fs = lanes_of(std::string("CVT.F2I.") + modes[m] + ".S", f);
        const auto fu = lanes_of(std::string("CVT.F2I.") + modes[m] + ".U", f);
        const auto is = lanes_of(std::string("CVT.I2F.") + modes[m] + ".S", f);
        const auto iu = lanes_of(std::string("CVT.I2F.") + modes[m] + ".U", f);
        std::fesetround(fe[m]);
        for (std::size_t i = 0; i < f.size(); ++i) {
            const volatile float x = float_of(f[i]);
            INFO(std::hex << f[i]);
            const float r = std::nearbyint(x); // in the current rounding mode
            CHECK(got[i] == result_ref(r, false));
            CHECK(got_ftz[i] == result_ref(std::nearbyint(float_of(ftz_ref(f[i]))), true));
            const std::uint32_t sat = r != r || r <= 0 ? 0 : r >= 1 ? 0x3f800000 : bits_of(r);
            CHECK(got_sat[i] == sat);
            // Saturation by hand: NaN -> 0, beyond the range -> its end.
            std::uint32_t es, eu;
            if (x != x) {
                es = eu = 0;
            } else {
                es = r >= 2147483648.0f ? 0x7fffffffu
                     : r < -2147483648.0f
                         ? 0x80000000u
                         : static_cast<std::uint32_t>(static_cast<std::int32_t>(r));
                eu = r >= 4294967296.0f ? 0xffffffffu : r <= 0 ? 0 : static_cast<std::uint32_t>(r);
            }
            CHECK(fs[i] == es);
            CHECK(fu[i] == eu);
            const volatile std::int32_t si = static_cast<std::int32_t>(f[i]);
            const volatile std::uint32_t ui = f[i];
            CHECK(is[i] == bits_of(static_cast<float>(si))); // rounds in the current mode
            CHECK(iu[i] == bits_of(static_cast<float>(ui)));
        }
        std::fesetround(FE_TONEAREST);
    }
    // By hand: rni of 2.5 is 2, rpi of -0.5 is -0, rmi of -0.5 is -1; 2^24 + 1 = 16777217 is
    // not an fp32: RN gives 2^24 (even), RP 2^24 + 2; u32 max RZ gives 0x4f7fffff.
    CHECK(lanes_of("CVT.FRND.RN", {0x40200000})[0] == 0x40000000);
    CHECK(lanes_of("CVT.FRND.RP", {0xbf000000})[0] == 0x80000000);
    CHECK(lanes_of("CVT.FRND.RM", {0xbf000000})[0] == 0xbf800000);
    CHECK(lanes_of("CVT.I2F.RN.S", {16777217})[0] == 0x4b800000);
    CHECK(lanes_of("CVT.I2F.RP.S", {16777217})[0] == 0x4b800001);
    CHECK(lanes_of("CVT.I2F.RZ.U", {0xffffffffu})[0] == 0x4f7fffff);
    CHECK(lanes_of("CVT.I2F.RN.U", {0xffffffffu})[0] == 0x4f800000);
    // F2F: ftz and sat only; NaN becomes the canonical NaN, or +0 with SAT.
    CHECK(lanes_of("CVT.F2F.FTZ", {0x80000001, 0x3f800000, 0x7fc00001}) ==
          std::vector<std::uint32_t>{0x80000000, 0x3f800000, 0x7fffffff});
    CHECK(lanes_of("CVT.F2F.SAT", {0xbf800000, 0x40000000, 0x3f000000, 0x7fc00000, 0x80000000}) ==
          std::vector<std::uint32_t>{0, 0x3f800000, 0x3f000000, 0, 0});
    // F2I.FTZ: a positive subnormal rounded up is 1 without FTZ and 0 with it.
    CHECK(lanes_of("CVT.F2I.RP.S", {0x00000001})[0] == 1);
    CHECK(lanes_of("CVT.F2I.RP.S.FTZ", {0x00000001})[0] == 0);
}

TEST_CASE("FSETPX has PTX's ordered, unordered, num/nan comparisons and testp classes",
          "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::vector<std::uint32_t> a = with_random(seed, 60), b = a;
    std::shuffle(b.begin(), b.end(), std::mt19937(seed));
    a.insert(a.end(), {0, 0x80000000, 0x7fc00000, 0x3f800000, 0x00000001});
    b.insert(b.end(), {0x80000000, 0, 0x7fc00000, 0x3f800000, 0x80000001});
    struct cmp {
        const char* name;
        bool (*ref)(float, float);
    };
    const cmp cmps[] = {
        {"EQ", [](float x, float y) { return x == y; }},
        {"NE", [](float x, float y) { return std::islessgreater(x, y); }},
        {"LT", [](float x, float y) { return std::isless(x, y); }},
        {"LE", [](float x, float y) { return std::islessequal(x, y); }},
        {"GT", [](float x, float y) { return std::isgreater(x, y); }},
        {"GE", [](float x, float y) { return std::isgreaterequal(x, y); }},
        {"EQU", [](float x, float y) { return std::isunordered(x, y) || x == y; }},
        {"NEU", [](float x, float y) { return !(x == y); }},
        {"LTU", [](float x, float y) { return !std::isgreaterequal(x, y); }},
        {"LEU", [](float x, float y) { return !std::isgreater(x, y); }},
        {"GTU", [](float x, float y) { return !std::islessequal(x, y); }},
        {"GEU", [](float x, float y) { return !std::isless(x, y); }},
        {"NUM", [](float x, float y) { return !std::isunordered(x, y); }},
        {"NAN", [](float x, float y) { return std::isunordered(x, y); }},
        {"FINITE",
         [](float x, float) {
             return std::fpclassify(x) != FP_INFINITE && std::fpclassify(x) != FP_NAN;
         }},
        {"INFINITE", [](float x, float) { return std::fpclassify(x) == FP_INFINITE; }},
        {"NUMBER", [](float x, float) { return std::fpclassify(x) != FP_NAN; }},
        {"NOTANUMBER", [](float x, float) { return std::fpclassify(x) == FP_NAN; }},
        {"NORMAL", [](float x, float) { return std::fpclassify(x) == FP_NORMAL; }},
        {"SUBNORMAL", [](float x, float) { return std::fpclassify(x) == FP_SUBNORMAL; }},
    };
    for (const cmp& c : cmps) {
        for (const bool ftz : {false, true}) {
            const auto got = preds_of(std::string("FSETPX.") + c.name + (ftz ? ".FTZ" : ""), a, b);
            for (std::size_t i = 0; i < a.size(); ++i) {
                const float x = float_of(ftz ? ftz_ref(a[i]) : a[i]);
                const float y = float_of(ftz ? ftz_ref(b[i]) : b[i]);
                INFO(c.name << " " << std::hex << a[i] << " " << b[i] << " ftz " << ftz);
                CHECK(got[i] == c.ref(x, y));
            }
        }
    }
    // By hand: NE is false with a NaN (FSETP.NE is true), -0 == +0, ftz makes subnormals 0.
    CHECK(preds_of("FSETPX.NE", {0x7fc00000}, {0x3f800000})[0] == false);
    CHECK(preds_of("FSETPX.EQ", {0}, {0x80000000})[0] == true);
    CHECK(preds_of("FSETPX.EQ.FTZ", {0x00000001}, {0x80000001})[0] == true);
    CHECK(preds_of("FSETPX.EQ", {0x00000001}, {0x80000001})[0] == false);
}

namespace {

/// CUDA's definition of __shfl_*_sync(~0, v, x, width) for lane l (CUDA Programming Guide,
/// warp shuffle functions), written apart from the PTX formula the warp implements.
std::uint32_t cuda_shfl(const std::string& mode, const std::vector<std::uint32_t>& v, unsigned l,
                        unsigned x, unsigned width)
{
    const unsigned seg = l / width * width;
    if (mode == "UP")
        return l - seg >= x ? v[l - x] : v[l];
    if (mode == "DOWN")
        return l - seg + x < width ? v[l + x] : v[l];
    if (mode == "BFLY") // earlier groups may be read, later ones not
        return (l ^ x) < seg + width ? v[l ^ x] : v[l];
    return v[seg + x % width]; // IDX
}

} // namespace

TEST_CASE("SHFL exchanges values as CUDA's shuffles, for every mode and width", "[warp][ext]")
{
    std::vector<std::uint32_t> v(warp_size);
    for (unsigned l = 0; l < warp_size; ++l)
        v[l] = 1000 + l * 7;
    const launch_context ctx = cta(32);
    for (const char* mode : {"UP", "DOWN", "BFLY", "IDX"}) {
        for (const unsigned width : {32u, 16u, 8u, 4u, 2u, 1u}) {
            for (const unsigned x : {0u, 1u, 2u, 3u, 5u, 16u, 31u}) {
                // c as the CUDA headers build it: up: (32 - width) << 8; others: | 0x1f.
                const std::uint32_t c =
                    ((32 - width) << 8) | (std::string(mode) == "UP" ? 0u : 0x1fu);
                const program p =
                    assemble_ok(std::string("SHFL.") + mode + " R3, R0, " + std::to_string(x) +
                                ", " + std::to_string(c) + "\nEXIT");
                const warp w = run_with(p, ctx, v);
                for (unsigned l = 0; l < warp_size; ++l) {
                    INFO(mode << " width " << width << " x " << x << " lane " << l);
                    CHECK(w.reg(3, l) == cuda_shfl(mode, v, l, x, width));
                }
            }
        }
    }
    // The source lane read from a register operand, the destination the source register.
    const program p = assemble_ok("SHFL.IDX R0, R0, R1, 31\nEXIT");
    std::vector<std::uint32_t> lane(warp_size);
    for (unsigned l = 0; l < warp_size; ++l)
        lane[l] = (l * 5 + 3) % 32;
    const warp w = run_with(p, ctx, v, lane);
    for (unsigned l = 0; l < warp_size; ++l)
        CHECK(w.reg(0, l) == v[lane[l]]);
}

TEST_CASE("VOTE, BALLOT and the active mask over the membermask's lanes", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const launch_context ctx = cta(32);
    for (int n = 0; n < 50; ++n) {
        const std::uint32_t pbits = n < 4 ? (n == 0   ? 0
                                             : n == 1 ? ~0u
                                                      : 1u << 5)
                                          : static_cast<std::uint32_t>(rng());
        const std::uint32_t mask = n % 3 == 0 ? ~0u : static_cast<std::uint32_t>(rng()) | 1u;
        const std::string m = std::to_string(static_cast<std::int32_t>(mask));
        const program p =
            assemble_ok("VOTE.ALL P1, P0, " + m + "\nVOTE.ANY P2, P0, " + m +
                        "\nVOTE.UNI P3, P0, " + m + "\nVOTE.ALL.NOT P4, P0, " + m +
                        "\nBALLOT R3, P0, " + m + "\nBALLOT.NOT R4, P0, " + m + "\nEXIT");
        warp w(p, ctx, 0);
        w.set_pred(0, pbits);
        // The warp is converged: every lane executes, the vote covers the mask's lanes.
        for (int s = 0; s < 10 && !w.done(); ++s)
            REQUIRE(w.step().kind != step_kind::error);
        const std::uint32_t in = pbits & mask;
        INFO(std::hex << pbits << " mask " << mask);
        for (unsigned l = 0; l < warp_size; ++l) {
            CHECK(w.pred(1, l) == (in == mask));
            CHECK(w.pred(2, l) == (in != 0));
            CHECK(w.pred(3, l) == (in == 0 || in == mask));
            CHECK(w.pred(4, l) == ((~pbits & mask) == mask));
            CHECK(w.reg(3, l) == in);
            CHECK(w.reg(4, l) == (~pbits & mask));
        }
    }
    // Under divergence BALLOT does not wait (activemask is BALLOT of a true predicate); the
    // convergence of vote.sync is WARPSYNC's (next case).
    const program p = assemble_ok("S2R R0, SR_LANEID\n"
                                  "ISETP.LT P1, R0, 10\n"
                                  "@!P1 BRA ELSE\n"
                                  "ISETP.EQ P2, RZ, RZ\n"
                                  "BALLOT R1, P2, -1\n"
                                  "ELSE: EXIT\n");
    warp w(p, ctx, 0);
    for (int s = 0; s < 10 && !w.done(); ++s)
        REQUIRE(w.step().kind != step_kind::error);
    for (unsigned l = 0; l < 10; ++l)
        CHECK(w.reg(1, l) == 0x3ffu);
    const program q = assemble_ok("S2R R0, SR_LANEID\n"
                                  "ISETP.LT P1, R0, 10\n"
                                  "@!P1 BRA ELSE\n"
                                  "ISETP.EQ P2, RZ, RZ\n"
                                  "BALLOT R1, P2, 0x3ff\n"
                                  "VOTE.ALL P3, P2, 0x3ff\n"
                                  "WARPSYNC 0x3ff\n"
                                  "ELSE: EXIT\n");
    warp v(q, ctx, 0);
    // The lanes of the mask are the converged ones: WARPSYNC passes.
    for (int s = 0; s < 20 && !v.done(); ++s)
        REQUIRE(v.step().kind != step_kind::error);
    for (unsigned l = 0; l < 10; ++l) {
        CHECK(v.reg(1, l) == 0x3ffu);
        CHECK(v.pred(3, l));
    }
    CHECK(v.reg(1, 12) == 0);
}

TEST_CASE("WARPSYNC passes converged lanes and waits for lanes that diverged", "[warp][ext]")
{
    const launch_context ctx = cta(20); // lanes 20..31 do not exist: never waited for
    const program ok = assemble_ok("WARPSYNC -1\nWARPSYNC 0xfffff\nEXIT");
    warp w(ok, ctx, 0);
    for (int s = 0; s < 5 && !w.done(); ++s)
        REQUIRE(w.step().kind != step_kind::error);
    CHECK(w.done());
    // An exited lane is not waited for either.
    const program ex = assemble_ok("S2R R0, SR_LANEID\nISETP.LT P0, R0, 4\n@P0 EXIT\n"
                                   "WARPSYNC -1\nEXIT");
    warp e(ex, ctx, 0);
    for (int s = 0; s < 10 && !e.done(); ++s)
        REQUIRE(e.step().kind != step_kind::error);
    // Volta's convergence (warp_converge.cpp): a named lane that is guarded off goes on; the
    // lanes that did execute wait until it exits, then pass.
    const program g = assemble_ok("S2R R0, SR_LANEID\nISETP.LT P0, R0, 4\n@P0 WARPSYNC 0xff\nEXIT");
    warp h(g, ctx, 0);
    step_result r;
    for (int s = 0; s < 10 && !h.done(); ++s)
        REQUIRE(h.step().kind != step_kind::error);
    CHECK(h.done());
    // Lanes on a path laid out later are waited for: they run (and exit) first.
    const program d = assemble_ok("S2R R0, SR_LANEID\nISETP.LT P1, R0, 10\n@!P1 BRA ELSE\n"
                                  "WARPSYNC -1\nELSE: EXIT\n");
    const launch_context ctx32 = cta(32); // the warp keeps a pointer to its context
    warp dv(d, ctx32, 0);
    std::vector<std::uint32_t> pcs;
    for (int s = 0; s < 10 && !dv.done(); ++s) {
        r = dv.step();
        REQUIRE(r.kind != step_kind::error);
        pcs.push_back(r.pc);
    }
    CHECK(dv.done());
    CHECK(pcs == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 3, 4}); // wait, exit, pass, exit
    // Lanes waiting for each other at two different WARPSYNCs: a located execution error.
    const program two = assemble_ok("S2R R0, SR_LANEID\nISETP.LT P1, R0, 10\n@!P1 BRA ELSE\n"
                                    "WARPSYNC -1\nEXIT\nELSE: WARPSYNC -1\nEXIT\n");
    warp tw(two, ctx32, 0);
    for (int s = 0; s < 10 && !tw.done(); ++s)
        r = tw.step();
    REQUIRE(r.kind == step_kind::error);
    CHECK(r.pc == 5);
    CHECK(r.message == "WARPSYNC membermask 0xffffffff waits for lanes 0x000003ff that wait at "
                       "PC 3 (lanes converge only at the same warp-synchronous instruction)");
}

TEST_CASE("the new forms assemble, disassemble and encode for every modifier", "[isa][ext]")
{
    const opcode ops[] = {opcode::FDIV,   opcode::IDIV, opcode::MUFU, opcode::CVT,
                          opcode::FSETPX, opcode::SHFL, opcode::VOTE, opcode::BALLOT,
                          opcode::IMADX,  opcode::BITS, opcode::BFX,  opcode::PRMT};
    unsigned forms = 0;
    for (const opcode op : ops) {
        for (unsigned m = 0; m < 128; ++m) {
            if (!mod_valid(op, m))
                continue;
            ++forms;
            instruction inst;
            inst.op = op;
            inst.mod = static_cast<std::uint8_t>(m);
            inst.dst = 3;
            const syntax s = info(op).form;
            inst.src[0] = s == syntax::vote || s == syntax::ballot ? pred(2) : reg(4);
            inst.src[1] = imm(0x1f);
            if (s == syntax::r_sssm)
                inst.src[2] = reg(7);
            if (s == syntax::r_sm)
                inst.src[1] = {};
            const std::string text = disassemble(inst);
            INFO(text);
            CHECK(parse_mod(op, mod_text(op, m).substr(mod_text(op, m).empty() ? 0 : 1)) ==
                  static_cast<std::uint8_t>(m));
            const auto res = assemble(text + "\nEXIT", {}, {"t.s", 1, 1});
            REQUIRE(res.ok());
            CHECK(res.code[0] == inst);
            const auto d = decode(encode(inst));
            REQUIRE(d);
            CHECK(*d == inst);
        }
        CHECK_FALSE(mod_valid(op, 127));
    }
    // FDIV 2, IDIV 4, MUFU 9 x 2, CVT 16 + 4 + 8 + 16, FSETPX 20 x 2, SHFL 4, VOTE 6, BALLOT 2,
    // IMADX 8, BITS 3 + 2 x 2, BFX 3, PRMT 7.
    CHECK(forms == 2 + 4 + 18 + 44 + 40 + 4 + 6 + 2 + 8 + 7 + 3 + 7);
    instruction w;
    w.op = opcode::WARPSYNC;
    w.src[0] = imm(0xffffffffu);
    CHECK(disassemble(w) == "WARPSYNC -1");
    CHECK(*decode(encode(w)) == w);
    // Errors: a missing or unknown modifier, a modifier on an op without any.
    const auto e1 = assemble("MUFU R1, R2\nEXIT\n", {}, {"t.s", 1, 1});
    REQUIRE(e1.errors.size() == 1);
    CHECK(e1.errors[0] == "t.s:1:1: error: MUFU needs a modifier (see docs/isa.md)");
    const auto e2 = assemble("CVT.I2F.RN R1, R2\nEXIT\n", {}, {"t.s", 1, 1});
    REQUIRE(e2.errors.size() == 1);
    CHECK(e2.errors[0] == "t.s:1:1: error: unknown modifier '.I2F.RN' on CVT (see docs/isa.md)");
    const auto e3 = assemble("WARPSYNC.ALL 1\nEXIT\n", {}, {"t.s", 1, 1});
    REQUIRE(e3.errors.size() == 1);
    CHECK(e3.errors[0] == "t.s:1:1: error: unexpected suffix '.ALL' on WARPSYNC");
    // A decoded word with an undefined modifier is no instruction.
    instruction bad;
    bad.op = opcode::MUFU;
    bad.dst = 1;
    bad.src[0] = reg(2);
    auto words = encode(bad);
    words[0] |= std::uint64_t{15} << 19; // MUFU function 15
    CHECK_FALSE(decode(words));
}

namespace {

/// Inputs 32 at a time through "OP R3, R0, R1, R2"; returns R3 for every input.
std::vector<std::uint32_t> lanes3_of(const std::string& op, const std::vector<std::uint32_t>& a,
                                     const std::vector<std::uint32_t>& b,
                                     const std::vector<std::uint32_t>& c)
{
    const program p = assemble_ok(op + " R3, R0, R1, R2\nEXIT");
    const launch_context ctx = cta(32);
    std::vector<std::uint32_t> out;
    for (std::size_t base = 0; base < a.size(); base += warp_size) {
        std::vector<std::uint32_t> ca(warp_size), cb(warp_size), cc(warp_size);
        for (unsigned l = 0; l < warp_size; ++l) {
            ca[l] = a[(base + l) % a.size()];
            cb[l] = b[(base + l) % b.size()];
            cc[l] = c[(base + l) % c.size()];
        }
        const warp w = run_with(p, ctx, ca, cb, cc);
        for (unsigned l = 0; l < warp_size && base + l < a.size(); ++l)
            out.push_back(w.reg(3, l));
    }
    return out;
}

std::vector<std::uint32_t> random_words(std::mt19937& rng, std::size_t n, bool small = false)
{
    std::vector<std::uint32_t> v = {0,           1,        0xffffffffu, 0x80000000u,
                                    0x7fffffffu, 0x800000, 0xffffff};
    while (v.size() < n)
        v.push_back(small ? static_cast<std::uint32_t>(rng() % 40)
                          : static_cast<std::uint32_t>(rng()));
    return v;
}

} // namespace

TEST_CASE("IMADX: multiply high, 24-bit multiplies, with the addend", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const auto a = random_words(rng, 200), b = random_words(rng, 200), c = random_words(rng, 200);
    for (unsigned m = 0; m < 8; ++m) {
        const std::string name = "IMADX" + mod_text(opcode::IMADX, m);
        const auto got = lanes3_of(name, a, b, c);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const bool sgn = m & 1, hi = m & 2, w24 = m & 4;
            std::uint64_t p;
            if (w24) {
                // The low 24 bits as a signed or unsigned 24-bit number.
                const std::int64_t x = sgn ? std::int64_t{static_cast<std::int32_t>(a[i] << 8) >> 8}
                                           : std::int64_t{a[i] & 0xffffff};
                const std::int64_t y = sgn ? std::int64_t{static_cast<std::int32_t>(b[i] << 8) >> 8}
                                           : std::int64_t{b[i] & 0xffffff};
                p = static_cast<std::uint64_t>(x * y);
                p = hi ? (p >> 16) : p;
            } else if (sgn) {
                p = static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a[i])} *
                                               static_cast<std::int32_t>(b[i]));
                p = hi ? (p >> 32) : p;
            } else {
                p = std::uint64_t{a[i]} * b[i];
                p = hi ? (p >> 32) : p;
            }
            INFO(name << " " << a[i] << " " << b[i] << " " << c[i]);
            CHECK(got[i] == static_cast<std::uint32_t>(p + c[i]));
        }
    }
}

TEST_CASE("BITS: popc, clz, brev and bfind against bit loops", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    auto a = random_words(rng, 300);
    for (unsigned k = 0; k < 32; ++k)
        a.push_back(1u << k);
    const auto popc = lanes_of("BITS.POPC", a), clz = lanes_of("BITS.CLZ", a),
               brev = lanes_of("BITS.BREV", a), fu = lanes_of("BITS.FIND.U", a),
               fs = lanes_of("BITS.FIND.S", a), fsh = lanes_of("BITS.FIND.U.SHIFTAMT", a),
               fssh = lanes_of("BITS.FIND.S.SHIFTAMT", a);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint32_t x = a[i];
        std::uint32_t ones = 0, lead = 0, rev = 0;
        int top = -1, top_s = -1;
        for (int k = 31; k >= 0; --k) {
            const std::uint32_t bit = (x >> k) & 1u;
            ones += bit;
            if (bit && top < 0)
                top = k;
            if (bit != (x >> 31) && top_s < 0)
                top_s = k;
            rev |= bit << (31 - k);
        }
        while (lead < 32 && !((x << lead) & 0x80000000u))
            ++lead;
        INFO(std::hex << x);
        CHECK(popc[i] == ones);
        CHECK(clz[i] == lead);
        CHECK(brev[i] == rev);
        CHECK(fu[i] == (top < 0 ? 0xffffffffu : static_cast<std::uint32_t>(top)));
        CHECK(fs[i] == (top_s < 0 ? 0xffffffffu : static_cast<std::uint32_t>(top_s)));
        CHECK(fsh[i] == (top < 0 ? 0xffffffffu : static_cast<std::uint32_t>(31 - top)));
        CHECK(fssh[i] == (top_s < 0 ? 0xffffffffu : static_cast<std::uint32_t>(31 - top_s)));
    }
}

TEST_CASE("BFX extracts and inserts bit fields as PTX bfe/bfi", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const auto a = random_words(rng, 400), b = random_words(rng, 400);
    // Positions and lengths up to 40 (beyond the word) and junk above the low 8 bits.
    std::vector<std::uint32_t> pos, len, packed;
    for (std::size_t i = 0; i < a.size(); ++i) {
        pos.push_back(static_cast<std::uint32_t>(rng() % 41) | (rng() % 2 ? 0xabc00 : 0));
        len.push_back(static_cast<std::uint32_t>(rng() % 41) | (rng() % 2 ? 0x5500 : 0));
        packed.push_back((pos.back() & 0xff) | (len.back() & 0xff) << 8);
    }
    const auto eu = lanes3_of("BFX.U", a, pos, len), es = lanes3_of("BFX.S", a, pos, len),
               ins = lanes3_of("BFX.INS", a, b, packed);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const unsigned p = pos[i] & 0xff, l = len[i] & 0xff;
        const std::uint64_t mask = l >= 64 ? ~0ull : (1ull << l) - 1;
        // Unsigned: the bits above the word read as 0.
        const std::uint64_t u = p >= 64 ? 0 : std::uint64_t{a[i]} >> p;
        const std::uint32_t ref_u = l == 0 ? 0 : static_cast<std::uint32_t>(u & mask);
        // Signed: the bits above the word read as the sign; the field is sign-extended.
        const std::int64_t sa = static_cast<std::int32_t>(a[i]);
        std::uint64_t sfield = static_cast<std::uint64_t>(sa >> std::min(p, 63u)) & mask;
        if (l > 0 && l < 64 && ((sfield >> (l - 1)) & 1))
            sfield |= ~mask;
        const std::uint32_t ref_s = l == 0 ? 0 : static_cast<std::uint32_t>(sfield);
        // Insert: the low l bits of a at p in b, nothing beyond bit 31.
        const std::uint64_t imask = p >= 32 ? 0 : (mask << p) & 0xffffffffull;
        const auto ref_i = static_cast<std::uint32_t>((b[i] & ~imask) |
                                                      ((std::uint64_t{a[i]} << (p % 64)) & imask));
        INFO(std::hex << a[i] << " pos " << std::dec << p << " len " << l);
        CHECK(eu[i] == ref_u);
        CHECK(es[i] == ref_s);
        CHECK(ins[i] == ref_i);
    }
}

TEST_CASE("PRMT selects bytes by nibbles and by PTX's fixed modes", "[warp][ext]")
{
    const unsigned seed = test_seed();
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const auto a = random_words(rng, 200), b = random_words(rng, 200), c = random_words(rng, 200);
    const auto got = lanes3_of("PRMT", a, b, c);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint8_t bytes[8] = {
            static_cast<std::uint8_t>(a[i]),       static_cast<std::uint8_t>(a[i] >> 8),
            static_cast<std::uint8_t>(a[i] >> 16), static_cast<std::uint8_t>(a[i] >> 24),
            static_cast<std::uint8_t>(b[i]),       static_cast<std::uint8_t>(b[i] >> 8),
            static_cast<std::uint8_t>(b[i] >> 16), static_cast<std::uint8_t>(b[i] >> 24)};
        std::uint32_t ref = 0;
        for (unsigned n = 0; n < 4; ++n) {
            const unsigned sel = (c[i] >> (4 * n)) & 15;
            const std::uint8_t v = bytes[sel % 8];
            const std::uint8_t out = sel >= 8 ? (v >= 0x80 ? 0xff : 0x00) : v;
            ref |= std::uint32_t{out} << (8 * n);
        }
        CHECK(got[i] == ref);
    }
    // The fixed modes on a = 0x33221100, b = 0x77665544 (byte k holds 0xkk / 0x11 * k), by
    // hand from the PTX ISA's table (result bytes 3..0).
    const std::uint32_t x = 0x33221100, y = 0x77665544;
    struct m {
        const char* mode;
        std::uint32_t expect[4];
    };
    const m modes[] = {
        {"F4E", {0x33221100, 0x44332211, 0x55443322, 0x66554433}},
        {"B4E", {0x55667700, 0x66770011, 0x77001122, 0x00112233}},
        {"RC8", {0x00000000, 0x11111111, 0x22222222, 0x33333333}},
        {"ECL", {0x33221100, 0x33221111, 0x33222222, 0x33333333}},
        {"ECR", {0x00000000, 0x11111100, 0x22221100, 0x33221100}},
        {"RC16", {0x11001100, 0x33223322, 0x11001100, 0x33223322}},
    };
    for (const m& md : modes)
        for (std::uint32_t s = 0; s < 4; ++s) {
            INFO(md.mode << " " << s);
            CHECK(lanes3_of(std::string("PRMT.") + md.mode, {x}, {y}, {s | 0x1230})[0] ==
                  md.expect[s]);
        }
}
