// Kernel printf formats (models/sm/ptx/printf_format.h).
#include "models/sm/ptx/printf_format.h"

#include <cstdio>
#include <cstring>

namespace vgpu::ptx {

std::string parse_printf_format(const std::string& text, printf_format& out)
{
    out.text = text;
    out.args.clear();
    std::uint32_t at = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%')
            continue;
        const std::size_t start = i++;
        if (i < text.size() && text[i] == '%')
            continue;
        while (i < text.size() && std::strchr("-+ #0", text[i]))
            ++i;
        if (i < text.size() && text[i] == '*')
            return "a '*' width (the width from an argument)";
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
            ++i;
        if (i < text.size() && text[i] == '.') {
            ++i;
            if (i < text.size() && text[i] == '*')
                return "a '*' precision (the precision from an argument)";
            while (i < text.size() && text[i] >= '0' && text[i] <= '9')
                ++i;
        }
        unsigned longs = 0; // 'l' count; z j t are 64-bit too
        bool wide = false;
        while (i < text.size() && std::strchr("hlLqzjt", text[i])) {
            if (text[i] == 'l')
                ++longs;
            wide |= text[i] == 'z' || text[i] == 'j' || text[i] == 't' || text[i] == 'q' ||
                    text[i] == 'L';
            ++i;
        }
        if (i >= text.size())
            return "the format ends inside a conversion ('" + text.substr(start) + "')";
        const char c = text[i];
        printf_arg a;
        a.spec = text.substr(start, i + 1 - start);
        a.conv = c;
        if (std::strchr("diuxXoc", c)) {
            a.bytes = (longs > 0 || wide) && c != 'c' ? 8 : 4;
        } else if (std::strchr("fFeEgGaA", c)) {
            if (text.find('L', start) < i)
                return "'" + a.spec + "': long double";
            a.bytes = 8; // float is promoted to double
        } else if (c == 'p') {
            a.bytes = 8;
        } else if (c == 's') {
            return "'" + a.spec + "': a device string (%s) is not supported";
        } else if (c == 'n') {
            return "'" + a.spec + "': %n (writing the count of characters) is not supported";
        } else {
            return "'" + a.spec + "': an unknown conversion";
        }
        at = (at + a.bytes - 1) / a.bytes * a.bytes;
        a.offset = at;
        at += a.bytes;
        out.args.push_back(a);
    }
    out.arg_bytes = at;
    return "";
}

namespace {

/// The spec with its length modifiers replaced by `len` ("%5lx", "ll" -> "%5llx").
std::string with_length(const std::string& spec, const char* len)
{
    std::string s;
    for (std::size_t i = 0; i + 1 < spec.size(); ++i)
        if (!std::strchr("hlLqzjt", spec[i]))
            s += spec[i];
    return s + len + spec.back();
}

template <typename T> T read(const std::uint8_t* p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The spec is one conversion parse_printf_format checked, and v its argument of the right type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <typename... V> std::string snformat(const std::string& spec, V... v)
{
    const int n = std::snprintf(nullptr, 0, spec.c_str(), v...);
    if (n <= 0)
        return "";
    std::string s(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(s.data(), s.size(), spec.c_str(), v...);
    s.resize(static_cast<std::size_t>(n));
    return s;
}
#pragma GCC diagnostic pop

} // namespace

std::string format_printf_record(const printf_format& f, const std::uint8_t* args)
{
    std::string out;
    std::size_t next = 0; // the conversion to format next
    const std::string& t = f.text;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] != '%') {
            out += t[i];
            continue;
        }
        if (i + 1 < t.size() && t[i + 1] == '%') {
            out += '%';
            ++i;
            continue;
        }
        if (next >= f.args.size()) // not a format parse_printf_format accepted
            break;
        const printf_arg& a = f.args[next++];
        const std::uint8_t* p = args + a.offset;
        const char c = a.conv;
        if (std::strchr("fFeEgGaA", c))
            out += snformat(with_length(a.spec, ""), read<double>(p));
        else if (c == 'p')
            out += snformat(a.spec, reinterpret_cast<void*>(read<std::uintptr_t>(p)));
        else if (c == 'c')
            out += snformat(with_length(a.spec, ""), read<int>(p));
        else if (a.bytes == 8)
            out += snformat(with_length(a.spec, "ll"), read<long long>(p));
        else // int, with h and hh narrowed by the host's snprintf as by C's printf
            out += snformat(a.spec, read<int>(p));
        i += a.spec.size() - 1;
    }
    return out;
}

} // namespace vgpu::ptx
