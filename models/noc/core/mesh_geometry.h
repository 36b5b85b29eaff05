// Geometry of the 2D mesh NoC: grid size, endpoint placement and XY routes.
// Pure C++ core of the NoC models, no SystemC; see models/noc/README.md ("Mesh topology").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::noc {

/// An output (or input) port of a mesh router: a neighbour or the local endpoints.
enum class direction : std::uint8_t {
    east,  ///< toward x + 1
    west,  ///< toward x - 1
    north, ///< toward y - 1 (row 0 is the top row)
    south, ///< toward y + 1
    local  ///< the router's own endpoints (ejection or injection)
};

/// Number of neighbour directions (east, west, north, south).
constexpr unsigned mesh_directions = 4;

/// Config spelling of a direction ("east").
const char* to_string(direction d);
/// The direction a packet sent toward `d` arrives from at the next router.
direction opposite(direction d);

/// One step of a route: the router a packet is in and the output it leaves by.
struct mesh_hop {
    unsigned router = 0;              ///< router index (row-major: y * columns + x)
    direction out = direction::local; ///< output taken there; `local` at the destination
    bool operator==(const mesh_hop& o) const { return router == o.router && out == o.out; }
};

/// A grid of columns x rows routers with `inputs` and `outputs` endpoints placed on them.
/// Sizing: with neither given, columns = ceil(sqrt(n)) and rows = ceil(n / columns) for
/// n = max(inputs, outputs, 1); with one given, the other is the smallest that holds n.
/// Placement: input i at router i mod R (row-major from router 0), output o at router
/// R - 1 - (o mod R) (row-major from the last router backwards), R = columns x rows, so
/// requests cross the mesh; endpoints share a router only when R < n.
class mesh_geometry {
public:
    /// columns, rows: 0 = chosen from the endpoint counts (see the class comment).
    mesh_geometry(unsigned inputs, unsigned outputs, unsigned columns = 0, unsigned rows = 0);

    unsigned columns() const { return m_columns; }                   ///< routers per row
    unsigned rows() const { return m_rows; }                         ///< routers per column
    unsigned routers() const { return m_columns * m_rows; }          ///< routers in the grid
    unsigned x(unsigned router) const { return router % m_columns; } ///< column of a router
    unsigned y(unsigned router) const { return router / m_columns; } ///< row of a router
    /// Router index at column x, row y.
    unsigned router_at(unsigned x, unsigned y) const { return y * m_columns + x; }
    /// The router `r`'s neighbour toward `d`, or nothing at the edge (or for `local`).
    std::optional<unsigned> neighbour(unsigned r, direction d) const;

    unsigned input_router(unsigned i) const { return m_input_router.at(i); }   ///< of input i
    unsigned output_router(unsigned o) const { return m_output_router.at(o); } ///< of output o
    /// Position of input i among the inputs on its router (its local injection port).
    unsigned input_slot(unsigned i) const { return m_input_slot.at(i); }
    /// Position of output o among the outputs on its router.
    unsigned output_slot(unsigned o) const { return m_output_slot.at(o); }
    /// Inputs placed on router r.
    unsigned inputs_at(unsigned r) const { return m_inputs_at.at(r); }
    /// Outputs placed on router r.
    unsigned outputs_at(unsigned r) const { return m_outputs_at.at(r); }

    /// XY routing: the output a packet at router `at` bound for router `to` takes (X first).
    direction step(unsigned at, unsigned to) const;
    /// The whole XY route from router `from` to router `to`: distance + 1 hops, the last
    /// one `local` at `to`.
    std::vector<mesh_hop> route(unsigned from, unsigned to) const;
    /// Manhattan distance: links a packet crosses from `from` to `to`.
    unsigned distance(unsigned from, unsigned to) const;
    /// Name of router r: "r<x>_<y>".
    std::string router_name(unsigned r) const;

private:
    unsigned m_columns = 1, m_rows = 1;
    std::vector<unsigned> m_input_router, m_output_router, m_input_slot, m_output_slot;
    std::vector<unsigned> m_inputs_at, m_outputs_at;
};

} // namespace vgpu::noc
