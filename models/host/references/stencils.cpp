// Stencils. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void stencil3(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t seg = r.count("seg");
    const std::uint64_t steps = r.count("steps");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (r.error().empty() && (seg < 3 || n % seg != 0))
        r.fail("seg must be at least 3 and divide n");
    if (!r.error().empty())
        return;
    std::vector<std::uint32_t> cur(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<std::uint32_t> next = cur;
    for (std::uint64_t s = 0; s < steps; ++s) {
        for (std::uint64_t base = 0; base < n; base += seg)
            for (std::uint64_t t = base + 1; t + 1 < base + seg; ++t)
                next[t] = cur[t - 1] + cur[t] + cur[t + 1];
        cur.swap(next);
    }
    std::copy(cur.begin(), cur.end(), out.begin());
}

void stencil3_f32(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const double w[3] = {static_cast<float>(r.number("wl")), static_cast<float>(r.number("wc")),
                         static_cast<float>(r.number("wr"))};
    const std::uint64_t n = r.count("n", out.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    auto x = [&](std::uint64_t i, int d) -> double {
        if ((d < 0 && i == 0) || (d > 0 && i + 1 >= n))
            return 0.0; // outside in[0, n): zero
        return bits_f32(in[i + d]);
    };
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = f32_bits(static_cast<float>(w[0] * x(i, -1) + w[1] * x(i, 0) + w[2] * x(i, 1)));
}

reference_work stencil3_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    const std::uint64_t steps = r.count("steps");
    r.count("seg");
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    return {n * std::max<std::uint64_t>(1, steps), "n x steps", {}};
}

reference_work stencil3_f32_work(shape_reader& r)
{
    r.number("wl");
    r.number("wc");
    r.number("wr");
    return elementwise(r, {"in"});
}

void jacobi2d(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t n = r.count("n");
    const std::uint64_t steps = r.count("steps");
    r.fits("in", n * n, in.size());
    r.fits("the checked buffer", n * n, out.size());
    if (!r.error().empty())
        return;
    std::vector<double> cur(n * n), next;
    for (std::uint64_t i = 0; i < n * n; ++i)
        cur[i] = bits_f32(in[i]);
    next = cur; // the boundary stays as it is
    for (std::uint64_t s = 0; s < steps; ++s) {
        for (std::uint64_t i = 1; i + 1 < n; ++i)
            for (std::uint64_t j = 1; j + 1 < n; ++j)
                next[i * n + j] = (cur[(i - 1) * n + j] + cur[(i + 1) * n + j] +
                                   cur[i * n + j - 1] + cur[i * n + j + 1]) /
                                  4;
        cur.swap(next);
    }
    for (std::uint64_t i = 0; i < n * n; ++i)
        out[i] = f32_bits(static_cast<float>(cur[i]));
}

reference_work jacobi2d_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n");
    const std::uint64_t steps = r.count("steps");
    r.fits("in", n * n, in);
    r.fits("the checked buffer", n * n, r.out());
    return {saturating_mul(n * n, std::max<std::uint64_t>(1, steps)), "steps", {}};
}

// The HotSpot RC model of a 16 mm x 16 mm die 0.5 mm thick (silicon: conductivity 100 W/(m K),
// volumetric specific heat 1.75e6 J/(m^3 K); capacitance factor 0.5; largest power density
// 3e6 W/m^3; precision 0.001 K; ambient 80).
void hotspot(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& temp = r.buffer("temp");
    const auto& power = r.buffer("power");
    const std::uint64_t rows = r.count("rows");
    const std::uint64_t cols = r.count("cols");
    const std::uint64_t steps = r.count("steps");
    const std::uint64_t cells = rows * cols;
    r.fits("temp", cells, temp.size());
    r.fits("power", cells, power.size());
    r.fits("the checked buffer", cells, out.size());
    if (!r.error().empty())
        return;
    const double thick = 0.0005, side = 0.016, k_si = 100, heat_si = 1.75e6, factor = 0.5;
    const double max_pd = 3.0e6, precision = 0.001, amb = 80;
    const double dy = side / static_cast<double>(rows), dx = side / static_cast<double>(cols);
    const double cap = factor * heat_si * thick * dx * dy;               // J/K of one cell
    const double rx = dx / (2 * k_si * thick * dy);                      // K/W, east-west
    const double ry = dy / (2 * k_si * thick * dx);                      // K/W, north-south
    const double rz = thick / (k_si * dx * dy);                          // K/W, to the ambient
    const double dt = precision / (max_pd / (factor * thick * heat_si)); // s
    std::vector<double> t(cells), p(cells), next(cells);
    for (std::uint64_t i = 0; i < cells; ++i) {
        t[i] = bits_f32(temp[i]);
        p[i] = bits_f32(power[i]);
    }
    auto at = [&](std::uint64_t y, std::uint64_t x) { return t[y * cols + x]; };
    for (std::uint64_t s = 0; s < steps; ++s) {
        for (std::uint64_t y = 0; y < rows; ++y)
            for (std::uint64_t x = 0; x < cols; ++x) {
                // An edge cell exchanges no heat across the die's edge: its missing neighbour
                // is at its own temperature.
                const double c = at(y, x);
                const double nn = y > 0 ? at(y - 1, x) : c, ss = y + 1 < rows ? at(y + 1, x) : c;
                const double ww = x > 0 ? at(y, x - 1) : c, ee = x + 1 < cols ? at(y, x + 1) : c;
                const double flow = p[y * cols + x] + (nn - c) / ry + (ss - c) / ry +
                                    (ww - c) / rx + (ee - c) / rx + (amb - c) / rz;
                next[y * cols + x] = c + dt / cap * flow;
            }
        t.swap(next);
    }
    for (std::uint64_t i = 0; i < cells; ++i)
        out[i] = f32_bits(static_cast<float>(t[i]));
}

reference_work hotspot_work(shape_reader& r)
{
    const std::uint64_t temp = r.size("temp");
    const std::uint64_t power = r.size("power");
    const std::uint64_t cells = saturating_mul(r.count("rows"), r.count("cols"));
    const std::uint64_t steps = r.count("steps");
    r.fits("temp", cells, temp);
    r.fits("power", cells, power);
    r.fits("the checked buffer", cells, r.out());
    return {saturating_mul(cells, std::max<std::uint64_t>(1, steps)), "steps", {}};
}

void conv2d(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const auto& filt = r.buffer("filt");
    const std::uint64_t h = r.count("h");
    const std::uint64_t w = r.count("w");
    const std::uint64_t k = r.count("k");
    if (r.error().empty() && k % 2 == 0)
        r.fail("k must be odd");
    r.fits("in", h * w, in.size());
    r.fits("filt", k * k, filt.size());
    r.fits("the checked buffer", h * w, out.size());
    if (!r.error().empty())
        return;
    const std::int64_t rad = static_cast<std::int64_t>(k / 2);
    const auto H = static_cast<std::int64_t>(h), W = static_cast<std::int64_t>(w);
    for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) {
            double acc = 0;
            for (std::int64_t a = -rad; a <= rad; ++a)
                for (std::int64_t b = -rad; b <= rad; ++b) {
                    const std::int64_t yy = y + a, xx = x + b;
                    if (yy < 0 || yy >= H || xx < 0 || xx >= W)
                        continue; // zero outside the image
                    acc +=
                        static_cast<double>(bits_f32(filt[(a + rad) * (2 * rad + 1) + b + rad])) *
                        bits_f32(in[yy * W + xx]);
                }
            out[y * W + x] = f32_bits(static_cast<float>(acc));
        }
}

reference_work conv2d_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t filt = r.size("filt");
    const std::uint64_t pixels = saturating_mul(r.count("h"), r.count("w"));
    const std::uint64_t k = r.count("k");
    r.fits("in", pixels, in);
    r.fits("filt", saturating_mul(k, k), filt);
    r.fits("the checked buffer", pixels, r.out());
    return {saturating_mul(pixels, saturating_mul(k, k)), "k", {}};
}

void pathfinder(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& wall = r.buffer("wall");
    const std::uint64_t rows = r.count("rows");
    const std::uint64_t cols = r.count("cols");
    if (r.error().empty() && (rows == 0 || cols == 0))
        r.fail("rows and cols must be at least 1");
    r.fits("wall", rows * cols, wall.size());
    r.fits("the checked buffer", cols, out.size());
    if (!r.error().empty())
        return;
    // cost[c] of the current row: the least sum of weights over the paths from row 0 that
    // move down one row per step to column c - 1, c or c + 1. Signed words, sums mod 2^32.
    std::vector<std::int32_t> cost(cols), prev(cols);
    for (std::uint64_t c = 0; c < cols; ++c)
        cost[c] = static_cast<std::int32_t>(wall[c]);
    for (std::uint64_t t = 1; t < rows; ++t) {
        prev.swap(cost);
        for (std::uint64_t c = 0; c < cols; ++c) {
            std::int32_t best = prev[c];
            if (c > 0)
                best = std::min(best, prev[c - 1]);
            if (c + 1 < cols)
                best = std::min(best, prev[c + 1]);
            cost[c] =
                static_cast<std::int32_t>(wall[t * cols + c] + static_cast<std::uint32_t>(best));
        }
    }
    for (std::uint64_t c = 0; c < cols; ++c)
        out[c] = static_cast<std::uint32_t>(cost[c]);
}

reference_work pathfinder_work(shape_reader& r)
{
    const std::uint64_t wall = r.size("wall");
    const std::uint64_t rows = r.count("rows");
    const std::uint64_t cols = r.count("cols");
    r.fits("wall", saturating_mul(rows, cols), wall);
    r.fits("the checked buffer", cols, r.out());
    return {saturating_mul(rows, cols), "rows", {}};
}

} // namespace

std::vector<reference_entry> stencils_references()
{
    const arg_spec n_opt{"n", arg_kind::scalar, false, {}};
    return {
        {{"stencil3",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"seg", arg_kind::scalar, true, {}},
           {"steps", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "steps times x[t] = x[t-1] + x[t] + x[t+1] (mod 2^32) inside every segment of seg "
          "elements of in[0, n), its first and last elements fixed"},
         stencil3,
         stencil3_work},
        {{"stencil3_f32",
          {{"in", arg_kind::buffer, true, {F}},
           {"wl", arg_kind::scalar, true, {}},
           {"wc", arg_kind::scalar, true, {}},
           {"wr", arg_kind::scalar, true, {}},
           n_opt},
          {F},
          "out[i] = wl*in[i-1] + wc*in[i] + wr*in[i+1] (in[-1] = in[n] = 0), i < n, in double "
          "rounded once to f32"},
         stencil3_f32,
         stencil3_f32_work},
        {{"jacobi2d",
          {{"in", arg_kind::buffer, true, {F}},
           {"n", arg_kind::scalar, true, {}},
           {"steps", arg_kind::scalar, true, {}}},
          {F},
          "in as an n x n row-major grid, steps times: x[i][j] = (x[i-1][j] + x[i+1][j] + "
          "x[i][j-1] + x[i][j+1]) / 4 inside, the boundary fixed; in double, rounded once"},
         jacobi2d,
         jacobi2d_work},
        {{"hotspot",
          {{"temp", arg_kind::buffer, true, {F}},
           {"power", arg_kind::buffer, true, {F}},
           {"rows", arg_kind::scalar, true, {}},
           {"cols", arg_kind::scalar, true, {}},
           {"steps", arg_kind::scalar, true, {}}},
          {F},
          "steps times, per cell of the rows x cols grid: T += dt/Cap (P + (T_N + T_S - 2T)/Ry + "
          "(T_E + T_W - 2T)/Rx + (80 - T)/Rz), HotSpot's RC model of a 16 mm square die 0.5 mm "
          "thick (a neighbour outside the die is the cell); in double, rounded once"},
         hotspot,
         hotspot_work},
        {{"conv2d",
          {{"in", arg_kind::buffer, true, {F}},
           {"filt", arg_kind::buffer, true, {F}},
           {"h", arg_kind::scalar, true, {}},
           {"w", arg_kind::scalar, true, {}},
           {"k", arg_kind::scalar, true, {}}},
          {F},
          "in as an h x w image, filt k x k (k odd, r = k/2): out[y][x] = sum_{a,b in -r..r} "
          "filt[a+r][b+r] in[y+a][x+b], zero outside the image; in double, rounded once"},
         conv2d,
         conv2d_work},
        {{"pathfinder",
          {{"wall", arg_kind::buffer, true, {U, I}},
           {"rows", arg_kind::scalar, true, {}},
           {"cols", arg_kind::scalar, true, {}}},
          {U, I},
          "wall as rows x cols: cost[0][c] = wall[0][c], cost[t][c] = wall[t][c] + the least of "
          "cost[t-1][c-1..c+1] inside the row (signed, mod 2^32); out[c] = cost[rows-1][c]"},
         pathfinder,
         pathfinder_work},
    };
}

} // namespace vgpu::host::detail
