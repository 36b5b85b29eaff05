// Workload reader: variables (`vars:`, "${...}" and the values given by -D). See
// docs/workloads.md ("Variables").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace detail {

/// Where each character of a scalar's text sits in the file, after the replacements `edits`
/// (in order) of the text traced by `runs` (value_size characters): unchanged characters keep
/// their place; a value that replaced "${...}" sits where the reference starts.
std::vector<sm::source_span> expanded_spans(const std::vector<config::text_run>& runs,
                                            std::size_t value_size, const std::vector<edit>& edits)
{
    std::vector<sm::source_span> out;
    if (runs.empty())
        return out;
    std::size_t next = 0; // first run not yet copied
    const auto place = [&](std::size_t orig) {
        while (next < runs.size() && runs[next].at <= orig)
            ++next;
        const config::text_run& r = runs[next == 0 ? 0 : next - 1];
        return std::pair<int, int>{r.line, r.col + static_cast<int>(orig - r.at)};
    };
    std::size_t orig = 0, res = 0; // the same character in the original and in the result
    const auto copy_to = [&](std::size_t orig_end) {
        if (orig >= orig_end)
            return;
        const auto [line, col] = place(orig);
        out.push_back({res, line, col, false});
        for (; next < runs.size() && runs[next].at < orig_end; ++next)
            out.push_back({res + (runs[next].at - orig), runs[next].line, runs[next].col, false});
        res += orig_end - orig;
        orig = orig_end;
    };
    for (const edit& e : edits) {
        copy_to(orig + (e.pos - res));
        const auto [line, col] = place(orig);
        out.push_back({res, line, col, true});
        res += e.new_len;
        orig += e.old_len;
    }
    copy_to(value_size);
    return out;
}

bool is_name(const std::string& s)
{
    return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

bool is_number(const std::string& s)
{
    return parse_int(s) || parse_uint(s) || parse_double(s);
}

void workload_reader::read_vars(const field* f)
{
    std::vector<field> declared; // path "vars.NAME"
    if (f && m_r.is_map(*f, "a mapping of variable names to numbers")) {
        for (const auto& kv : f->value) {
            YAML::Node k, v;
            k.reset(kv.first);
            v.reset(kv.second);
            const field name_f{k, k, f->path + "." + (k.IsScalar() ? k.Scalar() : "?")};
            auto n = m_r.identifier(name_f);
            if (!n)
                continue;
            if (m_var_nodes.count(*n)) {
                m_r.error(k, name_f.path, "duplicate key");
                continue;
            }
            m_var_nodes.emplace(*n, v);
            m_var_order.push_back(*n);
            declared.push_back({k, v, *n});
        }
    }
    std::map<std::string, const var_setting*> given;
    for (const auto& s : m_opts.vars) {
        if (m_var_nodes.count(s.name)) {
            given[s.name] = &s;
            continue;
        }
        m_r.error(s.where, "workload.vars." + s.name,
                  "undeclared variable '" + s.name + "'" + var_hint(s.name));
    }
    for (const field& d : declared) {
        const std::string& name = d.path;
        const YAML::Node& node = d.value;
        const std::string path = "vars." + name;
        variable v;
        if (!node.IsScalar() || node.Scalar().empty()) {
            m_r.wrong_type({d.key, node, path}, "a number or \"${...}\"");
            v.ok = false;
        } else if (auto text = expand(node.Scalar(), node, path, nullptr)) {
            v.text = *text;
            if (!is_number(v.text)) {
                m_r.error(node, path,
                          "wrong type (expected a number, got '" + v.text + "'" +
                              (v.text == node.Scalar() ? "" : " from '" + node.Scalar() + "'") +
                              ")");
                v.ok = false;
            }
        } else {
            v.ok = false;
        }
        if (auto it = given.find(name); it != given.end()) {
            const var_setting& s = *it->second;
            v.text = s.value;
            v.ok = is_number(s.value);
            if (!v.ok)
                m_r.error(s.where, "workload.vars." + name,
                          "wrong type (expected a number, got '" + s.value + "')");
            else
                m_overridden[name] = s.value;
        }
        if (auto i = parse_int(v.text))
            v.integer = *i;
        m_vars[name] = v;
        if (v.ok)
            m_wl.vars[name] = v.text;
    }
}

std::string workload_reader::var_hint(const std::string& name) const
{
    if (m_var_order.empty())
        return " (the workload declares no vars)";
    const std::string h = hint_of(name, m_var_order);
    return h.empty() ? " (declared: " + join(m_var_order, ", ") + ")" : h;
}

void workload_reader::expand_tree(YAML::Node n, const std::string& path)
{
    if (n.IsScalar()) {
        if (n.Scalar().find("${") == std::string::npos)
            return;
        std::vector<edit> edits;
        if (auto out = expand(n.Scalar(), n, path, &edits)) {
            m_spans[{n.Mark().line, n.Mark().column}] =
                expanded_spans(m_r.doc().runs(n), n.Scalar().size(), edits);
            n = *out;
        }
    } else if (n.IsSequence()) {
        for (std::size_t i = 0; i < n.size(); ++i) {
            YAML::Node e;
            e.reset(n[i]);
            expand_tree(e, at(path, i));
        }
    } else if (n.IsMap()) {
        for (const auto& kv : n) {
            YAML::Node v;
            v.reset(kv.second);
            const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
            expand_tree(v, path.empty() ? k : path + "." + k);
        }
    }
}

std::optional<std::string> workload_reader::expand(const std::string& in, const YAML::Node& n,
                                                   const std::string& path,
                                                   std::vector<edit>* edits)
{
    std::string out;
    bool ok = true;
    std::size_t i = 0;
    // The k-th reference in the value is the k-th "${" in the file from the value's start.
    std::size_t search = m_r.doc().offset(n);
    for (;;) {
        const std::size_t p = in.find("${", i);
        if (p == std::string::npos) {
            out += in.substr(i);
            break;
        }
        out += in.substr(i, p - i);
        const std::size_t found = m_r.doc().text().find("${", search);
        const config::location where =
            found == std::string::npos ? m_r.where(n) : m_r.doc().at_offset(found);
        search = found == std::string::npos ? found : found + 2;
        const std::size_t e = in.find('}', p + 2);
        if (e == std::string::npos || in.find('\n', p) < e) {
            m_r.error(where, path, "unterminated variable reference (expected ${name})");
            return std::nullopt;
        }
        auto v = evaluate(in.substr(p + 2, e - p - 2), where, path);
        ok = ok && v;
        if (edits)
            edits->push_back({out.size(), e + 1 - p, v ? v->size() : 0});
        out += v.value_or("");
        i = e + 1;
    }
    if (!ok)
        return std::nullopt;
    return out;
}

std::optional<std::string> workload_reader::evaluate(const std::string& expr,
                                                     const config::location& where,
                                                     const std::string& path)
{
    std::vector<std::string> toks; // operands at even indices, operators at odd ones
    bool bad = false;
    for (std::size_t i = 0; i < expr.size() && !bad;) {
        const char c = expr[i];
        const bool word_char = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        if (c == ' ' || c == '\t') {
            ++i;
        } else if (c == '+' || c == '-' || c == '*') {
            bad = toks.size() % 2 == 0;
            toks.emplace_back(1, c);
            ++i;
        } else if (word_char) {
            std::size_t j = i;
            while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) ||
                                       expr[j] == '_' || expr[j] == '.'))
                ++j;
            bad = toks.size() % 2 == 1;
            toks.push_back(expr.substr(i, j - i));
            i = j;
        } else {
            bad = true;
        }
    }
    if (bad || toks.size() % 2 == 0) {
        m_r.error(where, path,
                  "malformed variable reference '${" + expr +
                      "}' (expected ${name}, or integers and names joined by +, - and *)");
        return std::nullopt;
    }
    if (toks.size() == 1 && is_name(toks[0])) {
        const variable* v = lookup(toks[0], where, path);
        return v ? std::optional<std::string>(v->text) : std::nullopt;
    }
    std::int64_t total = 0, product = 1;
    char add = '+';
    for (std::size_t i = 0; i < toks.size(); i += 2) {
        std::int64_t x = 0;
        if (is_name(toks[i])) {
            const variable* v = lookup(toks[i], where, path);
            if (!v)
                return std::nullopt;
            if (!v->integer) {
                m_r.error(where, path,
                          "variable '" + toks[i] + "' is " + v->text +
                              ", not an integer (arithmetic takes integers)");
                return std::nullopt;
            }
            x = *v->integer;
        } else if (auto lit = parse_int(toks[i])) {
            x = *lit;
        } else {
            m_r.error(where, path,
                      "'" + toks[i] + "' in '${" + expr +
                          "}' is not an integer (arithmetic takes integers)");
            return std::nullopt;
        }
        const char next = i + 1 < toks.size() ? toks[i + 1][0] : '+';
        bool overflow = __builtin_mul_overflow(product, x, &product);
        if (next != '*') {
            overflow = overflow || (add == '+' ? __builtin_add_overflow(total, product, &total)
                                               : __builtin_sub_overflow(total, product, &total));
            product = 1;
            add = next;
        }
        if (overflow) {
            m_r.error(where, path, "'${" + expr + "}' overflows 64-bit integers");
            return std::nullopt;
        }
    }
    return std::to_string(total);
}

const variable* workload_reader::lookup(const std::string& name, const config::location& where,
                                        const std::string& path)
{
    if (auto it = m_vars.find(name); it != m_vars.end())
        return it->second.ok ? &it->second : nullptr;
    if (m_var_nodes.count(name))
        m_r.error(where, path,
                  "variable '" + name + "' is used before its declaration (line " +
                      std::to_string(m_r.where(m_var_nodes.at(name)).line) + ")");
    else
        m_r.error(where, path, "unknown variable '" + name + "'" + var_hint(name));
    return nullptr;
}

} // namespace detail

} // namespace vgpu::host
