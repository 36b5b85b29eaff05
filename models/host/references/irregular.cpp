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

/// Checks that row_ptr[0 .. rows] is a CSR row index into col_idx (and values when given):
/// starts at 0, never decreases, ends within the arrays; and every column is below cols.
bool csr_valid(arg_reader& r, const std::vector<std::uint32_t>& row_ptr,
               const std::vector<std::uint32_t>& col_idx, const std::vector<std::uint32_t>* values,
               std::uint64_t rows, std::uint64_t cols, const char* cols_name)
{
    r.fits("row_ptr", rows + 1, row_ptr.size());
    if (!r.error().empty())
        return false;
    if (row_ptr[0] != 0)
        r.fail("row_ptr[0] = " + std::to_string(row_ptr[0]) + " (must be 0)");
    for (std::uint64_t i = 0; i < rows && r.error().empty(); ++i)
        if (row_ptr[i + 1] < row_ptr[i])
            r.fail("row_ptr decreases at " + std::to_string(i + 1));
    if (!r.error().empty())
        return false;
    const std::uint64_t nnz = row_ptr[rows];
    r.fits("col_idx", nnz, col_idx.size());
    if (values)
        r.fits("values", nnz, values->size());
    for (std::uint64_t k = 0; k < nnz && r.error().empty(); ++k)
        if (col_idx[k] >= cols)
            r.fail("col_idx[" + std::to_string(k) + "] = " + std::to_string(col_idx[k]) +
                   " is outside " + cols_name + " (" + std::to_string(cols) + ")");
    return r.error().empty();
}

void spmv_csr(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& row_ptr = r.buffer("row_ptr");
    const auto& col_idx = r.buffer("col_idx");
    const auto& values = r.buffer("values");
    const auto& x = r.buffer("x");
    const std::uint64_t rows = r.count("rows", out.size());
    r.fits("the checked buffer", rows, out.size());
    if (!r.error().empty() || !csr_valid(r, row_ptr, col_idx, &values, rows, x.size(), "x"))
        return;
    for (std::uint64_t i = 0; i < rows; ++i) {
        double y = 0; // y_i = sum over the row's nonzeros of A_ij x_j, rounded once
        for (std::uint64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            y += static_cast<double>(bits_f32(values[k])) * bits_f32(x[col_idx[k]]);
        out[i] = f32_bits(static_cast<float>(y));
    }
}

void bfs_levels(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& row_ptr = r.buffer("row_ptr");
    const auto& col_idx = r.buffer("col_idx");
    const std::uint64_t nodes = r.count("nodes", out.size());
    const std::uint64_t source = r.count("source");
    r.fits("the checked buffer", nodes, out.size());
    if (r.error().empty() && source >= nodes)
        r.fail("source " + std::to_string(source) + " is not a node (" + std::to_string(nodes) +
               " nodes)");
    if (!r.error().empty() || !csr_valid(r, row_ptr, col_idx, nullptr, nodes, nodes, "the nodes"))
        return;
    // Breadth-first from source: a node's level is its distance in edges; unreachable nodes
    // get 0xffffffff.
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(nodes), 0xffffffffu);
    std::vector<std::uint32_t> queue{static_cast<std::uint32_t>(source)};
    out[source] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t v = queue[head];
        for (std::uint64_t k = row_ptr[v]; k < row_ptr[v + 1]; ++k)
            if (out[col_idx[k]] == 0xffffffffu) {
                out[col_idx[k]] = out[v] + 1;
                queue.push_back(col_idx[k]);
            }
    }
}

reference_work csr_work(shape_reader& r, const char* rows_name, bool matrix)
{
    const std::uint64_t row_ptr = r.size("row_ptr");
    const std::uint64_t col_idx = r.size("col_idx");
    if (matrix) {
        r.size("values");
        r.size("x");
    } else {
        r.count("source");
    }
    const std::uint64_t rows = r.count(rows_name, r.out());
    r.fits("the checked buffer", rows, r.out());
    r.fits("row_ptr", rows + 1, row_ptr);
    return {rows + col_idx, rows_name, {}};
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
        {{"spmv_csr",
          {{"row_ptr", arg_kind::buffer, true, {U, I}},
           {"col_idx", arg_kind::buffer, true, {U, I}},
           {"values", arg_kind::buffer, true, {F}},
           {"x", arg_kind::buffer, true, {F}},
           {"rows", arg_kind::scalar, false, {}}},
          {F},
          "out[i] = sum_{k = row_ptr[i]}^{row_ptr[i+1]-1} values[k] * x[col_idx[k]], i < rows; in "
          "double, rounded once to f32"},
         spmv_csr,
         [](shape_reader& r) { return csr_work(r, "rows", true); }},
        {{"bfs_levels",
          {{"row_ptr", arg_kind::buffer, true, {U, I}},
           {"col_idx", arg_kind::buffer, true, {U, I}},
           {"source", arg_kind::scalar, true, {}},
           {"nodes", arg_kind::scalar, false, {}}},
          {U, I},
          "out[v] = the fewest edges on a path source -> v in the CSR graph (v's out-edges: "
          "col_idx[row_ptr[v] .. row_ptr[v+1])), 0xffffffff when none, v < nodes"},
         bfs_levels,
         [](shape_reader& r) { return csr_work(r, "nodes", false); }},
    };
}

} // namespace vgpu::host::detail
