// Seeded generators of CSR graphs and sparse matrices for workload buffers: plain C++, integer
// arithmetic, the same contents on every host. See docs/workloads.md ("Generated CSR inputs").
#pragma once

#include <cstdint>
#include <vector>

namespace vgpu::host {

/// splitmix64: a small, well-mixed, portable generator (the `random` initialiser's).
inline std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Largest rows + 1, columns and nonzeros of a generator: a u32 part of 1 GiB
/// (max_total_bytes / 4, the most elements a u32 buffer may have).
constexpr std::uint64_t csr_max_entries = 1ull << 28;

/// What a generator makes.
enum class csr_kind : std::uint8_t {
    graph,    ///< `csr_graph`: a directed graph, no self loops, no duplicate edges
    banded,   ///< `csr_banded`: row r has the columns max(0, r-B) .. min(cols-1, r+B)
    power_law ///< `csr_power_law`: a sparse matrix with power-law nonzeros per row
};

/// How a graph's out-degrees (a matrix's nonzeros per row) are drawn.
enum class csr_degrees : std::uint8_t {
    uniform,  ///< each edge's source uniform over the rows (binomial, about Poisson(D))
    power_law ///< each edge's source with weight 1/sqrt(rank + 1) (P(degree >= k) ~ k^-2)
};

/// The buffers one generator fills.
enum class csr_part : std::uint8_t {
    row_ptr, ///< rows + 1 offsets: row_ptr[0] = 0, row_ptr[rows] = nnz
    col_idx, ///< nnz column indices, ascending within each row
    values   ///< nnz values in [min, max) (matrices only)
};

/// A generator as declared under `generators:`.
struct csr_spec {
    csr_kind kind = csr_kind::graph;            ///< what it makes
    std::uint64_t rows = 0;                     ///< rows (a graph: nodes)
    std::uint64_t cols = 0;                     ///< columns (a graph: nodes)
    std::uint64_t per_row = 0;                  ///< graph: degree; power_law: nonzeros per row
    std::uint64_t band = 0;                     ///< banded: bandwidth B
    csr_degrees degrees = csr_degrees::uniform; ///< graph: the degree law (power_law: power_law)
    std::uint64_t seed = 0;                     ///< seeds the three streams (csr_stream)
    double min = 0;                             ///< matrices: smallest value
    double max = 0;                             ///< matrices: bound of the values
};

/// The exact number of nonzeros (a graph's edges): nodes x degree, rows x per_row, or the
/// band's entries.
std::uint64_t csr_nnz(const csr_spec& s);

/// The elements of part p: rows + 1 for row_ptr, nnz for col_idx and values.
std::uint64_t csr_part_elements(const csr_spec& s, csr_part p);

/// The initial state of stream k (1: degrees, 2: columns, 3: values): the k-th output of
/// splitmix64 from state `seed`.
std::uint64_t csr_stream(std::uint64_t seed, unsigned k);

/// A generated structure.
struct csr_structure {
    std::vector<std::uint32_t> row_ptr; ///< rows + 1 offsets
    std::vector<std::uint32_t> col_idx; ///< nnz columns (empty unless asked for)
};

/// The structure of s: row_ptr, and col_idx when with_cols. O(nnz + rows + cols) time, apart
/// from sorting each row's columns; deterministic in s alone.
csr_structure csr_generate(const csr_spec& s, bool with_cols);

} // namespace vgpu::host
