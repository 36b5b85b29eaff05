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
    };
}

} // namespace vgpu::host::detail
