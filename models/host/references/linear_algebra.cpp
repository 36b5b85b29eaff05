// Dense linear algebra references. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void matmul(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& a = r.buffer("a");
    const auto& b = r.buffer("b");
    const std::uint64_t m = r.count("m");
    const std::uint64_t n = r.count("n");
    const std::uint64_t k = r.count("k");
    r.fits("a", m * k, a.size());
    r.fits("b", k * n, b.size());
    r.fits("the checked buffer", m * n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < m; ++i)
        for (std::uint64_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::uint64_t l = 0; l < k; ++l)
                acc = std::fma(bits_f32(a[i * k + l]), bits_f32(b[l * n + j]), acc);
            out[i * n + j] = f32_bits(acc);
        }
}

void gemm(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& a = r.buffer("a");
    const auto& b = r.buffer("b");
    const std::uint64_t m = r.count("m");
    const std::uint64_t n = r.count("n");
    const std::uint64_t k = r.count("k");
    const double alpha = static_cast<float>(r.number("alpha"));
    const double beta = static_cast<float>(r.number("beta"));
    r.fits("a", m * k, a.size());
    r.fits("b", k * n, b.size());
    r.fits("the checked buffer", m * n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < m; ++i)
        for (std::uint64_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (std::uint64_t l = 0; l < k; ++l)
                acc += static_cast<double>(bits_f32(a[i * k + l])) * bits_f32(b[l * n + j]);
            const double c = bits_f32(out[i * n + j]);
            out[i * n + j] = f32_bits(static_cast<float>(alpha * acc + beta * c));
        }
}

void transpose(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const auto [rows, cols] = read_matrix(r, in.size(), out.size());
    if (!r.error().empty())
        return;
    // Element (i, j) of in^T (cols x rows) is element (j, i) of in (rows x cols).
    for (std::uint64_t i = 0; i < cols; ++i)
        for (std::uint64_t j = 0; j < rows; ++j)
            out[i * rows + j] = in[j * cols + i];
}

void gemv(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& a = r.buffer("a");
    const auto& x = r.buffer("x");
    const std::uint64_t m = r.count("m");
    const std::uint64_t n = r.count("n");
    const double alpha = static_cast<float>(r.number("alpha", 1.0));
    const double beta = static_cast<float>(r.number("beta", 0.0));
    r.fits("a", m * n, a.size());
    r.fits("x", n, x.size());
    r.fits("the checked buffer", m, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < m; ++i) {
        double dot = 0.0;
        for (std::uint64_t j = 0; j < n; ++j)
            dot += static_cast<double>(bits_f32(a[i * n + j])) * bits_f32(x[j]);
        out[i] = f32_bits(static_cast<float>(alpha * dot + beta * bits_f32(out[i])));
    }
}

reference_work matmul_work(shape_reader& r)
{
    const std::uint64_t a = r.size("a");
    const std::uint64_t b = r.size("b");
    const std::uint64_t m = r.count("m");
    const std::uint64_t n = r.count("n");
    const std::uint64_t k = r.count("k");
    r.fits("a", m * k, a);
    r.fits("b", k * n, b);
    r.fits("the checked buffer", m * n, r.out());
    return {saturating_mul(m * n, k), "k", {}};
}

reference_work gemm_work(shape_reader& r)
{
    r.number("alpha");
    r.number("beta");
    return matmul_work(r);
}

reference_work transpose_work(shape_reader& r)
{
    const matrix_shape m = read_matrix(r, r.size("in"), r.out());
    return {m.rows * m.cols, "rows", {}};
}

reference_work gemv_work(shape_reader& r)
{
    const std::uint64_t a = r.size("a");
    const std::uint64_t x = r.size("x");
    const std::uint64_t m = r.count("m");
    const std::uint64_t n = r.count("n");
    r.number("alpha", 1.0);
    r.number("beta", 0.0);
    r.fits("a", saturating_mul(m, n), a);
    r.fits("x", n, x);
    r.fits("the checked buffer", m, r.out());
    return {saturating_mul(m, n), "n", {}};
}

} // namespace

std::vector<reference_entry> linear_algebra_references()
{
    return {
        {{"matmul",
          {{"a", arg_kind::buffer, true, {F}},
           {"b", arg_kind::buffer, true, {F}},
           {"m", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, true, {}},
           {"k", arg_kind::scalar, true, {}}},
          {F},
          "out[i*n+j] = sum_{l<k} a[i*k+l] * b[l*n+j] (f32 fma chain from l = 0)"},
         matmul,
         matmul_work},
        {{"gemm",
          {{"a", arg_kind::buffer, true, {F}},
           {"b", arg_kind::buffer, true, {F}},
           {"m", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, true, {}},
           {"k", arg_kind::scalar, true, {}},
           {"alpha", arg_kind::scalar, true, {}},
           {"beta", arg_kind::scalar, true, {}}},
          {F},
          "out[i*n+j] = alpha * sum_{l<k} a[i*k+l] * b[l*n+j] + beta * out[i*n+j] (initial "
          "contents), in double rounded once to f32"},
         gemm,
         gemm_work},
        {{"transpose",
          {{"in", arg_kind::buffer, true, {U, I, F}},
           {"cols", arg_kind::scalar, true, {}},
           {"rows", arg_kind::scalar, false, {}}},
          {U, I, F},
          "out[c*rows+r] = in[r*cols+c] (in^T: in is rows x cols, rows default len(in)/cols), "
          "words copied exactly"},
         transpose,
         transpose_work},
        {{"gemv",
          {{"a", arg_kind::buffer, true, {F}},
           {"x", arg_kind::buffer, true, {F}},
           {"m", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, true, {}},
           {"alpha", arg_kind::scalar, false, {}},
           {"beta", arg_kind::scalar, false, {}}},
          {F},
          "out[i] = alpha * sum_{j<n} a[i*n+j] * x[j] + beta * out[i] (initial contents; alpha "
          "default 1, beta 0), i < m, in double rounded once to f32"},
         gemv,
         gemv_work},
    };
}

} // namespace vgpu::host::detail
