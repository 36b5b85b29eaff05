// Seeded generators of CSR graphs and sparse matrices: degrees, then distinct columns per row.
// See csr_generator.h and docs/workloads.md ("Generated CSR inputs").
#include "models/host/csr_generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vgpu::host {

namespace {

/// floor(z x n / 2^64) for the next output z: a draw in [0, n) without a division.
std::uint64_t below(std::uint64_t& state, std::uint64_t n)
{
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(splitmix64(state)) * n) >>
                                      64);
}

/// The first column of banded row r (it may be past the last column: an empty row).
std::uint64_t band_first(const csr_spec& s, std::uint64_t r)
{
    return r > s.band ? r - s.band : 0;
}

/// The columns of banded row r.
std::uint64_t band_count(const csr_spec& s, std::uint64_t r)
{
    const std::uint64_t lo = band_first(s, r);
    return lo >= s.cols ? 0 : std::min(s.cols - 1, r + s.band) - lo + 1;
}

/// Vose's alias table over integer weights, in exact integer arithmetic (so the same table on
/// every host): bucket j keeps j with probability keep / total, else gives alias.
struct alias_table {
    struct bucket {
        std::uint64_t keep;
        std::uint64_t alias;
    };
    std::vector<bucket> buckets;
    std::uint64_t total = 0;

    explicit alias_table(const std::vector<std::uint64_t>& w)
        : buckets(w.size()), total(std::accumulate(w.begin(), w.end(), 0ull))
    {
        const std::uint64_t n = w.size();
        // Bucket capacity `total`; item i brings w[i] x n of the n x total in all.
        std::vector<std::uint64_t> s(n);
        std::vector<std::uint32_t> small, large;
        for (std::uint64_t i = 0; i < n; ++i) {
            s[i] = w[i] * n;
            buckets[i] = {total, i};
            (s[i] < total ? small : large).push_back(static_cast<std::uint32_t>(i));
        }
        while (!small.empty() && !large.empty()) {
            const std::uint32_t l = small.back();
            const std::uint32_t g = large.back();
            small.pop_back();
            large.pop_back();
            buckets[l] = {s[l], g};
            s[g] -= total - s[l];
            (s[g] < total ? small : large).push_back(g);
        }
        // What is left is exactly full (integers do not drift): keep = total, itself.
    }
};

constexpr unsigned draw_block = 256; ///< row draws fetched together (count_entries)

/// Counts nnz entries into rows c, each entry taking the next drawn row that is below cap. The
/// rows come in blocks (draw(rows, draw_block)) whose counters are fetched together: the same
/// sequence as one at a time, without waiting on one cache miss per entry.
template <class Draw>
void count_entries(std::vector<std::uint32_t>& c, std::uint64_t nnz, std::uint64_t cap, Draw draw)
{
    std::uint64_t rows[draw_block];
    std::uint64_t e = 0;
    while (e < nnz) {
        draw(rows);
        for (unsigned i = 0; i < draw_block; ++i)
            __builtin_prefetch(&c[rows[i]]);
        for (unsigned i = 0; i < draw_block && e < nnz; ++i)
            if (c[rows[i]] < cap) {
                ++c[rows[i]];
                ++e;
            }
    }
}

/// Nonzeros per row. Banded: the band. Otherwise each of the nnz entries picks its row (stream
/// 1): uniformly, or by power-law weight; a row already full (a graph: nodes - 1 edges; a
/// matrix: cols) is drawn again, so the total is exactly nnz.
std::vector<std::uint32_t> row_counts(const csr_spec& s)
{
    std::vector<std::uint32_t> c(s.rows, 0);
    if (s.kind == csr_kind::banded) {
        for (std::uint64_t r = 0; r < s.rows; ++r)
            c[r] = static_cast<std::uint32_t>(band_count(s, r));
        return c;
    }
    const std::uint64_t cap = s.kind == csr_kind::graph ? s.cols - 1 : s.cols;
    const std::uint64_t nnz = csr_nnz(s);
    std::uint64_t st = csr_stream(s.seed, 1);
    if (s.kind == csr_kind::graph && s.degrees == csr_degrees::uniform) {
        count_entries(c, nnz, cap, [&](std::uint64_t* rows) {
            for (unsigned i = 0; i < draw_block; ++i)
                rows[i] = below(st, s.rows);
        });
        return c;
    }
    // Power law: the row of rank k (a seeded permutation, so that the heavy rows are spread
    // over the matrix) has weight floor(2^24 / sqrt(k + 1)); sqrt and the division are
    // correctly rounded, so the weights are the same everywhere. A draw takes bucket j and u
    // in [0, total) from the stream: row j if u < keep[j], else alias[j].
    std::vector<std::uint32_t> perm(s.rows);
    std::iota(perm.begin(), perm.end(), 0u);
    for (std::uint64_t i = s.rows; i > 1; --i)
        std::swap(perm[i - 1], perm[below(st, i)]);
    std::vector<std::uint64_t> w(s.rows);
    for (std::uint64_t k = 0; k < s.rows; ++k)
        w[perm[k]] = static_cast<std::uint64_t>(16777216.0 / std::sqrt(static_cast<double>(k + 1)));
    const alias_table table(w);
    count_entries(c, nnz, cap, [&](std::uint64_t* rows) {
        std::uint64_t u[draw_block];
        for (unsigned i = 0; i < draw_block; ++i) {
            rows[i] = below(st, s.rows);
            u[i] = below(st, table.total);
            __builtin_prefetch(&table.buckets[rows[i]]);
        }
        for (unsigned i = 0; i < draw_block; ++i) {
            const alias_table::bucket& b = table.buckets[rows[i]];
            rows[i] = u[i] < b.keep ? rows[i] : b.alias;
        }
    });
    return c;
}

/// Fills row r's d columns at out, distinct and ascending, drawn from [0, choices) by Floyd's
/// algorithm (stream 2; exactly d draws, each subset equally likely); `taken` is a bitmap of
/// `choices` bits, all clear before and after.
void draw_columns(std::uint64_t& st, std::uint64_t choices, std::uint64_t d, std::uint32_t* out,
                  std::vector<std::uint64_t>& taken)
{
    const auto test = [&](std::uint64_t t) { return (taken[t >> 6] >> (t & 63)) & 1; };
    const auto set = [&](std::uint64_t t) { taken[t >> 6] |= 1ull << (t & 63); };
    for (std::uint64_t j = choices - d; j < choices; ++j) {
        std::uint64_t t = below(st, j + 1);
        if (test(t))
            t = j; // j itself was never drawn before
        set(t);
        *out++ = static_cast<std::uint32_t>(t);
    }
    out -= d;
    if (d * 16 >= choices) {
        // A dense row: read the bitmap in order (cost choices / 64 words, at most 4 d).
        std::uint64_t k = 0;
        for (std::uint64_t i = 0; i < taken.size(); ++i) {
            for (std::uint64_t word = taken[i]; word != 0; word &= word - 1)
                out[k++] = static_cast<std::uint32_t>(i * 64 + __builtin_ctzll(word));
            taken[i] = 0;
        }
        return;
    }
    std::sort(out, out + d);
    for (std::uint64_t k = 0; k < d; ++k)
        taken[out[k] >> 6] = 0; // the row's bits, and only its, are in these words
}

} // namespace

std::uint64_t csr_nnz(const csr_spec& s)
{
    if (s.kind != csr_kind::banded)
        return s.rows * s.per_row;
    std::uint64_t n = 0;
    for (std::uint64_t r = 0; r < s.rows; ++r)
        n += band_count(s, r);
    return n;
}

std::uint64_t csr_part_elements(const csr_spec& s, csr_part p)
{
    return p == csr_part::row_ptr ? s.rows + 1 : csr_nnz(s);
}

std::uint64_t csr_stream(std::uint64_t seed, unsigned k)
{
    std::uint64_t z = 0;
    for (unsigned i = 0; i < k; ++i)
        z = splitmix64(seed);
    return z;
}

csr_structure csr_generate(const csr_spec& s, bool with_cols)
{
    csr_structure out;
    const std::vector<std::uint32_t> counts = row_counts(s);
    out.row_ptr.resize(s.rows + 1);
    out.row_ptr[0] = 0;
    for (std::uint64_t r = 0; r < s.rows; ++r)
        out.row_ptr[r + 1] = out.row_ptr[r] + counts[r];
    if (!with_cols)
        return out;
    out.col_idx.resize(out.row_ptr[s.rows]);
    if (s.kind == csr_kind::banded) {
        for (std::uint64_t r = 0; r < s.rows; ++r)
            std::iota(out.col_idx.begin() + out.row_ptr[r],
                      out.col_idx.begin() + out.row_ptr[r + 1],
                      static_cast<std::uint32_t>(band_first(s, r)));
        return out;
    }
    // A graph draws among the nodes - 1 others and skips itself: t >= r stands for t + 1.
    const bool graph = s.kind == csr_kind::graph;
    const std::uint64_t choices = graph ? s.cols - 1 : s.cols;
    std::vector<std::uint64_t> taken((choices + 63) / 64, 0);
    std::uint64_t st = csr_stream(s.seed, 2);
    for (std::uint64_t r = 0; r < s.rows; ++r) {
        std::uint32_t* row = out.col_idx.data() + out.row_ptr[r];
        draw_columns(st, choices, counts[r], row, taken);
        if (graph)
            for (std::uint32_t k = 0; k < counts[r]; ++k)
                row[k] += row[k] >= r ? 1 : 0;
    }
    return out;
}

} // namespace vgpu::host
