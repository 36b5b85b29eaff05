// Irregular accesses: gathers and owned read-modify-writes. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void gather(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& src = r.buffer("src");
    const auto& idx = r.buffer("idx");
    const std::uint64_t n = r.count("n", out.size());
    r.fits("idx", n, idx.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (idx[i] >= src.size()) {
            r.fail("idx[" + std::to_string(i) + "] = " + std::to_string(idx[i]) +
                   " is outside src (" + std::to_string(src.size()) + " elements)");
            return;
        }
        out[i] = src[idx[i]];
    }
}

void owned_rmw(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t threads = r.count("threads");
    const std::uint64_t m = r.count("m");
    const std::uint64_t k = r.count("k");
    const std::uint64_t part = r.count("part");
    if (r.error().empty() && (threads == 0 || m == 0 || (m & (m - 1)) != 0 || part > 1))
        r.fail("threads must be positive, m a power of two and part 0 (the array) or 1 (sums)");
    r.fits("in", threads * m, in.size());
    r.fits("the checked buffer", part == 0 ? threads * m : threads, out.size());
    if (!r.error().empty())
        return;
    std::vector<std::uint32_t> a(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(threads * m));
    for (std::uint64_t t = 0; t < threads; ++t) {
        std::uint32_t sum = 0;
        for (std::uint64_t i = 0; i < k; ++i) {
            const std::uint64_t idx = ((5 * i + t) & (m - 1)) * threads + t;
            a[idx] = a[idx] * 3u + static_cast<std::uint32_t>(i);
            sum += a[idx];
        }
        if (part == 1)
            out[t] = sum;
    }
    if (part == 0)
        std::copy(a.begin(), a.end(), out.begin());
}

reference_work gather_work(shape_reader& r)
{
    r.size("src");
    const std::uint64_t idx = r.size("idx");
    const std::uint64_t n = r.count("n", r.out());
    r.fits("idx", n, idx);
    r.fits("the checked buffer", n, r.out());
    return {n, "n", {}};
}

reference_work owned_rmw_work(shape_reader& r)
{
    const std::uint64_t threads = r.count("threads");
    const std::uint64_t m = r.count("m");
    const std::uint64_t k = r.count("k");
    const std::uint64_t part = r.count("part");
    r.fits("in", threads * m, r.size("in"));
    r.fits("the checked buffer", part == 0 ? threads * m : threads, r.out());
    return {threads * std::max<std::uint64_t>(1, k), "threads x k", {}};
}

} // namespace

std::vector<reference_entry> irregular_references()
{
    const arg_spec n_opt{"n", arg_kind::scalar, false, {}};
    return {
        {{"gather",
          {{"src", arg_kind::buffer, true, {U, I, F}},
           {"idx", arg_kind::buffer, true, {U, I}},
           n_opt},
          {U, I, F},
          "out[i] = src[idx[i]], i < n"},
         gather,
         gather_work},
        {{"owned_rmw",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"threads", arg_kind::scalar, true, {}},
           {"m", arg_kind::scalar, true, {}},
           {"k", arg_kind::scalar, true, {}},
           {"part", arg_kind::scalar, true, {}}},
          {U, I},
          "thread t < threads owns in[t + j*threads], j < m; k times: j = (5i + t) & (m - 1), "
          "x = x*3 + i (mod 2^32), s += x; part 0: the final array, part 1: s per thread"},
         owned_rmw,
         owned_rmw_work},
    };
}

} // namespace vgpu::host::detail
