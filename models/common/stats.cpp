// Statistics: counters, averages, histograms and derived formulas, named by module path.
// See docs/outputs.md.
#include "models/common/stats.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

namespace vgpu::stats {
namespace {
std::vector<const group*>& live_groups()
{
    static std::vector<const group*> groups;
    return groups;
}

std::uint64_t layout = 0; ///< layout_version()

std::string join(const std::string& prefix, const std::string& name)
{
    if (prefix.empty())
        return name;
    std::string s;
    s.reserve(prefix.size() + 1 + name.size());
    s += prefix;
    s += '.';
    s += name;
    return s;
}

// Appends an integer as nlohmann's dump() writes it; false for any other value.
bool append_integer(std::string& out, const nlohmann::json& v)
{
    char buf[24];
    std::to_chars_result r;
    if (v.is_number_unsigned())
        r = std::to_chars(buf, buf + sizeof buf, v.get<std::uint64_t>());
    else if (v.is_number_integer())
        r = std::to_chars(buf, buf + sizeof buf, v.get<std::int64_t>());
    else
        return false;
    out.append(buf, r.ptr);
    return true;
}

// Appends a string as nlohmann's dump() writes it. Plain printable ASCII needs no escape;
// anything else (quotes, backslashes, control bytes, UTF-8) goes through nlohmann.
void append_json_string(std::string& out, const std::string& s)
{
    static constexpr std::array<bool, 256> plain = [] {
        std::array<bool, 256> t{};
        for (int c = 0x20; c <= 0x7e; ++c)
            t[c] = c != '"' && c != '\\';
        return t;
    }();
    for (const unsigned char c : s)
        if (!plain[c]) {
            out += nlohmann::json(s).dump();
            return;
        }
    out += '"';
    out += s;
    out += '"';
}
} // namespace

stat::stat(group& g, std::string name, std::string unit, std::string desc)
    : m_name(std::move(name)), m_unit(std::move(unit)), m_desc(std::move(desc))
{
    g.add(this);
}

void counter::collect(const std::string& prefix, std::vector<entry>& out) const
{
    out.push_back({join(prefix, m_name), m_value, m_unit, m_desc});
}

void counter::numbers(number_sink& out) const
{
    out.add("", static_cast<double>(m_value));
}

void average::collect(const std::string& prefix, std::vector<entry>& out) const
{
    std::string n = join(prefix, m_name);
    out.push_back({n, mean(), m_unit, "mean of " + m_desc});
    out.push_back({n + ".samples", m_count, "count", "samples of " + m_desc});
    out.push_back({n + ".max", m_max, m_unit, "maximum of " + m_desc});
}

void average::numbers(number_sink& out) const
{
    out.add(".samples", static_cast<double>(m_count));
    out.add(".max", m_max);
    out.add("", mean());
}

histogram::histogram(group& g, std::string name, std::string unit, std::string desc,
                     double bucket_width, unsigned buckets)
    : stat(g, std::move(name), std::move(unit), std::move(desc)), m_width(bucket_width),
      m_buckets(std::max(1u, buckets), 0)
{
}

void histogram::sample(double v)
{
    auto i = v <= 0 ? 0 : static_cast<std::size_t>(v / m_width);
    ++m_buckets[std::min(i, m_buckets.size() - 1)];
    ++m_count;
    m_sum += v;
}

void histogram::collect(const std::string& prefix, std::vector<entry>& out) const
{
    std::string n = join(prefix, m_name);
    std::ostringstream d;
    d << m_desc << " (buckets of " << m_width << " " << m_unit << ", last open-ended)";
    out.push_back({n, m_buckets, "count", d.str()});
    out.push_back({n + ".samples", m_count, "count", "samples of " + m_desc});
    out.push_back({n + ".mean", m_count ? m_sum / static_cast<double>(m_count) : 0.0, m_unit,
                   "mean of " + m_desc});
}

void histogram::numbers(number_sink& out) const
{
    out.add(".samples", static_cast<double>(m_count));
    out.add(".mean", m_count ? m_sum / static_cast<double>(m_count) : 0.0);
}

formula::formula(group& g, std::string name, std::string unit, std::string desc,
                 std::function<double()> f)
    : stat(g, std::move(name), std::move(unit), std::move(desc)), m_f(std::move(f))
{
}

void formula::collect(const std::string& prefix, std::vector<entry>& out) const
{
    double v = m_f();
    nlohmann::json value = std::isfinite(v) ? v : 0.0;
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 0x1p53)
        value = static_cast<std::int64_t>(v); // counts stay integers in the dump
    out.push_back({join(prefix, m_name), value, m_unit, m_desc});
}

void formula::numbers(number_sink& out) const
{
    const double v = m_f();
    out.add("", std::isfinite(v) ? v : 0.0);
}

group::group(std::string path) : m_path(std::move(path))
{
    live_groups().push_back(this);
    ++layout;
}

group::~group()
{
    auto& g = live_groups();
    g.erase(std::remove(g.begin(), g.end(), this), g.end());
    ++layout;
}

void group::add(const stat* s)
{
    m_stats.push_back(s);
    ++layout;
}

void group::collect(std::vector<entry>& out) const
{
    for (const stat* s : m_stats)
        s->collect(m_path, out);
}

void group::numbers(std::vector<number>& out) const
{
    struct named final : number_sink {
        std::vector<number>& out;
        std::string base;
        explicit named(std::vector<number>& o) : out(o) {}
        void add(const char* suffix, double value) override
        {
            out.push_back({base + suffix, value});
        }
    } sink(out);
    for (const stat* s : m_stats) {
        sink.base = join(m_path, s->name());
        s->numbers(sink);
    }
}

void group::values(std::vector<double>& out) const
{
    struct unnamed final : number_sink {
        std::vector<double>& out;
        explicit unnamed(std::vector<double>& o) : out(o) {}
        void add(const char*, double value) override { out.push_back(value); }
    } sink(out);
    for (const stat* s : m_stats)
        s->numbers(sink);
}

std::vector<number> collect_numbers()
{
    std::vector<number> out;
    for (const group* g : live_groups())
        g->numbers(out);
    return out;
}

std::vector<double> collect_values()
{
    std::vector<double> out;
    for (const group* g : live_groups())
        g->values(out);
    return out;
}

std::uint64_t layout_version()
{
    return layout;
}

std::vector<entry> collect_all()
{
    std::vector<entry> all;
    for (const group* g : live_groups())
        g->collect(all);
    // Sorting pointers and moving each entry once is cheaper than sorting the entries; the
    // same std::sort over the same sequence leaves entries of one name in the same order.
    std::vector<entry*> sorted;
    sorted.reserve(all.size());
    for (entry& e : all)
        sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(),
              [](const entry* a, const entry* b) { return a->name < b->name; });
    std::vector<entry> out;
    out.reserve(all.size());
    for (entry* e : sorted)
        out.push_back(std::move(*e));
    return out;
}

nlohmann::json to_json(const std::vector<entry>& entries)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& e : entries)
        j[e.name] = e.value;
    return j;
}

nlohmann::json units_json(const std::vector<entry>& entries)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& e : entries)
        j[e.name] = e.unit;
    return j;
}

std::string json_member_text(const std::vector<entry>& entries, bool units)
{
    // The order of a JSON object's keys (std::map): by name; a later duplicate replaces.
    std::vector<const entry*> sorted;
    sorted.reserve(entries.size());
    for (const auto& e : entries)
        sorted.push_back(&e);
    const auto by_name = [](const entry* a, const entry* b) { return a->name < b->name; };
    // collect_all() has sorted them already.
    if (!std::is_sorted(sorted.begin(), sorted.end(), by_name))
        std::stable_sort(sorted.begin(), sorted.end(), by_name);
    if (sorted.empty())
        return "{}";
    std::string out = "{";
    out.reserve(sorted.size() * 64);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (i + 1 < sorted.size() && sorted[i + 1]->name == sorted[i]->name)
            continue;
        const entry& e = *sorted[i];
        out += out.size() == 1 ? "\n    " : ",\n    ";
        append_json_string(out, e.name);
        out += ": ";
        if (units) {
            append_json_string(out, e.unit);
        } else if (e.value.is_structured() && !e.value.empty()) {
            // Nested two levels deeper than a document's own members.
            const std::string v = e.value.dump(2);
            for (char c : v) {
                out += c;
                if (c == '\n')
                    out += "    ";
            }
        } else if (!append_integer(out, e.value)) {
            out += e.value.dump(); // floats keep nlohmann's shortest round-trip form
        }
    }
    out += "\n  }";
    return out;
}

bool natural_less(const std::string& a, const std::string& b)
{
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && digit(a[ie]))
                ++ie;
            while (je < b.size() && digit(b[je]))
                ++je;
            // Leading zeros do not change the number; the final tie-break below orders them.
            while (i + 1 < ie && a[i] == '0')
                ++i;
            while (j + 1 < je && b[j] == '0')
                ++j;
            if (ie - i != je - j)
                return ie - i < je - j;
            if (int c = a.compare(i, ie - i, b, j, je - j); c != 0)
                return c < 0;
            i = ie;
            j = je;
            continue;
        }
        if (a[i] != b[j])
            return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i;
        ++j;
    }
    if ((i < a.size()) != (j < b.size()))
        return j < b.size();
    return a < b;
}

bool natural_key(const std::string& name, std::string& key)
{
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const char* p = name.data();
    const char* const end = p + name.size();
    while (p != end) {
        const char* q = p;
        while (q != end && !digit(*q))
            ++q;
        key.append(p, static_cast<std::size_t>(q - p));
        if (q == end)
            break;
        const char* r = q;
        while (r != end && digit(*r))
            ++r;
        while (q + 1 != r && *q == '0')
            ++q;
        const auto len = static_cast<std::size_t>(r - q);
        if (len > 0xffff)
            return false;
        // '0' stands for the run: against any non-digit it compares as every digit does.
        const char head[3] = {'0', static_cast<char>(len >> 8), static_cast<char>(len & 0xff)};
        key.append(head, 3);
        key.append(q, len);
        p = r;
    }
    return true;
}

std::string format_value(const nlohmann::json& v)
{
    if (!v.is_number_float()) {
        std::string s;
        return append_integer(s, v) ? s : v.dump();
    }
    const double d = v.get<double>();
    char buf[48];
    // Integral values and values of 7 or more integer digits print as integers (no exponent);
    // beyond 1e18 an exponent is clearer than 19 digits of noise.
    if (std::isfinite(d) && std::fabs(d) < 1e18 && (d == std::floor(d) || std::fabs(d) >= 999999.5))
        std::snprintf(buf, sizeof buf, "%.0f", d);
    else
        std::snprintf(buf, sizeof buf, "%.6g", d);
    const std::string s = buf;
    return s == "-0" ? "0" : s;
}

std::string to_text(const std::vector<entry>& entries)
{
    // Sorting by natural_key is natural_less's order without its costly walk over the long
    // common prefixes of the names ("gpu.m0.c3.sm12.l1.").
    struct keyed {
        std::string_view key;
        const entry* e;
    };
    // All keys in one buffer: one allocation instead of one per name.
    std::string buf;
    std::vector<std::size_t> ends(entries.size());
    std::size_t width = 0, total = 0;
    for (const auto& e : entries) {
        width = std::max(width, e.name.size());
        total += e.name.size() + 16;
    }
    buf.reserve(total);
    bool keys_ok = true;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        keys_ok = natural_key(entries[i].name, buf) && keys_ok;
        ends[i] = buf.size();
    }
    std::vector<keyed> sorted(entries.size());
    for (std::size_t i = 0, begin = 0; i < entries.size(); ++i) {
        sorted[i] = {std::string_view(buf).substr(begin, ends[i] - begin), &entries[i]};
        begin = ends[i];
    }
    if (keys_ok)
        std::stable_sort(sorted.begin(), sorted.end(), [](const keyed& a, const keyed& b) {
            if (int c = a.key.compare(b.key); c != 0)
                return c < 0;
            return a.e->name < b.e->name;
        });
    else
        std::stable_sort(sorted.begin(), sorted.end(), [](const keyed& a, const keyed& b) {
            return natural_less(a.e->name, b.e->name);
        });
    std::string out;
    out.reserve(sorted.size() * (width + 80));
    for (const keyed& k : sorted) {
        const entry* e = k.e;
        out += e->name;
        out.append(width + 2 - e->name.size(), ' ');
        const std::string v = format_value(e->value);
        out += v;
        if (v.size() < 16)
            out.append(16 - v.size(), ' ');
        out += " # ";
        out += e->unit;
        out += ": ";
        out += e->desc;
        out += '\n';
    }
    return out;
}

} // namespace vgpu::stats
