// Unit tests of the ML references (models/host/references/ml.cpp) against hand-computed cases.
// See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

reference_args kmeans_args(std::vector<float> noise, double n, double d, double k, double spacing,
                           double iterations, double part)
{
    reference_args a;
    a.buffers["noise"] = f32s(noise);
    a.scalars["n"] = n;
    a.scalars["d"] = d;
    a.scalars["k"] = k;
    a.scalars["spacing"] = spacing;
    a.scalars["iterations"] = iterations;
    a.scalars["part"] = part;
    return a;
}

} // namespace

TEST_CASE("kmeans: generated points, Lloyd iterations, ties to the lowest index", "[reference]")
{
    // n 4, d 1, k 2, spacing 10: point i of cluster i mod 2 at 10 (c + 1) + noise[i]:
    // 10.5, 19.5, 11, 22. Centroids start at points 0 and 1 (10.5, 19.5).
    const std::vector<float> noise{0.5f, -0.5f, 1, 2};
    typed_buffer cent = f32s({-1, -1, -1});
    typed_buffer labels{elem_type::u32, {9, 9, 9, 9, 9}};
    auto r = compute_reference("kmeans", kmeans_args(noise, 4, 1, 2, 10, 0, 0), cent);
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{10.5f, 19.5f, -1});
    // One iteration: labels 0 1 0 1, means (10.5 + 11) / 2 and (19.5 + 22) / 2.
    r = compute_reference("kmeans", kmeans_args(noise, 4, 1, 2, 10, 1, 0), cent);
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{10.75f, 20.75f, -1});
    r = compute_reference("kmeans", kmeans_args(noise, 4, 1, 2, 10, 1, 1), labels);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{0, 1, 0, 1, 9});
    r = compute_reference("kmeans", kmeans_args(noise, 4, 1, 2, 10, 1, 2), labels);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{2, 2, 9, 9, 9});

    // A tie: spacing 1, points 1, 2, 1.5 (cluster 0, 1, 0); 1.5 is as far from 1 as from 2
    // and goes to cluster 0; then the means are 1.25 and 2, and 1.5 stays in cluster 0.
    r = compute_reference("kmeans", kmeans_args({0, 0, 0.5f}, 3, 1, 2, 1, 2, 1), labels);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{0, 1, 0, 9, 9});
    r = compute_reference("kmeans", kmeans_args({0, 0, 0.5f}, 3, 1, 2, 1, 2, 2), labels);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{2, 1, 9, 9, 9});
    r = compute_reference("kmeans", kmeans_args({0, 0, 0.5f}, 3, 1, 2, 1, 2, 0), cent);
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{1.25f, 2, -1});

    // d 2, k 1: the mean of every point (noise feature-major: feature 0 then feature 1).
    r = compute_reference("kmeans", kmeans_args({0, 2, 1, 3}, 2, 2, 1, 4, 1, 0), cent);
    REQUIRE(r.ok());
    CHECK(floats(r.words) == std::vector<float>{5, 10, -1}); // (4, 8) + (0, 1) and (2, 3)

    CHECK_FALSE(compute_reference("kmeans", kmeans_args(noise, 4, 1, 5, 10, 1, 0), cent).ok());
    CHECK_FALSE(compute_reference("kmeans", kmeans_args(noise, 4, 1, 2, 10, 1, 3), cent).ok());
    CHECK_FALSE(compute_reference("kmeans", kmeans_args(noise, 8, 1, 2, 10, 1, 1), labels).ok());
}
