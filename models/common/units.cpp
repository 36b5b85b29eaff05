// Physical quantities used in configuration: durations and byte sizes, with unit parsing.
// See docs/configuration.md.
#include "models/common/units.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace vgpu {
namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

/// Splits "2.5 ns" or "64KiB" into the number and the unit (trailing letters; none for 0x...).
void split_unit(std::string_view text, std::string_view& number, std::string_view& unit)
{
    text = trim(text);
    std::size_t i = text.size();
    bool hex = text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    auto space = text.find_last_of(" \t");
    if (space != std::string_view::npos)
        i = space;
    else if (!hex)
        while (i > 0 && std::isalpha(static_cast<unsigned char>(text[i - 1])))
            --i;
    number = trim(text.substr(0, i));
    unit = trim(text.substr(i));
}

} // namespace

std::optional<std::uint64_t> parse_uint(std::string_view text)
{
    text = trim(text);
    if (text.empty())
        return std::nullopt;
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        return std::nullopt; // yaml-cpp would read 010 as octal: refuse the ambiguity
    }
    std::uint64_t value = 0;
    for (char c : text) {
        int digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        else
            return std::nullopt;
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / base)
            return std::nullopt;
        value = value * base + digit;
    }
    return value;
}

std::optional<std::int64_t> parse_int(std::string_view text)
{
    text = trim(text);
    bool negative = !text.empty() && text[0] == '-';
    if (negative)
        text.remove_prefix(1);
    auto magnitude = parse_uint(text);
    if (!magnitude)
        return std::nullopt;
    constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (*magnitude > max + (negative ? 1 : 0))
        return std::nullopt;
    return negative ? static_cast<std::int64_t>(0 - *magnitude)
                    : static_cast<std::int64_t>(*magnitude);
}

std::optional<double> parse_double(std::string_view text)
{
    std::string s(trim(text));
    if (s.empty())
        return std::nullopt;
    std::size_t digits = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (s.size() > digits + 1 && s[digits] == '0' &&
        std::isdigit(static_cast<unsigned char>(s[digits + 1])))
        return std::nullopt; // leading zero: octal ambiguity, as for integers
    // Decimal notation only, [+-]digits[.digits][e[+-]digits]: strtod would also take hex
    // floats (0x1p4 = 16), inf and nan, which nobody means in a configuration.
    std::size_t i = digits, mantissa = 0;
    const auto skip_digits = [&] {
        std::size_t n = 0;
        for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
            ++n;
        return n;
    };
    mantissa += skip_digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa += skip_digits();
    }
    if (mantissa > 0 && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+'))
            ++i;
        if (skip_digits() == 0)
            return std::nullopt;
    }
    if (mantissa == 0 || i != s.size())
        return std::nullopt;
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    // ERANGE also flags a subnormal result (1e-310), correctly rounded like any other value;
    // refused are overflow (1e400) and a literal that underflows to zero (1e-400).
    if (end != s.c_str() + s.size() || !std::isfinite(v) || (errno == ERANGE && v == 0))
        return std::nullopt;
    return v;
}

std::optional<duration> parse_duration(std::string_view text)
{
    std::string_view number, unit;
    split_unit(text, number, unit);
    double scale;
    if (unit == "ps")
        scale = 1;
    else if (unit == "ns")
        scale = 1e3;
    else if (unit == "us")
        scale = 1e6;
    else if (unit == "ms")
        scale = 1e9;
    else if (unit == "s")
        scale = 1e12;
    else
        return std::nullopt;
    auto v = parse_double(number);
    if (!v || *v < 0)
        return std::nullopt;
    double ps = *v * scale;
    if (ps > 1e18 || std::fabs(ps - std::round(ps)) > 1e-6)
        return std::nullopt; // finer than the picosecond resolution
    return duration{static_cast<std::uint64_t>(std::llround(ps))};
}

std::optional<byte_size> parse_byte_size(std::string_view text)
{
    std::string_view number, unit;
    split_unit(text, number, unit);
    std::uint64_t scale;
    if (unit.empty() || unit == "B")
        scale = 1;
    else if (unit == "KiB")
        scale = 1ull << 10;
    else if (unit == "MiB")
        scale = 1ull << 20;
    else if (unit == "GiB")
        scale = 1ull << 30;
    else
        return std::nullopt;
    auto v = parse_uint(number);
    if (!v || *v > std::numeric_limits<std::uint64_t>::max() / scale)
        return std::nullopt;
    return byte_size{*v * scale};
}

std::string format(duration d)
{
    static const struct {
        std::uint64_t scale;
        const char* unit;
    } units[] = {
        {1000000000000ull, "s"}, {1000000000ull, "ms"}, {1000000ull, "us"}, {1000ull, "ns"}};
    for (const auto& u : units)
        if (d.ps != 0 && d.ps % u.scale == 0)
            return std::to_string(d.ps / u.scale) + " " + u.unit;
    return std::to_string(d.ps) + (d.ps == 0 ? " ns" : " ps");
}

std::string format(byte_size s)
{
    static const struct {
        std::uint64_t scale;
        const char* unit;
    } units[] = {{1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
    for (const auto& u : units)
        if (s.bytes != 0 && s.bytes % u.scale == 0)
            return std::to_string(s.bytes / u.scale) + " " + u.unit;
    return std::to_string(s.bytes) + " B";
}

} // namespace vgpu
