// Unit tests of the reductions family's references (models/host/references/reductions.cpp)
// against hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"

#include <catch2/catch.hpp>

using namespace vgpu::host;

TEST_CASE("exclusive_scan: sums of the elements before, modulo 2^32, up to n", "[reference]")
{
    reference_args a;
    a.buffers["in"] = {elem_type::u32, {3, 1, 4, 1, 5, 0xfffffffe, 9}};
    a.scalars["n"] = 6;
    const typed_buffer out{elem_type::u32, {7, 7, 7, 7, 7, 7, 7}};
    auto r = compute_reference("exclusive_scan", a, out);
    REQUIRE(r.ok());
    // 0, 3, 3+1, 3+1+4, 3+1+4+1, 14; element 6 (past n) keeps its 7.
    CHECK(r.words == std::vector<std::uint32_t>{0, 3, 4, 8, 9, 14, 7});
    a.scalars["n"] = 7; // 14 + 0xfffffffe wraps to 12
    r = compute_reference("exclusive_scan", a, out);
    REQUIRE(r.ok());
    CHECK(r.words.back() == 12);
    a.scalars["n"] = 8;
    r = compute_reference("exclusive_scan", a, out);
    CHECK(r.error == "in needs 8 elements, has 7");
}
