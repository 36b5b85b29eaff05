// Element-wise references: one output element from the same element of each input. See
// docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void vector_add(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& a = r.buffer("a");
    const auto& b = r.buffer("b");
    const std::uint64_t n = r.count("n", out.size());
    r.fits("a", n, a.size());
    r.fits("b", n, b.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = f32_bits(bits_f32(a[i]) + bits_f32(b[i]));
}

void saxpy(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& x = r.buffer("x");
    const auto& y = r.buffer("y");
    const auto a = static_cast<float>(r.number("a"));
    const std::uint64_t n = r.count("n", out.size());
    r.fits("x", n, x.size());
    r.fits("y", n, y.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = f32_bits(std::fma(a, bits_f32(x[i]), bits_f32(y[i])));
}

void stream(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint32_t k = r.word("k");
    const std::uint32_t c = r.word("c");
    const std::uint64_t n = r.count("n", out.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = in[i] * k + c;
}

void axpby(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& x = r.buffer("x");
    const auto& y = r.buffer("y");
    const std::uint32_t alpha = r.word("alpha");
    const std::uint32_t beta = r.word("beta");
    const std::uint32_t c = r.word("c", 0.0);
    const std::uint64_t n = r.count("n", out.size());
    r.fits("x", n, x.size());
    r.fits("y", n, y.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = alpha * x[i] + beta * y[i] + c;
}

/// Runs `count` x = fma(x, a, b) on each of out[0, n) (holding the inputs). Eight chains at a
/// time, so their latencies overlap; fused multiply-adds round once, so the order of the
/// elements changes nothing.
template <bool hw>
[[gnu::always_inline]] inline void fma_chains(std::uint32_t* out, std::uint64_t n,
                                              std::uint64_t count, float a, float b)
{
    constexpr std::uint64_t w = 8;
    for (std::uint64_t i = 0; i < n; i += w) {
        const std::uint64_t m = std::min(w, n - i);
        float x[w] = {};
        for (std::uint64_t j = 0; j < m; ++j)
            x[j] = bits_f32(out[i + j]);
        for (std::uint64_t k = 0; k < count; ++k)
            for (std::uint64_t j = 0; j < w; ++j)
                x[j] = hw ? __builtin_fmaf(x[j], a, b) : std::fma(x[j], a, b);
        for (std::uint64_t j = 0; j < m; ++j)
            out[i + j] = f32_bits(x[j]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/// fma_chains with the processor's fused multiply-add inline (a library call per FFMA
/// otherwise): the reference of the 65M-FFMA kernel then takes milliseconds.
__attribute__((target("fma"))) void fma_chains_hw(std::uint32_t* out, std::uint64_t n,
                                                  std::uint64_t count, float a, float b)
{
    fma_chains<true>(out, n, count, a, b);
}
#endif

void fma_chain(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const auto a = static_cast<float>(r.number("a"));
    const auto b = static_cast<float>(r.number("b"));
    const std::uint64_t count = r.count("count");
    const std::uint64_t n = r.count("n", out.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    std::copy(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma")) {
        fma_chains_hw(out.data(), n, count, a, b);
        return;
    }
#endif
    fma_chains<false>(out.data(), n, count, a, b);
}

void compute_bound(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t iterations = r.count("iterations");
    const std::uint64_t n = r.count("n", out.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint32_t x = in[i];
        for (std::uint64_t it = 0; it < iterations; ++it) {
            x = x * 1664525u + 1013904223u;
            x ^= x >> 16;
        }
        out[i] = x;
    }
}

reference_work vector_add_work(shape_reader& r)
{
    return elementwise(r, {"a", "b"});
}

reference_work saxpy_work(shape_reader& r)
{
    r.number("a");
    return elementwise(r, {"x", "y"});
}

reference_work stream_work(shape_reader& r)
{
    r.word("k");
    r.word("c");
    return elementwise(r, {"in"});
}

reference_work axpby_work(shape_reader& r)
{
    r.word("alpha");
    r.word("beta");
    r.word("c", 0.0);
    return elementwise(r, {"x", "y"});
}

reference_work fma_chain_work(shape_reader& r)
{
    r.number("a");
    r.number("b");
    return repeated_per_element(r, "count");
}

reference_work compute_bound_work(shape_reader& r)
{
    return repeated_per_element(r, "iterations");
}

} // namespace

std::vector<reference_entry> elementwise_references()
{
    const arg_spec n_opt{"n", arg_kind::scalar, false, {}};
    return {
        {{"vector_add",
          {{"a", arg_kind::buffer, true, {F}}, {"b", arg_kind::buffer, true, {F}}, n_opt},
          {F},
          "out[i] = a[i] + b[i] (f32), i < n"},
         vector_add,
         vector_add_work},
        {{"saxpy",
          {{"x", arg_kind::buffer, true, {F}},
           {"y", arg_kind::buffer, true, {F}},
           {"a", arg_kind::scalar, true, {}},
           n_opt},
          {F},
          "out[i] = fma(a, x[i], y[i]) (f32), i < n"},
         saxpy,
         saxpy_work},
        {{"stream",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"k", arg_kind::scalar, true, {}},
           {"c", arg_kind::scalar, true, {}},
           n_opt},
          {U, I},
          "out[i] = in[i] * k + c (mod 2^32), i < n"},
         stream,
         stream_work},
        {{"axpby",
          {{"x", arg_kind::buffer, true, {U, I}},
           {"y", arg_kind::buffer, true, {U, I}},
           {"alpha", arg_kind::scalar, true, {}},
           {"beta", arg_kind::scalar, true, {}},
           {"c", arg_kind::scalar, false, {}},
           n_opt},
          {U, I},
          "out[i] = alpha * x[i] + beta * y[i] + c (mod 2^32), i < n"},
         axpby,
         axpby_work},
        {{"fma_chain",
          {{"in", arg_kind::buffer, true, {F}},
           {"a", arg_kind::scalar, true, {}},
           {"b", arg_kind::scalar, true, {}},
           {"count", arg_kind::scalar, true, {}},
           n_opt},
          {F},
          "x = in[i]; count times: x = fma(x, a, b) in fp32; out[i] = x"},
         fma_chain,
         fma_chain_work},
        {{"compute_bound",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"iterations", arg_kind::scalar, true, {}},
           n_opt},
          {U, I},
          "x = in[i]; iterations times: x = x*1664525 + 1013904223, x ^= x >> 16; out[i] = x"},
         compute_bound,
         compute_bound_work},
    };
}

} // namespace vgpu::host::detail
