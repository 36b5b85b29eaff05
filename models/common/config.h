// Declared, typed, validated configuration: parameters are declared once in each model's config
// struct and read from YAML layers, listed, and written back from that one declaration.
// See docs/configuration.md.
#pragma once

#include "models/common/enum_names.h"
#include "models/common/location.h"
#include "models/common/units.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vgpu::config {

class yaml_document;

/// Documentation and constraints of one parameter, built fluently: spec("doc").range(1, 8).
struct spec {
    explicit spec(std::string d) : doc(std::move(d)) {}
    spec& unit(std::string u)
    {
        units = std::move(u);
        return *this;
    }
    spec& range(double lo_, double hi_)
    {
        lo = lo_;
        hi = hi_;
        return *this;
    }
    spec& min(double lo_)
    {
        lo = lo_;
        return *this;
    }
    spec& pow2()
    {
        power_of_two = true;
        return *this;
    }
    /// A file name: a relative one read from a config file is relative to that file's folder.
    spec& file()
    {
        is_file = true;
        return *this;
    }
    std::string doc;           ///< one-line meaning
    std::string units;         ///< unit shown in the reference (time and size carry their own)
    std::optional<double> lo;  ///< smallest allowed value
    std::optional<double> hi;  ///< largest allowed value
    bool power_of_two = false; ///< value must be a power of two
    bool is_file = false;      ///< value names a file (see file())
};

/// Names mapped to values as written (e.g. workload variables); layers merge per name.
using string_map = std::map<std::string, std::string>;

/// Visits the parameters a config struct declares in its `declare(visitor&)`.
/// Implementations read YAML (yaml_reader), list parameters (param_lister), write YAML.
class visitor {
public:
    virtual ~visitor() = default;
    virtual void enter(const char* section, const char* doc) = 0; ///< open a subsection
    virtual void leave() = 0;                                     ///< close it
    virtual void value(const char* key, bool& v, const spec& s) = 0;
    virtual void value(const char* key, std::uint64_t& v, const spec& s) = 0;
    virtual void value(const char* key, std::int64_t& v, const spec& s) = 0;
    virtual void value(const char* key, double& v, const spec& s) = 0;
    virtual void value(const char* key, std::string& v, const spec& s) = 0;
    virtual void value(const char* key, duration& v, const spec& s) = 0;
    virtual void value(const char* key, byte_size& v, const spec& s) = 0;
    /// A mapping of names to scalar values; a later layer adds or replaces single names.
    virtual void value(const char* key, string_map& v, const spec& s) = 0;
    /// A string that must be one of `choices`.
    virtual void choice(const char* key, std::string& v, const std::vector<std::string>& choices,
                        const spec& s) = 0;

    /// 32-bit unsigned parameter (range clipped to what fits).
    void value(const char* key, unsigned& v, const spec& s);
    /// An enum parameter spelled by name in YAML, with the spellings of `enum_names<E>`.
    template <class E> void choice(const char* key, E& v, const spec& s);
    /// A subsection whose type has `declare(visitor&)`.
    template <class T> void section(const char* name, T& sub, const char* doc)
    {
        enter(name, doc);
        sub.declare(*this);
        leave();
    }
};

/// Which layer last set each parameter path, so later checks can point at the right line.
using provenance = std::map<std::string, location>;
/// The index of the layer that last set each parameter path (later layers have larger ones).
using layer_ranks = std::map<std::string, std::size_t>;

/// Cross-field checks of a config struct (`validate(checker&) const`) report through this.
class checker {
public:
    /// Layers of rank below `default_layers` hold defaults (the embedded default platform).
    /// Warnings (warn()) go to `warnings` (none are kept when it is null).
    checker(errors& errs, const provenance& prov, const layer_ranks* ranks = nullptr,
            std::size_t default_layers = 0, std::vector<std::string>* warnings = nullptr)
        : m_errs(errs), m_prov(prov), m_ranks(ranks), m_default_layers(default_layers),
          m_warnings(warnings)
    {
    }
    /// Reports a problem with `path` at the place that set it.
    void error(const std::string& path, const std::string& problem);
    /// One key of a cross-field rule and its value as a message shows it.
    struct key_value {
        std::string path;  ///< "l1.line_bytes"
        std::string value; ///< "4096", "2 MiB", "timed"
    };
    /// Reports a rule that `keys` break together. The message goes to the key a layer set last
    /// (the user's rather than a default; among keys of one layer, or when none was set, the
    /// first listed), at the place that set it, and names every key with its value and where it
    /// comes from, then how to resolve it:
    /// "<key>: <rule> (<key> is <v>; <other> is <v>, the default; <other> is <v>, set at
    /// <where>); <fix>".
    void conflict(const std::vector<key_value>& keys, const std::string& rule,
                  const std::string& fix);
    /// True when a layer set `path` explicitly (rather than leaving the default).
    bool is_set(const std::string& path) const { return m_prov.count(path) != 0; }
    /// True when a layer after the defaults (a -c file, -s, ...) set `path`, whatever value.
    bool set_by_user(const std::string& path) const;
    /// Every parameter path some layer set, with where (the defaults' included).
    const provenance& sources() const { return m_prov; }
    /// Reports a setting that is valid but has no effect: "<where>: warning: <path>: <problem>"
    /// at the place that set it.
    void warn(const std::string& path, const std::string& problem);

private:
    errors& m_errs;
    const provenance& m_prov;
    const layer_ranks* m_ranks;
    std::size_t m_default_layers;
    std::vector<std::string>* m_warnings;
};

/// A YAML document (file, embedded default or -s override) read onto a config struct.
struct layer {
    std::string name;                         ///< file name or "-s key=value"
    std::shared_ptr<const yaml_document> doc; ///< the checked document
    bool from_file = false; ///< name is a file: relative file values are relative to its folder
};

/// Loads layers in order (later wins) and applies them to a root config struct.
class loader {
public:
    loader();
    ~loader();
    /// Adds a YAML file; a missing, unreadable or too large (max_input_bytes) file and a
    /// rejected document (yaml_document) are recorded as errors.
    void add_file(const std::string& path);
    /// Adds YAML text under a display name.
    void add_text(const std::string& text, const std::string& name);
    /// Adds YAML text of defaults (the embedded default platform), before any other layer:
    /// cross-field messages call its values defaults, like those of the declarations.
    void add_defaults(const std::string& text, const std::string& name);
    /// Adds a "key.path=value" override; malformed assignments and key paths of more than
    /// max_nesting names are recorded as errors.
    /// Messages name the layer `shown_as` (default "-s key.path=value").
    void add_override(const std::string& assignment, const std::string& shown_as = {});
    /// Records an error found outside the layers (e.g. a malformed command-line option).
    void add_error(const location& where, const std::string& path, const std::string& problem)
    {
        m_errors.add(where, path, problem);
    }
    /// Reads every layer onto `cfg`, then runs `cfg.validate`; true when no error was found.
    template <class Root> bool apply(Root& cfg)
    {
        for (std::size_t i = 0; i < m_layers.size(); ++i)
            read_layer(m_layers[i], i, [&](visitor& v) { cfg.declare(v); });
        checker c(m_errors, m_provenance, &m_ranks, m_default_layers, &m_warnings);
        cfg.validate(c);
        return m_errors.empty();
    }
    /// Runs a check of the applied configuration (after apply()): its errors join errs(), its
    /// warnings warnings(). True when no error was found.
    bool check(const std::function<void(checker&)>& f);
    const errors& errs() const { return m_errors; }
    /// Warnings of the checks, each "file:line:col: warning: key.path: problem", in order.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    /// Where each parameter set by a layer was set (after apply()).
    const provenance& sources() const { return m_provenance; }

private:
    void add_layer(const std::string& text, const std::string& name, bool from_file);
    template <class F> void read_layer(const layer& l, std::size_t rank, F declare);
    void read_layer_impl(const layer& l, std::size_t rank, void (*call)(void*, visitor&),
                         void* ctx);
    std::vector<layer> m_layers;
    errors m_errors;
    std::vector<std::string> m_warnings;
    provenance m_provenance;
    layer_ranks m_ranks;
    std::size_t m_default_layers = 0; ///< the first layers, added by add_defaults()
};

/// One row of the parameter reference.
struct param_doc {
    std::string path, type, default_value, unit, range, doc;
};

/// Lists every declared parameter with its current value as the default.
class param_lister : public visitor {
public:
    std::vector<param_doc> rows;                               ///< in declaration order
    std::vector<std::pair<std::string, std::string>> sections; ///< path, doc
    void enter(const char* section, const char* doc) override;
    void leave() override;
    void value(const char* key, bool& v, const spec& s) override;
    void value(const char* key, std::uint64_t& v, const spec& s) override;
    void value(const char* key, std::int64_t& v, const spec& s) override;
    void value(const char* key, double& v, const spec& s) override;
    void value(const char* key, std::string& v, const spec& s) override;
    void value(const char* key, duration& v, const spec& s) override;
    void value(const char* key, byte_size& v, const spec& s) override;
    void value(const char* key, string_map& v, const spec& s) override;
    void choice(const char* key, std::string& v, const std::vector<std::string>& choices,
                const spec& s) override;
    using visitor::choice;
    using visitor::value;

private:
    void add(const char* key, const char* type, std::string def, const spec& s,
             std::string range = {});
    std::vector<std::string> m_path;
};

/// Renders the lister's rows as the Markdown configuration reference.
std::string to_markdown(const param_lister& l);

/// Writes the values of a config struct as YAML (the effective configuration).
std::string to_yaml(const std::function<void(visitor&)>& declare);

/// Closest candidate to `word` by edit distance, or "" when none is close enough.
std::string suggest(const std::string& word, const std::vector<std::string>& candidates);

// ---- template implementations ----

template <class E> void visitor::choice(const char* key, E& v, const spec& s)
{
    std::vector<std::string> choices;
    for (const auto& [name, value] : enum_names<E>::table)
        choices.emplace_back(name);
    std::string current(name_of(v));
    choice(key, current, choices, s);
    if (const auto chosen = enum_from_name<E>(current))
        v = *chosen;
}

template <class F> void loader::read_layer(const layer& l, std::size_t rank, F declare)
{
    read_layer_impl(
        l, rank, [](void* ctx, visitor& v) { (*static_cast<F*>(ctx))(v); }, &declare);
}

} // namespace vgpu::config
