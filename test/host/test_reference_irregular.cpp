// Unit tests of the irregular family's references (models/host/references/irregular.cpp)
// against hand-computed cases. See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "test/host/reference_test_util.h"

#include <catch2/catch.hpp>

using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("spmv_csr: y = A x over a CSR matrix with an empty row", "[reference]")
{
    // A = [[2, 0, 1], [0, 0, 0], [0, -3, 0.5]] in CSR, x = (1, 2, 4).
    reference_args a;
    a.buffers["row_ptr"] = u32s({0, 2, 2, 4});
    a.buffers["col_idx"] = u32s({0, 2, 1, 2});
    a.buffers["values"] = f32s({2, 1, -3, 0.5f});
    a.buffers["x"] = f32s({1, 2, 4});
    auto r = compute_reference("spmv_csr", a, f32s({9, 9, 9}));
    REQUIRE(r.ok());
    // y0 = 2*1 + 1*4 = 6, y1 = 0 (no nonzeros), y2 = -3*2 + 0.5*4 = -4
    CHECK(r.words == f32s({6, 0, -4}).words);
    // Summed in double and rounded once: 1 + 2^-30 - 1 is 2^-30 exactly (f32 steps would lose it).
    a.buffers["row_ptr"] = u32s({0, 3});
    a.buffers["col_idx"] = u32s({0, 1, 2});
    a.buffers["values"] = f32s({1, 0x1p-30f, -1});
    a.buffers["x"] = f32s({1, 1, 1});
    r = compute_reference("spmv_csr", a, f32s({0}));
    REQUIRE(r.ok());
    CHECK(bits_f32(r.words[0]) == 0x1p-30f);
    a.buffers["col_idx"] = u32s({0, 3, 2});
    CHECK(compute_reference("spmv_csr", a, f32s({0})).error == "col_idx[1] = 3 is outside x (3)");
    a.buffers["row_ptr"] = u32s({0, 4});
    CHECK(compute_reference("spmv_csr", a, f32s({0})).error == "col_idx needs 4 elements, has 3");
}

TEST_CASE("bfs_levels: distances in edges from the source, unreachable nodes all ones",
          "[reference]")
{
    // Directed edges: 0->1, 0->2, 1->3, 2->3, 3->4, 5->0; node 5 is unreachable from 0, and
    // 4 is reached at 3 edges (0-1-3-4), not through a longer path.
    reference_args a;
    a.buffers["row_ptr"] = u32s({0, 2, 3, 4, 5, 5, 6});
    a.buffers["col_idx"] = u32s({1, 2, 3, 3, 4, 0});
    a.scalars["source"] = 0;
    const typed_buffer out = u32s({7, 7, 7, 7, 7, 7, 7});
    auto r = compute_reference("bfs_levels", a, out);
    // nodes defaults to the checked buffer's 7 elements: row_ptr is one short.
    CHECK(r.words.empty());
    CHECK(r.error == "row_ptr needs 8 elements, has 7");
    a.scalars["nodes"] = 6;
    r = compute_reference("bfs_levels", a, out);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{0, 1, 1, 2, 3, 0xffffffff, 7});
    a.scalars["source"] = 5;
    r = compute_reference("bfs_levels", a, out);
    REQUIRE(r.ok());
    CHECK(r.words == std::vector<std::uint32_t>{1, 2, 2, 3, 4, 0, 7});
    a.scalars["source"] = 6;
    CHECK(compute_reference("bfs_levels", a, out).error == "source 6 is not a node (6 nodes)");
}
