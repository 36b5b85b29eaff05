// Located YAML input shared by the configuration and workload readers: size-capped files, checked
// documents, node positions, key checks, typed scalars. See docs/workloads.md, "Input limits".
#pragma once

#include "models/common/location.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::config {

/// Largest input file (configuration or workload) read; a longer one is an error.
constexpr std::uint64_t max_input_bytes = 64ull << 20;
/// Deepest nesting of mappings and lists in a document (or key path of an -s override).
constexpr unsigned max_nesting = 64;
/// Most nodes a document may reach through its aliases (each alias counts the nodes of what its
/// anchor names, aliases inside included); nodes written out in the text do not count.
constexpr std::uint64_t max_alias_nodes = 1000000;

/// The contents of the file at path (at most max_input_bytes), or nullopt after reporting why
/// not: cannot open, a directory, too large, a read error. `kind` names it ("workload file").
std::optional<std::string> read_input_file(const std::string& path, const std::string& kind,
                                           errors& errs);

/// A run of a scalar's value that sits in the file from line:col on (see yaml_document::runs).
struct text_run {
    std::size_t at = 0; ///< offset in the value where the run starts
    int line = 0;       ///< 1-based file line of that character
    int col = 0;        ///< 1-based file column; later characters of the run follow on the line
};

/// One YAML document with its name and text, checked before any reader sees it.
class yaml_document {
public:
    /// Parses text; a syntax error, a NUL character, a tab used for indentation, nesting
    /// deeper than max_nesting, an alias inside its own anchor, aliases reaching more than
    /// max_alias_nodes nodes or a second document is reported to errs and leaves ok() false.
    yaml_document(std::string text, std::string name, errors& errs);
    /// A document built in memory (an -s override): no positions, messages name `name`.
    yaml_document(YAML::Node root, std::string name);

    bool ok() const { return m_ok; }                       ///< usable
    const YAML::Node& root() const { return m_root; }      ///< the document's top node
    const std::string& name() const { return m_name; }     ///< file name or description
    const std::string& text() const { return m_text; }     ///< the text ("" when built)
    bool has_positions() const { return m_has_positions; } ///< marks point into text()
    location where(const YAML::Node& n) const;             ///< n's position, or just the name
    std::size_t offset(const YAML::Node& n) const;         ///< text offset of n (size if none)
    location at_offset(std::size_t off) const;             ///< position of a text offset
    /// Where each character of a scalar's value sits in the file: runs in increasing `at`,
    /// one per stretch the file holds unchanged (a line, the text between two escapes); empty
    /// when the value cannot be traced (a folded block, or no positions).
    std::vector<text_run> runs(const YAML::Node& scalar) const;

private:
    bool check(errors& errs);
    std::size_t offset_of(const YAML::Mark& m) const;
    std::vector<text_run> block_runs(std::size_t off, const std::string& value) const;
    std::vector<text_run> flow_runs(std::size_t off, const std::string& value) const;

    std::string m_text;
    std::string m_name;
    YAML::Node m_root;
    bool m_ok = false;
    bool m_has_positions = true;
    std::vector<std::size_t> m_starts; ///< offset of each line
};

/// A key of a mapping and its value, with the value's key path for messages.
struct field {
    YAML::Node key;   ///< the key node
    YAML::Node value; ///< the value node (null when empty)
    std::string path; ///< "section.key" or "list[2].key"
};

/// The entries of a mapping, indexed by name (see yaml_input::index).
struct fields {
    std::map<std::string, field> found; ///< the first entry of each key
    std::vector<field> entries;         ///< every entry, duplicates included, in file order
    /// The entry called k, or nullptr.
    const field* get(const std::string& k) const
    {
        auto it = found.find(k);
        return it == found.end() ? nullptr : &it->second;
    }
};

/// A scalar converted to T, or why not: "wrong type (expected X, got 'text')" or
/// "value out of range (expected lo..hi, got text)".
template <class T> struct converted {
    std::optional<T> value;    ///< the value, when the text is one
    std::string problem;       ///< otherwise the problem, ready for a message
    bool out_of_range = false; ///< the text is a number of the right kind, beyond the range
};

/// "wrong type (expected <expected>, got <got>)".
std::string wrong_type(const std::string& expected, const std::string& got);
/// "value out of range (expected <expected>, got <text>)".
std::string out_of_range(const std::string& expected, const std::string& text);
/// An unsigned integer (decimal or 0x hex, no sign, no leading zero) in lo..hi.
converted<std::uint64_t> to_uint(const std::string& text, std::uint64_t lo = 0,
                                 std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
/// A signed 64-bit integer (decimal or 0x hex, no leading zero).
converted<std::int64_t> to_int(const std::string& text);
/// A finite number: an integer as above, or a decimal ("2.5", "-1e-3"; no hex floats).
converted<double> to_number(const std::string& text);
/// One of `choices`, with "did you mean" for a near miss.
converted<std::string> to_choice(const std::string& text, const std::vector<std::string>& choices);
/// Closest candidate to `word` by edit distance, or "" when none is close enough.
std::string suggest(const std::string& word, const std::vector<std::string>& candidates);
/// " (did you mean 'x'?)" when a candidate is close to word, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
/// Names joined with `sep`.
std::string join(const std::vector<std::string>& parts, const char* sep);

/// Reads one document: locates nodes, describes them, checks the keys of mappings and reports
/// every problem as "file:line:col: error: key.path: problem".
class yaml_input {
public:
    /// `mapping` is how messages call a mapping ("a section" in configuration files).
    yaml_input(const yaml_document& doc, errors& errs, std::string mapping = "a mapping")
        : m_doc(doc), m_errs(errs), m_mapping(std::move(mapping))
    {
    }
    const yaml_document& doc() const { return m_doc; }        ///< the document read
    std::size_t error_count() const { return m_errs.size(); } ///< errors reported so far
    /// Adds a message that already carries its position (e.g. the assembler's).
    void add_raw(std::string message) { m_errs.add_raw(std::move(message)); }

    location where(const YAML::Node& n) const { return m_doc.where(n); } ///< n's position
    location where(const field& f) const; ///< the value's position; the key's when it is empty
    void error(const location& l, const std::string& path, const std::string& problem)
    {
        m_errs.add(l, path, problem);
    }
    void error(const YAML::Node& n, const std::string& path, const std::string& problem)
    {
        error(where(n), path, problem);
    }
    /// How a message shows a node: "a mapping", "a list", "nothing" or "'text'".
    std::string what(const YAML::Node& n) const;
    /// Reports "wrong type (expected <expected>, got <what the value is>)" at where(f).
    void wrong_type(const field& f, const std::string& expected);

    /// The entries of mapping n; reports nothing.
    fields index(const YAML::Node& n, const std::string& path) const;
    /// Reports duplicate keys and keys not in `known` (with a suggestion), in file order.
    void check_keys(const fields& f, const std::vector<std::string>& known);
    /// index() then check_keys(); only the known keys are kept.
    fields open(const YAML::Node& n, const std::string& path,
                const std::vector<std::string>& known);
    /// Reports a missing key of the mapping at n.
    bool require(const fields& f, const YAML::Node& n, const std::string& path, const char* key);

    /// The scalar text of f; reports anything else as wrong_type(f, expected).
    std::optional<std::string> scalar(const field& f, const std::string& expected);
    /// An unsigned integer of f in lo..hi.
    std::optional<std::uint64_t> uint(const field& f, std::uint64_t lo, std::uint64_t hi);
    /// The same for a node (a list element) reported at `at`.
    std::optional<std::uint64_t> uint(const YAML::Node& v, const std::string& path,
                                      std::uint64_t lo, std::uint64_t hi, const YAML::Node& at);
    /// A finite number of f.
    std::optional<double> number(const field& f);
    /// The same for a node reported at `at`.
    std::optional<double> number(const YAML::Node& v, const std::string& path,
                                 const YAML::Node& at);
    /// One of `choices` for f.
    std::optional<std::string> choice(const field& f, const std::vector<std::string>& choices);

private:
    const yaml_document& m_doc;
    errors& m_errs;
    std::string m_mapping;
};

} // namespace vgpu::config
