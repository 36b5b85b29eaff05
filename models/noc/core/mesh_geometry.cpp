// Geometry of the 2D mesh NoC. See models/noc/README.md ("Mesh topology").
#include "models/noc/core/mesh_geometry.h"

#include <algorithm>
#include <cmath>

namespace vgpu::noc {

const char* to_string(direction d)
{
    switch (d) {
    case direction::east:
        return "east";
    case direction::west:
        return "west";
    case direction::north:
        return "north";
    case direction::south:
        return "south";
    case direction::local:
        break;
    }
    return "local";
}

direction opposite(direction d)
{
    switch (d) {
    case direction::east:
        return direction::west;
    case direction::west:
        return direction::east;
    case direction::north:
        return direction::south;
    case direction::south:
        return direction::north;
    case direction::local:
        break;
    }
    return direction::local;
}

mesh_geometry::mesh_geometry(unsigned inputs, unsigned outputs, unsigned columns, unsigned rows)
{
    const unsigned n = std::max({inputs, outputs, 1u});
    auto ceil_div = [](unsigned a, unsigned b) { return (a + b - 1) / b; };
    if (columns == 0 && rows == 0) {
        columns = 1;
        while (columns * columns < n)
            ++columns;
        rows = ceil_div(n, columns);
    } else if (rows == 0) {
        rows = ceil_div(n, columns);
    } else if (columns == 0) {
        columns = ceil_div(n, rows);
    }
    m_columns = columns;
    m_rows = rows;
    const unsigned r = routers();
    m_inputs_at.assign(r, 0);
    m_outputs_at.assign(r, 0);
    for (unsigned i = 0; i < inputs; ++i) {
        m_input_router.push_back(i % r);
        m_input_slot.push_back(m_inputs_at[i % r]++);
    }
    for (unsigned o = 0; o < outputs; ++o) {
        const unsigned at = r - 1 - o % r;
        m_output_router.push_back(at);
        m_output_slot.push_back(m_outputs_at[at]++);
    }
}

std::optional<unsigned> mesh_geometry::neighbour(unsigned r, direction d) const
{
    const unsigned cx = x(r), cy = y(r);
    switch (d) {
    case direction::east:
        return cx + 1 < m_columns ? std::optional<unsigned>(r + 1) : std::nullopt;
    case direction::west:
        return cx > 0 ? std::optional<unsigned>(r - 1) : std::nullopt;
    case direction::north:
        return cy > 0 ? std::optional<unsigned>(r - m_columns) : std::nullopt;
    case direction::south:
        return cy + 1 < m_rows ? std::optional<unsigned>(r + m_columns) : std::nullopt;
    case direction::local:
        break;
    }
    return std::nullopt;
}

direction mesh_geometry::step(unsigned at, unsigned to) const
{
    // X first, then Y: the turn model that makes XY routing deadlock-free (no packet turns
    // from a Y link back onto an X link, so the channel dependency graph has no cycle).
    if (x(at) < x(to))
        return direction::east;
    if (x(at) > x(to))
        return direction::west;
    if (y(at) < y(to))
        return direction::south;
    if (y(at) > y(to))
        return direction::north;
    return direction::local;
}

std::vector<mesh_hop> mesh_geometry::route(unsigned from, unsigned to) const
{
    std::vector<mesh_hop> hops;
    unsigned at = from;
    for (;;) {
        const direction d = step(at, to);
        hops.push_back({at, d});
        if (d == direction::local)
            return hops;
        at = *neighbour(at, d);
    }
}

unsigned mesh_geometry::distance(unsigned from, unsigned to) const
{
    auto diff = [](unsigned a, unsigned b) { return a > b ? a - b : b - a; };
    return diff(x(from), x(to)) + diff(y(from), y(to));
}

std::string mesh_geometry::router_name(unsigned r) const
{
    return "r" + std::to_string(x(r)) + "_" + std::to_string(y(r));
}

} // namespace vgpu::noc
