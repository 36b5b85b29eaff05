// Sorting. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>

namespace vgpu::host::detail {

namespace {

void segment_sort(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t seg = r.count("seg");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (r.error().empty() && seg == 0)
        r.fail("seg must be at least 1");
    if (!r.error().empty())
        return;
    std::copy(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
    for (std::uint64_t b = 0; b < n; b += seg)
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(b),
                  out.begin() + static_cast<std::ptrdiff_t>(std::min(n, b + seg)));
}

reference_work segment_sort_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t seg = r.count("seg");
    const std::uint64_t n = r.count("n", in);
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    if (r.error().empty() && seg == 0)
        r.fail("seg must be at least 1");
    // n log2(seg) comparisons
    std::uint64_t lg = 1;
    while (lg < 64 && (1ull << lg) < seg)
        ++lg;
    return {saturating_mul(n, lg), "n", {}};
}

} // namespace

std::vector<reference_entry> sorting_references()
{
    return {
        {{"segment_sort",
          {{"in", arg_kind::buffer, true, {U}},
           {"seg", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, false, {}}},
          {U},
          "out[0, n) = in[0, n) with each segment [c*seg, min(n, (c+1)*seg)) sorted ascending "
          "(unsigned)"},
         segment_sort,
         segment_sort_work},
    };
}

} // namespace vgpu::host::detail
