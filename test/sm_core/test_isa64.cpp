// Unit tests of the fp64 and 64-bit integer instructions on register pairs (DADD DMUL DFMA DFN
// DSETP DCVT I64 I64SETP, models/sm/core/isa64.h): every form run by a warp against the host's
// own double and 64-bit arithmetic, written here apart from lane_ops64.cpp, with the IEEE
// edge cases (NaN, infinities, subnormals, overflow, division by zero). Directed roundings are
// checked against error-free transformations (the exact error of the round-to-nearest result).
#include "models/sm/core/assembler.h"
#include "models/sm/core/function_units.h"
#include "models/sm/core/isa64.h"
#include "models/sm/core/warp.h"
#include "test/ptx/translate_test_util.h"
#include "tlm_bus/atomic_op.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace vgpu::sm;
using vgpu::test::bits;
using vgpu::test::canon;
using vgpu::test::dbl;
using vgpu::test::fbits;

namespace {

program assemble_ok(const std::string& text)
{
    const auto res = assemble(text, {}, {"t.s", 1, 1});
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    return res.code;
}

/// Runs "OP dst, R0, R2[, R6]" with the pairs R0:R1, R2:R3, R6:R7 set to a, b, c in each lane;
/// returns R4:R5 (or P1 as 0/1 for a predicate destination "P1"), one per input.
std::vector<std::uint64_t> run(const std::string& op, const std::vector<std::uint64_t>& a,
                               const std::vector<std::uint64_t>& b = {},
                               const std::vector<std::uint64_t>& c = {}, bool pred = false,
                               const std::string& srcs = "")
{
    const std::string ops =
        srcs.empty() ? std::string(" R0") + (b.empty() ? "" : ", R2") + (c.empty() ? "" : ", R6")
                     : srcs;
    const program p = assemble_ok(op + (pred ? " P1," : " R4,") + ops + "\nEXIT");
    launch_context ctx;
    ctx.ntid_x = warp_size;
    std::vector<std::uint64_t> out;
    for (std::size_t base = 0; base < a.size(); base += warp_size) {
        warp w(p, ctx, 0);
        auto set = [&](unsigned r, const std::vector<std::uint64_t>& v, unsigned l) {
            const std::uint64_t x = v.empty() ? 0 : v[(base + l) % v.size()];
            w.set_reg(r, l, static_cast<std::uint32_t>(x));
            w.set_reg(r + 1, l, static_cast<std::uint32_t>(x >> 32));
        };
        for (unsigned l = 0; l < warp_size; ++l) {
            set(0, a, l);
            set(2, b, l);
            set(6, c, l);
        }
        for (int n = 0; n < 10 && !w.done(); ++n) {
            const step_result r = w.step();
            if (r.kind == step_kind::error)
                FAIL(r.message);
        }
        REQUIRE(w.done());
        for (unsigned l = 0; l < warp_size && base + l < a.size(); ++l)
            out.push_back(pred ? std::uint64_t{w.pred(1, l)}
                               : (std::uint64_t{w.reg(5, l)} << 32 | w.reg(4, l)));
    }
    return out;
}

/// Doubles of every class, and random bit patterns.
std::vector<std::uint64_t> operands(std::mt19937_64& rng, std::size_t random)
{
    const double inf = std::numeric_limits<double>::infinity();
    const double sub = std::numeric_limits<double>::denorm_min();
    const double big = std::numeric_limits<double>::max();
    std::vector<std::uint64_t> v;
    for (double d :
         {0.0,    -0.0, 1.0,  -1.0, 0.5,  3.0, 1.0 / 3, -2.5,        1e300,
          -1e300, big,  -big, inf,  -inf, sub, -sub,    sub * 12345, 2.2250738585072014e-308,
          1e-310, 0.1,  7e22})
        v.push_back(bits(d));
    v.push_back(0x7ff8000000000000ull); // quiet NaN
    v.push_back(0xfff0000000000001ull); // signalling NaN, negative
    for (std::size_t k = 0; k < random; ++k)
        v.push_back(rng());
    return v;
}

/// Products of all pairs of the operand list (a and b vectors of the same length).
void cross(const std::vector<std::uint64_t>& x, std::vector<std::uint64_t>& a,
           std::vector<std::uint64_t>& b)
{
    for (const std::uint64_t p : x)
        for (const std::uint64_t q : x) {
            a.push_back(p);
            b.push_back(q);
        }
}

/// The correctly rounded result in mode m ("RZ", "RM", "RP") from the round-to-nearest r and
/// the sign of the exact error (exact - r): -1, 0, +1.
double directed(double r, int err, const std::string& m)
{
    if (err == 0 || !std::isfinite(r))
        return r;
    const double inf = std::numeric_limits<double>::infinity();
    const bool up = m == "RP" || (m == "RZ" && r < 0);
    if (up && err > 0)
        return std::nextafter(r, inf);
    if (!up && err < 0)
        return std::nextafter(r, -inf);
    return r;
}

int sgn(double e)
{
    return e > 0 ? 1 : e < 0 ? -1 : 0;
}

} // namespace

TEST_CASE("DADD DMUL DFMA DFN.DIV/SQRT/RCP round to nearest as the host's double arithmetic",
          "[isa64]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 640u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> a, b;
    cross(operands(rng, 30), a, b);
    std::vector<std::uint64_t> c(a.size());
    for (auto& x : c)
        x = rng() % 3 ? bits(std::ldexp(static_cast<double>(rng() % 1000000), -10)) : rng();
    const auto add = run("DADD", a, b), mul = run("DMUL", a, b), fma = run("DFMA", a, b, c);
    const auto div = run("DFN.DIV", a, b), sqrt = run("DFN.SQRT", a, {}, {}, false, " R0, RZ");
    const auto rcp = run("DFN.RCP", a, {}, {}, false, " R0, RZ");
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double x = dbl(a[i]), y = dbl(b[i]), z = dbl(c[i]);
        CAPTURE(i, a[i], b[i], c[i]);
        CHECK(add[i] == canon(x + y));
        CHECK(mul[i] == canon(x * y));
        CHECK(fma[i] == canon(std::fma(x, y, z)));
        CHECK(div[i] == canon(x / y));
        CHECK(sqrt[i] == canon(std::sqrt(x)));
        CHECK(rcp[i] == canon(1.0 / x));
    }
}

TEST_CASE("directed roundings of DADD DMUL DFN.DIV DFN.SQRT are the correctly rounded results",
          "[isa64]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 641u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::vector<std::uint64_t> a, b;
    for (int k = 0; k < 320; ++k) { // normal operands whose results stay normal
        a.push_back(bits((rng() % 2 ? -1 : 1) * std::ldexp(mant(rng), int(rng() % 200) - 100)));
        b.push_back(bits((rng() % 2 ? -1 : 1) * std::ldexp(mant(rng), int(rng() % 200) - 100)));
    }
    a.push_back(bits(1.0));
    b.push_back(bits(3.0));
    for (const std::string m : {"RZ", "RM", "RP"}) {
        CAPTURE(m);
        const auto add = run("DADD." + m, a, b), mul = run("DMUL." + m, a, b);
        const auto div = run("DFN.DIV." + m, a, b);
        const auto sq = run("DFN.SQRT." + m, a, {}, {}, false, " R0, RZ");
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double x = dbl(a[i]), y = dbl(b[i]);
            CAPTURE(x, y);
            const double s = x + y; // two-sum: the exact error of s
            const double bb = s - x;
            const double es = (x - (s - bb)) + (y - bb);
            CHECK(add[i] == bits(directed(s, sgn(es), m)));
            const double p = x * y;
            CHECK(mul[i] == bits(directed(p, sgn(std::fma(x, y, -p)), m)));
            const double q = x / y; // x - q*y exact; its sign over y's is the error's
            CHECK(div[i] == bits(directed(q, sgn(std::fma(-q, y, x)) * sgn(y), m)));
            const double ax = std::fabs(x), r = std::sqrt(ax);
            const double want = directed(r, sgn(std::fma(-r, r, ax)), m);
            CHECK(run("DFN.SQRT." + m, {bits(ax)}, {}, {}, false, " R0, RZ")[0] == bits(want));
            if (x < 0)
                CHECK(sq[i] == canon(std::sqrt(x)));
        }
    }
    // 1/3 in each mode, by hand.
    const std::uint64_t third = bits(1.0 / 3); // RN rounds down
    CHECK(run("DFN.DIV.RZ", {bits(1.0)}, {bits(3.0)})[0] == third);
    CHECK(run("DFN.DIV.RM", {bits(1.0)}, {bits(3.0)})[0] == third);
    CHECK(run("DFN.DIV.RP", {bits(1.0)}, {bits(3.0)})[0] == third + 1);
    CHECK(run("DFN.RCP.RP", {bits(3.0)}, {}, {}, false, " R0, RZ")[0] == third + 1);
    // Overflow: RZ gives the largest finite value, RN infinity.
    const double big = std::numeric_limits<double>::max();
    CHECK(run("DADD.RZ", {bits(big)}, {bits(big)})[0] == bits(big));
    CHECK(run("DADD", {bits(big)}, {bits(big)})[0] == bits(INFINITY));
    CHECK(run("DMUL.RM", {bits(big)}, {bits(-2.0)})[0] == bits(-INFINITY));
    // The rounding mode does not leak: a later round-to-nearest add.
    CHECK(run("DADD", {bits(1.0)}, {bits(std::ldexp(1.0, -53) * 1.5)})[0] ==
          bits(1.0 + std::ldexp(1.0, -52)));
}

TEST_CASE("DFN.MIN/MAX/ABS/NEG and DSETP follow the fp32 rules in double", "[isa64]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 642u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> a, b;
    cross(operands(rng, 6), a, b);
    const auto mn = run("DFN.MIN", a, b), mx = run("DFN.MAX", a, b);
    const auto ab = run("DFN.ABS", a, {}, {}, false, " R0, RZ");
    const auto ng = run("DFN.NEG", a, {}, {}, false, " R0, RZ");
    const char* cmps[] = {"EQ",  "NE",  "LT",  "LE",  "GT",  "GE",  "EQU",
                          "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"};
    std::vector<std::vector<std::uint64_t>> setp;
    for (const char* cc : cmps)
        setp.push_back(run(std::string("DSETP.") + cc, a, b, {}, true));
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double x = dbl(a[i]), y = dbl(b[i]);
        CAPTURE(x, y, a[i], b[i]);
        const bool xn = std::isnan(x), yn = std::isnan(y);
        std::uint64_t wmin, wmax;
        if (xn && yn) {
            wmin = wmax = 0x7fffffffffffffffull;
        } else if (xn || yn) {
            wmin = wmax = xn ? b[i] : a[i];
        } else if (x == y) { // -0 < +0
            wmin = std::signbit(x) ? a[i] : b[i];
            wmax = std::signbit(x) ? b[i] : a[i];
        } else {
            wmin = x < y ? a[i] : b[i];
            wmax = x > y ? a[i] : b[i];
        }
        CHECK(mn[i] == wmin);
        CHECK(mx[i] == wmax);
        CHECK(ab[i] == (a[i] & 0x7fffffffffffffffull));
        CHECK(ng[i] == (a[i] ^ 0x8000000000000000ull));
        const bool u = xn || yn;
        const bool want[] = {
            x == y,     !u && x != y, x<y, x <= y, x> y, x >= y,      u || x == y, u || x != y,
            u || x < y, u || x <= y,  u || x > y,        u || x >= y, !u,          u};
        for (std::size_t k = 0; k < std::size(cmps); ++k) {
            CAPTURE(cmps[k]);
            CHECK(setp[k][i] == std::uint64_t{want[k]});
        }
    }
    const double sub = std::numeric_limits<double>::denorm_min();
    const std::vector<std::uint64_t> cls = {bits(1.0), bits(sub), bits(INFINITY),
                                            0x7ff8000000000000ull, bits(0.0)};
    auto classes = [&](const char* c) {
        return run(std::string("DSETP.") + c, cls, {}, {}, true, " R0, RZ");
    };
    CHECK(classes("FINITE") == std::vector<std::uint64_t>{1, 1, 0, 0, 1});
    CHECK(classes("INFINITE") == std::vector<std::uint64_t>{0, 0, 1, 0, 0});
    CHECK(classes("NUMBER") == std::vector<std::uint64_t>{1, 1, 1, 0, 1});
    CHECK(classes("NOTANUMBER") == std::vector<std::uint64_t>{0, 0, 0, 1, 0});
    CHECK(classes("NORMAL") == std::vector<std::uint64_t>{1, 0, 0, 0, 0});
    CHECK(classes("SUBNORMAL") == std::vector<std::uint64_t>{0, 1, 0, 0, 0});
}

TEST_CASE("DCVT converts between f64 and f32 and 32- and 64-bit integers", "[isa64]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 643u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    // f32 -> f64 is exact; f64 -> f32 rounds (NaN: the canonical fp32 NaN).
    std::vector<std::uint64_t> f;
    for (int k = 0; k < 64; ++k)
        f.push_back(static_cast<std::uint32_t>(rng()));
    f.push_back(fbits(std::numeric_limits<float>::denorm_min()));
    const auto f2d = run("DCVT.F2D", f, {}, {}, false, " R0");
    for (std::size_t i = 0; i < f.size(); ++i) {
        float x;
        const auto lo = static_cast<std::uint32_t>(f[i]);
        std::memcpy(&x, &lo, sizeof x);
        CHECK(f2d[i] == canon(static_cast<double>(x)));
    }
    auto ops = operands(rng, 60);
    const auto d2f = run("DCVT.D2F.RN", ops, {}, {}, false, " R0");
    const auto d2fz = run("DCVT.D2F.RZ", ops, {}, {}, false, " R0");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const double x = dbl(ops[i]);
        CAPTURE(x);
        const float rn = static_cast<float>(x);
        CHECK(d2f[i] == (std::isnan(x) ? 0x7fffffffu : fbits(rn)));
        float rz = rn;
        if (std::isinf(rn) && !std::isinf(x))
            rz = std::copysign(std::numeric_limits<float>::max(), rn);
        else if (std::isfinite(x) && std::fabs(static_cast<double>(rn)) > std::fabs(x))
            rz = std::nextafter(rn, 0.0f);
        CHECK(d2fz[i] == (std::isnan(x) ? 0x7fffffffu : fbits(rz)));
    }
    // Integers -> f64: 32-bit exact, 64-bit rounded.
    std::vector<std::uint64_t> n = {0,
                                    1,
                                    ~0ull,
                                    0x8000000000000000ull,
                                    0x7fffffffffffffffull,
                                    (1ull << 53) + 1,
                                    0x20000000000001ull * 3};
    for (int k = 0; k < 60; ++k)
        n.push_back(rng() >> (rng() % 64));
    const auto s64 = run("DCVT.I2D.RN.S64", n, {}, {}, false, " R0");
    const auto u64 = run("DCVT.I2D.RN.U64", n, {}, {}, false, " R0");
    const auto u64z = run("DCVT.I2D.RZ.U64", n, {}, {}, false, " R0");
    const auto s32 = run("DCVT.I2D.RN.S32", n, {}, {}, false, " R0");
    const auto l2f = run("DCVT.I2F.RN.S64", n, {}, {}, false, " R0");
    for (std::size_t i = 0; i < n.size(); ++i) {
        CAPTURE(n[i]);
        CHECK(s64[i] == bits(static_cast<double>(static_cast<std::int64_t>(n[i]))));
        CHECK(u64[i] == bits(static_cast<double>(n[i])));
        CHECK(s32[i] == bits(static_cast<double>(
                            static_cast<std::int32_t>(static_cast<std::uint32_t>(n[i])))));
        CHECK(l2f[i] == fbits(static_cast<float>(static_cast<std::int64_t>(n[i]))));
        // Toward zero: the largest double not above n (compare exactly in 128 bits).
        double z = static_cast<double>(n[i]);
        if (z >= 18446744073709551616.0 || static_cast<unsigned __int128>(z) > n[i])
            z = std::nextafter(z, 0.0);
        CHECK(u64z[i] == bits(z));
    }
    // f64 -> integers: rounded in the mode, saturating, NaN -> 0.
    const std::vector<double> xs = {2.5,       -2.5, 3.7,  -3.7,         1e300,  -1e300,  INFINITY,
                                    -INFINITY, NAN,  -0.4, 4294967296.5, 9.3e18, -9.3e18, 1.8e19};
    std::vector<std::uint64_t> xb;
    for (double x : xs)
        xb.push_back(bits(x));
    const auto rni = run("DCVT.D2I.RN.S32", xb, {}, {}, false, " R0");
    const auto rzi = run("DCVT.D2I.RZ.S64", xb, {}, {}, false, " R0");
    const auto rmu = run("DCVT.D2I.RM.U64", xb, {}, {}, false, " R0");
    const auto rpu = run("DCVT.D2I.RP.U32", xb, {}, {}, false, " R0");
    const std::int32_t want_rni[] = {2,         -2, 4, -4,        INT32_MAX, INT32_MIN, INT32_MAX,
                                     INT32_MIN, 0,  0, INT32_MAX, INT32_MAX, INT32_MIN, INT32_MAX};
    const std::int64_t want_rzi[] = {2,         -2, 3, -3,         INT64_MAX, INT64_MIN, INT64_MAX,
                                     INT64_MIN, 0,  0, 4294967296, INT64_MAX, INT64_MIN, INT64_MAX};
    const std::uint64_t want_rmu[] = {2,          0,
                                      3,          0,
                                      ~0ull,      0,
                                      ~0ull,      0,
                                      0,          0,
                                      4294967296, 9300000000000000000ull,
                                      0,          18000000000000000000ull};
    const std::uint32_t want_rpu[] = {3, 0, 4, 0, ~0u, 0, ~0u, 0, 0, 0, ~0u, ~0u, 0, ~0u};
    for (std::size_t i = 0; i < xs.size(); ++i) {
        CAPTURE(xs[i]);
        CHECK(static_cast<std::uint32_t>(rni[i]) == static_cast<std::uint32_t>(want_rni[i]));
        CHECK(rzi[i] == static_cast<std::uint64_t>(want_rzi[i]));
        CHECK(rmu[i] == want_rmu[i]);
        CHECK(static_cast<std::uint32_t>(rpu[i]) == want_rpu[i]);
    }
    // Integral rounding of f64 and f32 -> 64-bit integers.
    const auto drnd = run("DCVT.DRND.RN", xb, {}, {}, false, " R0");
    const auto drm = run("DCVT.DRND.RM", xb, {}, {}, false, " R0");
    for (std::size_t i = 0; i < xs.size(); ++i) {
        CHECK(drnd[i] == canon(std::isfinite(xs[i]) ? std::nearbyint(xs[i]) : xs[i]));
        CHECK(drm[i] == canon(std::floor(xs[i])));
    }
    CHECK(run("DCVT.F2I.RZ.S64", {fbits(-3.5e12f)}, {}, {}, false, " R0")[0] ==
          static_cast<std::uint64_t>(static_cast<std::int64_t>(-3.5e12f)));
    CHECK(run("DCVT.F2I.RN.U64", {fbits(-1.0f)}, {}, {}, false, " R0")[0] == 0);
}

TEST_CASE("I64 and I64SETP compute on 64-bit integers as the host", "[isa64]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 644u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> a = {0, 1, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull, 7},
                               b = {0, ~0ull, ~0ull, ~0ull, 1, 0};
    for (int k = 0; k < 250; ++k) {
        a.push_back(rng() >> (rng() % 64));
        b.push_back(k % 5 == 0 ? rng() % 70 : rng() >> (rng() % 64));
    }
    auto i64 = [&](const char* fn, bool two = true) {
        return run(std::string("I64.") + fn, a, two ? b : std::vector<std::uint64_t>{}, {}, false,
                   two ? "" : " R0, RZ");
    };
    const auto add = i64("ADD"), sub = i64("SUB"), mul = i64("MUL"), hiu = i64("MULHI.U"),
               his = i64("MULHI.S"), an = i64("AND"), o = i64("OR"), x = i64("XOR"),
               nt = i64("NOT", false), shl = i64("SHL"), shr = i64("SHR"), sar = i64("SAR"),
               mn = i64("MIN"), mx = i64("MAX"), umn = i64("UMIN"), umx = i64("UMAX"),
               ds = i64("DIV.S"), du = i64("DIV.U"), rs = i64("REM.S"), ru = i64("REM.U"),
               pc = i64("POPC", false), cz = i64("CLZ", false), br = i64("BREV", false),
               pk = i64("PACK"), wu = i64("WIDE.U"), ws = i64("WIDE.S"), sx = i64("SEXT", false),
               mv = i64("MOV", false);
    const char* cmps[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    std::vector<std::vector<std::uint64_t>> ss, us;
    for (const char* cc : cmps) {
        ss.push_back(run(std::string("I64SETP.") + cc, a, b, {}, true));
        us.push_back(run(std::string("I64SETP.") + cc + ".U", a, b, {}, true));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint64_t p = a[i], q = b[i];
        const auto sp = static_cast<std::int64_t>(p), sq = static_cast<std::int64_t>(q);
        CAPTURE(p, q);
        CHECK(add[i] == p + q);
        CHECK(sub[i] == p - q);
        CHECK(mul[i] == p * q);
        CHECK(hiu[i] == static_cast<std::uint64_t>(static_cast<unsigned __int128>(p) * q >> 64));
        CHECK(his[i] == static_cast<std::uint64_t>(static_cast<__int128>(sp) * sq >> 64));
        CHECK(an[i] == (p & q));
        CHECK(o[i] == (p | q));
        CHECK(x[i] == (p ^ q));
        CHECK(nt[i] == ~p);
        const std::uint32_t k = static_cast<std::uint32_t>(q); // the amount: the low word
        CHECK(shl[i] == (k > 63 ? 0 : p << k));
        CHECK(shr[i] == (k > 63 ? 0 : p >> k));
        CHECK(sar[i] == static_cast<std::uint64_t>(sp >> (k > 63 ? 63 : k)));
        CHECK(mn[i] == static_cast<std::uint64_t>(std::min(sp, sq)));
        CHECK(mx[i] == static_cast<std::uint64_t>(std::max(sp, sq)));
        CHECK(umn[i] == std::min(p, q));
        CHECK(umx[i] == std::max(p, q));
        const bool ovf = sp == INT64_MIN && sq == -1;
        CHECK(ds[i] == (q == 0 ? ~0ull : ovf ? p : static_cast<std::uint64_t>(sp / sq)));
        CHECK(du[i] == (q == 0 ? ~0ull : p / q));
        CHECK(rs[i] == (q == 0 ? p : ovf ? 0 : static_cast<std::uint64_t>(sp % sq)));
        CHECK(ru[i] == (q == 0 ? p : p % q));
        std::uint64_t pop = 0, lz = 0, rev = 0;
        for (int bit = 0; bit < 64; ++bit) {
            pop += (p >> bit) & 1;
            rev |= ((p >> bit) & 1) << (63 - bit);
        }
        while (lz < 64 && !((p >> (63 - lz)) & 1))
            ++lz;
        CHECK(pc[i] == pop); // a 32-bit result: R5 untouched (0)
        CHECK(cz[i] == lz);
        CHECK(br[i] == rev);
        const std::uint64_t pl = p & 0xffffffffu, ql = q & 0xffffffffu;
        CHECK(pk[i] == (ql << 32 | pl));
        CHECK(wu[i] == pl * ql);
        CHECK(ws[i] == static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(pl)} *
                                                  static_cast<std::int32_t>(ql)));
        CHECK(sx[i] == static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(pl)}));
        CHECK(mv[i] == p);
        const bool sw[] = {p == q, p != q, sp<sq, sp <= sq, sp> sq, sp >= sq};
        const bool uw[] = {p == q, p != q, p<q, p <= q, p> q, p >= q};
        for (unsigned c = 0; c < 6; ++c) {
            CHECK(ss[c][i] == std::uint64_t{sw[c]});
            CHECK(us[c][i] == std::uint64_t{uw[c]});
        }
    }
    // An immediate pair source is sign-extended (integers) or widened from fp32 (floats).
    CHECK(run("I64.ADD", {5}, {}, {}, false, " R0, -1")[0] == 4);
    CHECK(run("DADD", {bits(1.0)}, {}, {}, false, " R0, 0.5")[0] == bits(1.5));
}

TEST_CASE("pair operands: range check, spelling, units", "[isa64]")
{
    const auto res = assemble("DADD R4, R0, R63\nEXIT", {}, {"t.s", 1, 1}, 64);
    REQUIRE_FALSE(res.ok());
    CHECK(res.errors.front().find("register pair R63:R64 out of range (R0..R63)") !=
          std::string::npos);
    CHECK(assemble("DADD R62, R0, RZ\nEXIT", {}, {"t.s", 1, 1}, 64).ok());
    instruction i;
    i.op = opcode::DCVT;
    i.dst = 4;
    i.src[0] = reg(0);
    i.mod = static_cast<std::uint8_t>(
        mods::dcvt_mod(mods::dcvt::I2D, mods::rounding::RZ, mods::dcvt_signed | mods::dcvt_64));
    CHECK(disassemble(i) == "DCVT.I2D.RZ.S64 R4, R0");
    CHECK(pair_mask(i) == 3);
    i.mod = static_cast<std::uint8_t>(
        mods::dcvt_mod(mods::dcvt::D2I, mods::rounding::RN, mods::dcvt_signed));
    CHECK(pair_mask(i) == 2); // 32-bit result from a pair
    CHECK_FALSE(mod_valid(opcode::DCVT, mods::dcvt_mod(mods::dcvt::I2F))); // CVT's 32-bit form
    CHECK(unit_of(opcode::DFMA) == unit_class::fp64);
    CHECK(unit_of(opcode::DCVT) == unit_class::fp64);
    CHECK(unit_of(opcode::I64) == unit_class::int_alu);
    CHECK(std::string(name(unit_class::fp64)) == "fp64");
    // The documented opcode values (docs/isa.md): the last eight of the 6-bit field.
    CHECK(static_cast<unsigned>(opcode::DADD) == 56);
    CHECK(static_cast<unsigned>(opcode::DCVT) == 61);
    CHECK(static_cast<unsigned>(opcode::I64SETP) == 63);
    CHECK(num_opcodes == 64);
    // RZ as a pair reads zero and discards writes.
    CHECK(run("DADD", {bits(2.0)}, {}, {}, false, " R0, RZ")[0] == bits(2.0));
}

TEST_CASE("FADD on global memory flushes subnormals to zero, on shared memory keeps them",
          "[isa64]")
{
    using vgpu::tlm_bus::atomic_op;
    using vgpu::tlm_bus::atomic_result;
    const float sub = std::numeric_limits<float>::denorm_min() * 3, tiny = 1e-39f; // subnormals
    const float small = std::numeric_limits<float>::min();                         // normal
    // Inputs: a subnormal operand or old word counts as zero (its sign kept).
    CHECK(atomic_result(atomic_op::fadd, fbits(1.0f), fbits(sub)) == fbits(1.0f));
    CHECK(atomic_result(atomic_op::fadd, fbits(sub), fbits(0.0f)) == fbits(0.0f));
    CHECK(atomic_result(atomic_op::fadd, fbits(-sub), fbits(-0.0f)) == fbits(-0.0f));
    // Result: normal - normal landing in the subnormal range gives a zero of its sign.
    CHECK(atomic_result(atomic_op::fadd, fbits(small * 1.5f), fbits(-small)) == fbits(0.0f));
    CHECK(atomic_result(atomic_op::fadd, fbits(-small * 1.5f), fbits(small)) == fbits(-0.0f));
    CHECK(atomic_result(atomic_op::fadd, fbits(1.5f), fbits(2.25f)) == fbits(3.75f));
    // Shared memory (atom_apply): IEEE with subnormals, as the host.
    CHECK(atom_apply(atom_op::FADD, fbits(sub), fbits(tiny)) == fbits(sub + tiny));
    CHECK(atom_apply(atom_op::FADD, fbits(small * 1.5f), fbits(-small)) ==
          fbits(small * 1.5f - small));
}
