// Workload reader: YAML -> buffers, kernels, schedule and checks, with every error collected
// as file:line:col. See docs/workloads.md.
#include "models/host/workload.h"

#include "models/common/yaml_input.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace vgpu::host {

int workload::buffer_index(std::string_view n) const
{
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i].name == n)
            return static_cast<int>(i);
    return -1;
}

int workload::kernel_index(std::string_view n) const
{
    for (std::size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].name == n)
            return static_cast<int>(i);
    return -1;
}

namespace {

/// splitmix64: a small, well-mixed, portable generator (the same on every host).
std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint32_t to_word(double v, elem_type t)
{
    if (t == elem_type::f32)
        return f32_bits(static_cast<float>(v));
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
}

} // namespace

std::vector<std::uint32_t> initial_words(const buffer_decl& b)
{
    std::vector<std::uint32_t> w(b.elements, 0);
    const buffer_init& in = b.init;
    switch (in.kind) {
    case init_kind::zero:
        break;
    case init_kind::iota:
        if (b.type == elem_type::f32) {
            for (std::uint64_t i = 0; i < b.elements; ++i)
                w[i] = f32_bits(static_cast<float>(in.start + in.step * static_cast<double>(i)));
        } else {
            // Integer iota wraps modulo 2^32 like the GPU's integer arithmetic.
            const auto start = static_cast<std::uint32_t>(static_cast<std::int64_t>(in.start));
            const auto step = static_cast<std::uint32_t>(static_cast<std::int64_t>(in.step));
            for (std::uint64_t i = 0; i < b.elements; ++i)
                w[i] = start + static_cast<std::uint32_t>(i) * step;
        }
        break;
    case init_kind::fill:
        std::fill(w.begin(), w.end(), to_word(in.value, b.type));
        break;
    case init_kind::values:
        for (std::size_t i = 0; i < w.size() && i < in.values.size(); ++i)
            w[i] = to_word(in.values[i], b.type);
        break;
    case init_kind::random: {
        std::uint64_t state = in.seed;
        if (b.type == elem_type::f32) {
            for (auto& x : w) {
                const double u =
                    static_cast<double>(splitmix64(state) >> 40) / 16777216.0; // [0, 1)
                x = f32_bits(static_cast<float>(in.min + (in.max - in.min) * u));
            }
            break;
        }
        const auto lo = static_cast<std::int64_t>(in.min);
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(in.max) - lo) + 1;
        if (span != 0 && (span & (span - 1)) == 0) {
            // A power-of-two span (the usual index range): z % span is z & (span - 1), without
            // a 64-bit division per element.
            for (auto& x : w)
                x = static_cast<std::uint32_t>(
                    lo + static_cast<std::int64_t>(splitmix64(state) & (span - 1)));
        } else {
            for (auto& x : w)
                x = static_cast<std::uint32_t>(lo +
                                               static_cast<std::int64_t>(splitmix64(state) % span));
        }
        break;
    }
    }
    return w;
}

namespace {

using config::field;
using config::fields;
using config::join;

std::string number_text(double v)
{
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

/// The shared located-YAML reader plus what only workloads need: names, element values.
class reader : public config::yaml_input {
public:
    reader(const config::yaml_document& doc, config::errors& errs) : yaml_input(doc, errs) {}

    const std::string& name() const { return doc().name(); }

    bool is_map(const field& f, const char* expected = "a mapping of keys")
    {
        if (f.value.IsMap())
            return true;
        wrong_type(f, expected);
        return false;
    }

    std::optional<std::string> string(const field& f)
    {
        if (!f.value.IsScalar() || f.value.Scalar().empty()) {
            wrong_type(f, "a string");
            return std::nullopt;
        }
        return f.value.Scalar();
    }

    /// A name: letters, digits and '_', not starting with a digit.
    std::optional<std::string> identifier(const field& f)
    {
        auto s = string(f);
        if (!s)
            return s;
        const bool ok = !std::isdigit(static_cast<unsigned char>((*s)[0])) &&
                        std::all_of(s->begin(), s->end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                        });
        if (!ok) {
            error(where(f), f.path,
                  "invalid name '" + *s +
                      "' (expected letters, digits and '_', not starting "
                      "with a digit)");
            return std::nullopt;
        }
        return s;
    }

    /// A number that must be representable in an element of type t.
    std::optional<double> element(const YAML::Node& v, const std::string& path, elem_type t,
                                  const YAML::Node& at)
    {
        auto x = number(v, path, at);
        if (!x)
            return x;
        if (t == elem_type::f32) {
            if (std::fabs(*x) > std::numeric_limits<float>::max()) {
                error(at, path,
                      "value out of range (expected an f32 value, got " + v.Scalar() + ")");
                return std::nullopt;
            }
            return x;
        }
        const double lo = t == elem_type::u32 ? 0.0 : -2147483648.0;
        const double hi = t == elem_type::u32 ? 4294967295.0 : 2147483647.0;
        if (*x != std::floor(*x)) {
            error(at, path,
                  std::string("wrong type (expected an integer for a ") + host::name(t) +
                      " buffer, got " + v.Scalar() + ")");
            return std::nullopt;
        }
        if (*x < lo || *x > hi) {
            error(at, path,
                  "value out of range (expected " + number_text(lo) + ".." + number_text(hi) +
                      " for a " + host::name(t) + " buffer, got " + v.Scalar() + ")");
            return std::nullopt;
        }
        return x;
    }

    template <class E>
    std::optional<E> choice(const field& f, const std::vector<std::pair<std::string, E>>& names)
    {
        std::vector<std::string> keys;
        for (const auto& n : names)
            keys.push_back(n.first);
        const auto chosen = yaml_input::choice(f, keys);
        for (const auto& n : names)
            if (chosen && n.first == *chosen)
                return n.second;
        return std::nullopt;
    }
};

std::string at(const std::string& path, std::size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

std::string hint_of(const std::string& word, const std::vector<std::string>& names)
{
    return config::did_you_mean(word, names);
}

/// One replacement of "${...}" in a scalar: its offset in the result and both lengths.
struct edit {
    std::size_t pos;
    std::size_t old_len;
    std::size_t new_len;
};

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

/// A declared workload variable.
struct variable {
    std::string text;                    ///< the number as written (or computed)
    std::optional<std::int64_t> integer; ///< its value when it is an integer
    bool ok = true;                      ///< false after an error (uses are then silent)
};

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

// ---- Bounded reference work (docs/workloads.md, "References") ----
// A check whose numbers make its host reference run for minutes (a typo such as
// `count: 4000000000`) is refused here, at the argument that scales the work.

/// Reports check d (the item `check`, its `args` field) when its reference would do more
/// element operations than work_limit() allows; silent when the arguments are invalid (the
/// reference reports those itself, without looping).
void check_reference_work(reader& r, const workload& wl, const field& check, const field* args,
                          const buffer_decl* out, const check_decl& d)
{
    if (d.kind != check_kind::reference || d.reference.empty() || !out)
        return;
    reference_shape shape;
    shape.out = out->elements;
    for (const auto& [arg, name] : d.buffer_args)
        if (const int bi = wl.buffer_index(name); bi >= 0)
            shape.buffers[arg] = wl.buffers[static_cast<std::size_t>(bi)].elements;
    for (const auto& [arg, v] : d.scalar_args)
        shape.scalars[arg] = v;
    const reference_work w = estimate_work(d.reference, shape);
    const std::uint64_t limit = work_limit(shape);
    if (!w.ok() || w.ops <= limit)
        return;
    config::location at = r.where(args ? args->key : check.value);
    if (args && args->value.IsMap())
        for (const auto& kv : args->value)
            if (kv.first.IsScalar() && kv.first.Scalar() == w.driver)
                at = r.where(YAML::Node(kv.second));
    r.error(at, check.path + ".args." + w.driver,
            "reference '" + d.reference + "' would do " + std::to_string(w.ops) +
                " element operations, more than its limit of " + std::to_string(limit) +
                " (2^32 + " + std::to_string(work_per_element) + " per element of its " +
                std::to_string(shape.elements()) + " buffer elements)");
}

class workload_reader {
public:
    workload_reader(reader& r, workload& wl, const workload_options& opts)
        : m_r(r), m_wl(wl), m_opts(opts)
    {
    }

    void read(const YAML::Node& root)
    {
        if (!root.IsDefined() || root.IsNull()) {
            m_r.error(config::location{m_r.name()}, "", "the workload is empty");
            return;
        }
        if (!root.IsMap()) {
            m_r.error(root, "", "the workload must be a mapping of keys");
            return;
        }
        const fields top = m_r.open(
            root, "",
            {"name", "description", "vars", "buffers", "kernels", "schedule", "checks", "evict"});
        const std::size_t errors_before = m_r.error_count();
        read_vars(top.get("vars"));
        for (const auto& [key, f] : top.found)
            if (key != "vars")
                expand_tree(f.value, f.path);
        if (m_r.error_count() != errors_before)
            return; // with a variable wrong, later messages would only repeat it
        m_has_name = top.get("name") != nullptr;
        if (const field* f = top.get("name"))
            if (auto s = m_r.string(*f))
                m_wl.name = *s;
        if (const field* f = top.get("description"))
            if (auto s = m_r.string(*f))
                m_wl.description = *s;
        if (m_r.require(top, root, "", "buffers"))
            read_buffers(*top.get("buffers"));
        if (m_r.require(top, root, "", "kernels"))
            read_kernels(*top.get("kernels"));
        if (const field* f = top.get("schedule")) {
            const std::size_t before = m_r.error_count();
            read_schedule(*f);
            if (m_kernels_ok && m_r.error_count() == before)
                check_all_scheduled();
        } else if (m_kernels_ok)
            for (std::size_t i = 0; i < m_wl.kernels.size(); ++i)
                m_wl.schedule.push_back({i});
        if (const field* f = top.get("checks"))
            read_checks(*f);
        if (const field* f = top.get("evict"))
            read_evictions(*f);
    }

    /// `instrument: [control, memory]`: the record types of seed 002's trace buffers.
    void read_instrument(const field& f, kernel_decl& d)
    {
        d.instrument_where = m_r.where(f.value);
        if (!list(f)) // an empty list is an error too
            return;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            const auto n = m_r.identifier(it);
            if (!n)
                continue;
            bool* type = *n == "control"  ? &d.instrument.control
                         : *n == "memory" ? &d.instrument.memory
                                          : nullptr;
            if (!type) {
                const std::string hint = config::suggest(*n, {"control", "memory"});
                m_r.error(m_r.where(it.value), it.path,
                          "'" + *n + "' is not a record type (control, memory)" +
                              (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
            } else if (*type) {
                m_r.error(m_r.where(it.value), it.path, "'" + *n + "' is listed twice");
            } else {
                *type = true;
            }
        }
    }

    /// `cbvs: [{slot: 0, buffer: m}]`: the CBV slots the kernel's CDLs read.
    void read_cbvs(const field& f, kernel_decl& d)
    {
        if (!list(f))
            return;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            if (!m_r.is_map(it, "a CBV binding (a mapping with slot, buffer)"))
                continue;
            const fields e = m_r.open(it.value, it.path, {"slot", "buffer"});
            cbv_binding c;
            c.where = m_r.where(it.value);
            for (const char* k : {"slot", "buffer"})
                m_r.require(e, it.value, it.path, k);
            if (const field* x = e.get("slot"))
                if (auto v = m_r.uint(*x, 0, 255)) {
                    c.slot = static_cast<unsigned>(*v);
                    for (const cbv_binding& o : d.cbvs)
                        if (o.slot == c.slot)
                            m_r.error(m_r.where(*x), x->path,
                                      "CBV slot " + std::to_string(c.slot) + " is bound twice");
                }
            if (const field* x = e.get("buffer"))
                if (auto n = m_r.identifier(*x)) {
                    c.buffer = *n;
                    const int b = m_wl.buffer_index(*n);
                    if (b < 0)
                        m_r.error(m_r.where(*x), x->path, "no buffer named '" + *n + "'");
                    else if (m_wl.buffers[static_cast<std::size_t>(b)].on_demand)
                        m_r.error(m_r.where(*x), x->path,
                                  "buffer '" + *n +
                                      "' is on_demand; a CBV's buffer must be "
                                      "eager (CDL reads do not wait for page faults)");
                }
            d.cbvs.push_back(c);
        }
    }

    void read_evictions(const field& f)
    {
        if (!list(f))
            return;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            if (!m_r.is_map(it, "an eviction (a mapping with buffer, phase, after_ns)"))
                continue;
            const fields e = m_r.open(it.value, it.path, {"buffer", "phase", "after_ns"});
            evict_decl d;
            d.where = m_r.where(it.value);
            for (const char* k : {"buffer", "after_ns"})
                m_r.require(e, it.value, it.path, k);
            if (const field* x = e.get("buffer"))
                if (auto n = m_r.identifier(*x)) {
                    d.buffer = *n;
                    if (m_wl.buffer_index(*n) < 0)
                        m_r.error(m_r.where(*x), x->path, "no buffer named '" + *n + "'");
                    for (const kernel_decl& k : m_wl.kernels)
                        for (const cbv_binding& c : k.cbvs)
                            if (c.buffer == *n)
                                m_r.error(m_r.where(*x), x->path,
                                          "buffer '" + *n + "' is a CBV of kernel '" + k.name +
                                              "'; it cannot be evicted (CDL reads do not wait "
                                              "for page faults)");
                }
            if (const field* x = e.get("phase"))
                if (auto p = m_r.uint(*x, 0, 1u << 20)) {
                    d.phase = static_cast<unsigned>(*p);
                    if (!m_wl.schedule.empty() && d.phase >= m_wl.schedule.size())
                        m_r.error(m_r.where(*x), x->path,
                                  "phase " + std::to_string(d.phase) +
                                      " does not exist (the "
                                      "schedule has " +
                                      std::to_string(m_wl.schedule.size()) + " phases)");
                }
            if (const field* x = e.get("after_ns"))
                if (auto t = m_r.uint(*x, 0, 1000000000))
                    d.after_ns = *t;
            m_wl.evictions.push_back(d);
        }
    }

    /// The text as used: the values of the variables that the options replaced rewritten in
    /// place, and a `name:` line when the file has none (so that its default name survives).
    std::string record_text(const YAML::Node& root)
    {
        struct cut {
            std::size_t off, len;
            std::string with;
        };
        std::vector<cut> cuts;
        const std::string& t = m_r.doc().text();
        for (const auto& [name, value] : m_overridden) {
            const YAML::Node& n = m_var_nodes.at(name);
            const std::size_t off = m_r.doc().offset(n);
            std::size_t end = std::string::npos;
            if (off < t.size() && (t[off] == '"' || t[off] == '\'')) {
                const char q = t[off];
                for (std::size_t j = off + 1; j < t.size(); ++j) {
                    if (q == '"' && t[j] == '\\') {
                        ++j;
                    } else if (q == '\'' && t[j] == q && j + 1 < t.size() && t[j + 1] == q) {
                        ++j;
                    } else if (t[j] == q) {
                        end = j + 1;
                        break;
                    }
                }
            } else if (t.compare(off, n.Scalar().size(), n.Scalar()) == 0) {
                end = off + n.Scalar().size();
            }
            if (end == std::string::npos) {
                m_r.error(n, "vars." + name,
                          "cannot record the value given to this variable in the workload copy "
                          "(write its declared value on one line)");
                continue;
            }
            cuts.push_back({off, end - off, value});
        }
        if (!m_has_name && root.IsMap()) {
            const std::size_t off = m_r.doc().offset(root);
            if (off < t.size() && t[off] != '{') {
                std::string quoted = "\"";
                for (char c : m_wl.name)
                    quoted += (c == '"' || c == '\\' ? "\\" : "") + std::string(1, c);
                const std::size_t col = static_cast<std::size_t>(root.Mark().column);
                cuts.push_back(
                    {off - col, 0,
                     std::string(col, ' ') + "name: " + quoted + "\"   # default name\n"});
            }
        }
        std::sort(cuts.begin(), cuts.end(),
                  [](const cut& a, const cut& b) { return a.off > b.off; });
        std::string out = t;
        for (const auto& c : cuts)
            out.replace(c.off, c.len, c.with);
        return out;
    }

private:
    // ---- variables: `vars:`, "${...}" and the run's values ----

    /// Reads `vars:` in order (each may use earlier ones) and applies the options' values.
    void read_vars(const field* f)
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

    /// " (did you mean 'x'?)", or the declared names, for an unknown variable.
    std::string var_hint(const std::string& name) const
    {
        if (m_var_order.empty())
            return " (the workload declares no vars)";
        const std::string h = hint_of(name, m_var_order);
        return h.empty() ? " (declared: " + join(m_var_order, ", ") + ")" : h;
    }

    /// Replaces "${...}" in every scalar value below n (keys are left alone). The node keeps
    /// its position, so later messages still point into the file.
    void expand_tree(YAML::Node n, const std::string& path)
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

    /// in with each "${...}" replaced by its value; nullopt after an error.
    std::optional<std::string> expand(const std::string& in, const YAML::Node& n,
                                      const std::string& path, std::vector<edit>* edits)
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

    /// The value of "${expr}": a variable, or integers and variables joined by +, - and *
    /// (64-bit integer arithmetic, * before + and -).
    std::optional<std::string> evaluate(const std::string& expr, const config::location& where,
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
                overflow =
                    overflow || (add == '+' ? __builtin_add_overflow(total, product, &total)
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

    /// The variable called name; reports unknown ones and ones used before their declaration.
    const variable* lookup(const std::string& name, const config::location& where,
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

    bool list(const field& f)
    {
        if (f.value.IsSequence() && f.value.size() > 0)
            return true;
        if (f.value.IsSequence())
            m_r.error(m_r.where(f), f.path, "the list is empty");
        else
            m_r.wrong_type(f, "a list");
        return false;
    }

    field item(const field& f, std::size_t i)
    {
        YAML::Node v;
        v.reset(f.value[i]);
        return {f.key, v, at(f.path, i)};
    }

    void read_buffers(const field& f)
    {
        if (!list(f))
            return;
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            if (!m_r.is_map(it, "a buffer (a mapping with name, type, elements, init, "
                                "read_only, alloc)"))
                continue;
            const fields b = m_r.open(it.value, it.path,
                                      {"name", "type", "elements", "init", "read_only", "alloc"});
            buffer_decl d;
            d.where = m_r.where(it.value);
            for (const char* k : {"name", "type", "elements"})
                m_r.require(b, it.value, it.path, k);
            if (const field* x = b.get("name")) {
                auto n = m_r.identifier(*x);
                if (n) {
                    d.name = *n;
                    const int prev = m_wl.buffer_index(*n);
                    if (prev >= 0) {
                        m_r.error(m_r.where(*x), x->path,
                                  "duplicate buffer name '" + *n + "' (first defined on line " +
                                      std::to_string(m_wl.buffers[prev].where.line) + ")");
                    }
                }
            }
            if (const field* x = b.get("type")) {
                auto t = m_r.choice<elem_type>(
                    *x,
                    {{"u32", elem_type::u32}, {"i32", elem_type::i32}, {"f32", elem_type::f32}});
                if (t)
                    d.type = *t;
            }
            if (const field* x = b.get("elements")) {
                auto e = m_r.uint(*x, 1, max_total_bytes / 4);
                if (e) {
                    d.elements = *e;
                    total += d.bytes();
                }
            }
            if (const field* x = b.get("init"))
                read_init(*x, d);
            if (const field* x = b.get("read_only"))
                if (auto ro = m_r.choice<bool>(*x, {{"true", true}, {"false", false}}))
                    d.read_only = *ro;
            if (const field* x = b.get("alloc"))
                if (auto a = m_r.choice<bool>(*x, {{"eager", false}, {"on_demand", true}}))
                    d.on_demand = *a;
            // A buffer with errors still reserves its name so that later uses do not cascade.
            m_wl.buffers.push_back(d);
        }
        if (total > max_total_bytes)
            m_r.error(m_r.where(f.key), f.path,
                      "the buffers need " + std::to_string(total) + " bytes (at most " +
                          std::to_string(max_total_bytes) + ", 1 GiB)");
    }

    bool read_init(const field& f, buffer_decl& d)
    {
        const std::vector<std::pair<std::string, init_kind>> kinds = {
            {"zero", init_kind::zero},
            {"iota", init_kind::iota},
            {"fill", init_kind::fill},
            {"values", init_kind::values},
            {"random", init_kind::random}};
        if (f.value.IsScalar()) {
            // Only "zero" and "iota" take no settings, so only they may be written alone.
            auto k =
                m_r.choice<init_kind>(f, {{"zero", init_kind::zero}, {"iota", init_kind::iota}});
            if (k)
                d.init.kind = *k;
            return k.has_value();
        }
        if (!f.value.IsMap() || f.value.size() != 1) {
            m_r.wrong_type(f, "zero, iota, or a mapping with one of zero|iota|fill|values|random");
            return false;
        }
        YAML::Node key;
        YAML::Node val;
        for (const auto& kv : f.value) {
            key.reset(kv.first);
            val.reset(kv.second);
        }
        const field kf{key, key, f.path};
        auto k = m_r.choice<init_kind>(kf, kinds);
        if (!k)
            return false;
        d.init.kind = *k;
        const field body{key, val, f.path + "." + key.Scalar()};
        switch (*k) {
        case init_kind::zero:
            if (!val.IsNull()) {
                m_r.wrong_type(body, "nothing");
                return false;
            }
            return true;
        case init_kind::iota: {
            if (val.IsNull())
                return true;
            if (!m_r.is_map(body, "a mapping with start, step"))
                return false;
            const fields s = m_r.open(val, body.path, {"start", "step"});
            bool ok = true;
            if (const field* x = s.get("start")) {
                auto v = m_r.element(x->value, x->path, d.type, x->value);
                ok = ok && v;
                d.init.start = v.value_or(0);
            }
            if (const field* x = s.get("step")) {
                auto v = d.type == elem_type::f32
                             ? m_r.element(x->value, x->path, d.type, x->value)
                             : m_r.element(x->value, x->path, elem_type::i32, x->value);
                ok = ok && v;
                d.init.step = v.value_or(1);
            }
            if (ok && d.type == elem_type::f32)
                ok = check_f32_iota(d, s.get("step") ? *s.get("step") : body);
            return ok;
        }
        case init_kind::fill: {
            auto v = m_r.element(val, body.path, d.type, val.IsNull() ? key : val);
            d.init.value = v.value_or(0);
            return v.has_value();
        }
        case init_kind::values: {
            if (!val.IsSequence()) {
                m_r.wrong_type(body, "a list of numbers");
                return false;
            }
            bool ok = true;
            for (std::size_t i = 0; i < val.size(); ++i) {
                YAML::Node e;
                e.reset(val[i]);
                auto v = m_r.element(e, at(body.path, i), d.type, e);
                ok = ok && v;
                d.init.values.push_back(v.value_or(0));
            }
            if (d.elements != 0 && val.size() != d.elements) {
                m_r.error(m_r.where(val), body.path,
                          "has " + std::to_string(val.size()) + " values, the buffer has " +
                              std::to_string(d.elements) + " elements");
                ok = false;
            }
            return ok;
        }
        case init_kind::random: {
            if (!m_r.is_map(body, "a mapping with seed, min, max"))
                return false;
            const fields s = m_r.open(val, body.path, {"seed", "min", "max"});
            bool ok = true;
            for (const char* k2 : {"min", "max"})
                ok = m_r.require(s, val, body.path, k2) && ok;
            if (const field* x = s.get("seed")) {
                auto v = m_r.uint(*x, 0, std::numeric_limits<std::uint64_t>::max());
                ok = ok && v;
                d.init.seed = v.value_or(0);
            } else {
                // The run's seed reaches every random choice; buffers differ by their index.
                d.init.seed = m_opts.seed + m_wl.buffers.size();
                d.init.run_seed = true;
            }
            std::optional<double> lo, hi;
            if (const field* x = s.get("min"))
                lo = m_r.element(x->value, x->path, d.type, x->value.IsNull() ? x->key : x->value);
            if (const field* x = s.get("max"))
                hi = m_r.element(x->value, x->path, d.type, x->value.IsNull() ? x->key : x->value);
            if (lo && hi && *lo > *hi) {
                m_r.error(m_r.where(s.get("max")->value), s.get("max")->path,
                          "max (" + s.get("max")->value.Scalar() + ") is below min (" +
                              s.get("min")->value.Scalar() + ")");
                ok = false;
            }
            ok = ok && lo && hi;
            d.init.min = lo.value_or(0);
            d.init.max = hi.value_or(0);
            return ok;
        }
        }
        return false;
    }

    /// Reports the first element of an f32 iota that overflows to infinity, at `at`.
    bool check_f32_iota(const buffer_decl& d, const field& at)
    {
        const auto value = [&](std::uint64_t i) {
            return d.init.start + d.init.step * static_cast<double>(i);
        };
        const auto overflows = [&](std::uint64_t i) {
            return !std::isfinite(static_cast<float>(value(i)));
        };
        if (d.elements == 0 || !overflows(d.elements - 1))
            return true;
        // The values are monotonic and element 0 (start) is an f32 value: bisect.
        std::uint64_t lo = 0, hi = d.elements - 1;
        while (hi - lo > 1) {
            const std::uint64_t mid = lo + (hi - lo) / 2;
            (overflows(mid) ? hi : lo) = mid;
        }
        m_r.error(m_r.where(at), at.path,
                  "element " + std::to_string(hi) + " of buffer '" + d.name + "' is " +
                      number_text(value(hi)) + ", which overflows f32 (largest " +
                      number_text(std::numeric_limits<float>::max()) + ")");
        return false;
    }

    /// [x, y] or x (y = 1); every dimension in lo..hi.
    bool dims(const field& f, unsigned lo, unsigned hi, unsigned& x, unsigned& y)
    {
        if (f.value.IsScalar()) {
            auto v = m_r.uint(f, lo, hi);
            x = static_cast<unsigned>(v.value_or(1));
            y = 1;
            return v.has_value();
        }
        if (!f.value.IsSequence() || f.value.size() < 1 || f.value.size() > 2) {
            m_r.wrong_type(f, "[x, y] or x");
            return false;
        }
        unsigned* out[2] = {&x, &y};
        y = 1;
        bool ok = true;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            YAML::Node e;
            e.reset(f.value[i]);
            auto v = m_r.uint(e, at(f.path, i), lo, hi, e);
            ok = ok && v;
            *out[i] = static_cast<unsigned>(v.value_or(1));
        }
        return ok;
    }

    void read_kernels(const field& f)
    {
        if (!list(f)) {
            m_kernels_ok = false;
            return;
        }
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            if (!m_r.is_map(it, "a kernel (a mapping with name, program, params, grid, block)")) {
                m_kernels_ok = false;
                continue;
            }
            const fields k = m_r.open(
                it.value, it.path,
                {"name", "program", "params", "grid", "block", "sms", "cbvs", "instrument", "llc"});
            kernel_decl d;
            d.where = m_r.where(it.value);
            for (const char* key : {"name", "program", "grid", "block"})
                if (!m_r.require(k, it.value, it.path, key))
                    m_kernels_ok = false;
            if (const field* x = k.get("name")) {
                if (auto n = m_r.identifier(*x)) {
                    d.name = *n;
                    const int prev = m_wl.kernel_index(*n);
                    if (prev >= 0)
                        m_r.error(m_r.where(*x), x->path,
                                  "duplicate kernel name '" + *n + "' (first defined on line " +
                                      std::to_string(m_wl.kernels[prev].where.line) + ")");
                }
            }
            if (const field* x = k.get("params"))
                read_params(*x, d);
            if (const field* x = k.get("grid"))
                dims(*x, 1, max_grid_dim, d.grid_x, d.grid_y);
            if (const field* x = k.get("block")) {
                if (dims(*x, 1, max_block_threads, d.block_x, d.block_y) &&
                    d.block_threads() > max_block_threads)
                    m_r.error(m_r.where(x->value), x->path,
                              "block has " + std::to_string(d.block_threads()) +
                                  " threads (expected 1.." + std::to_string(max_block_threads) +
                                  ")");
            }
            if (const field* x = k.get("sms")) {
                if (m_r.is_map(*x, "a mapping with first, count")) {
                    const fields s = m_r.open(x->value, x->path, {"first", "count"});
                    if (const field* y = s.get("first"))
                        d.sms.first = static_cast<unsigned>(m_r.uint(*y, 0, 65535).value_or(0));
                    if (const field* y = s.get("count"))
                        d.sms.count = static_cast<unsigned>(m_r.uint(*y, 1, 65536).value_or(0));
                }
            }
            if (const field* x = k.get("cbvs"))
                read_cbvs(*x, d);
            if (const field* x = k.get("instrument"))
                read_instrument(*x, d);
            if (const field* x = k.get("llc"))
                d.llc = m_r.choice<llc::llc_org>(
                    *x, {{"shared", llc::llc_org::shared}, {"private", llc::llc_org::private_org}});
            if (const field* x = k.get("program"))
                assemble(*x, d);
            m_wl.kernels.push_back(std::move(d));
        }
    }

    void read_params(const field& f, kernel_decl& d)
    {
        if (f.value.IsNull())
            return;
        if (!f.value.IsSequence()) {
            m_r.wrong_type(f, "a list of {name, value} or {name, buffer}");
            return;
        }
        if (f.value.size() > max_kernel_params)
            m_r.error(m_r.where(f.value), f.path,
                      "has " + std::to_string(f.value.size()) + " parameters (at most " +
                          std::to_string(max_kernel_params) + ")");
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            kernel_param p;
            p.where = m_r.where(it.value);
            if (!m_r.is_map(it, "a mapping {name, value} or {name, buffer}")) {
                d.params.push_back(p);
                continue;
            }
            const fields pf = m_r.open(it.value, it.path, {"name", "value", "buffer"});
            m_r.require(pf, it.value, it.path, "name");
            if (const field* x = pf.get("name")) {
                if (auto n = m_r.identifier(*x)) {
                    p.name = *n;
                    for (const auto& q : d.params)
                        if (q.name == *n)
                            m_r.error(m_r.where(*x), x->path,
                                      "duplicate parameter name '" + *n + "'");
                }
            }
            const field* v = pf.get("value");
            const field* b = pf.get("buffer");
            if ((v != nullptr) == (b != nullptr)) {
                m_r.error(it.value, it.path,
                          v ? "has both 'value' and 'buffer' (expected one)"
                            : "missing required key 'value' or 'buffer'");
            } else if (b) {
                if (auto n = m_r.string(*b)) {
                    p.is_buffer = true;
                    p.buffer = *n;
                    if (m_wl.buffer_index(*n) < 0)
                        m_r.error(m_r.where(*b), b->path,
                                  "undefined buffer '" + *n + "'" + hint_of(*n, buffer_names()));
                }
            } else if (v->value.IsScalar()) {
                const std::string& s = v->value.Scalar();
                if (auto iv = parse_int(s); iv && *iv >= INT32_MIN && *iv <= UINT32_MAX) {
                    p.bits = static_cast<std::uint32_t>(*iv);
                    p.number = static_cast<double>(*iv);
                } else if (auto uv = parse_uint(s); uv && *uv <= UINT32_MAX) {
                    p.bits = static_cast<std::uint32_t>(*uv);
                    p.number = static_cast<double>(*uv);
                } else if (iv || uv) {
                    m_r.error(m_r.where(*v), v->path,
                              "value out of range (expected -2147483648..4294967295, got " + s +
                                  ")");
                } else if (auto dv = parse_double(s);
                           dv && std::fabs(*dv) <= std::numeric_limits<float>::max()) {
                    p.bits = f32_bits(static_cast<float>(*dv));
                    p.number = *dv;
                } else {
                    m_r.wrong_type(*v, "a number (integer, or decimal for f32)");
                }
            } else {
                m_r.wrong_type(*v, "a number (integer, or decimal for f32)");
            }
            d.params.push_back(p);
        }
    }

    void assemble(const field& f, kernel_decl& d)
    {
        if (!f.value.IsScalar()) {
            m_r.wrong_type(f, "program text (a YAML block scalar: program: |)");
            return;
        }
        d.source = f.value.Scalar();
        d.origin.file = m_r.name();
        const auto expanded = m_spans.find({f.value.Mark().line, f.value.Mark().column});
        d.origin.spans = expanded != m_spans.end()
                             ? expanded->second
                             : expanded_spans(m_r.doc().runs(f.value), d.source.size(), {});
        const config::location start = m_r.where(f.value);
        d.origin.line = d.origin.spans.empty() ? start.line : d.origin.spans.front().line;
        d.origin.col = d.origin.spans.empty() ? start.col : d.origin.spans.front().col;
        sm::symbol_table symbols;
        for (std::size_t i = 0; i < d.params.size(); ++i)
            if (!d.params[i].name.empty())
                symbols.emplace(d.params[i].name, static_cast<std::uint32_t>(i));
        auto res = sm::assemble(d.source, symbols, d.origin, kernel_registers);
        for (auto e : res.errors) {
            // Put the key path after "error: " like every other workload message.
            const std::string tag = ": error: ";
            const auto pos = e.find(tag);
            if (pos != std::string::npos)
                e.insert(pos + tag.size(), f.path + ": ");
            m_r.add_raw(e);
        }
        if (res.ok() && res.code.empty())
            m_r.error(m_r.where(f), f.path, "the program has no instructions");
        d.code = std::move(res.code);
        d.lines = std::move(res.lines);
    }

    std::vector<std::string> buffer_names() const
    {
        std::vector<std::string> n;
        for (const auto& b : m_wl.buffers)
            n.push_back(b.name);
        return n;
    }

    std::vector<std::string> kernel_names() const
    {
        std::vector<std::string> n;
        for (const auto& k : m_wl.kernels)
            n.push_back(k.name);
        return n;
    }

    void read_schedule(const field& f)
    {
        if (!list(f))
            return;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field ph = item(f, i);
            std::vector<std::size_t> phase;
            std::vector<field> entries;
            if (ph.value.IsScalar()) {
                entries.push_back(ph);
            } else if (ph.value.IsSequence() && ph.value.size() > 0) {
                for (std::size_t j = 0; j < ph.value.size(); ++j)
                    entries.push_back(item(ph, j));
            } else {
                m_r.error(m_r.where(ph), ph.path,
                          ph.value.IsSequence()
                              ? "the phase is empty"
                              : "wrong type (expected a list of kernel names, got " +
                                    m_r.what(ph.value) + ")");
                continue;
            }
            for (const field& e : entries) {
                auto n = m_r.string(e);
                if (!n)
                    continue;
                const int k = m_wl.kernel_index(*n);
                if (k < 0) {
                    m_r.error(m_r.where(e), e.path,
                              "undefined kernel '" + *n + "'" + hint_of(*n, kernel_names()));
                    continue;
                }
                if (std::find(phase.begin(), phase.end(), static_cast<std::size_t>(k)) !=
                    phase.end()) {
                    m_r.error(m_r.where(e), e.path,
                              "kernel '" + *n + "' appears twice in the phase");
                    continue;
                }
                for (std::size_t other : phase)
                    overlap(e, m_wl.kernels[other], m_wl.kernels[k]);
                phase.push_back(static_cast<std::size_t>(k));
            }
            m_wl.schedule.push_back(phase);
            m_wl.schedule_where.push_back(m_r.where(ph));
        }
    }

    /// Reports declared kernels that no phase of the schedule runs.
    void check_all_scheduled()
    {
        std::vector<bool> used(m_wl.kernels.size(), false);
        for (const auto& phase : m_wl.schedule)
            for (std::size_t k : phase)
                used[k] = true;
        for (std::size_t i = 0; i < m_wl.kernels.size(); ++i)
            if (!used[i] && !m_wl.kernels[i].name.empty())
                m_r.error(m_wl.kernels[i].where, at("kernels", i),
                          "kernel '" + m_wl.kernels[i].name +
                              "' is in no phase of the schedule, so it would never run");
    }

    void overlap(const field& e, const kernel_decl& a, const kernel_decl& b)
    {
        const auto end = [](const sm_range& r) {
            return r.count == 0 ? std::numeric_limits<std::uint64_t>::max()
                                : std::uint64_t{r.first} + r.count;
        };
        if (a.sms.first < end(b.sms) && b.sms.first < end(a.sms))
            m_r.error(m_r.where(e), e.path,
                      "kernels '" + a.name + "' (" + describe(a.sms) + ") and '" + b.name + "' (" +
                          describe(b.sms) + ") share SMs in one phase");
    }

public:
    static std::string describe(const sm_range& r)
    {
        if (r.count == 0)
            return "SMs " + std::to_string(r.first) + "..last";
        return "SMs " + std::to_string(r.first) + ".." + std::to_string(r.first + r.count - 1);
    }

private:
    void read_checks(const field& f)
    {
        if (!list(f))
            return;
        for (std::size_t i = 0; i < f.value.size(); ++i) {
            const field it = item(f, i);
            if (!m_r.is_map(it, "a check (a mapping with buffer and reference or expect)"))
                continue;
            const fields c =
                m_r.open(it.value, it.path, {"buffer", "reference", "args", "tolerance", "expect"});
            check_decl d;
            d.where = m_r.where(it.value);
            const buffer_decl* buf = nullptr;
            if (m_r.require(c, it.value, it.path, "buffer")) {
                const field& b = *c.get("buffer");
                if (auto n = m_r.string(b)) {
                    d.buffer = *n;
                    const int bi = m_wl.buffer_index(*n);
                    if (bi < 0)
                        m_r.error(m_r.where(b), b.path,
                                  "undefined buffer '" + *n + "'" + hint_of(*n, buffer_names()));
                    else
                        buf = &m_wl.buffers[static_cast<std::size_t>(bi)];
                }
            }
            const field* ref = c.get("reference");
            const field* exp = c.get("expect");
            if ((ref != nullptr) == (exp != nullptr)) {
                m_r.error(it.value, it.path,
                          ref ? "has both 'reference' and 'expect' (expected one)"
                              : "missing required key 'reference' or 'expect'");
            } else if (ref) {
                d.kind = check_kind::reference;
                read_reference(*ref, c.get("args"), it, buf, d);
                check_reference_work(m_r, m_wl, it, c.get("args"), buf, d);
            } else {
                d.kind = check_kind::expect;
                if (const field* a = c.get("args"))
                    m_r.error(a->key, a->path, "only a 'reference' check takes args");
                read_expect(*exp, buf, d);
            }
            if (const field* t = c.get("tolerance")) {
                if (buf && buf->type != elem_type::f32)
                    m_r.error(t->key, t->path,
                              std::string("a tolerance applies only to f32 buffers ('") +
                                  buf->name + "' is " + name(buf->type) + ")");
                else
                    read_tolerance(*t, d.tol);
            }
            m_wl.checks.push_back(d);
        }
    }

    void read_tolerance(const field& t, tolerance& tol)
    {
        if (t.value.IsScalar()) {
            if (auto v = m_r.number(t)) {
                if (*v < 0)
                    m_r.error(m_r.where(t), t.path,
                              "value out of range (expected >= 0, got " + t.value.Scalar() + ")");
                tol.relative = *v;
            }
            return;
        }
        if (!m_r.is_map(t, "a number (relative) or a mapping with relative, absolute"))
            return;
        const fields tf = m_r.open(t.value, t.path, {"relative", "absolute"});
        for (const char* k : {"relative", "absolute"}) {
            const field* x = tf.get(k);
            if (!x)
                continue;
            if (auto v = m_r.number(*x)) {
                if (*v < 0)
                    m_r.error(m_r.where(*x), x->path,
                              "value out of range (expected >= 0, got " + x->value.Scalar() + ")");
                (std::string(k) == "relative" ? tol.relative : tol.absolute) = *v;
            }
        }
    }

    void read_expect(const field& e, const buffer_decl* buf, check_decl& d)
    {
        if (!e.value.IsSequence()) {
            m_r.wrong_type(e, "a list of numbers");
            return;
        }
        const elem_type t = buf ? buf->type : elem_type::f32;
        for (std::size_t i = 0; i < e.value.size(); ++i) {
            YAML::Node v;
            v.reset(e.value[i]);
            auto x = m_r.element(v, at(e.path, i), t, v);
            d.expect.push_back(to_word(x.value_or(0), t));
        }
        if (buf && e.value.size() != buf->elements)
            m_r.error(m_r.where(e), e.path,
                      "has " + std::to_string(e.value.size()) + " values, buffer '" + buf->name +
                          "' has " + std::to_string(buf->elements) + " elements");
    }

    void read_reference(const field& ref, const field* args, const field& it,
                        const buffer_decl* buf, check_decl& d)
    {
        auto n = m_r.string(ref);
        if (!n)
            return;
        const reference_spec* spec = find_reference(*n);
        if (!spec) {
            std::vector<std::string> names;
            for (const auto& s : references())
                names.emplace_back(s.name);
            m_r.error(m_r.where(ref), ref.path,
                      "unknown reference '" + *n + "' (expected one of " + join(names, "|") + ")" +
                          hint_of(*n, names));
            return;
        }
        d.reference = *n;
        if (buf && std::find(spec->out_types.begin(), spec->out_types.end(), buf->type) ==
                       spec->out_types.end())
            m_r.error(m_r.where(ref), ref.path,
                      "reference '" + *n + "' does not produce " + name(buf->type) +
                          " elements (buffer '" + buf->name + "')");
        std::vector<std::string> known;
        for (const auto& a : spec->args)
            known.emplace_back(a.name);
        fields given;
        if (args) {
            if (!m_r.is_map(*args, "a mapping of argument names to buffers or numbers"))
                return;
            given = m_r.open(args->value, args->path, known);
        }
        for (const auto& a : spec->args) {
            const field* x = given.get(a.name);
            if (!x) {
                if (a.required)
                    m_r.error(args ? args->key : it.value, args ? args->path : it.path + ".args",
                              std::string("missing argument '") + a.name + "' of reference '" + *n +
                                  "'");
                continue;
            }
            if (a.kind == arg_kind::buffer)
                buffer_arg(*x, a, d);
            else
                scalar_arg(*x, a, d);
        }
    }

    void buffer_arg(const field& x, const arg_spec& a, check_decl& d)
    {
        auto s = m_r.string(x);
        if (!s)
            return;
        const int bi = m_wl.buffer_index(*s);
        if (bi < 0) {
            m_r.error(m_r.where(x), x.path,
                      "undefined buffer '" + *s + "'" + hint_of(*s, buffer_names()));
            return;
        }
        const elem_type t = m_wl.buffers[static_cast<std::size_t>(bi)].type;
        if (std::find(a.types.begin(), a.types.end(), t) == a.types.end()) {
            std::vector<std::string> tn;
            for (auto e : a.types)
                tn.emplace_back(name(e));
            m_r.error(m_r.where(x), x.path,
                      "buffer '" + *s + "' is " + host::name(t) + " (expected " + join(tn, "|") +
                          ")");
            return;
        }
        d.buffer_args[a.name] = *s;
    }

    /// A number, or "kernel.param" naming a kernel's number parameter.
    void scalar_arg(const field& x, const arg_spec& a, check_decl& d)
    {
        if (!x.value.IsScalar()) {
            m_r.wrong_type(x, "a number or kernel.param");
            return;
        }
        const std::string& s = x.value.Scalar();
        const auto dot = s.find('.');
        if (dot != std::string::npos && dot > 0 &&
            !std::isdigit(static_cast<unsigned char>(s[0])) && s[0] != '-' && s[0] != '+') {
            const std::string kn = s.substr(0, dot);
            const std::string pn = s.substr(dot + 1);
            const int k = m_wl.kernel_index(kn);
            if (k < 0) {
                m_r.error(m_r.where(x), x.path,
                          "undefined kernel '" + kn + "'" + hint_of(kn, kernel_names()));
                return;
            }
            std::vector<std::string> pnames;
            for (const auto& p : m_wl.kernels[static_cast<std::size_t>(k)].params) {
                pnames.push_back(p.name);
                if (p.name != pn)
                    continue;
                if (p.is_buffer) {
                    m_r.error(m_r.where(x), x.path,
                              "parameter '" + s + "' is a buffer address, not a number");
                    return;
                }
                d.scalar_args[a.name] = p.number;
                return;
            }
            m_r.error(m_r.where(x), x.path,
                      "kernel '" + kn + "' has no parameter '" + pn + "'" + hint_of(pn, pnames));
            return;
        }
        if (auto v = m_r.number(x))
            d.scalar_args[a.name] = *v;
    }

    reader& m_r;
    workload& m_wl;
    const workload_options& m_opts;
    bool m_kernels_ok = true;
    bool m_has_name = false;
    std::vector<std::string> m_var_order;            ///< declared names, in order
    std::map<std::string, YAML::Node> m_var_nodes;   ///< declared value of each
    std::map<std::string, variable> m_vars;          ///< values, as far as read
    std::map<std::string, std::string> m_overridden; ///< names the options gave a value
    /// Where the text of each scalar that "${...}" changed sits in the file, by its position.
    std::map<std::pair<int, int>, std::vector<sm::source_span>> m_spans;
};

} // namespace

parse_result parse_workload_text(const std::string& text, const std::string& name,
                                 const workload_options& opts)
{
    parse_result res;
    res.wl.file = name;
    config::errors errs;
    const config::yaml_document doc(text, name, errs);
    if (doc.ok()) {
        reader r(doc, errs);
        workload_reader w(r, res.wl, opts);
        w.read(doc.root());
        if (res.wl.name.empty()) {
            std::string stem = name.substr(name.find_last_of('/') + 1);
            res.wl.name = stem.substr(0, stem.rfind('.'));
        }
        if (errs.empty())
            res.wl.text = w.record_text(doc.root());
    }
    res.errors = errs.messages();
    return res;
}

parse_result parse_workload(const std::string& path, const workload_options& opts)
{
    config::errors errs;
    if (auto text = config::read_input_file(path, "workload file", errs))
        return parse_workload_text(*text, path, opts);
    parse_result res;
    res.wl.file = path;
    res.errors = errs.messages();
    return res;
}

std::vector<std::string> check_against_platform(const workload& wl, unsigned num_sms,
                                                unsigned warp_slots, unsigned regs_per_thread)
{
    std::vector<std::string> errs;
    auto err = [&](const config::location& l, const std::string& path, const std::string& msg) {
        errs.push_back(l.str() + ": error: " + path + ": " + msg);
    };
    auto resolved = [&](const sm_range& r) {
        return sm_range{r.first,
                        r.count == 0 ? (r.first < num_sms ? num_sms - r.first : 0) : r.count};
    };
    for (std::size_t i = 0; i < wl.kernels.size(); ++i) {
        const kernel_decl& k = wl.kernels[i];
        const std::string path = "kernels[" + std::to_string(i) + "]";
        const sm_range r = resolved(k.sms);
        if (k.sms.first >= num_sms || std::uint64_t{r.first} + r.count > num_sms)
            err(k.where, path + ".sms",
                "kernel '" + k.name + "' uses " + workload_reader::describe(k.sms) +
                    " but the platform has " + std::to_string(num_sms) + " SMs (0.." +
                    std::to_string(num_sms - 1) + ")");
        if (k.block_warps() > warp_slots)
            err(k.where, path + ".block",
                "kernel '" + k.name + "' has " + std::to_string(k.block_warps()) +
                    " warps per CTA but an SM has " + std::to_string(warp_slots) + " warp slots");
        for (std::size_t pc = 0; pc < k.code.size(); ++pc)
            if (auto problem = sm::check(k.code[pc], regs_per_thread)) {
                const int line = pc < k.lines.size() ? k.lines[pc] : k.origin.line;
                err({wl.file, line, k.origin.col}, path + ".program",
                    *problem + " (sm.regs_per_thread is " + std::to_string(regs_per_thread) + ")");
                break; // one report per kernel is enough to act on
            }
    }
    for (std::size_t p = 0; p < wl.schedule.size(); ++p) {
        const auto& ph = wl.schedule[p];
        for (std::size_t a = 0; a < ph.size(); ++a)
            for (std::size_t b = a + 1; b < ph.size(); ++b) {
                const kernel_decl& ka = wl.kernels[ph[a]];
                const kernel_decl& kb = wl.kernels[ph[b]];
                const sm_range ra = resolved(ka.sms);
                const sm_range rb = resolved(kb.sms);
                if (ra.first < rb.first + rb.count && rb.first < ra.first + ra.count)
                    err({wl.file}, "schedule[" + std::to_string(p) + "]",
                        "kernels '" + ka.name + "' and '" + kb.name + "' share SMs in one phase");
            }
    }
    return errs;
}

// ---- Limits known before the run (docs/workloads.md, "Limits") ----

namespace {

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<std::uint64_t>::max() : p;
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b)
{
    return b > std::numeric_limits<std::uint64_t>::max() - a
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

/// A time in ps with three significant digits and a unit ("5.37 s", "100 ms").
std::string approx_time(std::uint64_t ps)
{
    static const struct {
        double scale;
        const char* unit;
    } units[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}};
    const double v = static_cast<double>(ps);
    for (const auto& u : units)
        if (v >= u.scale || u.scale == 1e3) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%.3g %s", v / u.scale, u.unit);
            return buf;
        }
    return "";
}

} // namespace

std::uint64_t min_kernel_ps(const kernel_decl& k, unsigned sms, const platform_limits& limits)
{
    if (sms == 0)
        return 0;
    const std::uint64_t ctas = std::uint64_t{k.grid_x} * k.grid_y;
    const std::uint64_t per_sm = (ctas + sms - 1) / sms; // the busiest SM has at least this many
    const std::uint64_t dispatch = sat_add(sat_mul(per_sm - 1, limits.cta_dispatch_interval), 1);
    const std::uint64_t issue = sat_mul(per_sm, k.block_warps());
    const std::uint64_t cycles = sat_add(limits.dispatch_latency, std::max(dispatch, issue));
    return sat_mul(cycles, limits.core_period_ps);
}

std::vector<std::string> check_against_platform(const workload& wl, const platform_limits& limits)
{
    std::vector<std::string> errs =
        check_against_platform(wl, limits.num_sms, limits.warp_slots, limits.regs_per_thread);
    auto err = [&](const config::location& l, const std::string& path, const std::string& msg) {
        errs.push_back(l.str() + ": error: " + path + ": " + msg);
    };
    const std::uint64_t max_instructions = limits.max_program_bytes / sm::instruction_bytes;
    for (std::size_t i = 0; i < wl.kernels.size(); ++i) {
        const kernel_decl& k = wl.kernels[i];
        if (k.instrumented()) {
            // Seed 002: both instrumented programs must fit the kernel's registers, parameters
            // and the SM's program limit; the profiling launch and the restore of its buffers
            // need the kernel alone in its phase, once.
            const std::string path = "kernels[" + std::to_string(i) + "].instrument";
            const auto params = static_cast<unsigned>(k.params.size());
            const auto prof =
                shader_trace::instrument_profile(k.code, params, limits.regs_per_thread);
            const auto traced = shader_trace::instrument_trace(k.code, k.instrument, params,
                                                               limits.regs_per_thread);
            const std::string problem = !prof.error.empty() ? prof.error : traced.error;
            if (!problem.empty())
                err(k.instrument_where, path,
                    "kernel '" + k.name + "' cannot be instrumented: " + problem);
            else if (std::max(prof.code.size(), traced.code.size()) > max_instructions)
                err(k.instrument_where, path,
                    "the instrumented program of kernel '" + k.name + "' has " +
                        std::to_string(std::max(prof.code.size(), traced.code.size())) +
                        " instructions, more than an SM loads (" +
                        std::to_string(max_instructions) + ")");
            unsigned runs = 0;
            bool alone = true;
            for (const auto& phase : wl.schedule)
                for (std::size_t q : phase)
                    if (q == i) {
                        ++runs;
                        alone = alone && phase.size() == 1;
                    }
            if (runs != 1 || !alone)
                err(k.instrument_where, path,
                    "an instrumented kernel runs once, alone in its phase (kernel '" + k.name +
                        "' runs " + std::to_string(runs) + " time(s)" +
                        (alone ? "" : ", beside other kernels") +
                        "): its profiling launch and the restore of its buffers come first");
        }
        if (k.code.size() > max_instructions)
            err({wl.file, k.origin.line, k.origin.col},
                "kernels[" + std::to_string(i) + "].program",
                "kernel '" + k.name + "' has " + std::to_string(k.code.size()) +
                    " instructions but an SM loads programs of at most " +
                    std::to_string(max_instructions) + " (" +
                    std::to_string(limits.max_program_bytes) + " bytes)");
    }
    for (std::size_t p = 0; p < wl.schedule.size(); ++p)
        if (wl.schedule[p].size() > limits.queues)
            err(p < wl.schedule_where.size() ? wl.schedule_where[p] : config::location{wl.file},
                "schedule[" + std::to_string(p) + "]",
                "the phase runs " + std::to_string(wl.schedule[p].size()) +
                    " kernels side by side but the CP has " + std::to_string(limits.queues) +
                    " queue(s) (cp.queues)");

    // Simulated time: a kernel that cannot end before the phase's timeout or the run's limit
    // would only be stopped there, after a long run; say so now.
    auto sms_of = [&](const sm_range& r) {
        if (r.first >= limits.num_sms)
            return 0u;
        const unsigned rest = limits.num_sms - r.first;
        return r.count == 0 ? rest : std::min(r.count, rest);
    };
    auto why = [&](const kernel_decl& k, unsigned sms) {
        return std::to_string(std::uint64_t{k.grid_x} * k.grid_y) + " CTAs of " +
               std::to_string(k.block_warps()) + " warp(s) on " + std::to_string(sms) +
               " SMs take at least " + approx_time(min_kernel_ps(k, sms, limits)) +
               " of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = " +
               std::to_string(limits.cta_dispatch_interval) +
               " cycles and issues one warp-instruction per cycle)";
    };
    std::vector<bool> reported(wl.kernels.size(), false);
    std::uint64_t total = 0;
    for (std::size_t p = 0; p < wl.schedule.size(); ++p) {
        std::uint64_t phase = 0;
        for (std::size_t ki : wl.schedule[p]) {
            const kernel_decl& k = wl.kernels[ki];
            const unsigned sms = sms_of(k.sms);
            const std::uint64_t t = min_kernel_ps(k, sms, limits);
            phase = std::max(phase, t);
            const char* limit = nullptr;
            std::uint64_t limit_ps = 0;
            if (limits.kernel_timeout_ps != 0 && t > limits.kernel_timeout_ps &&
                (limits.max_time_ps == 0 || limits.kernel_timeout_ps <= limits.max_time_ps)) {
                limit = "host.kernel_timeout";
                limit_ps = limits.kernel_timeout_ps;
            } else if (limits.max_time_ps != 0 && t > limits.max_time_ps) {
                limit = "platform.max_time";
                limit_ps = limits.max_time_ps;
            }
            if (limit && !reported[ki]) {
                reported[ki] = true;
                err(k.where, "kernels[" + std::to_string(ki) + "].grid",
                    why(k, sms) + ", more than " + limit + " (" + format(duration{limit_ps}) + ")");
            }
        }
        total = sat_add(total, phase);
    }
    if (limits.max_time_ps != 0 && total > limits.max_time_ps &&
        std::none_of(reported.begin(), reported.end(), [](bool b) { return b; }))
        err(wl.schedule_where.empty() ? config::location{wl.file} : wl.schedule_where.front(),
            "schedule",
            "the " + std::to_string(wl.schedule.size()) + " phases take at least " +
                approx_time(total) + " of simulated time, more than platform.max_time (" +
                format(duration{limits.max_time_ps}) + ")");
    return errs;
}

namespace {

/// Buffers (indices) whose initial words check c's reference reads: its arguments, then the
/// checked buffer; -1 for a name that is no buffer.
std::vector<int> reference_inputs(const workload& wl, const check_decl& c)
{
    std::vector<int> in;
    if (c.kind != check_kind::reference)
        return in;
    for (const auto& [arg, buf] : c.buffer_args)
        in.push_back(wl.buffer_index(buf));
    in.push_back(wl.buffer_index(c.buffer));
    return in;
}

/// expected_contents of c; `words(b)` gives buffer b's initial words.
template <typename Words>
reference_result expected_with(const workload& wl, const check_decl& c, Words&& words)
{
    const int bi = wl.buffer_index(c.buffer);
    if (bi < 0)
        return {{}, "undefined buffer '" + c.buffer + "'"};
    const buffer_decl& out = wl.buffers[static_cast<std::size_t>(bi)];
    if (c.kind == check_kind::expect)
        return {c.expect, {}};
    reference_args args;
    for (const auto& [arg, buf] : c.buffer_args) {
        const int i = wl.buffer_index(buf);
        if (i < 0)
            return {{}, "undefined buffer '" + buf + "'"};
        args.buffers[arg] = typed_buffer{wl.buffers[static_cast<std::size_t>(i)].type, words(i)};
    }
    for (const auto& [arg, v] : c.scalar_args)
        args.scalars[arg] = v;
    return compute_reference(c.reference, args, typed_buffer{out.type, words(bi)});
}

} // namespace

reference_result expected_contents(const workload& wl, const check_decl& c)
{
    return expected_with(
        wl, c, [&](int b) { return initial_words(wl.buffers[static_cast<std::size_t>(b)]); });
}

std::vector<reference_result> expected_all(const workload& wl,
                                           std::vector<std::vector<std::uint32_t>> initial)
{
    initial.resize(wl.buffers.size());
    std::vector<unsigned> uses(wl.buffers.size(), 0); // reads still to come, per buffer
    for (const check_decl& c : wl.checks)
        for (int b : reference_inputs(wl, c))
            if (b >= 0)
                ++uses[static_cast<std::size_t>(b)];
    std::vector<reference_result> out;
    out.reserve(wl.checks.size());
    for (const check_decl& c : wl.checks) {
        // A check that stops at an undefined buffer leaves the later ones' words in place.
        out.push_back(expected_with(wl, c, [&](int b) -> std::vector<std::uint32_t> {
            const auto i = static_cast<std::size_t>(b);
            std::vector<std::uint32_t>& w = initial[i];
            if (w.empty() && wl.buffers[i].elements != 0)
                w = initial_words(wl.buffers[i]);
            if (--uses[i] == 0)
                return std::move(w); // the last read: taken over
            return w;                // read again later: a copy
        }));
    }
    return out;
}

} // namespace vgpu::host
