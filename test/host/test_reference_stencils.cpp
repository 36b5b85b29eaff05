// Unit tests of the stencil family's references (models/host/references/stencils.cpp) against
// hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("jacobi2d: boundary fixed, the interior averages its four neighbours", "[reference]")
{
    // 4 x 4, boundary 4, interior 0. Sweep 1: each interior cell sees two boundary cells and
    // two interior zeros, (4 + 4) / 4 = 2; sweep 2: (4 + 4 + 2 + 2) / 4 = 3.
    std::vector<float> g(16, 4.0f);
    for (int i : {5, 6, 9, 10})
        g[i] = 0;
    reference_args a;
    a.buffers["in"] = f32s(g);
    a.scalars["n"] = 4;
    a.scalars["steps"] = 2;
    std::vector<float> init = g;
    init.push_back(7); // beyond n x n: kept
    auto r = compute_reference("jacobi2d", a, f32s(init));
    REQUIRE(r.ok());
    std::vector<float> want(16, 4.0f);
    for (int i : {5, 6, 9, 10})
        want[i] = 3;
    want.push_back(7);
    CHECK(floats(r.words) == want);
    a.scalars["steps"] = 1;
    r = compute_reference("jacobi2d", a, f32s(init));
    REQUIRE(r.ok());
    CHECK(bits_f32(r.words[5]) == 2.0f);
    a.scalars["n"] = 5; // 25 cells do not fit
    CHECK_FALSE(compute_reference("jacobi2d", a, f32s(init)).ok());
}

TEST_CASE("hotspot: the RC model's step, lateral flow along a row and to the ambient",
          "[reference]")
{
    // 1 x 2 cells of 8 mm x 16 mm, 0.5 mm thick: dt / Cap = precision / (max_pd dx dy)
    // = 0.001 / (3e6 x 0.008 x 0.016) = 1 / 384000; 1 / Rx = 2 k t dy / dx = 0.2;
    // 1 / Rz = k dx dy / t = 25.6. T = (0, 1000), P = 0: cell 0 gains 1000 x 0.2 from cell 1
    // and 80 x 25.6 from the ambient (80), 2248 in all; cell 1 loses 200 to cell 0 and
    // 920 x 25.6 = 23552 to the ambient.
    reference_args a;
    a.buffers["temp"] = f32s({0, 1000});
    a.buffers["power"] = f32s({0, 0});
    a.scalars["rows"] = 1;
    a.scalars["cols"] = 2;
    a.scalars["steps"] = 1;
    auto r = compute_reference("hotspot", a, f32s({0, 0}));
    REQUIRE(r.ok());
    CHECK(bits_f32(r.words[0]) == Approx(2248 / 384000.0).epsilon(1e-6));
    CHECK(bits_f32(r.words[1]) == Approx(1000 - 23752 / 384000.0).epsilon(1e-6));
    // One 16 mm cell: dt / Cap = 0.001 / 768, 1 / Rz = 51.2; T = 100, P = 1000: flow
    // 1000 - 20 x 51.2 = -24 per step, two steps.
    reference_args b;
    b.buffers["temp"] = f32s({100});
    b.buffers["power"] = f32s({1000});
    b.scalars["rows"] = 1;
    b.scalars["cols"] = 1;
    b.scalars["steps"] = 2;
    r = compute_reference("hotspot", b, f32s({0}));
    REQUIRE(r.ok());
    const double t1 = 100 - 24 / 768000.0;
    CHECK(bits_f32(r.words[0]) ==
          Approx(t1 + (1000 + (80 - t1) * 51.2) * 0.001 / 768).epsilon(1e-7));
}

TEST_CASE("conv2d: k x k taps centred on the pixel, zero outside the image", "[reference]")
{
    reference_args a;
    a.buffers["in"] = f32s({1, 2, 3, 4, 5, 6}); // 2 x 3
    a.buffers["filt"] = f32s({1, 0, 0, 0, 0, 0, 0, 0, 0});
    a.scalars["h"] = 2;
    a.scalars["w"] = 3;
    a.scalars["k"] = 3;
    auto r = compute_reference("conv2d", a, f32s({9, 9, 9, 9, 9, 9, 9}));
    REQUIRE(r.ok());
    // filt[0][0] weighs in[y-1][x-1]: the image shifted down and right.
    CHECK(floats(r.words) == std::vector<float>{0, 0, 0, 0, 1, 2, 9});
    a.buffers["filt"] = f32s({1, 1, 1, 1, 1, 1, 1, 1, 1});
    r = compute_reference("conv2d", a, f32s({0, 0, 0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{12, 21, 16, 12, 21, 16});
    a.scalars["k"] = 2;
    CHECK_FALSE(compute_reference("conv2d", a, f32s({0, 0, 0, 0, 0, 0})).ok());
}

TEST_CASE("pathfinder: least path cost down the rows, signed minimum", "[reference]")
{
    reference_args a;
    a.buffers["wall"] = i32s({1, 5, 2, 9, 3, 1, 4, 1, 2, 2, 9, 0});
    a.scalars["rows"] = 3;
    a.scalars["cols"] = 4;
    // row 1: 3 + min(1, 5) = 4, 1 + min(1, 5, 2) = 2, 4 + min(5, 2, 9) = 6, 1 + min(2, 9) = 3;
    // row 2: 2 + min(4, 2) = 4, 2 + min(4, 2, 6) = 4, 9 + min(2, 6, 3) = 11, 0 + min(6, 3) = 3.
    auto r = compute_reference("pathfinder", a, i32s({0, 0, 0, 0, 77}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{4, 4, 11, 3, 77});
    a.scalars["rows"] = 2;
    r = compute_reference("pathfinder", a, i32s({0, 0, 0, 0}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{4, 2, 6, 3});
    // Signed: -1 is less than 0.
    reference_args b;
    b.buffers["wall"] = i32s({-1, 0, 0, 0});
    b.scalars["rows"] = 2;
    b.scalars["cols"] = 2;
    r = compute_reference("pathfinder", b, i32s({5, 5}));
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{0xFFFFFFFFu, 0xFFFFFFFFu});
}
