// Machine-learning kernels. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void softmax_rows(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t cols = r.count("cols");
    if (r.error().empty() && cols == 0)
        r.fail("cols must be at least 1");
    const std::uint64_t rows = r.count("rows", cols ? in.size() / cols : 0);
    r.fits("in", rows * cols, in.size());
    r.fits("the checked buffer", rows * cols, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t row = 0; row < rows; ++row) {
        const std::uint32_t* x = in.data() + row * cols;
        double mx = -std::numeric_limits<double>::infinity();
        for (std::uint64_t c = 0; c < cols; ++c)
            mx = std::max(mx, static_cast<double>(bits_f32(x[c])));
        double sum = 0.0;
        for (std::uint64_t c = 0; c < cols; ++c)
            sum += std::exp(bits_f32(x[c]) - mx);
        for (std::uint64_t c = 0; c < cols; ++c)
            out[row * cols + c] = f32_bits(static_cast<float>(std::exp(bits_f32(x[c]) - mx) / sum));
    }
}

reference_work softmax_rows_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t cols = r.count("cols");
    if (r.error().empty() && cols == 0)
        r.fail("cols must be at least 1");
    const std::uint64_t rows = r.count("rows", cols ? in / cols : 0);
    r.fits("in", rows * cols, in);
    r.fits("the checked buffer", rows * cols, r.out());
    return {rows * cols, "rows", {}};
}

} // namespace

std::vector<reference_entry> ml_references()
{
    return {
        {{"softmax_rows",
          {{"in", arg_kind::buffer, true, {F}},
           {"cols", arg_kind::scalar, true, {}},
           {"rows", arg_kind::scalar, false, {}}},
          {F},
          "out[r*cols+c] = exp(x[c] - max x) / sum_c' exp(x[c'] - max x), x = row r of in, r < "
          "rows (default len(in)/cols), in double rounded once to f32"},
         softmax_rows,
         softmax_rows_work},
    };
}

} // namespace vgpu::host::detail
