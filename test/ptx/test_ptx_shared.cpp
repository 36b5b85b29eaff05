// End to end with shared memory: stencil3.cu, matmul_tiled.cu and histogram.cu compiled with
// the compile driver, translated (their .shared variables laid out, shared_bytes of the
// translation given to the workload), run by vgpu-sim in both timing modes and compared with
// host references computed here, written apart from the translator. Inputs are seeded.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
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

void run_both(const std::string& tag, const std::string& yaml, const translation& t)
{
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, out] = run_sim(tag, yaml, mode);
        INFO(mode << "\n" << out << "\n" << t.text);
        CHECK(code == 0);
    }
}

} // namespace

TEST_CASE("stencil3.cu (shared halo, __syncthreads) runs translated and matches the host")
{
    const std::uint32_t seed = test_seed(3601);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    const translation t = translate_kernel("stencil3", "stencil3");
    CHECK(t.shared_bytes == 258 * 4);
    std::mt19937 rng(seed);
    const int n = 3000 + static_cast<int>(rng() % 2000);
    const float wl = 0.25f, wc = 0.5f, wr = -0.125f;
    std::vector<float> in(static_cast<std::size_t>(n)), out(in.size());
    for (auto& x : in)
        x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 64.0f;
    for (int i = 0; i < n; ++i) {
        const double l = i > 0 ? in[i - 1] : 0.0, r = i + 1 < n ? in[i + 1] : 0.0;
        out[i] = static_cast<float>(wl * l + wc * in[i] + wr * r); // exact: dyadic inputs
    }
    const std::string yaml = "buffers:\n"
                             "  - {name: in, type: f32, elements: " +
                             std::to_string(n) + ", init: {values: [" + list(in) +
                             "]}}\n"
                             "  - {name: out, type: f32, elements: " +
                             std::to_string(n) +
                             ", init: zero}\n"
                             "kernels:\n"
                             "  - name: stencil3\n"
                             "    params:\n"
                             "      - {name: in, buffer: in}\n"
                             "      - {name: out, buffer: out}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "      - {name: wl, value: 0.25}\n"
                             "      - {name: wc, value: 0.5}\n"
                             "      - {name: wr, value: -0.125}\n"
                             "    grid: [" +
                             std::to_string((n + 255) / 256) +
                             ", 1]\n"
                             "    block: [256, 1]\n"
                             "    shared_bytes: " +
                             std::to_string(t.shared_bytes) +
                             "\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: out\n"
                             "    expect: [" +
                             list(out) +
                             "]\n"
                             "    tolerance: {relative: 0, absolute: 0}\n";
    run_both("stencil3", yaml, t);
}

TEST_CASE("matmul_tiled.cu (two shared tiles, loop with barriers) matches a host reference")
{
    const std::uint32_t seed = test_seed(3602);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    const translation t = translate_kernel("matmul_tiled", "gemm_kernel");
    CHECK(t.shared_bytes == 2 * 16 * 16 * 4);
    std::mt19937 rng(seed);
    const unsigned M = 40, N = 56, K = 36; // not multiples of the tile: the edges are padded
    const float alpha = 1.5f, beta = 0.5f;
    std::vector<float> A(M * K), B(K * N), C(M * N), R(M * N);
    auto small = [&] { return static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8.0f; };
    for (auto& x : A)
        x = small();
    for (auto& x : B)
        x = small();
    for (auto& x : C)
        x = small();
    for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
            double acc = 0; // every product and partial sum is exact in fp32 (small dyadics)
            for (unsigned k = 0; k < K; ++k)
                acc += static_cast<double>(A[i * K + k]) * B[k * N + j];
            R[i * N + j] = static_cast<float>(alpha * acc + beta * C[i * N + j]);
        }
    const std::string yaml = "buffers:\n"
                             "  - {name: A, type: f32, elements: " +
                             std::to_string(A.size()) + ", init: {values: [" + list(A) +
                             "]}}\n"
                             "  - {name: B, type: f32, elements: " +
                             std::to_string(B.size()) + ", init: {values: [" + list(B) +
                             "]}}\n"
                             "  - {name: C, type: f32, elements: " +
                             std::to_string(C.size()) + ", init: {values: [" + list(C) +
                             "]}}\n"
                             "kernels:\n"
                             "  - name: gemm\n"
                             "    params:\n"
                             "      - {name: M, value: " +
                             std::to_string(M) +
                             "}\n"
                             "      - {name: N, value: " +
                             std::to_string(N) +
                             "}\n"
                             "      - {name: K, value: " +
                             std::to_string(K) +
                             "}\n"
                             "      - {name: alpha, value: 1.5}\n"
                             "      - {name: beta, value: 0.5}\n"
                             "      - {name: A, buffer: A}\n"
                             "      - {name: B, buffer: B}\n"
                             "      - {name: C, buffer: C}\n"
                             "    grid: [" +
                             std::to_string((N + 15) / 16) + ", " + std::to_string((M + 15) / 16) +
                             "]\n"
                             "    block: [16, 16]\n"
                             "    shared_bytes: " +
                             std::to_string(t.shared_bytes) +
                             "\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: C\n"
                             "    expect: [" +
                             list(R) +
                             "]\n"
                             "    tolerance: {relative: 0, absolute: 0}\n";
    run_both("matmul", yaml, t);
}

TEST_CASE("histogram.cu (ld.global.u8, atom.shared.add, atom.global.add) matches the host")
{
    const std::uint32_t seed = test_seed(3603);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    const translation t = translate_kernel("histogram", "histogram");
    CHECK(t.shared_bytes == 256 * 4);
    std::mt19937 rng(seed);
    const unsigned words = 2500 + rng() % 1000, n = 4 * words - static_cast<unsigned>(rng() % 4);
    std::vector<std::uint32_t> data(words), bins(256, 0);
    for (unsigned w = 0; w < words; ++w) {
        std::uint32_t v = 0;
        for (unsigned b = 0; b < 4; ++b) {
            // Skewed: many bytes in a few bins, so that lanes of a warp collide.
            const std::uint32_t byte = rng() % 3 ? rng() % 8 : rng() % 256;
            v |= byte << (8 * b);
            if (4 * w + b < n)
                ++bins[byte];
        }
        data[w] = v;
    }
    const std::string yaml = "buffers:\n"
                             "  - {name: data, type: u32, elements: " +
                             std::to_string(words) + ", init: {values: [" + list(data) +
                             "]}}\n"
                             "  - {name: bins, type: u32, elements: 256, init: zero}\n"
                             "kernels:\n"
                             "  - name: histogram\n"
                             "    params:\n"
                             "      - {name: data, buffer: data}\n"
                             "      - {name: bins, buffer: bins}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "    grid: [6, 1]\n"
                             "    block: [192, 1]\n"
                             "    shared_bytes: " +
                             std::to_string(t.shared_bytes) +
                             "\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: bins\n"
                             "    expect: [" +
                             list(bins) + "]\n";
    run_both("histogram", yaml, t);
}

TEST_CASE("the translator lays out .shared variables and maps shared, sub-word and atomic forms")
{
    const char* ptx = R"(
.version 6.0
.target sm_70
.address_size 64
.shared .align 8 .b8 g[6];
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<3>;
    .shared .align 4 .b8 t[10];
    mov.u64 %rd1, t;
    ld.shared.u16 %r1, [%rd1+2];
    ld.volatile.shared.s8 %r2, [t+1];
    st.shared.u8 [g+5], %r1;
    atom.shared.max.s32 %r3, [%rd1], %r2;
    atom.shared.cas.b32 %r4, [t+4], %r2, %r3;
    atom.global.add.f32 %f1, [%rd2], %f2;
    red.shared.xor.b32 [dyn+8], %r4;
    atom.shared.inc.u32 %r5, [dyn], 17;
    cvta.to.shared.u64 %rd3, %rd1;
    ret;
}
)";
    const parse_result p = parse(ptx, "k.ptx");
    REQUIRE(p.ok());
    const translation t = translate(p.mod, 0);
    for (const std::string& m : t.errors)
        UNSCOPED_INFO(m);
    REQUIRE(t.ok());
    INFO(t.text);
    CHECK(t.shared_bytes == 32); // g at 0 (6 B), t at 8 (10 B), extern dyn at 32
    CHECK(t.text.find("LD.U16.SHARED") != std::string::npos);
    CHECK(t.text.find("LD.S8.SHARED R") != std::string::npos);
    CHECK(t.text.find("[RZ + 9]") != std::string::npos);
    CHECK(t.text.find("ST.U8.SHARED [RZ + 5]") != std::string::npos);
    CHECK(t.text.find("ATOM.MAX.SHARED") != std::string::npos);
    CHECK(t.text.find("CAS.SHARED") != std::string::npos);
    CHECK(t.text.find("ATOM.FADD R") != std::string::npos);
    CHECK(t.text.find("ATOM.XOR.SHARED RZ, [RZ + 40]") != std::string::npos);
    CHECK(t.text.find("ATOM.INC.SHARED") != std::string::npos);
    // A generic pointer into shared memory is refused, not read as a global address.
    const char* generic = R"(
.version 6.0
.target sm_70
.address_size 64
.visible .entry k()
{
    .reg .b64 %rd<3>;
    .shared .align 4 .b8 t[8];
    cvta.shared.u64 %rd1, t;
    ret;
}
)";
    const parse_result q = parse(generic, "g.ptx");
    REQUIRE(q.ok());
    const translation u = translate(q.mod, 0);
    REQUIRE(u.errors.size() == 1);
    CHECK(u.errors[0] == "g.ptx:9:5: error: unsupported 'cvta.shared.u64': generic addresses of "
                         "shared memory are not supported (only cvta.to.shared)");
    // A generic or global access naming a shared variable would use its window offset as a
    // global address: refused too.
    const char* named = R"(
.version 6.0
.target sm_70
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<3>;
    .shared .align 4 .b8 t[8];
    ld.u32 %r1, [t+4];
    st.global.u32 [t], %r1;
    atom.global.add.u32 %r2, [t], 1;
    ret;
}
)";
    const parse_result n = parse(named, "n.ptx");
    REQUIRE(n.ok());
    const translation v = translate(n.mod, 0);
    REQUIRE(v.errors.size() == 3);
    const char* forms[] = {"ld.u32", "st.global.u32", "atom.global.add.u32"};
    for (int i = 0; i < 3; ++i)
        CHECK(v.errors[static_cast<std::size_t>(i)] ==
              "n.ptx:" + std::to_string(9 + i) + ":5: error: unsupported '" + forms[i] +
                  "': a generic or global access of shared variable 't' (only .shared accesses "
                  "name it)");
}

TEST_CASE("global ATOM of every operation and CAS run at the LLC in both modes")
{
    // 256 threads in 2 CTAs on shared counters c[0..9] and per-thread words w[t], v[t]; the
    // expected contents follow from PTX's definitions whatever the order the threads run in.
    const std::string program = R"(
      S2R R0, SR_GLOBAL_TID_X
      LDP R1, c
      ATOM.UMAX RZ, [R1], R0
      IADD R2, R0, -100
      ATOM.MIN RZ, [R1 + 4], R2
      MOV R3, 0.5
      ATOM.FADD RZ, [R1 + 8], R3
      MOV R4, 1000
      ATOM.INC RZ, [R1 + 12], R4
      AND R5, R0, 31
      MOV R6, 1
      SHL R6, R6, R5
      NOT R7, R6
      ATOM.AND RZ, [R1 + 16], R7
      ATOM.OR RZ, [R1 + 20], R6
      ATOM.XOR RZ, [R1 + 24], R0
      ATOM.DEC RZ, [R1 + 28], R4
      ATOM.ADD R8, [R1 + 32], R6
      LDP R9, w
      SHL R10, R0, 2
      IADD R9, R9, R10
      IADD R11, R0, 1000
      CAS R12, [R9], R0, R11
      IADD R13, R0, 1
      LDP R14, v
      IADD R14, R14, R10
      CAS R15, [R14], R13, R4
      IMUL R16, R0, 3
      ATOM.EXCH R17, [R14], R16
      ST [R9 + 1024], R12
      ST [R14 + 1024], R17
      EXIT
)";
    std::vector<std::uint32_t> w_init(512, 0), w_expect(512), v_expect(512);
    for (unsigned t = 0; t < 256; ++t) {
        w_init[t] = t;
        w_expect[t] = t + 1000; // the CAS found t
        w_expect[256 + t] = t;  // and returned it
        v_expect[t] = 3 * t;    // the failing CAS left 0, EXCH wrote 3 t
        v_expect[256 + t] = 0;  // and returned the 0
    }
    std::uint32_t sum = 0;
    for (unsigned t = 0; t < 256; ++t)
        sum += 1u << (t % 32);
    const std::vector<std::uint32_t> c_expect = {255,
                                                 static_cast<std::uint32_t>(-100),
                                                 0x43000000u /* 128.0f */,
                                                 256,
                                                 0,
                                                 0xffffffffu,
                                                 0 /* xor of 0..255 */,
                                                 1000 - 256 +
                                                     1 /* dec from 0 wraps to 1000 first */,
                                                 sum,
                                                 0};
    const std::string yaml =
        "buffers:\n"
        "  - {name: c, type: u32, elements: 10, init: {values: [0, 0, 0, 0, 4294967295, 0, 0, 0, "
        "0, 0]}}\n"
        "  - {name: w, type: u32, elements: 512, init: {values: [" +
        list(w_init) +
        "]}}\n"
        "  - {name: v, type: u32, elements: 512, init: zero}\n"
        "kernels:\n"
        "  - name: atomics\n"
        "    params: [{name: c, buffer: c}, {name: w, buffer: w}, {name: v, buffer: v}]\n"
        "    grid: [2, 1]\n"
        "    block: [128, 1]\n"
        "    program: |\n" +
        block(program) +
        "checks:\n"
        "  - {buffer: c, expect: [" +
        list(c_expect) +
        "]}\n"
        "  - {buffer: w, expect: [" +
        list(w_expect) +
        "]}\n"
        "  - {buffer: v, expect: [" +
        list(v_expect) + "]}\n";
    translation t;
    t.text = program;
    run_both("global_atomics", yaml, t);
}
