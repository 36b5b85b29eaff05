// Unit tests of the seeded CSR generators (models/host/csr_generator.h) and of the workload
// buffers that take their parts. The shape checks are written from the definitions in
// docs/workloads.md ("Generated CSR inputs"), apart from the generator's code.
#include "test/host/workload_cases.h"

#include "models/host/csr_generator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

csr_spec graph(std::uint64_t nodes, std::uint64_t degree, std::uint64_t seed,
               csr_degrees law = csr_degrees::uniform)
{
    csr_spec s;
    s.kind = csr_kind::graph;
    s.rows = s.cols = nodes;
    s.per_row = degree;
    s.degrees = law;
    s.seed = seed;
    return s;
}

csr_spec matrix(csr_kind kind, std::uint64_t rows, std::uint64_t cols, std::uint64_t k,
                std::uint64_t seed)
{
    csr_spec s;
    s.kind = kind;
    s.rows = rows;
    s.cols = cols;
    (kind == csr_kind::banded ? s.band : s.per_row) = k;
    s.degrees = csr_degrees::power_law;
    s.seed = seed;
    s.min = -2;
    s.max = 3;
    return s;
}

/// The CSR shape rules, checked from the arrays alone: row_ptr[0] = 0, non-decreasing,
/// row_ptr[rows] = nnz; each row's columns in range and strictly ascending (so distinct); a
/// graph has no self loops.
void check_shape(const csr_structure& g, std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz,
                 bool graph)
{
    REQUIRE(g.row_ptr.size() == rows + 1);
    REQUIRE(g.col_idx.size() == nnz);
    CHECK(g.row_ptr[0] == 0);
    CHECK(g.row_ptr[rows] == nnz);
    std::uint64_t bad = 0;
    for (std::uint64_t r = 0; r < rows; ++r) {
        if (g.row_ptr[r + 1] < g.row_ptr[r]) {
            ++bad;
            continue;
        }
        for (std::uint32_t k = g.row_ptr[r]; k < g.row_ptr[r + 1]; ++k) {
            const std::uint32_t c = g.col_idx[k];
            bad += c >= cols || (graph && c == r) || (k > g.row_ptr[r] && c <= g.col_idx[k - 1]);
        }
    }
    CHECK(bad == 0);
}

std::vector<std::uint32_t> degrees_of(const csr_structure& g)
{
    std::vector<std::uint32_t> d;
    for (std::size_t r = 0; r + 1 < g.row_ptr.size(); ++r)
        d.push_back(g.row_ptr[r + 1] - g.row_ptr[r]);
    return d;
}

const std::string exit_kernel = "kernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\n";

} // namespace

TEST_CASE("csr_graph: exact shape, no self loops or duplicates, total nodes x degree",
          "[workload][csr]")
{
    struct shape {
        std::uint64_t nodes, degree;
    };
    // Sparse, dense, complete (degree = nodes - 1) and the smallest graph.
    for (const shape sh : {shape{1000, 8}, shape{300, 150}, shape{64, 63}, shape{2, 1}})
        for (const auto law : {csr_degrees::uniform, csr_degrees::power_law})
            for (const std::uint64_t seed : {1ull, 2ull, 0xdeadbeefull}) {
                INFO("nodes " << sh.nodes << " degree " << sh.degree << " power_law "
                              << (law == csr_degrees::power_law) << " seed " << seed);
                const csr_spec s = graph(sh.nodes, sh.degree, seed, law);
                CHECK(csr_nnz(s) == sh.nodes * sh.degree);
                CHECK(csr_part_elements(s, csr_part::row_ptr) == sh.nodes + 1);
                CHECK(csr_part_elements(s, csr_part::col_idx) == sh.nodes * sh.degree);
                const csr_structure g = csr_generate(s, true);
                check_shape(g, sh.nodes, sh.nodes, sh.nodes * sh.degree, true);
                // row_ptr alone is the same as with the columns.
                CHECK(csr_generate(s, false).row_ptr == g.row_ptr);
                if (sh.degree == sh.nodes - 1) // complete: every row is every other node
                    for (std::uint32_t d : degrees_of(g))
                        CHECK(d == sh.degree);
            }
}

TEST_CASE("csr generators: the same seed gives the same contents, another seed others",
          "[workload][csr]")
{
    const std::vector<csr_spec> specs = {graph(500, 6, 11),
                                         graph(500, 6, 11, csr_degrees::power_law),
                                         matrix(csr_kind::power_law, 300, 400, 5, 11)};
    for (std::size_t i = 0; i < specs.size(); ++i) {
        INFO("spec " << i << " seed 11 against 12");
        csr_spec other = specs[i];
        other.seed = 12;
        const csr_structure a = csr_generate(specs[i], true);
        const csr_structure b = csr_generate(specs[i], true);
        const csr_structure c = csr_generate(other, true);
        CHECK(a.row_ptr == b.row_ptr);
        CHECK(a.col_idx == b.col_idx);
        CHECK(a.col_idx != c.col_idx);
        if (specs[i].kind != csr_kind::graph || specs[i].degrees == csr_degrees::power_law)
            CHECK(a.row_ptr != c.row_ptr); // the degrees are drawn too
    }
    // Pinned: a change of generator changes every workload that uses one.
    const csr_structure g = csr_generate(graph(8, 2, 1), true);
    CHECK(g.row_ptr == std::vector<std::uint32_t>{0, 1, 6, 8, 8, 9, 11, 14, 16});
    CHECK(g.col_idx == std::vector<std::uint32_t>{4, 0, 3, 4, 6, 7, 1, 3, 6, 1, 3, 0, 2, 4, 2, 5});
}

namespace {

/// The uniform graph as docs/workloads.md defines it, written plainly: stream k starts at the
/// k-th splitmix64 output of the seed; each of the nodes x degree edges draws its source
/// floor(z x nodes / 2^64) from stream 1, again while that node has nodes - 1 edges; then per
/// node, Floyd's algorithm draws its targets among the nodes - 1 others from stream 2 (t >= the
/// node stands for t + 1), ascending.
csr_structure reference_uniform_graph(std::uint64_t nodes, std::uint64_t degree, std::uint64_t seed)
{
    const auto next = [](std::uint64_t& st) {
        std::uint64_t z = (st += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    const auto draw = [&](std::uint64_t& st, std::uint64_t n) {
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next(st)) * n) >> 64);
    };
    std::uint64_t s = seed;
    std::uint64_t degrees_state = next(s);
    std::uint64_t columns_state = next(s);
    std::vector<std::uint32_t> deg(nodes, 0);
    for (std::uint64_t e = 0; e < nodes * degree; ++e) {
        std::uint64_t r = draw(degrees_state, nodes);
        while (deg[r] == nodes - 1)
            r = draw(degrees_state, nodes);
        ++deg[r];
    }
    csr_structure g;
    g.row_ptr.push_back(0);
    for (std::uint64_t r = 0; r < nodes; ++r) {
        std::set<std::uint64_t> picked;
        for (std::uint64_t j = nodes - 1 - deg[r]; j < nodes - 1; ++j) {
            const std::uint64_t t = draw(columns_state, j + 1);
            picked.insert(picked.count(t) ? j : t);
        }
        for (std::uint64_t t : picked)
            g.col_idx.push_back(static_cast<std::uint32_t>(t >= r ? t + 1 : t));
        g.row_ptr.push_back(static_cast<std::uint32_t>(g.col_idx.size()));
    }
    return g;
}

} // namespace

TEST_CASE("csr_graph (uniform): the documented model, written apart", "[workload][csr]")
{
    for (const std::uint64_t seed : {1ull, 99ull})
        for (const auto& [nodes, degree] :
             {std::pair{8ull, 2ull}, {300ull, 7ull}, {40ull, 39ull}, {200ull, 60ull}}) {
            INFO("nodes " << nodes << " degree " << degree << " seed " << seed);
            const csr_structure want = reference_uniform_graph(nodes, degree, seed);
            const csr_structure got = csr_generate(graph(nodes, degree, seed), true);
            CHECK(got.row_ptr == want.row_ptr);
            CHECK(got.col_idx == want.col_idx);
        }
}

TEST_CASE("csr_banded: each row has exactly the columns of its band", "[workload][csr]")
{
    struct shape {
        std::uint64_t rows, cols, band;
    };
    // Square, more rows than columns (empty rows at the end), more columns, a diagonal.
    for (const shape sh : {shape{100, 100, 3}, shape{50, 20, 4}, shape{20, 50, 6}, shape{7, 7, 0},
                           shape{5, 5, 10}}) {
        INFO("rows " << sh.rows << " cols " << sh.cols << " band " << sh.band);
        const csr_structure g =
            csr_generate(matrix(csr_kind::banded, sh.rows, sh.cols, sh.band, 1), true);
        std::vector<std::uint32_t> want_ptr{0};
        std::vector<std::uint32_t> want_cols;
        for (std::int64_t r = 0; r < static_cast<std::int64_t>(sh.rows); ++r) {
            for (std::int64_t c = 0; c < static_cast<std::int64_t>(sh.cols); ++c)
                if (c >= r - static_cast<std::int64_t>(sh.band) &&
                    c <= r + static_cast<std::int64_t>(sh.band))
                    want_cols.push_back(static_cast<std::uint32_t>(c));
            want_ptr.push_back(static_cast<std::uint32_t>(want_cols.size()));
        }
        CHECK(g.row_ptr == want_ptr);
        CHECK(g.col_idx == want_cols);
        CHECK(csr_nnz(matrix(csr_kind::banded, sh.rows, sh.cols, sh.band, 1)) == want_cols.size());
    }
}

TEST_CASE("csr_power_law: exact total, rows capped at cols, distinct sorted columns",
          "[workload][csr]")
{
    // 100 rows of 15 on average over 20 columns: the heavy rows meet the cap.
    for (const std::uint64_t seed : {3ull, 4ull}) {
        INFO("seed " << seed);
        const csr_spec s = matrix(csr_kind::power_law, 100, 20, 15, seed);
        const csr_structure g = csr_generate(s, true);
        check_shape(g, 100, 20, 1500, false);
        const auto d = degrees_of(g);
        CHECK(*std::max_element(d.begin(), d.end()) == 20);
    }
    const csr_structure g = csr_generate(matrix(csr_kind::power_law, 2000, 3000, 4, 9), true);
    check_shape(g, 2000, 3000, 8000, false);
}

TEST_CASE("power-law degrees have a heavier tail than uniform ones", "[workload][csr]")
{
    // nodes 4096, degree 8: uniform degrees are about Poisson(8), P(>= 32) ~ 1e-10 per node;
    // power-law rank k expects 8 x 4096 / (sum of 1/sqrt) / sqrt(k + 1), about 32 / sqrt(k + 1)
    // x 8, so the first ~64 ranks expect 32 or more and the largest about 250.
    for (const std::uint64_t seed : {5ull, 6ull, 7ull}) {
        INFO("seed " << seed);
        const auto u = degrees_of(csr_generate(graph(4096, 8, seed), false));
        const auto p =
            degrees_of(csr_generate(graph(4096, 8, seed, csr_degrees::power_law), false));
        const auto heavy = [](const std::vector<std::uint32_t>& d) {
            return std::count_if(d.begin(), d.end(), [](std::uint32_t x) { return x >= 32; });
        };
        CHECK(heavy(u) == 0);
        CHECK(heavy(p) >= 41); // 1 % of the nodes
        CHECK(*std::max_element(p.begin(), p.end()) >= 80);
        CHECK(*std::max_element(u.begin(), u.end()) < 32);
        // Uniform is not constant either: the degrees spread around 8.
        CHECK(*std::min_element(u.begin(), u.end()) < 8);
        CHECK(*std::max_element(u.begin(), u.end()) > 8);
    }
}

TEST_CASE("csr_graph: targets are uniform over the other nodes", "[workload][csr]")
{
    // 400 nodes of degree 200: each node's in-degree is about Binomial(399, 200/399), mean 200,
    // standard deviation 10; every one within 6 deviations. A biased choice (Floyd's fallback
    // `j` taken too often, a skipped node) moves the high or low nodes far outside.
    for (const std::uint64_t seed : {21ull, 22ull}) {
        INFO("seed " << seed);
        const csr_structure g = csr_generate(graph(400, 200, seed), true);
        std::vector<unsigned> in(400, 0);
        for (std::uint32_t c : g.col_idx)
            ++in[c];
        CHECK(*std::min_element(in.begin(), in.end()) >= 140);
        CHECK(*std::max_element(in.begin(), in.end()) <= 260);
        // A sparse graph: in-degrees about Poisson(8); the sum of (in - 8)^2 / 8 over 1000
        // nodes is about chi-square with 999 degrees of freedom (mean 999, deviation 45).
        const csr_structure h = csr_generate(graph(1000, 8, seed), true);
        std::vector<double> hin(1000, 0);
        for (std::uint32_t c : h.col_idx)
            ++hin[c];
        double chi2 = 0;
        for (double x : hin)
            chi2 += (x - 8) * (x - 8) / 8;
        CHECK(chi2 > 800);
        CHECK(chi2 < 1200);
    }
}

TEST_CASE("generated buffers: three parts of one generator, sizes from vars", "[workload][csr]")
{
    const auto wl = parse_workload_text(R"(vars: {nodes: 500, degree: 6, rows: 64, band: 2}
generators:
  g: {csr_graph: {nodes: "${nodes}", degree: "${degree}", seed: 7}}
  p: {csr_graph: {nodes: "${nodes}", degree: "${degree}", seed: 7, degrees: power_law}}
  m: {csr_banded: {rows: "${rows}", cols: "${rows}", band: "${band}", seed: 3, min: -1, max: 1}}
  q: {csr_power_law: {rows: 100, cols: 80, per_row: 3, seed: 4, min: 0.5, max: 2}}
buffers:
  - {name: row_ptr, type: u32, elements: "${nodes + 1}", init: {csr: {generator: g, part: row_ptr}}}
  - {name: col_idx, type: i32, elements: "${nodes * degree}", init: {csr: {generator: g, part: col_idx}}}
  - {name: p_ptr, type: u64, elements: "${nodes + 1}", init: {csr: {generator: p, part: row_ptr}}}
  - {name: m_val, type: f32, elements: 314, init: {csr: {generator: m, part: values}}}
  - {name: q_val, type: f64, elements: 300, init: {csr: {generator: q, part: values}}}
  - {name: m_col, type: u32, elements: 314, init: {csr: {generator: m, part: col_idx}}}
)" + exit_kernel,
                                        "t.yaml");
    for (const auto& e : wl.errors)
        UNSCOPED_INFO(e);
    REQUIRE(wl.ok());
    const auto& b = wl.wl.buffers;
    REQUIRE(wl.wl.generators.size() == 4);
    const csr_structure g = csr_generate(graph(500, 6, 7), true);
    CHECK(initial_words(b[0]) == g.row_ptr);
    CHECK(initial_words(b[1]) == g.col_idx);
    const csr_structure p = csr_generate(graph(500, 6, 7, csr_degrees::power_law), false);
    const auto p_img = initial_words(b[2]);
    REQUIRE(p_img.size() == 2 * 501);
    for (std::size_t i = 0; i < 501; ++i) {
        CHECK(p_img[2 * i] == p.row_ptr[i]);
        CHECK(p_img[2 * i + 1] == 0);
    }
    // Values: in range, from the seed (the same each time, other seeds other values).
    const auto mv = initial_words(b[3]);
    REQUIRE(mv.size() == 314);
    std::set<std::uint32_t> distinct;
    for (std::uint32_t w : mv) {
        CHECK(bits_f32(w) >= -1.0f);
        CHECK(bits_f32(w) <= 1.0f);
        distinct.insert(w);
    }
    CHECK(distinct.size() > 300);
    CHECK(initial_words(b[3]) == mv);
    for (std::uint64_t i = 0; i < 300; ++i) {
        const double v = bits_f64(get_element(initial_words(b[4]), i, elem_type::f64));
        CHECK(v >= 0.5);
        CHECK(v < 2.0);
    }
    CHECK(initial_words(b[5]) ==
          csr_generate(matrix(csr_kind::banded, 64, 64, 2, 3), true).col_idx);
}

TEST_CASE("a generator without a seed takes the run's seed", "[workload][csr]")
{
    const std::string text = R"(generators:
  g: {csr_graph: {nodes: 100, degree: 4}}
buffers:
  - {name: c, type: u32, elements: 400, init: {csr: {generator: g, part: col_idx}}}
)" + exit_kernel;
    workload_options s5, s6;
    s5.seed = 5;
    s6.seed = 6;
    const auto r5 = parse_workload_text(text, "t.yaml", s5);
    const auto r5b = parse_workload_text(text, "t.yaml", s5);
    const auto r6 = parse_workload_text(text, "t.yaml", s6);
    REQUIRE(r5.ok());
    REQUIRE(r6.ok());
    CHECK(initial_words(r5.wl.buffers[0]) == csr_generate(graph(100, 4, 5), true).col_idx);
    CHECK(initial_words(r5.wl.buffers[0]) == initial_words(r5b.wl.buffers[0]));
    CHECK(initial_words(r6.wl.buffers[0]) != initial_words(r5.wl.buffers[0]));
}

TEST_CASE("bad generators and generated buffers: located errors", "[workload][csr]")
{
    const auto errs = [](const std::string& gens, const std::string& bufs) {
        return errors_of("generators:\n" + gens + "buffers:\n" + bufs + exit_kernel);
    };
    const std::string ok_g = "  g: {csr_graph: {nodes: 10, degree: 3, seed: 1}}\n";
    const std::string ok_b = "  - {name: c, type: u32, elements: 30, init: {csr: {generator: g, "
                             "part: col_idx}}}\n";
    CHECK(errs(ok_g, ok_b).empty());
    using v = std::vector<std::string>;
    // Missing keys, zero nodes, degree >= nodes.
    CHECK(errs("  g: {csr_graph: {nodes: 10}}\n", ok_b) ==
          v{"w.yaml:2:18: error: generators.g.csr_graph: missing required key 'degree'"});
    CHECK(errs("  g: {csr_graph: {nodes: 0, degree: 3}}\n", ok_b) ==
          v{"w.yaml:2:26: error: generators.g.csr_graph.nodes: value out of range (expected "
            "2..268435455, got 0)"});
    CHECK(errs("  g: {csr_graph: {nodes: 10, degree: 10}}\n", ok_b) ==
          v{"w.yaml:2:38: error: generators.g.csr_graph.degree: degree 10 is not below nodes "
            "(10): a node has at most nodes - 1 distinct edges (no self loops, no duplicates)"});
    CHECK(errs("  g: {csr_grahp: {nodes: 10, degree: 3}}\n", ok_b) ==
          v{"w.yaml:2:7: error: generators.g: invalid choice (expected one of "
            "csr_graph|csr_banded|csr_power_law, got 'csr_grahp'; did you mean 'csr_graph'?)"});
    CHECK(errs("  g: {csr_graph: {nodes: 10, degree: 3, degrees: zipf}}\n", ok_b) ==
          v{"w.yaml:2:50: error: generators.g.csr_graph.degrees: invalid choice (expected one of "
            "uniform|power_law, got 'zipf')"});
    CHECK(errs("  g: {csr_graph: {nodes: 100000, degree: 9999}}\n", ok_b) ==
          v{"w.yaml:2:7: error: generators.g.csr_graph: the generator makes 999900000 nonzeros "
            "(nodes x degree), more than 268435456 (a u32 col_idx of 1 GiB)"});
    CHECK(errs("  m: {csr_banded: {rows: 4, cols: 4, band: 1, min: 2, max: 1}}\n" + ok_g, ok_b) ==
          v{"w.yaml:2:60: error: generators.m.csr_banded.max: max (1) is below min (2)"});
    CHECK(errs("  q: {csr_power_law: {rows: 4, cols: 4, per_row: 5, min: 0, max: 1}}\n" + ok_g,
               ok_b) ==
          v{"w.yaml:2:50: error: generators.q.csr_power_law.per_row: per_row 5 is above cols "
            "(4): a row has at most cols nonzeros"});
    // The buffers: unknown part, count not the part's size, undefined generator, wrong type.
    CHECK(errs(ok_g, "  - {name: c, type: u32, elements: 30, init: {csr: {generator: g, part: "
                     "cols}}}\n") ==
          v{"w.yaml:4:73: error: buffers[0].init.csr.part: invalid choice (expected one of "
            "row_ptr|col_idx|values, got 'cols')"});
    CHECK(errs(ok_g, "  - {name: c, type: u32, elements: 31, init: {csr: {generator: g, part: "
                     "col_idx}}}\n") ==
          v{"w.yaml:4:73: error: buffers[0].init.csr.part: buffer 'c' has 31 elements, part "
            "col_idx of generator 'g' has 30 (nodes x degree)"});
    CHECK(errs(ok_g, "  - {name: c, type: u32, elements: 30, init: {csr: {generator: h, part: "
                     "col_idx}}}\n") ==
          v{"w.yaml:4:64: error: buffers[0].init.csr.generator: undefined generator 'h' (did you "
            "mean 'g'?)"});
    CHECK(errs(ok_g, "  - {name: c, type: f32, elements: 30, init: {csr: {generator: g, part: "
                     "col_idx}}}\n") ==
          v{"w.yaml:4:73: error: buffers[0].init.csr.part: part col_idx needs a u32, i32, u64 or "
            "i64 buffer (buffer 'c' is f32)"});
    CHECK(errs(ok_g, "  - {name: c, type: f32, elements: 30, init: {csr: {generator: g, part: "
                     "values}}}\n") ==
          v{"w.yaml:4:73: error: buffers[0].init.csr.part: generator 'g' (csr_graph) has no part "
            "values (its parts are row_ptr and col_idx)"});
    CHECK(errs(ok_g, "  - {name: c, type: u32, elements: 30, init: {csr: {generator: g}}}\n") ==
          v{"w.yaml:4:52: error: buffers[0].init.csr: missing required key 'part'"});
    // A generator with errors is reported once, where it is declared.
    CHECK(errs("  g: {csr_graph: {nodes: 1, degree: 3}}\n", ok_b).size() == 1);
}
