// fp64 and 64-bit integers through the translator (docs/cuda.md, "fp64 and 64-bit
// integers"): the register-pair analysis, each lowering rule run on a functional warp against
// the host's double and 64-bit arithmetic (written here, apart from the translator), the
// refused forms' located errors, and daxpy_ddot.cu compiled with the shim and run end to end
// by vgpu-sim in both timing modes against host references.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;
using namespace vgpu::ptx::test;

namespace {

/// An entry `k(.u64 k_p0, .f64 k_p1, .s64 k_p2, .u32 k_p3)` around body, with %p<8>,
/// %r<64>, %f<32>, %rd<64>, %fd<64>. Parameter words: the four low words, then the high
/// words of k_p0, k_p1, k_p2.
std::string wide_entry(const std::string& body)
{
    return ".version 6.0\n.target sm_70\n.address_size 64\n"
           ".visible .entry k(.param .u64 k_p0, .param .f64 k_p1, .param .s64 k_p2,\n"
           "  .param .u32 k_p3)\n{\n"
           ".reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<64>;\n"
           ".reg .f64 %fd<64>;\n" +
           body + "\n}\n";
}

/// Per lane l: %rd4 = k_p0 + 8 l; %fd1 = x[l], %fd2 = y[l] (doubles at +0 and +256), %rd10 =
/// the same words as u64, %rd11 = y's; the body's results are stored by the caller's text.
const char* const lane_prefix = "ld.param.u64 %rd1, [k_p0];\n"
                                "cvta.to.global.u64 %rd2, %rd1;\n"
                                "mov.u32 %r1, %tid.x;\n"
                                "mul.wide.u32 %rd3, %r1, 8;\n"
                                "add.s64 %rd4, %rd2, %rd3;\n"
                                "ld.global.f64 %fd1, [%rd4];\n"
                                "ld.global.f64 %fd2, [%rd4+256];\n"
                                "ld.global.u64 %rd10, [%rd4];\n"
                                "ld.global.u64 %rd11, [%rd4+256];\n";

constexpr std::uint32_t buf = 0x10000; // k_p0

/// Translates wide_entry(lane_prefix + body), runs 32 lanes with x, y and the parameter words,
/// and returns the 64-bit words at k_p0 + 512 + 256 j + 8 l for j < outputs.
std::vector<std::vector<std::uint64_t>> run_lanes(const std::string& body,
                                                  const std::vector<std::uint64_t>& x,
                                                  const std::vector<std::uint64_t>& y,
                                                  unsigned outputs,
                                                  std::vector<std::uint32_t> params = {})
{
    const translation t = test::translate_text(wide_entry(std::string(lane_prefix) + body));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    INFO(t.text);
    if (params.empty())
        params = {buf, 0, 0, 0, 0, 0, 0};
    std::map<std::uint32_t, std::uint32_t> mem;
    for (unsigned l = 0; l < 32; ++l) {
        mem[buf + 8 * l] = static_cast<std::uint32_t>(x[l]);
        mem[buf + 8 * l + 4] = static_cast<std::uint32_t>(x[l] >> 32);
        mem[buf + 256 + 8 * l] = static_cast<std::uint32_t>(y[l]);
        mem[buf + 256 + 8 * l + 4] = static_cast<std::uint32_t>(y[l] >> 32);
    }
    const test::warp_run r = test::run_warp(t, params, mem);
    INFO(r.error);
    REQUIRE(r.error.empty());
    std::vector<std::vector<std::uint64_t>> out(outputs, std::vector<std::uint64_t>(32));
    for (unsigned j = 0; j < outputs; ++j)
        for (unsigned l = 0; l < 32; ++l) {
            const std::uint32_t a = buf + 512 + 256 * j + 8 * l;
            const auto lo = r.mem.count(a) ? r.mem.at(a) : 0u;
            const auto hi = r.mem.count(a + 4) ? r.mem.at(a + 4) : 0u;
            out[j][l] = std::uint64_t{hi} << 32 | lo;
        }
    return out;
}

/// "st.global.TYPE [%rd4+OFF], REG;" for output j.
std::string store(unsigned j, const std::string& reg, const char* type = "f64")
{
    return std::string("st.global.") + type + " [%rd4+" + std::to_string(512 + 256 * j) + "], " +
           reg + ";\n";
}

std::vector<std::uint64_t> doubles(std::mt19937_64& rng, bool specials)
{
    std::vector<std::uint64_t> v;
    const double some[] = {0.0, -0.0, 1.0, -2.5, 1e300, -1e-310, INFINITY, -INFINITY, NAN, 3.0};
    for (unsigned l = 0; l < 32; ++l) {
        if (specials && l < std::size(some))
            v.push_back(bits(some[l]));
        else
            v.push_back(bits(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                                        static_cast<int>(rng() % 40) - 20)));
    }
    return v;
}

} // namespace

TEST_CASE("fp64 arithmetic lowers onto DADD DMUL DFMA DFN and matches the host")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3640u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const auto x = doubles(rng, true), y = doubles(rng, false);
    const std::string body =
        "add.rn.f64 %fd3, %fd1, %fd2;\n" + store(0, "%fd3") + "sub.f64 %fd4, %fd1, %fd2;\n" +
        store(1, "%fd4") + "mul.rn.f64 %fd5, %fd1, %fd2;\n" + store(2, "%fd5") +
        "fma.rn.f64 %fd6, %fd1, %fd2, %fd1;\n" + store(3, "%fd6") +
        "div.rn.f64 %fd7, %fd1, %fd2;\n" + store(4, "%fd7") + "sqrt.rn.f64 %fd8, %fd1;\n" +
        store(5, "%fd8") + "rcp.rn.f64 %fd9, %fd2;\n" + store(6, "%fd9") +
        "min.f64 %fd10, %fd1, %fd2;\n" + store(7, "%fd10") +
        "max.f64 %fd11, %fd1, 0d3FB999999999999A;\n" + store(8, "%fd11") +
        "abs.f64 %fd12, %fd1;\n" + store(9, "%fd12") + "neg.f64 %fd13, %fd1;\n" +
        store(10, "%fd13") + "add.f64 %fd14, %fd1, 0d3FF8000000000000;\n" + store(11, "%fd14") +
        "setp.lt.f64 %p1, %fd1, %fd2;\n"
        "selp.f64 %fd15, %fd1, %fd2, %p1;\n" +
        store(12, "%fd15") +
        "setp.nan.f64 %p2, %fd1, %fd2;\n"
        "selp.u32 %r5, 1, 0, %p2;\n" +
        store(13, "%r5", "u32") +
        "testp.infinite.f64 %p3, %fd1;\n"
        "selp.u32 %r6, 1, 0, %p3;\n" +
        store(14, "%r6", "u32") + "ret;";
    const auto out = run_lanes(body, x, y, 15);
    for (unsigned l = 0; l < 32; ++l) {
        const double a = dbl(x[l]), b = dbl(y[l]);
        CAPTURE(l, a, b);
        CHECK(out[0][l] == canon(a + b));
        CHECK(out[1][l] == canon(a - b));
        CHECK(out[2][l] == canon(a * b));
        CHECK(out[3][l] == canon(std::fma(a, b, a)));
        CHECK(out[4][l] == canon(a / b));
        CHECK(out[5][l] == canon(std::sqrt(a)));
        CHECK(out[6][l] == canon(1.0 / b));
        CHECK(out[7][l] == canon(std::isnan(a) ? b : std::fmin(a, b)));
        CHECK(out[8][l] == canon(std::isnan(a) ? 0.1 : std::fmax(a, 0.1)));
        CHECK(out[9][l] == (x[l] & ~(1ull << 63)));
        CHECK(out[10][l] == (x[l] ^ (1ull << 63)));
        CHECK(out[11][l] == canon(a + 1.5));
        CHECK(out[12][l] == (a < b ? x[l] : y[l]));
        CHECK(static_cast<std::uint32_t>(out[13][l]) == (std::isnan(a) || std::isnan(b)));
        CHECK(static_cast<std::uint32_t>(out[14][l]) == std::isinf(a));
    }
    // Directed roundings: 1 / 3 toward +inf is one ulp above the nearest.
    const std::vector<std::uint64_t> ones(32, bits(1.0)), threes(32, bits(3.0));
    const auto d =
        run_lanes("div.rp.f64 %fd3, %fd1, %fd2;\n" + store(0, "%fd3") +
                      "div.rz.f64 %fd4, %fd1, %fd2;\n" + store(1, "%fd4") +
                      "add.rm.f64 %fd5, %fd1, 0d3C90000000000001;\n" + store(2, "%fd5") + "ret;",
                  ones, threes, 3);
    CHECK(d[0][0] == bits(1.0 / 3) + 1);
    CHECK(d[1][0] == bits(1.0 / 3));
    CHECK(d[2][0] == bits(1.0)); // 1 + 2^-54 (a little more) rounds down to 1
}

TEST_CASE("fp64 conversions lower onto DCVT and match the host")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3641u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    auto x = doubles(rng, true);
    x[20] = bits(2.5);
    x[21] = bits(-3.5);
    x[22] = bits(1e19);
    const auto y = doubles(rng, false);
    const std::string body =
        "cvt.rzi.s32.f64 %r5, %fd1;\n" + store(0, "%r5", "s32") + "cvt.rn.f64.s32 %fd3, %r5;\n" +
        store(1, "%fd3") + "cvt.rn.f32.f64 %f1, %fd1;\n" + store(2, "%f1", "f32") +
        "cvt.f64.f32 %fd4, %f1;\n" + store(3, "%fd4") + "cvt.rni.s64.f64 %rd20, %fd1;\n" +
        store(4, "%rd20", "s64") + "cvt.rn.f64.u64 %fd5, %rd11;\n" + store(5, "%fd5") +
        "cvt.rmi.f64.f64 %fd6, %fd1;\n" + store(6, "%fd6") + "cvt.rpi.u32.f64 %r6, %fd1;\n" +
        store(7, "%r6", "u32") + "cvt.rn.f32.s64 %f2, %rd11;\n" + store(8, "%f2", "f32") + "ret;";
    const auto out = run_lanes(body, x, y, 9);
    for (unsigned l = 0; l < 32; ++l) {
        const double a = dbl(x[l]);
        CAPTURE(l, a);
        const auto sat32 = [](double v) {
            return std::isnan(v)        ? 0
                   : v >= 2147483647.0  ? INT32_MAX
                   : v <= -2147483648.0 ? INT32_MIN
                                        : int(v);
        };
        const std::int32_t rzi = sat32(std::trunc(a));
        CHECK(static_cast<std::uint32_t>(out[0][l]) == static_cast<std::uint32_t>(rzi));
        CHECK(out[1][l] == bits(static_cast<double>(rzi)));
        const float f = static_cast<float>(a);
        CHECK(static_cast<std::uint32_t>(out[2][l]) == (std::isnan(a) ? 0x7fffffffu : fbits(f)));
        CHECK(out[3][l] == canon(static_cast<double>(std::isnan(a) ? NAN : f)));
        const double rn = std::nearbyint(a);
        const std::int64_t r64 = std::isnan(a)                 ? 0
                                 : rn >= 9223372036854775808.0 ? INT64_MAX
                                 : rn < -9223372036854775808.0 ? INT64_MIN
                                                               : static_cast<std::int64_t>(rn);
        CHECK(out[4][l] == static_cast<std::uint64_t>(r64));
        CHECK(out[5][l] == bits(static_cast<double>(y[l])));
        CHECK(out[6][l] == canon(std::floor(a)));
        const double up = std::ceil(a);
        const std::uint32_t rpi = std::isnan(a) || up <= 0 ? 0
                                  : up >= 4294967295.0     ? ~0u
                                                           : unsigned(up);
        CHECK(static_cast<std::uint32_t>(out[7][l]) == rpi);
        CHECK(static_cast<std::uint32_t>(out[8][l]) ==
              fbits(static_cast<float>(static_cast<std::int64_t>(y[l]))));
    }
}

TEST_CASE("64-bit integer operations into register pairs match the host")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3642u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> x(32), y(32);
    for (unsigned l = 0; l < 32; ++l) {
        x[l] = rng() >> (rng() % 64);
        y[l] = l == 0 ? 0 : rng() >> (rng() % 64);
    }
    x[1] = 0x8000000000000000ull;
    y[1] = ~0ull;
    const std::string body =
        "add.s64 %rd20, %rd10, %rd11;\n" + store(0, "%rd20", "u64") +
        "mul.lo.s64 %rd21, %rd10, %rd11;\n" + store(1, "%rd21", "u64") +
        "mul.hi.u64 %rd22, %rd10, %rd11;\n" + store(2, "%rd22", "u64") +
        "div.s64 %rd23, %rd10, %rd11;\n" + store(3, "%rd23", "u64") +
        "rem.u64 %rd24, %rd10, %rd11;\n" + store(4, "%rd24", "u64") +
        "cvt.u32.u64 %r7, %rd11;\n"
        "and.b32 %r8, %r7, 127;\n"
        "shr.s64 %rd25, %rd10, %r8;\n" +
        store(5, "%rd25", "u64") + "shl.b64 %rd26, %rd10, 40;\n" + store(6, "%rd26", "u64") +
        "setp.lt.s64 %p1, %rd10, %rd11;\n"
        "selp.b64 %rd27, %rd10, 77, %p1;\n" +
        store(7, "%rd27", "u64") + "min.u64 %rd28, %rd10, %rd11;\n" + store(8, "%rd28", "u64") +
        "popc.b64 %r9, %rd10;\n" + store(9, "%r9", "u32") + "clz.b64 %r10, %rd11;\n" +
        store(10, "%r10", "u32") + "mov.b64 {%r11, %r12}, %rd10;\n" +
        "mov.b64 %rd29, {%r12, %r11};\n" + store(11, "%rd29", "u64") +
        "cvt.s64.s32 %rd30, %r12;\n" + store(12, "%rd30", "s64") +
        "sub.s64 %rd31, %rd10, 0x123456789abcdef;\n" + store(13, "%rd31", "u64") +
        "setp.hi.u64 %p2, %rd10, %rd11;\n"
        "selp.u32 %r13, 1, 0, %p2;\n" +
        store(14, "%r13", "u32") + "mad.lo.s64 %rd32, %rd10, 3, %rd11;\n" +
        store(15, "%rd32", "u64") + "ret;";
    const auto out = run_lanes(body, x, y, 16);
    for (unsigned l = 0; l < 32; ++l) {
        const std::uint64_t a = x[l], b = y[l];
        const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
        CAPTURE(l, a, b);
        CHECK(out[0][l] == a + b);
        CHECK(out[1][l] == a * b);
        CHECK(out[2][l] == static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b >> 64));
        CHECK(out[3][l] == (b == 0                          ? ~0ull
                            : (sa == INT64_MIN && sb == -1) ? a
                                                            : std::uint64_t(sa / sb)));
        CHECK(out[4][l] == (b == 0 ? a : a % b));
        const unsigned k = static_cast<unsigned>(b) & 127;
        CHECK(out[5][l] == static_cast<std::uint64_t>(sa >> (k > 63 ? 63 : k)));
        CHECK(out[6][l] == a << 40);
        CHECK(out[7][l] == (sa < sb ? a : 77));
        CHECK(out[8][l] == std::min(a, b));
        CHECK(out[9][l] == static_cast<std::uint64_t>(__builtin_popcountll(a)));
        CHECK(out[10][l] == (b == 0 ? 64u : static_cast<std::uint64_t>(__builtin_clzll(b))));
        CHECK(out[11][l] == (a << 32 | a >> 32));
        CHECK(out[12][l] ==
              static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a >> 32)}));
        CHECK(out[13][l] == a - 0x123456789abcdefull);
        CHECK(out[14][l] == (a > b));
        CHECK(out[15][l] == a * 3 + b);
    }
}

TEST_CASE("64-bit setp with a combining predicate and two destinations matches the host")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3645u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> x(32), y(32);
    for (unsigned l = 0; l < 32; ++l) {
        x[l] = rng() >> (rng() % 64);
        y[l] = l % 4 == 0 ? x[l] : l % 4 == 1 ? x[l] ^ (1ull << 40) : rng() >> (rng() % 64);
        if (l % 8 == 3)
            x[l] = ~x[l]; // negative as s64
    }
    x[2] = 5;
    const std::string body = "setp.lt.s64 %p1, %rd10, %rd11;\n"
                             "setp.lt.and.s64 %p2, %rd10, 5, %p1;\n"
                             "selp.u32 %r20, 1, 0, %p2;\n" +
                             store(0, "%r20", "u32") +
                             "setp.hi.or.u64 %p3|%p4, %rd10, %rd11, !%p1;\n"
                             "selp.u32 %r21, 1, 0, %p3;\n"
                             "selp.u32 %r22, 1, 0, %p4;\n" +
                             store(1, "%r21", "u32") + store(2, "%r22", "u32") +
                             "setp.ne.xor.b64 %p5, %rd10, %rd11, %p1;\n"
                             "selp.u32 %r23, 1, 0, %p5;\n" +
                             store(3, "%r23", "u32") +
                             "setp.ge.and.s64 %p1|%p6, %rd11, %rd10, %p1;\n"
                             "selp.u32 %r24, 1, 0, %p1;\n"
                             "selp.u32 %r25, 1, 0, %p6;\n" +
                             store(4, "%r24", "u32") + store(5, "%r25", "u32") +
                             "setp.eq.s64 %p7|%p2, %rd10, 5;\n"
                             "selp.u32 %r26, 1, 0, %p7;\n"
                             "selp.u32 %r27, 1, 0, %p2;\n" +
                             store(6, "%r26", "u32") + store(7, "%r27", "u32") + "ret;";
    const auto out = run_lanes(body, x, y, 8);
    for (unsigned l = 0; l < 32; ++l) {
        const std::uint64_t a = x[l], b = y[l];
        const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
        CAPTURE(l, a, b);
        const bool p1 = sa < sb;
        CHECK(out[0][l] == (sa < 5 && p1));
        CHECK(out[1][l] == (a > b || !p1));
        CHECK(out[2][l] == (!(a > b) || !p1));
        CHECK(out[3][l] == ((a != b) != p1));
        CHECK(out[4][l] == (sb >= sa && p1));
        CHECK(out[5][l] == (!(sb >= sa) && p1));
        CHECK(out[6][l] == (a == 5));
        CHECK(out[7][l] == (a != 5));
    }
}

namespace {

// PTX's bfe, bfi and bfind on 64 bits, bit by bit from the PTX ISA's definitions.
std::uint64_t ref_bfe(std::uint64_t a, unsigned pos, unsigned len, bool sgn)
{
    pos &= 0xff;
    len &= 0xff;
    const unsigned top = std::min(pos + len - 1, 63u);
    const std::uint64_t sbit = sgn && len != 0 ? (a >> top) & 1 : 0;
    std::uint64_t d = 0;
    for (unsigned i = 0; i < 64; ++i)
        d |= ((i < len && pos + i <= 63) ? (a >> (pos + i)) & 1 : sbit) << i;
    return d;
}

std::uint64_t ref_bfi(std::uint64_t a, std::uint64_t b, unsigned pos, unsigned len)
{
    pos &= 0xff;
    len &= 0xff;
    for (unsigned i = 0; i < len && pos + i <= 63; ++i)
        b = (b & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return b;
}

std::uint32_t ref_bfind(std::uint64_t a, bool sgn, bool shiftamt)
{
    if (sgn && (a >> 63))
        a = ~a;
    int msb = -1;
    for (int i = 63; i >= 0 && msb < 0; --i)
        if ((a >> i) & 1)
            msb = i;
    if (msb < 0)
        return 0xffffffffu;
    return static_cast<std::uint32_t>(shiftamt ? 63 - msb : msb);
}

} // namespace

TEST_CASE("64-bit bfe, bfi and bfind lower onto I64 sequences and match the host")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3664u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> x(32), y(32);
    const std::uint64_t specials[] = {
        0, ~0ull, 1ull << 63, 1, 0x7fffffffffffffffull, 0xfffffffe00000000ull};
    for (unsigned l = 0; l < 32; ++l) {
        x[l] = l < std::size(specials) ? specials[l] : rng() >> (rng() % 64);
        // pos in byte 0, len in byte 4 (the rest of each word is ignored by the instruction)
        const std::uint64_t pos = l % 4 == 0 ? rng() % 256 : rng() % 72;
        const std::uint64_t len = l % 5 == 0 ? rng() % 256 : l == 1 ? 0 : rng() % 72;
        y[l] = pos | (rng() & 0xffffff00ull) | len << 32 | (rng() & 0xffffff0000000000ull);
    }
    const std::string body =
        "cvt.u32.u64 %r10, %rd11;\nshr.u64 %rd12, %rd11, 32;\ncvt.u32.u64 %r11, %rd12;\n"
        "bfe.u64 %rd20, %rd10, %r10, %r11;\n" +
        store(0, "%rd20", "u64") + "bfe.s64 %rd21, %rd10, %r10, %r11;\n" +
        store(1, "%rd21", "u64") + "bfi.b64 %rd22, %rd11, %rd10, %r10, %r11;\n" +
        store(2, "%rd22", "u64") + "bfind.u64 %r12, %rd10;\n" + store(3, "%r12", "u32") +
        "bfind.s64 %r13, %rd10;\n" + store(4, "%r13", "u32") + "bfind.shiftamt.u64 %r14, %rd10;\n" +
        store(5, "%r14", "u32") + "bfind.shiftamt.s64 %r15, %rd10;\n" + store(6, "%r15", "u32") +
        "bfe.s64 %rd23, %rd10, 60, 8;\n" + store(7, "%rd23", "u64") +
        "bfi.b64 %rd24, 5, %rd10, 62, 3;\n" + store(8, "%rd24", "u64") +
        "bfe.u64 %rd25, %rd10, %r10, %r11;\n"
        "cvt.u32.u64 %r16, %rd25;\n" + // only the low word of the result is used
        store(9, "%r16", "u32") +
        "ret;";
    const auto out = run_lanes(body, x, y, 10);
    for (unsigned l = 0; l < 32; ++l) {
        const std::uint64_t a = x[l];
        const auto pos = static_cast<unsigned>(y[l]), len = static_cast<unsigned>(y[l] >> 32);
        CAPTURE(l, a, pos & 0xff, len & 0xff);
        CHECK(out[0][l] == ref_bfe(a, pos, len, false));
        CHECK(out[1][l] == ref_bfe(a, pos, len, true));
        CHECK(out[2][l] == ref_bfi(y[l], a, pos, len));
        CHECK(out[3][l] == ref_bfind(a, false, false));
        CHECK(out[4][l] == ref_bfind(a, true, false));
        CHECK(out[5][l] == ref_bfind(a, false, true));
        CHECK(out[6][l] == ref_bfind(a, true, true));
        CHECK(out[7][l] == ref_bfe(a, 60, 8, true));
        CHECK(out[8][l] == ref_bfi(5, a, 62, 3));
        CHECK(out[9][l] == (ref_bfe(a, pos, len, false) & 0xffffffffu));
    }
}

TEST_CASE("64-bit parameters: the high words follow all parameters")
{
    const std::vector<std::uint64_t> x(32, 0), y(32, 0);
    const double d = -1234.5678e100;
    const std::int64_t n = -5000000000123;
    const std::string body = "ld.param.f64 %fd3, [k_p1];\n" + store(0, "%fd3") +
                             "ld.param.s64 %rd20, [k_p2];\n"
                             "add.s64 %rd21, %rd20, 1;\n"
                             "setp.lt.s64 %p1, %rd21, 0;\n"
                             "selp.b64 %rd22, %rd21, 0, %p1;\n" +
                             store(1, "%rd22", "s64") + "ret;";
    const auto db = bits(d);
    const auto nb = static_cast<std::uint64_t>(n);
    const auto out =
        run_lanes(body, x, y, 2,
                  {buf, static_cast<std::uint32_t>(db), static_cast<std::uint32_t>(nb), 7, 0,
                   static_cast<std::uint32_t>(db >> 32), static_cast<std::uint32_t>(nb >> 32)});
    CHECK(out[0][5] == db);
    CHECK(out[1][5] == static_cast<std::uint64_t>(n + 1));
}

TEST_CASE("address arithmetic stays in one register: the slice's kernels translate as before")
{
    // docs/cuda.md, "Figures": instructions and registers of the first slice's kernels.
    struct k {
        const char* file;
        const char* entry;
        std::size_t instructions;
        unsigned registers;
    };
    for (const k& e : {k{"vector_add", "vector_add", 19, 5}, k{"gather", "gather", 19, 5},
                       k{"ffma_chain", "ffma_chain", 49, 10}}) {
        CAPTURE(e.file);
        const translation t = translate_kernel(e.file, e.entry);
        CHECK(t.pcs.size() == e.instructions);
        CHECK(t.registers == e.registers);
        CHECK(t.text.find("I64") == std::string::npos);
    }
    // A u64 used only as an address and a u64 compared: only the compared one is a pair.
    const translation t = test::translate_text(
        wide_entry(std::string(lane_prefix) + "setp.eq.s64 %p1, %rd10, 5;\n"
                                              "@%p1 st.global.u32 [%rd4+512], %r1;\nret;"));
    REQUIRE(t.ok());
    CHECK(t.text.find("I64SETP.EQ") != std::string::npos);
    CHECK(t.text.find("I64.WIDE") == std::string::npos); // %rd3 (an address) stays 32-bit
}

TEST_CASE("fp64 and 64-bit forms outside the ISA are located errors")
{
    auto error_of = [](const std::string& body) {
        const translation t = test::translate_text(wide_entry(body + "\nret;"));
        REQUIRE_FALSE(t.ok());
        return t.errors.front();
    };
    CHECK(error_of("ld.param.u64 %rd1, [k_p0];\natom.global.inc.u64 %rd2, [%rd1], %rd1;") ==
          "t.ptx:13:1: error: unsupported 'atom.global.inc.u64': 64-bit atomics are add (u64, "
          "s64, f64), min/max (s64, u64), exch, cas, and, or, xor (b64, u64, s64) on global or "
          "shared memory");
    CHECK(error_of("fma.f64 %fd1, %fd2, %fd3, %fd4;") ==
          "t.ptx:12:1: error: unsupported 'fma.f64': fma.f64 needs a rounding modifier");
    CHECK(error_of("cvt.rn.ftz.f32.f64 %f1, %fd1;") ==
          "t.ptx:12:1: error: unsupported 'cvt.rn.ftz.f32.f64': cvt.f32.f64 needs "
          ".rn/.rz/.rm/.rp (.ftz and .sat are not supported)");
    CHECK(error_of("ld.param.u64 %rd1, [k_p0];\nsad.u64 %rd2, %rd1, %rd1, %rd1;\n"
                   "setp.eq.u64 %p1, %rd2, 0;") ==
          "t.ptx:13:1: error: unsupported 'sad.u64': this 64-bit integer operation has no "
          "register-pair lowering");
    CHECK(error_of("ex2.approx.f64 %fd1, %fd2;") ==
          "t.ptx:12:1: error: unsupported 'ex2.approx.f64': this fp64 operation is not in the "
          "vgpu ISA");
}

namespace {

/// The 32-bit words of doubles (low word first), as a YAML list.
std::string words(const std::vector<double>& v)
{
    std::string s;
    for (const double d : v) {
        const std::uint64_t b = bits(d);
        s += (s.empty() ? "" : ", ") + std::to_string(static_cast<std::uint32_t>(b)) + ", " +
             std::to_string(static_cast<std::uint32_t>(b >> 32));
    }
    return s;
}

std::string words64(const std::vector<std::uint64_t>& v)
{
    std::string s;
    for (const std::uint64_t b : v)
        s += (s.empty() ? "" : ", ") + std::to_string(static_cast<std::uint32_t>(b)) + ", " +
             std::to_string(static_cast<std::uint32_t>(b >> 32));
    return s;
}

} // namespace

TEST_CASE("daxpy_ddot.cu: daxpy (f64 and s64 parameters) runs end to end in both timing modes")
{
    const std::uint32_t seed = test_seed(3643);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    const translation t = translate_kernel("daxpy_ddot", "daxpy");
    std::mt19937_64 rng(seed);
    const int n = 1000 + static_cast<int>(rng() % 500);
    const double a = -0.3 + static_cast<double>(rng() % 1000) / 7.0;
    std::vector<double> x(static_cast<std::size_t>(n)), y(x.size()), r(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] =
            std::ldexp(static_cast<double>(rng() % 2000000) - 1e6, -static_cast<int>(rng() % 30));
        y[i] = static_cast<double>(rng() % 100000) / 3.0;
        r[i] = std::fma(x[i], a, y[i]); // fma.rn.f64 as compiled
    }
    const std::uint64_t ab = bits(a);
    const std::string yaml = "buffers:\n"
                             "  - {name: x, type: u32, elements: " +
                             std::to_string(2 * n) + ", init: {values: [" + words(x) +
                             "]}}\n"
                             "  - {name: y, type: u32, elements: " +
                             std::to_string(2 * n) + ", init: {values: [" + words(y) +
                             "]}}\n"
                             "kernels:\n"
                             "  - name: daxpy\n"
                             "    params:\n"
                             "      - {name: a, value: " +
                             std::to_string(static_cast<std::uint32_t>(ab)) +
                             "}\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: y, buffer: y}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "      - {name: a_hi, value: " +
                             std::to_string(static_cast<std::uint32_t>(ab >> 32)) +
                             "}\n"
                             "      - {name: x_hi, value: 0}\n"
                             "      - {name: y_hi, value: 0}\n"
                             "      - {name: n_hi, value: 0}\n"
                             "    grid: [" +
                             std::to_string((n + 127) / 128) +
                             ", 1]\n"
                             "    block: [128, 1]\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: y\n"
                             "    expect: [" +
                             words(r) + "]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, out] = run_sim("daxpy", yaml, mode);
        INFO(mode << "\n" << out << "\n" << t.text);
        CHECK(code == 0);
    }
}

TEST_CASE("daxpy_ddot.cu: dconv (fp64 functions, conversions, 64-bit division) end to end")
{
    const std::uint32_t seed = test_seed(3644);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    const translation t = translate_kernel("daxpy_ddot", "dconv");
    std::mt19937_64 rng(seed);
    const int n = 300;
    std::vector<double> x(n), out(4 * n);
    std::vector<std::uint32_t> outf(n);
    std::vector<std::uint64_t> outl(n);
    for (int i = 0; i < n; ++i) {
        const double v = (static_cast<double>(rng() % 2000001) - 1e6) / 997.0;
        x[i] = v;
        out[4 * i] = std::sqrt(std::fabs(v));
        out[4 * i + 1] = 1.0 / (v + 3.0);
        out[4 * i + 2] = std::fmin(v, 0.5) - std::fmax(v, -0.25);
        out[4 * i + 3] =
            static_cast<double>(static_cast<int>(v)) + static_cast<double>(static_cast<float>(v));
        outf[i] = fbits(static_cast<float>(v));
        outl[i] = static_cast<std::uint64_t>(static_cast<long long>(v * 1e6) / 7 +
                                             (static_cast<long long>(i) << 33));
    }
    std::string fl;
    for (const std::uint32_t w : outf)
        fl += (fl.empty() ? "" : ", ") + std::to_string(w);
    const std::string yaml = "buffers:\n"
                             "  - {name: x, type: u32, elements: " +
                             std::to_string(2 * n) + ", init: {values: [" + words(x) +
                             "]}}\n"
                             "  - {name: out, type: u32, elements: " +
                             std::to_string(8 * n) +
                             ", init: zero}\n"
                             "  - {name: outf, type: u32, elements: " +
                             std::to_string(n) +
                             ", init: zero}\n"
                             "  - {name: outl, type: u32, elements: " +
                             std::to_string(2 * n) +
                             ", init: zero}\n"
                             "kernels:\n"
                             "  - name: dconv\n"
                             "    params:\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: out, buffer: out}\n"
                             "      - {name: outf, buffer: outf}\n"
                             "      - {name: outl, buffer: outl}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "      - {name: h0, value: 0}\n"
                             "      - {name: h1, value: 0}\n"
                             "      - {name: h2, value: 0}\n"
                             "      - {name: h3, value: 0}\n"
                             "    grid: [3, 1]\n"
                             "    block: [128, 1]\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: out\n"
                             "    expect: [" +
                             words(out) +
                             "]\n"
                             "  - buffer: outf\n"
                             "    expect: [" +
                             fl +
                             "]\n"
                             "  - buffer: outl\n"
                             "    expect: [" +
                             words64(outl) + "]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim("dconv", yaml, mode);
        INFO(mode << "\n" << log << "\n" << t.text);
        CHECK(code == 0);
    }
}

TEST_CASE("daxpy_ddot.cu through the cuda: key: .f64 and .s64 values carry their high words")
{
    const std::string src = std::filesystem::canonical(test::path("kernels/daxpy_ddot.cu"));
    const int n = 200;
    const double a = 2.5e-3;
    std::vector<double> x(n), y(n), r(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 1.0 / (i + 1);
        y[i] = i * 0.75;
        r[i] = std::fma(x[i], a, y[i]);
    }
    auto yaml = [&](const std::string& count, const std::vector<double>& want) {
        return "buffers:\n"
               "  - {name: x, type: u32, elements: " +
               std::to_string(2 * n) + ", init: {values: [" + words(x) +
               "]}}\n"
               "  - {name: y, type: u32, elements: " +
               std::to_string(2 * n) + ", init: {values: [" + words(y) +
               "]}}\n"
               "kernels:\n"
               "  - name: daxpy\n"
               "    cuda: " +
               src +
               "\n"
               "    entry: daxpy\n"
               "    params:\n"
               "      - {name: a, value: 2.5e-3}\n"
               "      - {name: x, buffer: x}\n"
               "      - {name: y, buffer: y}\n"
               "      - {name: n, value: " +
               count +
               "}\n"
               "    grid: [2, 1]\n"
               "    block: [128, 1]\n"
               "checks:\n"
               "  - buffer: y\n"
               "    expect: [" +
               words(want) + "]\n";
    };
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim("daxpy_cuda", yaml(std::to_string(n), r), mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
    // n = -5: no thread passes i < n (its high word is all ones; the low word alone would be
    // 4294967291); and n = 2^32 + 100: every thread does (the low word alone would be 100).
    const auto [neg, log1] = run_sim("daxpy_neg", yaml("-5", y), "fast");
    INFO(log1);
    CHECK(neg == 0);
    const auto [big, log2] = run_sim("daxpy_big", yaml("4294967396", r), "fast");
    INFO(log2);
    CHECK(big == 0);
}

TEST_CASE("ddot's atomicAdd on double translates to ATOM.FADD.B64, and other 64-bit atomics are "
          "located errors")
{
    compile_request req;
    req.source = test::path("kernels/daxpy_ddot.cu");
    req.kernel = "ddot";
    const compile_result c = compile_cuda(req);
    REQUIRE(c.ok());
    const parse_result p = parse(c.ptx, "daxpy_ddot.ptx");
    REQUIRE(p.ok());
    const entry_lookup e = find_entry(p.mod, "ddot", {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    const translation t = translate(p.mod, e.index);
    for (const std::string& m : t.errors)
        UNSCOPED_INFO(m);
    REQUIRE(t.ok());
    INFO(t.text);
    CHECK(t.text.find("ATOM.FADD.B64 R") != std::string::npos);
    // inc/dec have no 64-bit form; an acquire/release atomic is not translated.
    const std::string prefix = "ld.param.u64 %rd1, [k_p0];\ncvta.to.global.u64 %rd1, %rd1;\n"
                               "ld.param.u64 %rd2, [k_p2];\n";
    const char* const why = "64-bit atomics are add (u64, s64, f64), min/max (s64, u64), exch, "
                            "cas, and, or, xor (b64, u64, s64) on global or shared memory";
    for (const char* form : {"atom.global.inc.u64 %rd3, [%rd1], %rd2;",
                             "atom.acq_rel.global.add.u64 %rd3, [%rd1], %rd2;",
                             "atom.global.add.f64 %fd3, [%rd1], %fd1, %fd2;"}) {
        const translation u = test::translate_text(wide_entry(prefix + form + "\nret;"));
        REQUIRE(u.errors.size() == 1);
        const std::string f = form;
        CHECK(u.errors[0] ==
              "t.ptx:15:1: error: unsupported '" + f.substr(0, f.find(' ')) + "': " + why);
    }
}
