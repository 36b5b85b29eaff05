// Unit tests of the physics references (models/host/references/physics.cpp) against
// hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("nbody_step: two bodies, softened and not, positions and velocities", "[reference]")
{
    // Body 0 at the origin (mass 1), body 1 at (2, 0, 0) (mass 4), no softening, dt 0.5:
    // a0 = 4 (2, 0, 0) / 2^3 = (1, 0, 0), a1 = 1 (-2, 0, 0) / 8 = (-0.25, 0, 0).
    // v0' = (0, 1, 0) + 0.5 a0 = (0.5, 1, 0); p0' = p0 + 0.5 v0' = (0.25, 0.5, 0).
    // v1' = (-0.125, 0, 0); p1' = (2 - 0.0625, 0, 0). The w components are carried over.
    reference_args a;
    a.buffers["pos"] = f32s({0, 0, 0, 1, 2, 0, 0, 4});
    a.buffers["vel"] = f32s({0, 1, 0, 7, 0, 0, 0, 9});
    a.scalars["dt"] = 0.5;
    a.scalars["eps"] = 0;
    a.scalars["part"] = 0;
    auto r = compute_reference("nbody_step", a, f32s(std::vector<float>(8, -1)));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{0.25f, 0.5f, 0, 1, 1.9375f, 0, 0, 4});
    a.scalars["part"] = 1;
    r = compute_reference("nbody_step", a, f32s(std::vector<float>(8, -1)));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{0.5f, 1, 0, 7, -0.125f, 0, 0, 9});

    // eps 1: |d|^2 + eps^2 = 5, a0 = 4 x 2 / 5^1.5; n 1 leaves body 1 alone (a = 0) and the
    // second float4 of the checked buffer untouched.
    a.scalars["eps"] = 1;
    r = compute_reference("nbody_step", a, f32s(std::vector<float>(8, -1)));
    REQUIRE(r.ok());
    CHECK(bits_f32(r.words[0]) == Approx(0.5 * 8 / std::pow(5.0, 1.5)).epsilon(1e-7));
    a.scalars["n"] = 1;
    r = compute_reference("nbody_step", a, f32s(std::vector<float>(8, -1)));
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{0, 1, 0, 7, -1, -1, -1, -1});

    a.scalars["part"] = 2;
    CHECK_FALSE(compute_reference("nbody_step", a, f32s(std::vector<float>(8, 0))).ok());
    a.scalars["part"] = 0;
    a.scalars["n"] = 3;
    CHECK_FALSE(compute_reference("nbody_step", a, f32s(std::vector<float>(12, 0))).ok());
}
