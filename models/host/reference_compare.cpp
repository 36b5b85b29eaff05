// Element types (names, sizes, the packed image of a buffer), fp32/fp64 bit conversions, element
// formatting and the comparison of a result with its expected values (models/host/reference.h).
// See docs/workloads.md ("Buffers", "Checks").
#include "models/host/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace vgpu::host {

const std::vector<std::pair<std::string, elem_type>>& elem_type_names()
{
    static const std::vector<std::pair<std::string, elem_type>> names = {
        {"u8", elem_type::u8},   {"i8", elem_type::i8},   {"u16", elem_type::u16},
        {"i16", elem_type::i16}, {"u32", elem_type::u32}, {"i32", elem_type::i32},
        {"u64", elem_type::u64}, {"i64", elem_type::i64}, {"f32", elem_type::f32},
        {"f64", elem_type::f64}};
    return names;
}

const char* name(elem_type t)
{
    for (const auto& [n, e] : elem_type_names())
        if (e == t)
            return n.c_str();
    return "?";
}

unsigned elem_bytes(elem_type t)
{
    switch (t) {
    case elem_type::u8:
    case elem_type::i8:
        return 1;
    case elem_type::u16:
    case elem_type::i16:
        return 2;
    case elem_type::u64:
    case elem_type::i64:
    case elem_type::f64:
        return 8;
    case elem_type::u32:
    case elem_type::i32:
    case elem_type::f32:
        break;
    }
    return 4;
}

bool is_float(elem_type t)
{
    return t == elem_type::f32 || t == elem_type::f64;
}

bool is_signed(elem_type t)
{
    return t == elem_type::i8 || t == elem_type::i16 || t == elem_type::i32 || t == elem_type::i64;
}

std::uint64_t image_words(std::uint64_t n, elem_type t)
{
    return (n * elem_bytes(t) + 3) / 4;
}

std::uint64_t get_element(const std::vector<std::uint32_t>& image, std::uint64_t i, elem_type t)
{
    const unsigned b = elem_bytes(t);
    if (b == 4)
        return image[i];
    if (b == 8)
        return image[2 * i] | static_cast<std::uint64_t>(image[2 * i + 1]) << 32;
    const std::uint64_t byte = i * b;
    const unsigned shift = static_cast<unsigned>(byte % 4) * 8;
    return (image[byte / 4] >> shift) & ((1u << (8 * b)) - 1);
}

void put_element(std::vector<std::uint32_t>& image, std::uint64_t i, elem_type t,
                 std::uint64_t bits)
{
    const unsigned b = elem_bytes(t);
    if (b == 4) {
        image[i] = static_cast<std::uint32_t>(bits);
        return;
    }
    if (b == 8) {
        image[2 * i] = static_cast<std::uint32_t>(bits);
        image[2 * i + 1] = static_cast<std::uint32_t>(bits >> 32);
        return;
    }
    const std::uint64_t byte = i * b;
    const unsigned shift = static_cast<unsigned>(byte % 4) * 8;
    const std::uint32_t mask = ((1u << (8 * b)) - 1) << shift;
    std::uint32_t& w = image[byte / 4];
    w = (w & ~mask) | ((static_cast<std::uint32_t>(bits) << shift) & mask);
}

std::vector<std::uint32_t> image_of_bytes(const std::string& bytes)
{
    std::vector<std::uint32_t> w((bytes.size() + 3) / 4, 0);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        w[i / 4] |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i]))
                    << (8 * (i % 4));
    return w;
}

std::uint64_t to_bits(double v, elem_type t)
{
    if (t == elem_type::f32)
        return f32_bits(static_cast<float>(v));
    if (t == elem_type::f64)
        return f64_bits(v);
    // Integers: two's complement, cut to the element's width by the caller's put_element.
    if (v >= 9223372036854775808.0)
        return static_cast<std::uint64_t>(v);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
}

std::uint32_t f32_bits(float f)
{
    std::uint32_t w;
    std::memcpy(&w, &f, sizeof w);
    return w;
}

float bits_f32(std::uint32_t w)
{
    float f;
    std::memcpy(&f, &w, sizeof f);
    return f;
}

std::uint64_t f64_bits(double d)
{
    std::uint64_t w;
    std::memcpy(&w, &d, sizeof w);
    return w;
}

double bits_f64(std::uint64_t w)
{
    double d;
    std::memcpy(&d, &w, sizeof d);
    return d;
}

std::string format_element(std::uint32_t word, elem_type type)
{
    return format_bits(word, type);
}

std::string format_bits(std::uint64_t bits, elem_type type)
{
    const unsigned width = elem_bytes(type) * 8;
    if (width < 64)
        bits &= (std::uint64_t{1} << width) - 1;
    if (type == elem_type::f32 || type == elem_type::f64) {
        std::ostringstream os;
        os.precision(type == elem_type::f32 ? 9 : 17);
        if (type == elem_type::f32)
            os << bits_f32(static_cast<std::uint32_t>(bits));
        else
            os << bits_f64(bits);
        return os.str();
    }
    if (is_signed(type) && width < 64 && (bits >> (width - 1)) != 0)
        bits |= ~std::uint64_t{0} << width; // sign-extended
    return is_signed(type) ? std::to_string(static_cast<std::int64_t>(bits)) : std::to_string(bits);
}

comparison compare(const std::vector<std::uint32_t>& expected,
                   const std::vector<std::uint32_t>& got, elem_type type, const tolerance& tol,
                   std::size_t max_report)
{
    comparison c;
    const unsigned eb = elem_bytes(type);
    const auto count = [&](const std::vector<std::uint32_t>& v) { return v.size() * 4 / eb; };
    const std::size_t ne = count(expected);
    const std::size_t ng = count(got);
    const std::size_t n = std::max(ne, ng);
    for (std::size_t i = 0; i < n; ++i) {
        bool same;
        std::uint64_t e = 0, g = 0;
        if (i < ne)
            e = get_element(expected, i, type);
        if (i < ng)
            g = get_element(got, i, type);
        if (i >= ne || i >= ng) {
            same = false;
        } else if (is_float(type)) {
            const double ev =
                type == elem_type::f32 ? bits_f32(static_cast<std::uint32_t>(e)) : bits_f64(e);
            const double gv =
                type == elem_type::f32 ? bits_f32(static_cast<std::uint32_t>(g)) : bits_f64(g);
            const double diff = std::fabs(gv - ev);
            same = e == g || (std::isnan(ev) && std::isnan(gv)) || diff <= tol.absolute ||
                   diff <= tol.relative * std::fabs(ev);
        } else {
            same = e == g;
        }
        if (same)
            continue;
        ++c.mismatches;
        if (c.first.size() < max_report)
            c.first.push_back({i, i < ne ? format_bits(e, type) : "(none)",
                               i < ng ? format_bits(g, type) : "(none)"});
    }
    return c;
}

} // namespace vgpu::host
