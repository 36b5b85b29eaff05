// Declared, typed, validated configuration: YAML reading, parameter listing, YAML writing.
// See docs/configuration.md.
#include "models/common/config.h"
#include "models/common/edit_distance.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace vgpu::config {

std::string location::str() const
{
    if (line == 0)
        return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

void errors::add(const location& where, const std::string& path, const std::string& problem)
{
    m_messages.push_back(where.str() + ": error: " + (path.empty() ? "" : path + ": ") + problem);
}

void checker::error(const std::string& path, const std::string& problem)
{
    auto it = m_prov.find(path);
    m_errs.add(it == m_prov.end() ? location{"(default configuration)"} : it->second, path,
               problem);
}

void visitor::value(const char* key, unsigned& v, const spec& s)
{
    spec clipped = s;
    constexpr double max = std::numeric_limits<unsigned>::max();
    clipped.hi = std::min(s.hi.value_or(max), max);
    std::uint64_t wide = v;
    value(key, wide, clipped);
    v = static_cast<unsigned>(wide);
}

std::string suggest(const std::string& word, const std::vector<std::string>& candidates)
{
    std::string best;
    std::size_t best_d = std::max<std::size_t>(1, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        std::size_t d = edit_distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

namespace {

/// A bound as written by a person: integers in full, other values with up to 6 digits.
std::string number(double v)
{
    std::ostringstream os;
    if (v == std::floor(v) && std::fabs(v) < 1e18)
        os << static_cast<long long>(v);
    else
        os << v;
    return os.str();
}

std::string describe_range(const spec& s, const char* unit = "")
{
    std::ostringstream os;
    if (s.lo && s.hi)
        os << number(*s.lo) << ".." << number(*s.hi);
    else if (s.lo)
        os << ">= " << number(*s.lo);
    else if (s.hi)
        os << "<= " << number(*s.hi);
    if (s.lo || s.hi)
        os << unit;
    if (s.power_of_two)
        os << (os.tellp() > 0 ? ", " : "") << "power of two";
    return os.str();
}

std::string join(const std::vector<std::string>& parts, const char* sep)
{
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : sep) + p;
    return out;
}

/// Reads one YAML layer onto the declared parameters; records errors and provenance.
class yaml_reader : public visitor {
public:
    yaml_reader(const layer& l, errors& errs, provenance& prov)
        : m_layer(l), m_errs(errs), m_prov(prov)
    {
        m_stack.push_back({*l.root, "", {}, l.root->IsDefined() && !l.root->IsNull()});
        if (m_stack.back().present && !l.root->IsMap()) {
            m_errs.add(where(*l.root), "", "the configuration must be a mapping of sections");
            m_stack.back().present = false;
        }
    }

    /// Reports keys of the top level that no section declared.
    void finish() { check_unknown(m_stack.back()); }

    void enter(const char* section, const char* /*doc*/) override
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(section);
        frame child{YAML::Node(), join_path(top.path, section), {}, false};
        if (top.present) {
            YAML::Node n = top.node[section];
            if (n.IsDefined() && !n.IsNull()) {
                if (n.IsMap()) {
                    child.node.reset(n);
                    child.present = true;
                } else {
                    m_errs.add(where(n), child.path,
                               "wrong type (expected a section of keys, got " + what(n) + ")");
                }
            }
        }
        m_stack.push_back(std::move(child));
    }

    void leave() override
    {
        check_unknown(m_stack.back());
        m_stack.pop_back();
    }

    void value(const char* key, bool& v, const spec&) override
    {
        read(key, "a boolean (true or false)", [&](const std::string& text) {
            if (text == "true" || text == "false") {
                v = text == "true";
                return std::string();
            }
            return std::string("!");
        });
    }

    void value(const char* key, std::uint64_t& v, const spec& s) override
    {
        read(key, "an unsigned integer", [&](const std::string& text) {
            auto parsed = parse_uint(text);
            if (!parsed)
                return std::string("!");
            if (auto problem = check_range(static_cast<double>(*parsed), s, text); !problem.empty())
                return problem;
            v = *parsed;
            return std::string();
        });
    }

    void value(const char* key, std::int64_t& v, const spec& s) override
    {
        read(key, "an integer", [&](const std::string& text) {
            auto parsed = parse_int(text);
            if (!parsed)
                return std::string("!");
            if (auto problem = check_range(static_cast<double>(*parsed), s, text); !problem.empty())
                return problem;
            v = *parsed;
            return std::string();
        });
    }

    void value(const char* key, double& v, const spec& s) override
    {
        read(key, "a number", [&](const std::string& text) {
            auto parsed = parse_double(text);
            if (!parsed)
                return std::string("!");
            if (auto problem = check_range(*parsed, s, text); !problem.empty())
                return problem;
            v = *parsed;
            return std::string();
        });
    }

    void value(const char* key, std::string& v, const spec& s) override
    {
        read(key, "a string", [&](const std::string& text) {
            v = text;
            if (s.is_file && m_layer.from_file && !text.empty() &&
                std::filesystem::path(text).is_relative())
                v = (std::filesystem::path(m_layer.name).parent_path() / text)
                        .lexically_normal()
                        .string();
            return std::string();
        });
    }

    void value(const char* key, duration& v, const spec& s) override
    {
        read(key, "a time with a unit (ps, ns, us, ms, s), e.g. \"1 ns\"",
             [&](const std::string& text) {
                 auto parsed = parse_duration(text);
                 if (!parsed)
                     return std::string("!");
                 if (auto problem = check_range(parsed->ns(), s, text, " ns"); !problem.empty())
                     return problem;
                 v = *parsed;
                 return std::string();
             });
    }

    void value(const char* key, byte_size& v, const spec& s) override
    {
        read(key, "a size in bytes, optionally with a unit (B, KiB, MiB, GiB)",
             [&](const std::string& text) {
                 auto parsed = parse_byte_size(text);
                 if (!parsed)
                     return std::string("!");
                 if (auto problem = check_range(static_cast<double>(parsed->bytes), s, text, " B");
                     !problem.empty())
                     return problem;
                 v = *parsed;
                 return std::string();
             });
    }

    void choice(const char* key, std::string& v, const std::vector<std::string>& choices,
                const spec&) override
    {
        read(key, "one of " + join(choices, "|"), [&](const std::string& text) {
            if (std::find(choices.begin(), choices.end(), text) != choices.end()) {
                v = text;
                return std::string();
            }
            std::string hint = suggest(text, choices);
            return "invalid choice (expected one of " + join(choices, "|") + ", got '" + text +
                   "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") + ")";
        });
    }

    void value(const char* key, string_map& v, const spec&) override
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(key);
        if (!top.present)
            return;
        YAML::Node n = top.node[key];
        if (!n.IsDefined())
            return;
        const std::string path = join_path(top.path, key);
        if (!n.IsMap()) {
            const std::string got = what(n);
            if (n.IsNull())
                for (auto it = top.node.begin(); it != top.node.end(); ++it)
                    if (it->first.IsScalar() && it->first.Scalar() == key)
                        n.reset(it->first);
            m_errs.add(where(n), path,
                       "wrong type (expected a mapping of names to values, got " + got + ")");
            return;
        }
        std::set<std::string> seen;
        for (auto it = n.begin(); it != n.end(); ++it) {
            const YAML::Node k = it->first;
            const YAML::Node x = it->second;
            const std::string name = k.IsScalar() ? k.Scalar() : "?";
            const std::string p = join_path(path, name);
            if (!seen.insert(name).second) {
                m_errs.add(where(k), p, "duplicate key");
                continue;
            }
            if (!x.IsScalar()) {
                m_errs.add(where(x.IsNull() ? k : x), p,
                           "wrong type (expected a value, got " + what(x) + ")");
                continue;
            }
            v[name] = x.Scalar();
            m_prov[p] = where(x);
        }
    }

    using visitor::choice;
    using visitor::value;

private:
    struct frame {
        YAML::Node node;
        std::string path;
        std::vector<std::string> declared;
        bool present;
    };

    static std::string join_path(const std::string& a, const std::string& b)
    {
        return a.empty() ? b : a + "." + b;
    }

    static std::string what(const YAML::Node& n)
    {
        if (n.IsMap())
            return "a section";
        if (n.IsSequence())
            return "a list";
        if (n.IsNull())
            return "nothing";
        return "'" + n.Scalar() + "'";
    }

    location where(const YAML::Node& n) const
    {
        if (!m_layer.has_position || n.Mark().is_null())
            return {m_layer.name};
        return {m_layer.name, n.Mark().line + 1, n.Mark().column + 1};
    }

    static std::string check_range(double v, const spec& s, const std::string& text,
                                   const char* unit = "")
    {
        bool bad = (s.lo && v < *s.lo) || (s.hi && v > *s.hi);
        if (s.power_of_two) {
            double l = std::log2(v);
            bad = bad || v < 1 || l != std::floor(l);
        }
        if (!bad)
            return {};
        return "value out of range (expected " + describe_range(s, unit) + ", got " + text + ")";
    }

    /// Parses key's scalar with `parse`, which returns "" on success, "!" for a malformed value,
    /// or a complete problem description.
    template <class F> void read(const char* key, const std::string& expected, F parse)
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(key);
        if (!top.present)
            return;
        YAML::Node n = top.node[key];
        if (!n.IsDefined())
            return;
        std::string path = join_path(top.path, key);
        if (n.IsNull()) {
            // yaml-cpp marks an empty value where the next token starts; point at the key.
            for (auto it = top.node.begin(); it != top.node.end(); ++it)
                if (it->first.IsScalar() && it->first.Scalar() == key)
                    n.reset(it->first);
            m_errs.add(where(n), path, "wrong type (expected " + expected + ", got nothing)");
            return;
        }
        if (!n.IsScalar()) {
            m_errs.add(where(n), path,
                       "wrong type (expected " + expected + ", got " + what(n) + ")");
            return;
        }
        std::string problem = parse(n.Scalar());
        if (problem == "!")
            problem = "wrong type (expected " + expected + ", got '" + n.Scalar() + "')";
        if (!problem.empty()) {
            m_errs.add(where(n), path, problem);
            return;
        }
        m_prov[path] = where(n);
    }

    void check_unknown(const frame& f)
    {
        if (!f.present)
            return;
        std::set<std::string> seen;
        for (auto it = f.node.begin(); it != f.node.end(); ++it) {
            const YAML::Node k = it->first;
            std::string name = k.IsScalar() ? k.Scalar() : "?";
            std::string path = join_path(f.path, name);
            if (!seen.insert(name).second) {
                m_errs.add(where(k), path, "duplicate key");
                continue;
            }
            if (std::find(f.declared.begin(), f.declared.end(), name) != f.declared.end())
                continue;
            std::string hint = suggest(name, f.declared);
            m_errs.add(where(k), path,
                       "unknown key" +
                           (hint.empty() ? std::string() : " (did you mean '" + hint + "'?)"));
        }
    }

    const layer& m_layer;
    errors& m_errs;
    provenance& m_prov;
    std::vector<frame> m_stack;
};

/// Writes the current values as a YAML document.
class yaml_writer : public visitor {
public:
    YAML::Emitter out;
    yaml_writer() { out << YAML::BeginMap; }
    void enter(const char* section, const char*) override
    {
        out << YAML::Key << section << YAML::Value << YAML::BeginMap;
    }
    void leave() override { out << YAML::EndMap; }
    void value(const char* key, bool& v, const spec&) override { put(key, v ? "true" : "false"); }
    void value(const char* key, std::uint64_t& v, const spec&) override
    {
        put(key, std::to_string(v));
    }
    void value(const char* key, std::int64_t& v, const spec&) override
    {
        put(key, std::to_string(v));
    }
    void value(const char* key, double& v, const spec&) override
    {
        std::ostringstream os;
        os.precision(17);
        os << v;
        put(key, os.str());
    }
    void value(const char* key, std::string& v, const spec&) override { put(key, v, true); }
    void value(const char* key, duration& v, const spec&) override { put(key, format(v)); }
    void value(const char* key, byte_size& v, const spec&) override { put(key, format(v)); }
    void value(const char* key, string_map& v, const spec&) override
    {
        out << YAML::Key << key << YAML::Value;
        if (v.empty())
            out << YAML::Flow; // "{}" rather than nothing, which would read back as null
        out << YAML::BeginMap;
        for (const auto& [name, x] : v)
            out << YAML::Key << name << YAML::Value << x;
        out << YAML::EndMap;
    }
    void choice(const char* key, std::string& v, const std::vector<std::string>&,
                const spec&) override
    {
        put(key, v);
    }
    using visitor::choice;
    using visitor::value;

private:
    void put(const char* key, const std::string& v, bool quoted = false)
    {
        out << YAML::Key << key << YAML::Value;
        if (quoted)
            out << YAML::DoubleQuoted;
        out << v;
    }
};

} // namespace

loader::loader() = default;
loader::~loader() = default;

void loader::add_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in) {
        m_errors.add({path}, "", "cannot open configuration file");
        return;
    }
    std::stringstream text;
    text << in.rdbuf();
    add_layer(text.str(), path, true);
}

void loader::add_text(const std::string& text, const std::string& name)
{
    add_layer(text, name, false);
}

void loader::add_layer(const std::string& text, const std::string& name, bool from_file)
{
    try {
        auto root = std::make_shared<YAML::Node>(YAML::Load(text));
        m_layers.push_back({name, true, root, from_file});
    } catch (const YAML::ParserException& e) {
        m_errors.add({name, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
    }
}

void loader::add_override(const std::string& assignment, const std::string& shown_as)
{
    std::string where = shown_as.empty() ? "-s " + assignment : shown_as;
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        m_errors.add({where}, "", "malformed override (expected key.path=value)");
        return;
    }
    std::string path = assignment.substr(0, eq);
    std::vector<std::string> keys;
    std::stringstream ss(path);
    for (std::string k; std::getline(ss, k, '.');)
        keys.push_back(k);
    if (path.back() == '.' ||
        std::any_of(keys.begin(), keys.end(), [](const std::string& k) { return k.empty(); })) {
        m_errors.add({where}, path, "malformed key path (expected names joined by '.')");
        return;
    }
    YAML::Node node(assignment.substr(eq + 1));
    for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
        YAML::Node map(YAML::NodeType::Map);
        map[*k] = node;
        node.reset(map);
    }
    m_layers.push_back({where, false, std::make_shared<YAML::Node>(node)});
}

void loader::read_layer_impl(const layer& l, void (*call)(void*, visitor&), void* ctx)
{
    yaml_reader r(l, m_errors, m_provenance);
    call(ctx, r);
    r.finish();
}

void param_lister::enter(const char* section, const char* doc)
{
    m_path.emplace_back(section);
    sections.emplace_back(join(m_path, "."), doc);
}

void param_lister::leave()
{
    m_path.pop_back();
}

void param_lister::add(const char* key, const char* type, std::string def, const spec& s,
                       std::string range)
{
    std::vector<std::string> p = m_path;
    p.emplace_back(key);
    rows.push_back({join(p, "."), type, std::move(def), s.units,
                    range.empty() ? describe_range(s) : range, s.doc});
}

void param_lister::value(const char* key, bool& v, const spec& s)
{
    add(key, "bool", v ? "true" : "false", s);
}
void param_lister::value(const char* key, std::uint64_t& v, const spec& s)
{
    add(key, "uint", std::to_string(v), s);
}
void param_lister::value(const char* key, std::int64_t& v, const spec& s)
{
    add(key, "int", std::to_string(v), s);
}
void param_lister::value(const char* key, double& v, const spec& s)
{
    std::ostringstream os;
    os << v;
    add(key, "float", os.str(), s);
}
void param_lister::value(const char* key, std::string& v, const spec& s)
{
    add(key, "string", "\"" + v + "\"", s);
}
void param_lister::value(const char* key, duration& v, const spec& s)
{
    spec t = s;
    t.units = "time";
    add(key, "time", format(v), t, describe_range(s, " ns"));
}
void param_lister::value(const char* key, byte_size& v, const spec& s)
{
    spec t = s;
    t.units = "bytes";
    add(key, "size", format(v), t);
}
void param_lister::value(const char* key, string_map& v, const spec& s)
{
    std::string def;
    for (const auto& [name, x] : v)
        def += (def.empty() ? "" : ", ") + name + ": " + x;
    add(key, "map", "{" + def + "}", s);
}
void param_lister::choice(const char* key, std::string& v, const std::vector<std::string>& choices,
                          const spec& s)
{
    add(key, "enum", v, s, join(choices, " \\| "));
}

std::string to_markdown(const param_lister& l)
{
    std::ostringstream os;
    std::string current;
    // Keys of a section stay together even when subsections were declared between them.
    auto section_of = [](const param_doc& r) { return r.path.substr(0, r.path.rfind('.')); };
    std::vector<std::string> order;
    for (const auto& r : l.rows)
        if (std::find(order.begin(), order.end(), section_of(r)) == order.end())
            order.push_back(section_of(r));
    std::vector<param_doc> rows = l.rows;
    std::stable_sort(rows.begin(), rows.end(), [&](const param_doc& a, const param_doc& b) {
        return std::find(order.begin(), order.end(), section_of(a)) <
               std::find(order.begin(), order.end(), section_of(b));
    });
    for (const auto& r : rows) {
        std::string section = r.path.substr(0, r.path.rfind('.'));
        if (section != current) {
            current = section;
            auto doc = std::find_if(l.sections.begin(), l.sections.end(),
                                    [&](const auto& s) { return s.first == section; });
            os << "\n## `" << section << "`\n\n";
            if (doc != l.sections.end() && !doc->second.empty())
                os << doc->second << "\n\n";
            os << "| key | type | default | unit | range | meaning |\n"
               << "| --- | --- | --- | --- | --- | --- |\n";
        }
        os << "| `" << r.path << "` | " << r.type << " | `" << r.default_value << "` | " << r.unit
           << " | " << r.range << " | " << r.doc << " |\n";
    }
    return os.str();
}

std::string to_yaml(const std::function<void(visitor&)>& declare)
{
    yaml_writer w;
    declare(w);
    w.out << YAML::EndMap;
    return std::string(w.out.c_str()) + "\n";
}

} // namespace vgpu::config
