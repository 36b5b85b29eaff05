// Reductions and histograms. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vgpu::host::detail {

namespace {

void strided_sum(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t stride = r.count("stride");
    const std::uint64_t count = r.count("count");
    const std::uint64_t threads = r.count("threads", out.size());
    r.fits("the checked buffer", threads, out.size());
    if (in.empty())
        r.fail("in is empty");
    if (!r.error().empty())
        return;
    for (std::uint64_t t = 0; t < threads; ++t) {
        std::uint32_t sum = 0;
        // (t * stride + k) mod len(in), stepped instead of divided (t * stride + k < 2^64).
        std::uint64_t at = t * stride % in.size();
        for (std::uint64_t k = 0; k < count; ++k) {
            sum += in[at];
            if (++at == in.size())
                at = 0;
        }
        out[t] = sum;
    }
}

void reduce_sum(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t block = r.count("block");
    const std::uint64_t items = r.count("items", 1);
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    const std::uint64_t chunk = block * items;
    if (r.error().empty() && chunk == 0)
        r.fail("block * items must be at least 1");
    if (!r.error().empty())
        return;
    const std::uint64_t ctas = (n + chunk - 1) / chunk;
    r.fits("the checked buffer", ctas, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t c = 0; c < ctas; ++c) {
        std::uint32_t sum = 0;
        for (std::uint64_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i)
            sum += in[i];
        out[c] = sum;
    }
}

void table_sum(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t block = r.count("block");
    const std::uint64_t passes = r.count("passes");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    if (r.error().empty() && block == 0)
        r.fail("block must be at least 1");
    if (!r.error().empty())
        return;
    std::vector<std::uint32_t> lane(block, 0);
    for (std::uint64_t j = 0; j < n; ++j)
        lane[j % block] += in[j];
    for (std::uint64_t i = 0; i < out.size(); ++i)
        out[i] = lane[i % block] * static_cast<std::uint32_t>(passes);
}

void sum_f32(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", 1, out.size());
    if (!r.error().empty())
        return;
    double sum = bits_f32(out[0]);
    for (std::uint64_t i = 0; i < n; ++i)
        sum += bits_f32(in[i]);
    out[0] = f32_bits(static_cast<float>(sum));
}

void histogram8(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& data = r.buffer("data");
    const std::uint64_t n = r.count("n", 4 * static_cast<std::uint64_t>(data.size()));
    if (r.error().empty() && n > 4 * static_cast<std::uint64_t>(data.size()))
        r.fail("data needs " + std::to_string(n) + " bytes, has " +
               std::to_string(4 * data.size()));
    r.fits("the checked buffer", 256, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t i = 0; i < n; ++i)
        ++out[(data[i / 4] >> (8 * (i % 4))) & 0xffu]; // byte i, little-endian
}

void exclusive_scan(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    std::uint32_t prefix = 0; // sum of in[0 .. i), modulo 2^32
    for (std::uint64_t i = 0; i < n; ++i) {
        out[i] = prefix;
        prefix += in[i];
    }
}

reference_work strided_sum_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    r.count("stride");
    const std::uint64_t count = r.count("count");
    const std::uint64_t threads = r.count("threads", r.out());
    r.fits("the checked buffer", threads, r.out());
    if (in == 0)
        r.fail("in is empty");
    return {saturating_mul(threads, count), "count", {}};
}

reference_work reduce_sum_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t block = r.count("block");
    const std::uint64_t items = r.count("items", 1);
    const std::uint64_t n = r.count("n", in);
    r.fits("in", n, in);
    const std::uint64_t chunk = block * items;
    if (r.error().empty() && chunk == 0)
        r.fail("block * items must be at least 1");
    if (r.error().empty())
        r.fits("the checked buffer", (n + chunk - 1) / chunk, r.out());
    return {n, "n", {}};
}

reference_work table_sum_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    r.count("block");
    r.count("passes");
    r.fits("in", n, in);
    return {n + r.out(), "n", {}};
}

reference_work sum_f32_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    r.fits("in", n, in);
    r.fits("the checked buffer", 1, r.out());
    return {n, "n", {}};
}

reference_work histogram8_work(shape_reader& r)
{
    const std::uint64_t data = r.size("data");
    const std::uint64_t n = r.count("n", 4 * data);
    if (r.error().empty() && n > 4 * data)
        r.fail("data needs " + std::to_string(n) + " bytes, has " + std::to_string(4 * data));
    r.fits("the checked buffer", 256, r.out());
    return {n, "n", {}};
}

reference_work exclusive_scan_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    return {n, "n", {}};
}

} // namespace

std::vector<reference_entry> reductions_references()
{
    return {
        {{"strided_sum",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"stride", arg_kind::scalar, true, {}},
           {"count", arg_kind::scalar, true, {}},
           {"threads", arg_kind::scalar, false, {}}},
          {U, I},
          "out[t] = sum_{k<count} in[(t*stride + k) mod len(in)] (mod 2^32), t < threads"},
         strided_sum,
         strided_sum_work},
        {{"reduce_sum",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"block", arg_kind::scalar, true, {}},
           {"items", arg_kind::scalar, false, {}},
           {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "out[c] = sum of in[c*block*items .. min(n, (c+1)*block*items)) (mod 2^32)"},
         reduce_sum,
         reduce_sum_work},
        {{"table_sum",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"block", arg_kind::scalar, true, {}},
           {"passes", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "out[i] = passes x sum of in[j] for j < n, j = i (mod block) (mod 2^32)"},
         table_sum,
         table_sum_work},
        {{"sum_f32",
          {{"in", arg_kind::buffer, true, {F}}, {"n", arg_kind::scalar, false, {}}},
          {F},
          "out[0] += sum_{i<n} in[i] (n defaults to len(in)), in double rounded once to f32"},
         sum_f32,
         sum_f32_work},
        {{"histogram8",
          {{"data", arg_kind::buffer, true, {U, I}}, {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "out[b] += number of bytes equal to b among bytes 0..n-1 of data (little-endian, 4 "
          "per word; n defaults to 4 x len(data)), b < 256"},
         histogram8,
         histogram8_work},
        {{"exclusive_scan",
          {{"in", arg_kind::buffer, true, {U, I}}, {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "out[i] = sum_{j<i} in[j] (mod 2^32), i < n (n defaults to len(in)); out[0] = 0"},
         exclusive_scan,
         exclusive_scan_work},
    };
}

} // namespace vgpu::host::detail
