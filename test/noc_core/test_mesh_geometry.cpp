// Unit tests of noc::mesh_geometry: grid sizing, endpoint placement, XY routes.
// See models/noc/README.md ("Mesh topology").
#include "models/noc/core/mesh_geometry.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace vgpu::noc;

TEST_CASE("mesh grid: the smallest near-square grid that gives every endpoint a router")
{
    CHECK(mesh_geometry(1, 1).routers() == 1);
    CHECK(mesh_geometry(0, 0).routers() == 1);
    const mesh_geometry g4(4, 2); // 2 clusters + host + trace unit -> 2 slices
    CHECK(g4.columns() == 2);
    CHECK(g4.rows() == 2);
    const mesh_geometry g5(5, 3);
    CHECK(g5.columns() == 3);
    CHECK(g5.rows() == 2);
    const mesh_geometry g16(16, 16);
    CHECK(g16.columns() == 4);
    CHECK(g16.rows() == 4);
    const mesh_geometry g17(3, 17);
    CHECK(g17.columns() == 5);
    CHECK(g17.rows() == 4);
    // One dimension given: the other holds the endpoints.
    const mesh_geometry c8(10, 2, 8);
    CHECK(c8.columns() == 8);
    CHECK(c8.rows() == 2);
    const mesh_geometry r3(10, 2, 0, 3);
    CHECK(r3.columns() == 4);
    CHECK(r3.rows() == 3);
    // Both given: that grid, even larger than needed.
    const mesh_geometry g88(5, 2, 8, 8);
    CHECK(g88.routers() == 64);
}

TEST_CASE("mesh placement: inputs from router 0 forward, outputs from the last router back")
{
    const mesh_geometry g(5, 3); // 3 x 2
    for (unsigned i = 0; i < 5; ++i) {
        CHECK(g.input_router(i) == i);
        CHECK(g.input_slot(i) == 0);
    }
    CHECK(g.output_router(0) == 5);
    CHECK(g.output_router(1) == 4);
    CHECK(g.output_router(2) == 3);
    CHECK(g.inputs_at(5) == 0);
    CHECK(g.outputs_at(5) == 1);
    CHECK(g.outputs_at(0) == 0);
    CHECK(g.x(5) == 2);
    CHECK(g.y(5) == 1);
    CHECK(g.router_at(2, 1) == 5);
    CHECK(g.router_name(5) == "r2_1");
    // A grid smaller than the endpoints: they wrap around and share routers, each with its
    // own local port (slot).
    const mesh_geometry s(5, 2, 2, 1);
    CHECK(s.input_router(0) == 0);
    CHECK(s.input_router(2) == 0);
    CHECK(s.input_router(4) == 0);
    CHECK(s.input_slot(4) == 2);
    CHECK(s.input_slot(3) == 1);
    CHECK(s.inputs_at(0) == 3);
    CHECK(s.inputs_at(1) == 2);
    CHECK(s.output_router(0) == 1);
    CHECK(s.output_router(1) == 0);
}

TEST_CASE("mesh neighbours stop at the edges")
{
    const mesh_geometry g(9, 9); // 3 x 3
    CHECK(g.neighbour(4, direction::east) == 5u);
    CHECK(g.neighbour(4, direction::west) == 3u);
    CHECK(g.neighbour(4, direction::north) == 1u);
    CHECK(g.neighbour(4, direction::south) == 7u);
    CHECK_FALSE(g.neighbour(2, direction::east));
    CHECK_FALSE(g.neighbour(3, direction::west));
    CHECK_FALSE(g.neighbour(1, direction::north));
    CHECK_FALSE(g.neighbour(7, direction::south));
    CHECK_FALSE(g.neighbour(4, direction::local));
    for (unsigned d = 0; d < mesh_directions; ++d) {
        const auto dir = static_cast<direction>(d);
        CHECK(opposite(opposite(dir)) == dir);
        CHECK(g.neighbour(*g.neighbour(4, dir), opposite(dir)) == 4u);
    }
}

TEST_CASE("mesh XY routes: Manhattan distance + 1 hops, all X moves before any Y move")
{
    const mesh_geometry g(4, 4, 4, 3); // 4 x 3
    // r0_0 -> r3_2: east three times, south twice, then local.
    const auto r = g.route(g.router_at(0, 0), g.router_at(3, 2));
    const std::vector<mesh_hop> want = {{0, direction::east},  {1, direction::east},
                                        {2, direction::east},  {3, direction::south},
                                        {7, direction::south}, {11, direction::local}};
    CHECK(r == want);
    // r3_0 -> r0_2 goes west first, then south.
    const auto back = g.route(3, 8);
    CHECK(back.front().out == direction::west);
    CHECK(back.back() == mesh_hop{8, direction::local});
    // Every pair: hop count, X before Y, every step to a neighbour.
    for (unsigned a = 0; a < g.routers(); ++a)
        for (unsigned b = 0; b < g.routers(); ++b) {
            const auto route = g.route(a, b);
            const unsigned manhattan = static_cast<unsigned>(std::abs(int(g.x(a)) - int(g.x(b))) +
                                                             std::abs(int(g.y(a)) - int(g.y(b))));
            REQUIRE(route.size() == manhattan + 1);
            CHECK(g.distance(a, b) == manhattan);
            CHECK(route.front().router == a);
            CHECK(route.back().router == b);
            CHECK(route.back().out == direction::local);
            bool turned_to_y = false;
            for (std::size_t k = 0; k + 1 < route.size(); ++k) {
                const direction d = route[k].out;
                const bool is_y = d == direction::north || d == direction::south;
                CHECK_FALSE((turned_to_y && !is_y)); // never back to X after a Y move
                turned_to_y = turned_to_y || is_y;
                CHECK(g.neighbour(route[k].router, d) == route[k + 1].router);
            }
        }
}
