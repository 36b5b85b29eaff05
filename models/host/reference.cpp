// Host-side reference computations. See docs/workloads.md ("References").
#include "models/host/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <sstream>

namespace vgpu::host {

namespace {

constexpr elem_type U = elem_type::u32;
constexpr elem_type I = elem_type::i32;
constexpr elem_type F = elem_type::f32;

/// Reads the numbers of one call and records the first problem.
class scalar_reader {
public:
    explicit scalar_reader(const std::map<std::string, double, std::less<>>& scalars)
        : m_scalars(scalars)
    {
    }

    /// A number argument; missing -> fallback (or an error when there is none).
    double number(const char* key, std::optional<double> fallback = std::nullopt)
    {
        auto it = m_scalars.find(key);
        if (it != m_scalars.end())
            return it->second;
        if (!fallback)
            fail(std::string("missing argument '") + key + "'");
        return fallback.value_or(0);
    }

    /// A non-negative integer argument (counts, sizes).
    std::uint64_t count(const char* key, std::optional<std::uint64_t> fallback = std::nullopt)
    {
        std::optional<double> fb;
        if (fallback)
            fb = static_cast<double>(*fallback);
        const double v = number(key, fb);
        if (v < 0 || v != std::floor(v) || v > 4294967295.0) {
            fail(std::string("argument '") + key + "' must be an integer in 0..4294967295");
            return 0;
        }
        return static_cast<std::uint64_t>(v);
    }

    /// An integer argument taken modulo 2^32 (negative values wrap).
    std::uint32_t word(const char* key, std::optional<double> fallback = std::nullopt)
    {
        const double v = number(key, fallback);
        if (v != std::floor(v) || v < -2147483648.0 || v > 4294967295.0) {
            fail(std::string("argument '") + key + "' must be a 32-bit integer");
            return 0;
        }
        return static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
    }

    /// Checks that `need` elements fit in a buffer of `have`.
    void fits(const char* what, std::uint64_t need, std::size_t have)
    {
        if (need > have)
            fail(std::string(what) + " needs " + std::to_string(need) + " elements, has " +
                 std::to_string(have));
    }

    void fail(std::string msg)
    {
        if (m_error.empty())
            m_error = std::move(msg);
    }
    const std::string& error() const { return m_error; }

private:
    const std::map<std::string, double, std::less<>>& m_scalars;
    std::string m_error;
};

/// Reads the arguments of one call (buffer contents included) and records the first problem.
class arg_reader : public scalar_reader {
public:
    arg_reader(const reference_args& args, const typed_buffer& out)
        : scalar_reader(args.scalars), m_args(args), m_out(out)
    {
    }

    const std::vector<std::uint32_t>& buffer(const char* key)
    {
        static const std::vector<std::uint32_t> none;
        auto it = m_args.buffers.find(key);
        if (it == m_args.buffers.end()) {
            fail(std::string("missing buffer argument '") + key + "'");
            return none;
        }
        return it->second.words;
    }
    std::size_t out_size() const { return m_out.words.size(); }

private:
    const reference_args& m_args;
    const typed_buffer& m_out;
};

/// Reads the sizes and numbers of one call, as arg_reader reads the call itself.
class shape_reader : public scalar_reader {
public:
    explicit shape_reader(const reference_shape& s) : scalar_reader(s.scalars), m_shape(s) {}

    /// Elements of a buffer argument (0 and an error when it is missing).
    std::uint64_t size(const char* key)
    {
        auto it = m_shape.buffers.find(key);
        if (it == m_shape.buffers.end()) {
            fail(std::string("missing buffer argument '") + key + "'");
            return 0;
        }
        return it->second;
    }
    std::uint64_t out() const { return m_shape.out; }

private:
    const reference_shape& m_shape;
};

/// a x b, or 2^64 - 1 when the product does not fit.
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<std::uint64_t>::max() : p;
}

using ref_fn = std::function<void(arg_reader&, std::vector<std::uint32_t>&)>;

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

void stencil3(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t seg = r.count("seg");
    const std::uint64_t steps = r.count("steps");
    const std::uint64_t n = r.count("n", in.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (r.error().empty() && (seg < 3 || n % seg != 0))
        r.fail("seg must be at least 3 and divide n");
    if (!r.error().empty())
        return;
    std::vector<std::uint32_t> cur(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<std::uint32_t> next = cur;
    for (std::uint64_t s = 0; s < steps; ++s) {
        for (std::uint64_t base = 0; base < n; base += seg)
            for (std::uint64_t t = base + 1; t + 1 < base + seg; ++t)
                next[t] = cur[t - 1] + cur[t] + cur[t + 1];
        cur.swap(next);
    }
    std::copy(cur.begin(), cur.end(), out.begin());
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

void stencil3_f32(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const double w[3] = {static_cast<float>(r.number("wl")), static_cast<float>(r.number("wc")),
                         static_cast<float>(r.number("wr"))};
    const std::uint64_t n = r.count("n", out.size());
    r.fits("in", n, in.size());
    r.fits("the checked buffer", n, out.size());
    if (!r.error().empty())
        return;
    auto x = [&](std::uint64_t i, int d) -> double {
        if ((d < 0 && i == 0) || (d > 0 && i + 1 >= n))
            return 0.0; // outside in[0, n): zero
        return bits_f32(in[i + d]);
    };
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = f32_bits(static_cast<float>(w[0] * x(i, -1) + w[1] * x(i, 0) + w[2] * x(i, 1)));
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

void softmax_rows(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& in = r.buffer("in");
    const std::uint64_t cols = r.count("cols");
    if (r.error().empty() && cols == 0)
        r.fail("cols must be at least 1");
    const std::uint64_t rows = r.count("rows", cols ? in.size() / cols : 0);
    r.fits("in", rows * cols, in.size());
    r.fits("the checked buffer", rows * cols, out.size());
    if (!r.error().empty())
        return;
    for (std::uint64_t row = 0; row < rows; ++row) {
        const std::uint32_t* x = in.data() + row * cols;
        double mx = -std::numeric_limits<double>::infinity();
        for (std::uint64_t c = 0; c < cols; ++c)
            mx = std::max(mx, static_cast<double>(bits_f32(x[c])));
        double sum = 0.0;
        for (std::uint64_t c = 0; c < cols; ++c)
            sum += std::exp(bits_f32(x[c]) - mx);
        for (std::uint64_t c = 0; c < cols; ++c)
            out[row * cols + c] = f32_bits(static_cast<float>(std::exp(bits_f32(x[c]) - mx) / sum));
    }
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

// Work estimates: the same argument reading as the computations above, without the data;
// each returns the inner-loop steps and names the argument that scales them.
using work_fn = std::function<reference_work(shape_reader&)>;

reference_work elementwise(shape_reader& r, std::initializer_list<const char*> inputs)
{
    std::vector<std::uint64_t> sizes;
    for (const char* b : inputs)
        sizes.push_back(r.size(b));
    const std::uint64_t n = r.count("n", r.out());
    std::size_t i = 0;
    for (const char* b : inputs)
        r.fits(b, n, sizes[i++]);
    r.fits("the checked buffer", n, r.out());
    return {n, "n", {}};
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

/// Work of out[i] = f^k(in[i]) for i < n: n x k inner steps, scaled by the loop count `loop`.
reference_work repeated_per_element(shape_reader& r, const char* loop)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t k = r.count(loop);
    const std::uint64_t n = r.count("n", r.out());
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    return {saturating_mul(n, k), loop, {}};
}

reference_work fma_chain_work(shape_reader& r)
{
    r.number("a");
    r.number("b");
    return repeated_per_element(r, "count");
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

reference_work gather_work(shape_reader& r)
{
    r.size("src");
    const std::uint64_t idx = r.size("idx");
    const std::uint64_t n = r.count("n", r.out());
    r.fits("idx", n, idx);
    r.fits("the checked buffer", n, r.out());
    return {n, "n", {}};
}

reference_work stencil3_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    const std::uint64_t steps = r.count("steps");
    r.count("seg");
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    return {n * std::max<std::uint64_t>(1, steps), "n x steps", {}};
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

reference_work stencil3_f32_work(shape_reader& r)
{
    r.number("wl");
    r.number("wc");
    r.number("wr");
    return elementwise(r, {"in"});
}

reference_work gemm_work(shape_reader& r)
{
    r.number("alpha");
    r.number("beta");
    return matmul_work(r);
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

reference_work softmax_rows_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t cols = r.count("cols");
    if (r.error().empty() && cols == 0)
        r.fail("cols must be at least 1");
    const std::uint64_t rows = r.count("rows", cols ? in / cols : 0);
    r.fits("in", rows * cols, in);
    r.fits("the checked buffer", rows * cols, r.out());
    return {rows * cols, "rows", {}};
}

reference_work sum_f32_work(shape_reader& r)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t n = r.count("n", in);
    r.fits("in", n, in);
    r.fits("the checked buffer", 1, r.out());
    return {n, "n", {}};
}

reference_work compute_bound_work(shape_reader& r)
{
    return repeated_per_element(r, "iterations");
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

struct entry {
    reference_spec spec;
    ref_fn fn;
    work_fn work;
};

const std::vector<entry>& table()
{
    const arg_spec n_opt{"n", arg_kind::scalar, false, {}};
    static const std::vector<entry> t = {
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
        {{"strided_sum",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"stride", arg_kind::scalar, true, {}},
           {"count", arg_kind::scalar, true, {}},
           {"threads", arg_kind::scalar, false, {}}},
          {U, I},
          "out[t] = sum_{k<count} in[(t*stride + k) mod len(in)] (mod 2^32), t < threads"},
         strided_sum,
         strided_sum_work},
        {{"gather",
          {{"src", arg_kind::buffer, true, {U, I, F}},
           {"idx", arg_kind::buffer, true, {U, I}},
           n_opt},
          {U, I, F},
          "out[i] = src[idx[i]], i < n"},
         gather,
         gather_work},
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
        {{"stencil3",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"seg", arg_kind::scalar, true, {}},
           {"steps", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "steps times x[t] = x[t-1] + x[t] + x[t+1] (mod 2^32) inside every segment of seg "
          "elements of in[0, n), its first and last elements fixed"},
         stencil3,
         stencil3_work},
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
        {{"compute_bound",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"iterations", arg_kind::scalar, true, {}},
           n_opt},
          {U, I},
          "x = in[i]; iterations times: x = x*1664525 + 1013904223, x ^= x >> 16; out[i] = x"},
         compute_bound,
         compute_bound_work},
        {{"stream",
          {{"in", arg_kind::buffer, true, {U, I}},
           {"k", arg_kind::scalar, true, {}},
           {"c", arg_kind::scalar, true, {}},
           n_opt},
          {U, I},
          "out[i] = in[i] * k + c (mod 2^32), i < n"},
         stream,
         stream_work},
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
        {{"stencil3_f32",
          {{"in", arg_kind::buffer, true, {F}},
           {"wl", arg_kind::scalar, true, {}},
           {"wc", arg_kind::scalar, true, {}},
           {"wr", arg_kind::scalar, true, {}},
           n_opt},
          {F},
          "out[i] = wl*in[i-1] + wc*in[i] + wr*in[i+1] (in[-1] = in[n] = 0), i < n, in double "
          "rounded once to f32"},
         stencil3_f32,
         stencil3_f32_work},
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
        {{"histogram8",
          {{"data", arg_kind::buffer, true, {U, I}}, {"n", arg_kind::scalar, false, {}}},
          {U, I},
          "out[b] += number of bytes equal to b among bytes 0..n-1 of data (little-endian, 4 "
          "per word; n defaults to 4 x len(data)), b < 256"},
         histogram8,
         histogram8_work},
        {{"softmax_rows",
          {{"in", arg_kind::buffer, true, {F}},
           {"cols", arg_kind::scalar, true, {}},
           {"rows", arg_kind::scalar, false, {}}},
          {F},
          "out[r*cols+c] = exp(x[c] - max x) / sum_c' exp(x[c'] - max x), x = row r of in, r < "
          "rows (default len(in)/cols), in double rounded once to f32"},
         softmax_rows,
         softmax_rows_work},
        {{"sum_f32",
          {{"in", arg_kind::buffer, true, {F}}, {"n", arg_kind::scalar, false, {}}},
          {F},
          "out[0] += sum_{i<n} in[i] (n defaults to len(in)), in double rounded once to f32"},
         sum_f32,
         sum_f32_work},
    };
    return t;
}

} // namespace

const std::vector<reference_spec>& references()
{
    static const std::vector<reference_spec> specs = [] {
        std::vector<reference_spec> s;
        for (const auto& e : table())
            s.push_back(e.spec);
        return s;
    }();
    return specs;
}

const reference_spec* find_reference(std::string_view name)
{
    for (const auto& s : references())
        if (name == s.name)
            return &s;
    return nullptr;
}

reference_result compute_reference(std::string_view name, const reference_args& args,
                                   const typed_buffer& out)
{
    reference_result res;
    for (const auto& e : table()) {
        if (name != e.spec.name)
            continue;
        arg_reader r(args, out);
        res.words = out.words;
        e.fn(r, res.words);
        res.error = r.error();
        if (!res.ok())
            res.words.clear();
        return res;
    }
    res.error = "unknown reference '" + std::string(name) + "'";
    return res;
}

std::uint64_t reference_shape::elements() const
{
    std::uint64_t e = out;
    for (const auto& [arg, n] : buffers)
        e = n > std::numeric_limits<std::uint64_t>::max() - e
                ? std::numeric_limits<std::uint64_t>::max()
                : e + n;
    return e;
}

reference_work estimate_work(std::string_view name, const reference_shape& shape)
{
    for (const auto& e : table()) {
        if (name != e.spec.name)
            continue;
        shape_reader r(shape);
        reference_work w = e.work(r);
        w.error = r.error();
        if (!w.ok())
            w.ops = 0;
        return w;
    }
    reference_work w;
    w.error = "unknown reference '" + std::string(name) + "'";
    return w;
}

std::uint64_t work_limit(const reference_shape& shape)
{
    const std::uint64_t scaled = saturating_mul(work_per_element, shape.elements());
    return scaled > std::numeric_limits<std::uint64_t>::max() - work_base
               ? std::numeric_limits<std::uint64_t>::max()
               : work_base + scaled;
}

} // namespace vgpu::host
