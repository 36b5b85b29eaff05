// Unit tests of the host-side references against hand-computed cases. See docs/workloads.md.
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

reference_result call(const char* name, reference_args a, const typed_buffer& out)
{
    return compute_reference(name, a, out);
}

} // namespace

TEST_CASE("vector_add and saxpy: element-wise f32, elements beyond n keep their value",
          "[reference]")
{
    reference_args a;
    a.buffers["a"] = f32s({1, 2, 3});
    a.buffers["b"] = f32s({0.5f, -2, 10});
    a.scalars["n"] = 2;
    auto r = call("vector_add", a, f32s({9, 9, 9}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{1.5f, 0, 9});

    reference_args s;
    s.buffers["x"] = f32s({1, 2, 3});
    s.buffers["y"] = f32s({10, 20, 30});
    s.scalars["a"] = 2.5;
    r = call("saxpy", s, f32s({0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{12.5f, 25, 37.5f});
    // fma rounds once: 0.1f * 3 + (-0.3f) differs from the twice-rounded product and sum.
    s.buffers["x"] = f32s({0.1f});
    s.buffers["y"] = f32s({-0.3f});
    s.scalars["a"] = 3;
    r = call("saxpy", s, f32s({0}));
    CHECK(bits_f32(r.words[0]) == std::fma(3.0f, 0.1f, -0.3f));
}

TEST_CASE("strided_sum: thread t sums count elements from t*stride, wrapping", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({1, 2, 3, 4, 5, 6, 7, 8});
    a.scalars["stride"] = 3;
    a.scalars["count"] = 2;
    auto r = call("strided_sum", a, u32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    // t=0: in[0]+in[1]; t=1: in[3]+in[4]; t=2: in[6]+in[7]; t=3: in[9%8]+in[10%8]
    CHECK(r.words == std::vector<std::uint32_t>{3, 9, 15, 5});
}

TEST_CASE("gather: out[i] = src[idx[i]], an index outside src is an error", "[reference]")
{
    reference_args a;
    a.buffers["src"] = u32s({10, 20, 30});
    a.buffers["idx"] = u32s({2, 0, 2, 1});
    auto r = call("gather", a, u32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{30, 10, 30, 20});
    a.buffers["idx"] = u32s({0, 3});
    r = call("gather", a, u32s({0, 0}));
    CHECK(r.error == "idx[1] = 3 is outside src (3 elements)");
}

TEST_CASE("reduce_sum: per-CTA sums of block*items elements, wrapping mod 2^32", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({1, 2, 3, 4, 5, 6, 7, 0xffffffff, 2});
    a.scalars["block"] = 2;
    a.scalars["items"] = 2;
    auto r = call("reduce_sum", a, u32s({0, 0, 0, 99}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{10, 17, 2, 99});
    a.scalars["n"] = 4;
    r = call("reduce_sum", a, u32s({0, 0}));
    CHECK(r.words == std::vector<std::uint32_t>{10, 0});
    r = call("reduce_sum", a, u32s({}));
    CHECK(r.error == "the checked buffer needs 1 elements, has 0");
}

TEST_CASE("owned_rmw: thread-owned words, x*3 + i, the array and the sums", "[reference]")
{
    // threads 2, m 2, k 3 by hand: t 0 touches a[0], a[2], a[0]; t 1 a[3], a[1], a[3].
    reference_args a;
    a.buffers["in"] = u32s({1, 2, 3, 4});
    a.scalars["threads"] = 2;
    a.scalars["m"] = 2;
    a.scalars["k"] = 3;
    a.scalars["part"] = 0;
    auto r = call("owned_rmw", a, u32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{11, 7, 10, 38});
    a.scalars["part"] = 1;
    r = call("owned_rmw", a, u32s({0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{24, 57});
    a.scalars["m"] = 3;
    CHECK_FALSE(call("owned_rmw", a, u32s({0, 0})).ok());
}

TEST_CASE("table_sum: passes x the sum of every block-th word, per output index", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({1, 2, 3, 4, 5});
    a.scalars["block"] = 2;
    a.scalars["passes"] = 3;
    auto r = call("table_sum", a, u32s({0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{27, 18, 27}); // 3 x (1+3+5), 3 x (2+4)
    a.scalars["block"] = 0;
    CHECK_FALSE(call("table_sum", a, u32s({0})).ok());
}

TEST_CASE("matmul: row-major C = A x B", "[reference]")
{
    reference_args a;
    a.buffers["a"] = f32s({1, 2, 3, 4, 5, 6});    // 2 x 3
    a.buffers["b"] = f32s({7, 8, 9, 10, 11, 12}); // 3 x 2
    a.scalars["m"] = 2;
    a.scalars["n"] = 2;
    a.scalars["k"] = 3;
    auto r = call("matmul", a, f32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("compute_bound, stream and axpby: exact u32 arithmetic", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({0, 1});
    a.scalars["iterations"] = 2;
    auto r = call("compute_bound", a, u32s({0, 0}));
    REQUIRE(r.ok());
    // By hand: x0 = 0 -> 1013904223 = 0x3c6ef35f -> ^ (>>16: 0x3c6e) = 0x3c6ecf31;
    // second: 0x3c6ecf31 * 1664525 + 1013904223 mod 2^32, then ^ >> 16.
    std::uint32_t x = 0x3c6ecf31u * 1664525u + 1013904223u;
    x ^= x >> 16;
    CHECK(r.words[0] == x);
    std::uint32_t y = 1u * 1664525u + 1013904223u;
    y ^= y >> 16;
    y = y * 1664525u + 1013904223u;
    y ^= y >> 16;
    CHECK(r.words[1] == y);

    reference_args s;
    s.buffers["in"] = u32s({1, 2, 0x80000000u});
    s.scalars["k"] = 3;
    s.scalars["c"] = -1;
    r = call("stream", s, u32s({0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{2, 5, 0x7fffffffu});

    reference_args x2;
    x2.buffers["x"] = u32s({1, 2});
    x2.buffers["y"] = u32s({10, 20});
    x2.scalars["alpha"] = 3;
    x2.scalars["beta"] = 2;
    r = call("axpby", x2, u32s({0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{23, 46});
}

TEST_CASE("fma_chain: count fused multiply-adds per element, elements beyond n keep their value",
          "[reference]")
{
    reference_args a;
    // x = 1 + 2^-23, a = 1 - 2^-24, b = -1: fused, x * a + b = 2^-24 - 2^-47 exactly; a separate
    // multiply would round x * a to 1 and give 0.
    const float x = 1.0f + std::ldexp(1.0f, -23);
    a.buffers["in"] = f32s({x, 1.0f});
    a.scalars["a"] = 1.0 - std::ldexp(1.0, -24);
    a.scalars["b"] = -1;
    a.scalars["count"] = 1;
    a.scalars["n"] = 1;
    auto r = call("fma_chain", a, f32s({7.0f, 7.0f}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) ==
          std::vector<float>{std::ldexp(1.0f, -24) - std::ldexp(1.0f, -47), 7.0f});
    // x -> 2x + 1 three times from 1, 2, ...: 8x + 7, for 19 elements (not a multiple of the
    // eight chains run side by side); the 20th keeps its value.
    reference_args c;
    std::vector<float> in, want;
    for (int i = 0; i < 20; ++i) {
        in.push_back(static_cast<float>(i + 1));
        want.push_back(i < 19 ? static_cast<float>(8 * (i + 1) + 7) : -1.0f);
    }
    c.buffers["in"] = f32s(in);
    c.scalars["a"] = 2;
    c.scalars["b"] = 1;
    c.scalars["count"] = 3;
    c.scalars["n"] = 19;
    r = call("fma_chain", c, f32s(std::vector<float>(20, -1.0f)));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == want);
}

TEST_CASE("stencil3_f32: weighted neighbours, zero outside elements 0 to n - 1", "[reference]")
{
    reference_args a;
    a.buffers["in"] = f32s({1, 2, 4, 8});
    a.scalars["wl"] = 1;
    a.scalars["wc"] = 10;
    a.scalars["wr"] = 100;
    a.scalars["n"] = 3; // in[3] counts as 0 for i = 2; out[3] keeps its value
    auto r = call("stencil3_f32", a, f32s({9, 9, 9, 9}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{210, 421, 42, 9});
    a.scalars["n"] = 5;
    CHECK(call("stencil3_f32", a, f32s({0, 0, 0, 0, 0})).error == "in needs 5 elements, has 4");
}

TEST_CASE("gemm: alpha A B + beta C, C from the checked buffer", "[reference]")
{
    reference_args a;
    a.buffers["a"] = f32s({1, 2, 3, 4, 5, 6});    // 2 x 3
    a.buffers["b"] = f32s({7, 8, 9, 10, 11, 12}); // 3 x 2; A B = {58, 64, 139, 154}
    a.scalars["m"] = 2;
    a.scalars["n"] = 2;
    a.scalars["k"] = 3;
    a.scalars["alpha"] = 2;
    a.scalars["beta"] = 0.5;
    auto r = call("gemm", a, f32s({2, 4, 6, 8}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{117, 130, 281, 312});
    a.scalars.erase("beta");
    CHECK(call("gemm", a, f32s({0, 0, 0, 0})).error == "missing argument 'beta'");
}

TEST_CASE("histogram8: little-endian bytes of words added to the bins", "[reference]")
{
    reference_args a;
    a.buffers["data"] = u32s({0x01010200u, 0xff000003u}); // bytes 00 02 01 01 03 00 00 ff
    a.scalars["n"] = 7;                                   // without the ff
    typed_buffer bins = u32s(std::vector<std::uint32_t>(256, 0));
    bins.words[0] = 10;
    auto r = call("histogram8", a, bins);
    REQUIRE(r.ok());
    std::vector<std::uint32_t> want(256, 0);
    want[0] = 13;
    want[1] = 2;
    want[2] = 1;
    want[3] = 1;
    CHECK(r.words == want);
    a.scalars.erase("n"); // all 8 bytes
    r = call("histogram8", a, bins);
    REQUIRE(r.ok());
    want[255] = 1;
    CHECK(r.words == want);
    a.scalars["n"] = 9;
    CHECK(call("histogram8", a, bins).error == "data needs 9 bytes, has 8");
    a.scalars["n"] = 8;
    CHECK(call("histogram8", a, u32s(std::vector<std::uint32_t>(255, 0))).error ==
          "the checked buffer needs 256 elements, has 255");
}

TEST_CASE("softmax_rows: per-row exp(x - max) / sum, large inputs do not overflow", "[reference]")
{
    reference_args a;
    a.buffers["in"] = f32s({1, 1, 1000, 1000, 0, std::log(2.0f)});
    a.scalars["cols"] = 2; // three rows
    auto r = call("softmax_rows", a, f32s({0, 0, 0, 0, 0, 0}));
    REQUIRE(r.ok());
    const auto f = floats(r.words);
    CHECK(f[0] == 0.5f);
    CHECK(f[1] == 0.5f);
    CHECK(f[2] == 0.5f); // exp(1000) alone would overflow
    CHECK(f[3] == 0.5f);
    CHECK(f[4] == Approx(1.0 / 3).epsilon(1e-6));
    CHECK(f[5] == Approx(2.0 / 3).epsilon(1e-6));
    a.scalars["rows"] = 4;
    CHECK(call("softmax_rows", a, f32s({0, 0, 0, 0, 0, 0})).error == "in needs 8 elements, has 6");
    a.scalars["cols"] = 0;
    CHECK(call("softmax_rows", a, f32s({0})).error == "cols must be at least 1");
}

TEST_CASE("sum_f32: out[0] += the sum, in double rounded once", "[reference]")
{
    reference_args a;
    a.buffers["in"] = f32s({1, 2, 0.5f, 100});
    a.scalars["n"] = 3;
    auto r = call("sum_f32", a, f32s({10, 7}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{13.5f, 7});
    // 2^24 + 1 + 1: a float sum from the left gives 2^24, the exact sum is representable.
    a.buffers["in"] = f32s({16777216.0f, 1, 1});
    a.scalars.erase("n");
    r = call("sum_f32", a, f32s({0}));
    REQUIRE(r.ok());
    CHECK(bits_f32(r.words[0]) == 16777218.0f);
}

TEST_CASE("reference argument errors", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({1});
    CHECK(call("stream", a, u32s({0})).error == "missing argument 'k'");
    a.scalars["k"] = 1.5;
    a.scalars["c"] = 0;
    CHECK(call("stream", a, u32s({0})).error == "argument 'k' must be a 32-bit integer");
    a.scalars["k"] = 1;
    CHECK(call("stream", a, u32s({0, 0})).error == "in needs 2 elements, has 1");
    CHECK(call("nope", a, u32s({0})).error == "unknown reference 'nope'");
    CHECK(find_reference("matmul") != nullptr);
    CHECK(find_reference("matmult") == nullptr);
}

TEST_CASE("strided_sum: starts beyond 2^32 wrap like (t*stride + k) mod len(in)", "[reference]")
{
    reference_args a;
    a.buffers["in"] = u32s({1, 10, 100, 1000, 10000, 100000, 1000000});
    a.scalars["stride"] = 4294967295.0; // 2^32 - 1 = 3 mod 7 (2^32 = 4 mod 7)
    a.scalars["count"] = 9;             // more than len(in): wraps within one thread
    auto r = call("strided_sum", a, u32s({0, 0, 0}));
    REQUIRE(r.ok());
    // Thread t starts at 3t mod 7 and sums 9 elements: one full turn (1111111) plus the first
    // two from its start.
    const std::uint32_t turn = 1111111;
    CHECK(r.words ==
          std::vector<std::uint32_t>{turn + 1 + 10, turn + 1000 + 10000, turn + 1000000 + 1});
}

TEST_CASE("work estimates: inner-loop steps of each reference and the limit", "[reference]")
{
    reference_shape s;
    s.out = 100;
    s.buffers["a"] = 100;
    s.buffers["b"] = 200;
    auto w = estimate_work("vector_add", s);
    REQUIRE(w.ok());
    CHECK(w.ops == 100); // n defaults to the checked buffer's elements
    CHECK(std::string(w.driver) == "n");
    s.scalars["n"] = 40;
    CHECK(estimate_work("vector_add", s).ops == 40);
    CHECK(s.elements() == 400);
    CHECK(work_limit(s) == (1ull << 32) + 64 * 400);

    reference_shape t; // threads (default 256) x count
    t.out = 256;
    t.buffers["in"] = 1024;
    t.scalars["stride"] = 4;
    t.scalars["count"] = 4000000000.0;
    w = estimate_work("strided_sum", t);
    REQUIRE(w.ok());
    CHECK(w.ops == 256ull * 4000000000ull);
    CHECK(std::string(w.driver) == "count");
    CHECK(w.ops > work_limit(t));
    t.scalars["count"] = 1024;
    CHECK(estimate_work("strided_sum", t).ops <= work_limit(t));

    reference_shape c; // n x iterations
    c.out = 4096;
    c.buffers["in"] = 4096;
    c.scalars["iterations"] = 4294967295.0;
    w = estimate_work("compute_bound", c);
    CHECK(w.ops == 4096ull * 4294967295ull);
    CHECK(std::string(w.driver) == "iterations");

    reference_shape m; // m x n x k, saturating instead of wrapping
    m.out = 6;
    m.buffers["a"] = 8;
    m.buffers["b"] = 12;
    m.scalars["m"] = 2;
    m.scalars["n"] = 3;
    m.scalars["k"] = 4;
    CHECK(estimate_work("matmul", m).ops == 24);
    CHECK(std::string(estimate_work("matmul", m).driver) == "k");

    reference_shape r; // every element of in once
    r.buffers["in"] = 1000;
    r.out = 4;
    r.scalars["block"] = 256;
    CHECK(estimate_work("reduce_sum", r).ops == 1000);

    // Invalid arguments give no estimate (the reference reports them without looping).
    reference_shape bad = t;
    bad.scalars["count"] = -1;
    CHECK(estimate_work("strided_sum", bad).error ==
          "argument 'count' must be an integer in 0..4294967295");
    bad = m;
    bad.scalars["k"] = 5; // a needs 10 elements, has 8
    CHECK(estimate_work("matmul", bad).error == "a needs 10 elements, has 8");
    CHECK(estimate_work("nope", s).error == "unknown reference 'nope'");

    // Every reference has an estimate, and the element-wise ones never exceed their limit.
    for (const auto& spec : references()) {
        reference_shape any;
        any.out = 1u << 28;
        for (const auto& arg : spec.args)
            if (arg.kind == arg_kind::buffer)
                any.buffers[arg.name] = 1u << 28;
        for (const char* k : {"a", "b", "k", "c", "alpha", "beta", "stride", "block"})
            any.scalars[k] = 1;
        any.scalars["count"] = 1;
        any.scalars["iterations"] = 1;
        any.scalars["seg"] = 3;
        any.scalars["steps"] = 1;
        any.scalars["m"] = 1;
        any.scalars["n"] = 1u << 28;
        any.scalars["threads"] = 1;
        any.scalars["part"] = 0;
        any.scalars["passes"] = 1;
        for (const char* k :
             {"wl", "wc", "wr", "cols", "rows", "h", "w", "d", "spacing", "dt", "eps"})
            any.scalars[k] = 1;
        for (const char* k : {"rows", "nodes", "source"}) // CSR: row_ptr holds rows + 1
            any.scalars[k] = 1;
        if (std::string(spec.name) == "jacobi2d")
            any.scalars["n"] = 1u << 14; // an n x n grid
        if (std::string(spec.name) == "nbody_step")
            any.scalars["n"] = 1u << 16; // all pairs: n^2 steps
        INFO(spec.name);
        const auto e = estimate_work(spec.name, any);
        CHECK(e.ok());
        CHECK(e.ops <= work_limit(any));
    }
}

TEST_CASE("work estimates saturate instead of wrapping", "[reference]")
{
    reference_shape m;
    m.out = 4294967295ull;
    m.buffers["a"] = 4294967295ull;
    m.buffers["b"] = 4294967295ull;
    m.scalars["m"] = 4294967295.0;
    m.scalars["n"] = 1;
    m.scalars["k"] = 1;
    CHECK(estimate_work("matmul", m).ops == 4294967295ull);
    m.buffers["a"] = ~0ull;
    m.buffers["b"] = ~0ull;
    m.scalars["n"] = 4294967295.0;
    m.scalars["k"] = 4294967295.0;
    m.scalars["m"] = 1;
    m.out = ~0ull;
    // 1 x (2^32-1) x (2^32-1) fits; with m = 2^32-1 it would not.
    CHECK(estimate_work("matmul", m).ops == 4294967295ull * 4294967295ull);
    m.scalars["m"] = 4294967295.0;
    CHECK(estimate_work("matmul", m).ops == ~0ull);
    CHECK(work_limit(m) == ~0ull);
}

TEST_CASE("compare: exact integers, f32 with relative or absolute tolerance", "[reference]")
{
    auto c = compare({1, 2, 3}, {1, 5, 3}, elem_type::i32, {});
    CHECK(c.mismatches == 1);
    REQUIRE(c.first.size() == 1);
    CHECK(c.first[0].index == 1);
    CHECK(c.first[0].expected == "2");
    CHECK(c.first[0].got == "5");
    CHECK(compare({0xffffffffu}, {0}, elem_type::i32, {}).first[0].expected == "-1");

    const auto e = f32s({100.0f, 0.0f}).words;
    const auto g = f32s({100.001f, 1e-7f}).words;
    CHECK(compare(e, g, elem_type::f32, {}).mismatches == 2);
    CHECK(compare(e, g, elem_type::f32, {1e-5, 0}).mismatches == 1); // 0 vs 1e-7 is not relative
    CHECK(compare(e, g, elem_type::f32, {1e-5, 1e-6}).ok());
    const auto many = compare(std::vector<std::uint32_t>(20, 0), std::vector<std::uint32_t>(20, 1),
                              elem_type::u32, {}, 4);
    CHECK(many.mismatches == 20);
    CHECK(many.first.size() == 4);
    CHECK(compare({1, 2}, {1}, elem_type::u32, {}).first[0].got == "(none)");
}
