// Unit tests of the sorting family's references (models/host/references/sorting.cpp) against
// hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"

#include <catch2/catch.hpp>

using namespace vgpu::host;

TEST_CASE("segment_sort: each segment of seg keys sorted as unsigned, the last one partial",
          "[reference]")
{
    reference_args a;
    a.buffers["in"] = {elem_type::u32, {5, 0xffffffff, 2, 9, 4, 4, 1, 0x80000000, 3, 8}};
    a.scalars["seg"] = 4;
    a.scalars["n"] = 9;
    const typed_buffer out{elem_type::u32, std::vector<std::uint32_t>(10, 77)};
    auto r = compute_reference("segment_sort", a, out);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{2, 5, 9, 0xffffffff, 1, 4, 4, 0x80000000, 3, 77});
    a.scalars["seg"] = 0;
    CHECK(compute_reference("segment_sort", a, out).error == "seg must be at least 1");
}
