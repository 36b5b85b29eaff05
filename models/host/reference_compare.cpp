// Element names, fp32 bit conversions, element formatting and the comparison of a result with
// its expected values (models/host/reference.h). See docs/workloads.md ("Checks").
#include "models/host/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace vgpu::host {

const char* name(elem_type t)
{
    switch (t) {
    case elem_type::u32:
        return "u32";
    case elem_type::i32:
        return "i32";
    case elem_type::f32:
        return "f32";
    }
    return "?";
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

std::string format_element(std::uint32_t word, elem_type type)
{
    switch (type) {
    case elem_type::u32:
        return std::to_string(word);
    case elem_type::i32:
        return std::to_string(static_cast<std::int32_t>(word));
    case elem_type::f32: {
        std::ostringstream os;
        os.precision(9);
        os << bits_f32(word);
        return os.str();
    }
    }
    return "?";
}

comparison compare(const std::vector<std::uint32_t>& expected,
                   const std::vector<std::uint32_t>& got, elem_type type, const tolerance& tol,
                   std::size_t max_report)
{
    comparison c;
    const std::size_t n = std::max(expected.size(), got.size());
    for (std::size_t i = 0; i < n; ++i) {
        bool same;
        if (i >= expected.size() || i >= got.size()) {
            same = false;
        } else if (type == elem_type::f32) {
            const double e = bits_f32(expected[i]);
            const double g = bits_f32(got[i]);
            const double diff = std::fabs(g - e);
            same = expected[i] == got[i] || (std::isnan(e) && std::isnan(g)) ||
                   diff <= tol.absolute || diff <= tol.relative * std::fabs(e);
        } else {
            same = expected[i] == got[i];
        }
        if (same)
            continue;
        ++c.mismatches;
        if (c.first.size() < max_report)
            c.first.push_back({i,
                               i < expected.size() ? format_element(expected[i], type) : "(none)",
                               i < got.size() ? format_element(got[i], type) : "(none)"});
    }
    return c;
}

} // namespace vgpu::host
