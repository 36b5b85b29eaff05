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
    };
}

} // namespace vgpu::host::detail
