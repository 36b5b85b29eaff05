// The seam of the host-side references (reference.h): what a family of references is written
// with, and each family's table. A family is one file in models/host/references/ that returns
// its entries; reference_table.cpp lists the families, in documentation order. See
// docs/workloads.md ("References").
#pragma once

#include "models/host/reference.h"

#include <cmath>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::host::detail {

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
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<std::uint64_t>::max() : p;
}

/// The shape of a row-major matrix argument `in`.
struct matrix_shape {
    std::uint64_t rows = 0, cols = 0;
};

/// Reads `cols` (at least 1) and `rows` (default: in / cols) of a matrix argument of `in`
/// elements whose result fills rows x cols elements of a checked buffer of `out`.
inline matrix_shape read_matrix(scalar_reader& r, std::uint64_t in, std::uint64_t out)
{
    matrix_shape m;
    m.cols = r.count("cols");
    if (r.error().empty() && m.cols == 0)
        r.fail("cols must be at least 1");
    m.rows = r.count("rows", m.cols ? in / m.cols : 0);
    r.fits("in", m.rows * m.cols, in);
    r.fits("the checked buffer", m.rows * m.cols, out);
    return m;
}

/// Fills the checked buffer's expected contents (it holds the initial contents on entry).
using ref_fn = std::function<void(arg_reader&, std::vector<std::uint32_t>&)>;
/// The inner-loop steps of a call, read from its shape as ref_fn reads the call.
using work_fn = std::function<reference_work(shape_reader&)>;

/// One reference: its documented form, its computation and its work estimate.
struct reference_entry {
    reference_spec spec;
    ref_fn fn;
    work_fn work;
};

/// Work of out[i] = f(inputs[i]) for i < n (n defaults to the checked buffer's elements).
reference_work elementwise(shape_reader& r, std::initializer_list<const char*> inputs);
/// Work of out[i] = f^k(in[i]) for i < n: n x k inner steps, scaled by the loop count `loop`.
reference_work repeated_per_element(shape_reader& r, const char* loop);

// The families, each in models/host/references/<family>.cpp.
std::vector<reference_entry> elementwise_references();
std::vector<reference_entry> reductions_references();
std::vector<reference_entry> irregular_references();
std::vector<reference_entry> stencils_references();
std::vector<reference_entry> linear_algebra_references();
std::vector<reference_entry> ml_references();
std::vector<reference_entry> sorting_references();
std::vector<reference_entry> physics_references();

} // namespace vgpu::host::detail
