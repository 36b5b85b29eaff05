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
    const auto [rows, cols] = read_matrix(r, in.size(), out.size());
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
    const matrix_shape m = read_matrix(r, r.size("in"), r.out());
    return {m.rows * m.cols, "rows", {}};
}

/// The sizes of a kmeans call.
struct kmeans_shape {
    std::uint64_t n = 0, d = 0, k = 0, iterations = 0, part = 0;
};

template <typename Reader>
kmeans_shape kmeans_args(Reader& r, std::uint64_t noise, std::uint64_t out)
{
    kmeans_shape s;
    s.n = r.count("n");
    s.d = r.count("d");
    s.k = r.count("k");
    s.iterations = r.count("iterations");
    s.part = r.count("part");
    if (r.error().empty() && (s.d == 0 || s.k == 0 || s.k > s.n || s.part > 2))
        r.fail("d and k must be at least 1, k at most n, part 0 (the centroids), 1 (the "
               "assignment) or 2 (the counts)");
    r.fits("noise", saturating_mul(s.n, s.d), noise);
    r.fits("the checked buffer",
           s.part == 0   ? saturating_mul(s.k, s.d)
           : s.part == 1 ? s.n
                         : s.k,
           out);
    return s;
}

void kmeans(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& noise = r.buffer("noise");
    const double spacing = static_cast<float>(r.number("spacing"));
    const kmeans_shape s = kmeans_args(r, noise.size(), out.size());
    if (!r.error().empty())
        return;
    const std::uint64_t n = s.n, d = s.d, k = s.k;
    // The points (feature f of point i at x[i * d + f]): their cluster's centre plus the noise,
    // rounded once to f32.
    std::vector<float> x(n * d);
    for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t f = 0; f < d; ++f) {
            const double centre = spacing * static_cast<double>((i % k) * d + f + 1);
            x[i * d + f] = static_cast<float>(centre) + bits_f32(noise[f * n + i]);
        }
    // Lloyd's iterations from the first k points; centroids are f32 between iterations.
    std::vector<float> cent(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k * d));
    std::vector<std::uint32_t> label(n, 0);
    std::vector<std::uint64_t> count(k, 0);
    for (std::uint64_t it = 0; it < s.iterations; ++it) {
        for (std::uint64_t i = 0; i < n; ++i) {
            double best = std::numeric_limits<double>::infinity();
            for (std::uint64_t c = 0; c < k; ++c) {
                double dist = 0;
                for (std::uint64_t f = 0; f < d; ++f) {
                    const double e = static_cast<double>(x[i * d + f]) - cent[c * d + f];
                    dist += e * e;
                }
                if (dist < best) {
                    best = dist;
                    label[i] = static_cast<std::uint32_t>(c);
                }
            }
        }
        std::vector<double> sum(k * d, 0.0);
        std::fill(count.begin(), count.end(), 0);
        for (std::uint64_t i = 0; i < n; ++i) {
            ++count[label[i]];
            for (std::uint64_t f = 0; f < d; ++f)
                sum[label[i] * d + f] += x[i * d + f];
        }
        for (std::uint64_t c = 0; c < k; ++c)
            if (count[c] != 0)
                for (std::uint64_t f = 0; f < d; ++f)
                    cent[c * d + f] =
                        static_cast<float>(sum[c * d + f] / static_cast<double>(count[c]));
    }
    if (s.part == 0)
        for (std::uint64_t t = 0; t < k * d; ++t)
            out[t] = f32_bits(cent[t]);
    else if (s.part == 1)
        std::copy(label.begin(), label.end(), out.begin());
    else
        for (std::uint64_t c = 0; c < k; ++c)
            out[c] = static_cast<std::uint32_t>(count[c]);
}

reference_work kmeans_work(shape_reader& r)
{
    const kmeans_shape s = kmeans_args(r, r.size("noise"), r.out());
    return {saturating_mul(saturating_mul(s.n, saturating_mul(s.k, s.d)),
                           std::max<std::uint64_t>(1, s.iterations)),
            "iterations",
            {}};
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
        {{"kmeans",
          {{"noise", arg_kind::buffer, true, {F}},
           {"n", arg_kind::scalar, true, {}},
           {"d", arg_kind::scalar, true, {}},
           {"k", arg_kind::scalar, true, {}},
           {"spacing", arg_kind::scalar, true, {}},
           {"iterations", arg_kind::scalar, true, {}},
           {"part", arg_kind::scalar, true, {}}},
          {F, U},
          "points x[i][f] = f32(spacing*((i mod k)*d + f + 1) + noise[f*n+i]), centroids from "
          "points 0..k-1; iterations times: label i = argmin_c |x[i] - cent[c]|^2 (lowest c on "
          "a tie), cent[c] = mean of its points (in double, rounded to f32; empty: kept); "
          "part 0: cent (k x d), part 1: labels, part 2: the last iteration's points per cluster"},
         kmeans,
         kmeans_work},
    };
}

} // namespace vgpu::host::detail
