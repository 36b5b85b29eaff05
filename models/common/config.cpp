// Declared, typed, validated configuration: YAML reading, parameter listing, YAML writing.
// See docs/configuration.md.
#include "models/common/config.h"
#include "models/common/yaml_input.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>

namespace vgpu::config {

void checker::error(const std::string& path, const std::string& problem)
{
    auto it = m_prov.find(path);
    m_errs.add(it == m_prov.end() ? location{"(default configuration)"} : it->second, path,
               problem);
}

bool checker::set_by_user(const std::string& path) const
{
    if (!m_ranks)
        return is_set(path);
    const auto it = m_ranks->find(path);
    return it != m_ranks->end() && it->second >= m_default_layers;
}

void checker::warn(const std::string& path, const std::string& problem)
{
    if (!m_warnings)
        return;
    const auto it = m_prov.find(path);
    const location where = it == m_prov.end() ? location{"(default configuration)"} : it->second;
    m_warnings->push_back(where.str() + ": warning: " + path + ": " + problem);
}

void checker::conflict(const std::vector<key_value>& keys, const std::string& rule,
                       const std::string& fix)
{
    const auto rank = [&](const std::string& path) -> long long {
        if (m_ranks) {
            const auto it = m_ranks->find(path);
            return it == m_ranks->end() ? -1 : static_cast<long long>(it->second);
        }
        return is_set(path) ? 0 : -1;
    };
    std::size_t blamed = 0;
    for (std::size_t i = 1; i < keys.size(); ++i)
        if (rank(keys[i].path) > rank(keys[blamed].path))
            blamed = i;
    std::string values = keys[blamed].path + " is " + keys[blamed].value;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i == blamed)
            continue;
        const auto it = m_prov.find(keys[i].path);
        values += "; " + keys[i].path + " is " + keys[i].value +
                  (rank(keys[i].path) < static_cast<long long>(m_default_layers)
                       ? ", the default"
                       : ", set at " + it->second.str());
    }
    error(keys[blamed].path, rule + " (" + values + ")" + (fix.empty() ? "" : "; " + fix));
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

/// Reads one YAML layer onto the declared parameters; records errors and provenance.
class yaml_reader : public visitor {
public:
    yaml_reader(const layer& l, std::size_t rank, errors& errs, provenance& prov,
                layer_ranks& ranks)
        : m_layer(l), m_in(*l.doc, errs, "a section"), m_rank(rank), m_prov(prov), m_ranks(ranks)
    {
        const YAML::Node& root = l.doc->root();
        frame top{{}, "", {}, root.IsDefined() && !root.IsNull()};
        if (top.present && !root.IsMap()) {
            m_in.error(root, "", "the configuration must be a mapping of sections");
            top.present = false;
        }
        if (top.present)
            top.map = m_in.index(root, "");
        m_stack.push_back(std::move(top));
    }

    /// Reports keys of the top level that no section declared.
    void finish() { check_unknown(m_stack.back()); }

    void enter(const char* section, const char* /*doc*/) override
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(section);
        frame child{{}, join_path(top.path, section), {}, false};
        if (const field* f = top.present ? top.map.get(section) : nullptr) {
            if (f->value.IsMap()) {
                child.map = m_in.index(f->value, child.path);
                child.present = true;
            } else if (!f->value.IsNull()) {
                m_in.error(f->value, child.path,
                           config::wrong_type("a section of keys", m_in.what(f->value)));
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
            auto c = to_uint(text);
            if (!c.value)
                return integer_problem(c, s, text);
            if (auto problem = check_range(static_cast<double>(*c.value), s, text);
                !problem.empty())
                return problem;
            v = *c.value;
            return std::string();
        });
    }

    void value(const char* key, std::int64_t& v, const spec& s) override
    {
        read(key, "an integer", [&](const std::string& text) {
            auto c = to_int(text);
            if (!c.value)
                return integer_problem(c, s, text);
            if (auto problem = check_range(static_cast<double>(*c.value), s, text);
                !problem.empty())
                return problem;
            v = *c.value;
            return std::string();
        });
    }

    void value(const char* key, double& v, const spec& s) override
    {
        read(key, "a number", [&](const std::string& text) {
            auto c = to_number(text);
            if (!c.value)
                return std::string("!");
            if (auto problem = check_range(*c.value, s, text); !problem.empty())
                return problem;
            v = *c.value;
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
            auto c = to_choice(text, choices);
            if (!c.value)
                return c.problem;
            v = *c.value;
            return std::string();
        });
    }

    void value(const char* key, string_map& v, const spec&) override
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(key);
        const field* f = top.present ? top.map.get(key) : nullptr;
        if (!f)
            return;
        if (!f->value.IsMap()) {
            m_in.wrong_type(*f, "a mapping of names to values");
            return;
        }
        std::set<std::string> seen;
        for (const field& e : m_in.index(f->value, f->path).entries) {
            const std::string name = e.key.IsScalar() ? e.key.Scalar() : "?";
            if (!seen.insert(name).second) {
                m_in.error(e.key, e.path, "duplicate key");
                continue;
            }
            if (!e.value.IsScalar()) {
                m_in.wrong_type(e, "a value");
                continue;
            }
            v[name] = e.value.Scalar();
            set(e.path, e.value);
        }
    }

    using visitor::choice;
    using visitor::value;

private:
    struct frame {
        fields map; ///< the section's keys, when present
        std::string path;
        std::vector<std::string> declared;
        bool present;
    };

    static std::string join_path(const std::string& a, const std::string& b)
    {
        return a.empty() ? b : a + "." + b;
    }

    void set(const std::string& path, const YAML::Node& n)
    {
        m_prov[path] = m_in.where(n);
        m_ranks[path] = m_rank;
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
        return out_of_range(describe_range(s, unit), text);
    }

    /// An integer that did not convert: malformed ("!"), or beyond 64 bits (out of range of
    /// the declared range when there is one).
    template <class T>
    static std::string integer_problem(const converted<T>& c, const spec& s,
                                       const std::string& text)
    {
        if (!c.out_of_range)
            return "!";
        return s.lo || s.hi ? out_of_range(describe_range(s), text) : c.problem;
    }

    /// Parses key's scalar with `parse`, which returns "" on success, "!" for a malformed value,
    /// or a complete problem description.
    template <class F> void read(const char* key, const std::string& expected, F parse)
    {
        frame& top = m_stack.back();
        top.declared.emplace_back(key);
        const field* f = top.present ? top.map.get(key) : nullptr;
        if (!f)
            return;
        const auto text = m_in.scalar(*f, expected);
        if (!text)
            return;
        std::string problem = parse(*text);
        if (problem == "!")
            problem = config::wrong_type(expected, "'" + *text + "'");
        if (!problem.empty()) {
            m_in.error(f->value, f->path, problem);
            return;
        }
        set(f->path, f->value);
    }

    void check_unknown(const frame& f)
    {
        if (f.present)
            m_in.check_keys(f.map, f.declared);
    }

    const layer& m_layer;
    yaml_input m_in;
    std::size_t m_rank;
    provenance& m_prov;
    layer_ranks& m_ranks;
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

bool loader::check(const std::function<void(checker&)>& f)
{
    const std::size_t before = m_errors.size();
    checker c(m_errors, m_provenance, &m_ranks, m_default_layers, &m_warnings);
    f(c);
    return m_errors.size() == before;
}

void loader::add_file(const std::string& path)
{
    if (auto text = read_input_file(path, "configuration file", m_errors))
        add_layer(*text, path, true);
}

void loader::add_text(const std::string& text, const std::string& name)
{
    add_layer(text, name, false);
}

void loader::add_defaults(const std::string& text, const std::string& name)
{
    const bool leading = m_layers.size() == m_default_layers;
    add_layer(text, name, false);
    if (leading)
        m_default_layers = m_layers.size();
}

void loader::add_layer(const std::string& text, const std::string& name, bool from_file)
{
    auto doc = std::make_shared<const yaml_document>(text, name, m_errors);
    if (doc->ok())
        m_layers.push_back({name, doc, from_file});
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
    if (static_cast<std::size_t>(std::count(path.begin(), path.end(), '.')) >= max_nesting) {
        m_errors.add({where}, "",
                     "malformed key path (more than " + std::to_string(max_nesting) + " names)");
        return;
    }
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
    m_layers.push_back({where, std::make_shared<const yaml_document>(node, where)});
}

void loader::read_layer_impl(const layer& l, std::size_t rank, void (*call)(void*, visitor&),
                             void* ctx)
{
    yaml_reader r(l, rank, m_errors, m_provenance, m_ranks);
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
