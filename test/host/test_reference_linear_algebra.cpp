// Unit tests of the linear-algebra references (models/host/references/linear_algebra.cpp)
// against hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("transpose: out = in^T, words copied, elements past rows x cols kept", "[reference]")
{
    reference_args a;
    a.buffers["in"] = words(elem_type::u32, {1, 2, 3, 4, 5, 6}); // 2 x 3: rows {1 2 3} {4 5 6}
    a.scalars["cols"] = 3;
    // 3 x 2: rows {1 4} {2 5} {3 6}; rows defaults to len(in) / cols = 2; element 6 is kept.
    auto r = compute_reference("transpose", a, words(elem_type::u32, {0, 0, 0, 0, 0, 0, 77}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{1, 4, 2, 5, 3, 6, 77});

    // f32 words move unchanged; rows given explicitly uses only the first rows x cols elements
    // of in (a 2 x 2 matrix {-1.5 0.25} {1e30 7} of a 5-element buffer).
    a.buffers["in"] = f32s({-1.5f, 0.25f, 1e30f, 7, 9});
    a.scalars["cols"] = 2;
    a.scalars["rows"] = 2;
    r = compute_reference("transpose", a, f32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{-1.5f, 1e30f, 0.25f, 7});

    // NaN payloads and signed zeros are words like the others (i32 too).
    a.buffers["in"] = words(elem_type::i32, {0x7fc00001u, 0x80000000u});
    a.scalars["cols"] = 1;
    a.scalars.erase("rows");
    r = compute_reference("transpose", a, words(elem_type::i32, {0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{0x7fc00001u, 0x80000000u});

    a.scalars["cols"] = 0;
    CHECK(compute_reference("transpose", a, words(elem_type::i32, {0, 0})).error ==
          "cols must be at least 1");
    a.scalars["cols"] = 1;
    a.scalars["rows"] = 3;
    CHECK(compute_reference("transpose", a, words(elem_type::i32, {0, 0, 0})).error ==
          "in needs 3 elements, has 2");
    a.scalars["rows"] = 2;
    CHECK(compute_reference("transpose", a, words(elem_type::i32, {0})).error ==
          "the checked buffer needs 2 elements, has 1");
}

TEST_CASE("gemv: alpha A x + beta y in double, y from the checked buffer", "[reference]")
{
    reference_args a;
    a.buffers["a"] = f32s({1, 2, 3, 4, 5, 6}); // 2 x 3
    a.buffers["x"] = f32s({1, 2, 3});          // A x = {14, 32}
    a.scalars["m"] = 2;
    a.scalars["n"] = 3;
    // alpha 1, beta 0 by default; the element past m keeps its value.
    auto r = compute_reference("gemv", a, f32s({2, 4, 9}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{14, 32, 9});
    a.scalars["alpha"] = 2;
    a.scalars["beta"] = 0.5;
    r = compute_reference("gemv", a, f32s({2, 4, 9}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{29, 66, 9});

    // Rounded once: 1e8 + 1 - 1e8 is 1 (a left-to-right f32 sum would give 0).
    a.buffers["a"] = f32s({1e8f, 1, -1e8f});
    a.buffers["x"] = f32s({1, 1, 1});
    a.scalars["m"] = 1;
    a.scalars.erase("alpha");
    a.scalars.erase("beta");
    r = compute_reference("gemv", a, f32s({5}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{1});

    a.scalars["m"] = 2;
    CHECK(compute_reference("gemv", a, f32s({0, 0})).error == "a needs 6 elements, has 3");
    a.scalars["m"] = 1;
    a.scalars["n"] = 4;
    a.buffers["a"] = f32s({1, 2, 3, 4});
    CHECK(compute_reference("gemv", a, f32s({0})).error == "x needs 4 elements, has 3");
}

TEST_CASE("transpose and gemv work estimates: rows x cols and m x n", "[reference]")
{
    reference_shape t;
    t.buffers["in"] = 600;
    t.out = 600;
    t.scalars["cols"] = 20; // rows = 30 by default
    auto w = estimate_work("transpose", t);
    REQUIRE(w.ok());
    CHECK(w.ops == 600);
    t.scalars["rows"] = 31;
    CHECK(estimate_work("transpose", t).error == "in needs 620 elements, has 600");

    reference_shape g;
    g.buffers["a"] = 4000;
    g.buffers["x"] = 100;
    g.out = 40;
    g.scalars["m"] = 40;
    g.scalars["n"] = 100;
    w = estimate_work("gemv", g);
    REQUIRE(w.ok());
    CHECK(w.ops == 4000);
    CHECK(std::string(w.driver) == "n");
}
