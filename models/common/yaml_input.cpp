// Located YAML input shared by the configuration and workload readers.
// See docs/workloads.md, "Input limits".
#include "models/common/yaml_input.h"

#include "models/common/edit_distance.h"
#include "models/common/units.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
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

std::optional<std::string> read_input_file(const std::string& path, const std::string& kind,
                                           errors& errs)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        errs.add({path}, "", "is a directory, not a " + kind);
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        errs.add({path}, "", "cannot open " + kind);
        return std::nullopt;
    }
    // Read in pieces and stop past the cap, so that a device or a fifo cannot fill the memory.
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_input_bytes) {
            errs.add({path}, "",
                     "the " + kind + " is larger than " + std::to_string(max_input_bytes >> 20) +
                         " MiB (the limit of an input file)");
            return std::nullopt;
        }
    }
    if (in.bad()) {
        errs.add({path}, "", "cannot read " + kind);
        return std::nullopt;
    }
    return text;
}

// ---- yaml_document ----

yaml_document::yaml_document(std::string text, std::string name, errors& errs)
    : m_text(std::move(text)), m_name(std::move(name))
{
    m_starts.push_back(0);
    for (std::size_t i = 0; i < m_text.size(); ++i)
        if (m_text[i] == '\n')
            m_starts.push_back(i + 1);
    m_ok = check(errs);
}

yaml_document::yaml_document(YAML::Node root, std::string name)
    : m_name(std::move(name)), m_root(std::move(root)), m_ok(true), m_has_positions(false)
{
    m_starts.push_back(0);
}

namespace {

/// Finds nesting deeper than max_nesting, aliases inside their own anchor, and NUL characters
/// in values (a "\0" escape). Each collection is visited once, however many aliases name it.
class structure_check {
public:
    structure_check(const yaml_document& doc, errors& errs) : m_doc(doc), m_errs(errs) {}

    /// True when n and everything below it is fine.
    bool run(const YAML::Node& n)
    {
        visit(n, 1);
        return m_ok;
    }

private:
    /// Height of n (1 for a scalar); 0 after an error.
    unsigned visit(const YAML::Node& n, unsigned depth)
    {
        if (!m_ok)
            return 0;
        if (depth > max_nesting) {
            fail(n, "nesting deeper than " + std::to_string(max_nesting) + " levels");
            return 0;
        }
        if (n.IsScalar()) {
            if (n.Scalar().find('\0') != std::string::npos)
                fail(n, "a NUL character (\"\\0\") is not allowed in a value");
            return 1;
        }
        if (!n.IsMap() && !n.IsSequence())
            return 1;
        // An alias is the node its anchor names: the same node, met again.
        for (const YAML::Node& o : m_open) {
            if (o.is(n)) {
                fail(n, "an alias inside the node its anchor names (a cycle)");
                return 0;
            }
        }
        auto& seen = m_height[n.Mark().pos];
        for (const auto& [node, height] : seen) {
            if (node.is(n)) {
                if (depth + height - 1 > max_nesting)
                    fail(n, "nesting deeper than " + std::to_string(max_nesting) + " levels");
                return height;
            }
        }
        m_open.push_back(n);
        unsigned height = 1;
        for (auto it = n.begin(); it != n.end() && m_ok; ++it) {
            if (n.IsMap()) {
                height = std::max(height, 1 + visit(it->first, depth + 1));
                height = std::max(height, 1 + visit(it->second, depth + 1));
            } else {
                height = std::max(height, 1 + visit(*it, depth + 1));
            }
        }
        m_open.pop_back();
        m_height[n.Mark().pos].emplace_back(n, height);
        return m_ok ? height : 0;
    }

    void fail(const YAML::Node& n, const std::string& problem)
    {
        if (m_ok)
            m_errs.add(m_doc.where(n), "", problem);
        m_ok = false;
    }

    const yaml_document& m_doc;
    errors& m_errs;
    /// Heights of the collections seen, by mark offset (aliases share their anchor's mark).
    std::map<int, std::vector<std::pair<YAML::Node, unsigned>>> m_height;
    std::vector<YAML::Node> m_open; ///< the collections being visited, outermost first
    bool m_ok = true;
};

/// Notes where the first node of a document is, and counts the nodes its aliases reach (parser
/// events, no tree built). yaml-cpp makes an alias the node its anchor names, so the tree stays
/// small, but whatever walks it (variable substitution, copies) meets that node once per alias:
/// a nest of aliases to aliases reaches 2^n nodes from n lines ("billion laughs").
class first_node : public YAML::EventHandler {
public:
    std::optional<YAML::Mark> mark;  ///< the first scalar, alias, list or mapping
    std::optional<YAML::Mark> start; ///< where the document starts
    /// The alias at which the nodes reached through aliases pass max_alias_nodes, if one does.
    std::optional<YAML::Mark> alias_bomb;

    void OnDocumentStart(const YAML::Mark& m) override { start = m; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { leaf(anchor); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override
    {
        note(m);
        // An alias to an anchor still open (a cycle) counts one: the structure check names it.
        const auto it = m_size.find(anchor);
        const std::uint64_t reached = it == m_size.end() ? 1 : it->second;
        m_reached = std::min(m_reached + reached, cap);
        if (m_reached > max_alias_nodes && !alias_bomb)
            alias_bomb = m;
        add(reached);
    }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                  const std::string&) override
    {
        note(m);
        leaf(anchor);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        note(m);
        m_open.push_back({anchor, 1});
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        note(m);
        m_open.push_back({anchor, 1});
    }
    void OnMapEnd() override { close(); }

private:
    /// Counts saturate here, far above the limit and far below overflow.
    static constexpr std::uint64_t cap = std::uint64_t{1} << 62;

    void note(const YAML::Mark& m)
    {
        if (!mark)
            mark = m;
    }
    /// Adds n nodes to the collection being read.
    void add(std::uint64_t n)
    {
        if (!m_open.empty())
            m_open.back().second = std::min(m_open.back().second + n, cap);
    }
    void leaf(YAML::anchor_t anchor)
    {
        if (anchor != YAML::NullAnchor)
            m_size[anchor] = 1;
        add(1);
    }
    void close()
    {
        const auto [anchor, size] = m_open.back();
        m_open.pop_back();
        if (anchor != YAML::NullAnchor)
            m_size[anchor] = size;
        add(size);
    }

    /// Nodes under each anchor read so far, counting what its own aliases reach.
    std::map<YAML::anchor_t, std::uint64_t> m_size;
    /// The collections being read (anchor, nodes so far), outermost first.
    std::vector<std::pair<YAML::anchor_t, std::uint64_t>> m_open;
    std::uint64_t m_reached = 0; ///< nodes reached through aliases so far
};

/// Offset of the first byte of text that is not well-formed UTF-8 (overlong forms, surrogates
/// and code points past U+10FFFF included), or npos.
std::size_t first_invalid_utf8(const std::string& text)
{
    std::size_t i = 0;
    while (i < text.size()) {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b < 0x80) {
            ++i;
            continue;
        }
        // Lead byte: sequence length and the allowed range of the second byte (RFC 3629).
        unsigned n = 0, lo = 0x80, hi = 0xbf;
        if (b >= 0xc2 && b <= 0xdf)
            n = 2;
        else if (b >= 0xe0 && b <= 0xef)
            n = 3, lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
        else if (b >= 0xf0 && b <= 0xf4)
            n = 4, lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
        else
            return i;
        for (unsigned k = 1; k < n; ++k) {
            if (i + k >= text.size())
                return i;
            const auto c = static_cast<unsigned char>(text[i + k]);
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xbf))
                return i;
        }
        i += n;
    }
    return std::string::npos;
}

} // namespace

std::size_t yaml_document::offset_of(const YAML::Mark& m) const
{
    const auto line = static_cast<std::size_t>(std::max(0, m.line));
    if (m.is_null() || line >= m_starts.size())
        return m_text.size();
    return std::min(m_text.size(), m_starts[line] + static_cast<std::size_t>(m.column));
}

bool yaml_document::check(errors& errs)
{
    if (const std::size_t nul = m_text.find('\0'); nul != std::string::npos) {
        errs.add(at_offset(nul), "", "a NUL character is not allowed in YAML text");
        return false;
    }
    // YAML text is Unicode. (This also stops the fuzzing input ",\xcbp" before yaml-cpp 0.7,
    // which never returns on it; ",!p" hangs it too: a leading ',' is the open cause.)
    if (const std::size_t bad = first_invalid_utf8(m_text); bad != std::string::npos) {
        errs.add(at_offset(bad), "", "YAML text must be UTF-8 (a byte here is not)");
        return false;
    }
    std::optional<std::size_t> first, second; // where each document's first node is
    std::optional<std::size_t> stuck;         // where yaml-cpp stopped making progress
    std::optional<YAML::Mark> alias_bomb;     // where aliases reached too many nodes
    try {
        m_root = YAML::Load(m_text);
        // Read on: a second document with content, or text yaml-cpp skipped. (Not LoadAll: at
        // text it cannot place, yaml-cpp returns the same empty document without end.)
        std::istringstream in(m_text);
        YAML::Parser parser(in);
        first_node a;
        if (parser.HandleNextDocument(a)) {
            first = a.mark ? std::optional<std::size_t>(offset_of(*a.mark)) : std::nullopt;
            alias_bomb = a.alias_bomb;
            std::optional<YAML::Mark> prev = a.start;
            std::size_t empty = 0; // each empty document takes a line ("---")
            for (first_node next; parser.HandleNextDocument(next); next = first_node()) {
                if (next.mark) {
                    second = offset_of(*next.mark);
                    break;
                }
                if ((next.start && prev && next.start->pos == prev->pos) ||
                    ++empty > m_starts.size()) {
                    stuck = offset_of(*next.start);
                    break;
                }
                prev = next.start;
            }
        }
    } catch (const YAML::DeepRecursion& e) {
        errs.add({m_name, e.mark.line + 1, e.mark.column + 1}, "",
                 "nesting deeper than " + std::to_string(max_nesting) + " levels");
        return false;
    } catch (const YAML::ParserException& e) {
        // yaml-cpp says "illegal map value" or "illegal tab ..." for a tab in the indentation.
        const auto line = static_cast<std::size_t>(std::max(0, e.mark.line));
        if (line < m_starts.size()) {
            std::size_t i = m_starts[line];
            while (i < m_text.size() && m_text[i] == ' ')
                ++i;
            if (i < m_text.size() && m_text[i] == '\t') {
                errs.add(at_offset(i), "",
                         "a tab character is not allowed in indentation (indent with spaces)");
                return false;
            }
        }
        errs.add({m_name, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
        return false;
    }
    if (stuck) {
        const char c = *stuck < m_text.size() ? m_text[*stuck] : ' ';
        errs.add(at_offset(*stuck), "",
                 std::isgraph(static_cast<unsigned char>(c))
                     ? std::string("YAML syntax error: unexpected '") + c + "'"
                     : std::string("YAML syntax error: unexpected text"));
        return false;
    }
    if (second) {
        // A "---" after the first document's start marks a second document; without one,
        // yaml-cpp ended the document at text it could not place.
        for (std::size_t l = m_starts.size(); l-- > 0;) {
            if (m_starts[l] <= *second && m_starts[l] > first.value_or(0) &&
                m_text.compare(m_starts[l], 3, "---") == 0) {
                errs.add(at_offset(m_starts[l]), "",
                         "a second YAML document (after '---'); a file holds one document");
                return false;
            }
        }
        errs.add(at_offset(*second), "",
                 "YAML syntax error: text that is not part of the document");
        return false;
    }
    if (alias_bomb) {
        errs.add({m_name, alias_bomb->line + 1, alias_bomb->column + 1}, "",
                 "aliases reach more than " + std::to_string(max_alias_nodes) +
                     " nodes (the limit of nodes reached through aliases; write the values out)");
        return false;
    }
    return structure_check(*this, errs).run(m_root);
}

location yaml_document::where(const YAML::Node& n) const
{
    if (!m_has_positions || !n.IsDefined() || n.Mark().is_null())
        return {m_name};
    return {m_name, n.Mark().line + 1, n.Mark().column + 1};
}

std::size_t yaml_document::offset(const YAML::Node& n) const
{
    if (!m_has_positions || !n.IsDefined())
        return m_text.size();
    return offset_of(n.Mark());
}

location yaml_document::at_offset(std::size_t off) const
{
    const auto it = std::upper_bound(m_starts.begin(), m_starts.end(), off);
    const auto line = static_cast<std::size_t>(it - m_starts.begin()) - 1;
    return {m_name, static_cast<int>(line) + 1, static_cast<int>(off - m_starts[line]) + 1};
}

std::vector<text_run> yaml_document::runs(const YAML::Node& n) const
{
    if (!m_has_positions || !n.IsScalar() || n.Mark().is_null())
        return {};
    const std::size_t off = offset(n);
    if (off >= m_text.size())
        return {};
    if (m_text[off] == '|' || m_text[off] == '>')
        return block_runs(off, n.Scalar());
    return flow_runs(off, n.Scalar());
}

std::vector<text_run> yaml_document::block_runs(std::size_t off, const std::string& value) const
{
    // The text starts on the line after the header; each line of a literal block (|) is a line
    // of the file, ending where the file's line ends (the indentation is what comes before).
    const auto first = static_cast<std::size_t>(at_offset(off).line); // 0-based: the next line
    int indent = 0; // of the first non-blank line, for blank lines
    for (std::size_t l = first; l < m_starts.size(); ++l) {
        std::size_t i = m_starts[l];
        while (i < m_text.size() && m_text[i] == ' ')
            ++i;
        if (i < m_text.size() && m_text[i] != '\n' && m_text[i] != '\r') {
            indent = static_cast<int>(i - m_starts[l]);
            break;
        }
    }
    std::vector<text_run> out;
    for (std::size_t l = first, at = 0; at <= value.size(); ++l) {
        const std::size_t end = std::min(value.find('\n', at), value.size());
        const std::size_t len = end - at;
        int col = indent + 1;
        if (l < m_starts.size() && len > 0) {
            std::size_t line_end = m_text.find('\n', m_starts[l]);
            line_end = line_end == std::string::npos ? m_text.size() : line_end;
            if (line_end > m_starts[l] && m_text[line_end - 1] == '\r')
                --line_end;
            if (line_end - m_starts[l] >= len &&
                m_text.compare(line_end - len, len, value, at, len) == 0)
                col = static_cast<int>(line_end - len - m_starts[l]) + 1;
        }
        out.push_back({at, static_cast<int>(l) + 1, col});
        if (m_text[off] == '>' || end == value.size())
            break; // a folded block (>) joins lines: only its start is known
        at = end + 1;
    }
    return out;
}

namespace {

int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// The characters a double-quoted escape `\e` stands for ("" if not a one-letter escape).
std::string simple_escape(char e)
{
    switch (e) {
    case '0':
        return std::string(1, '\0');
    case 'a':
        return "\a";
    case 'b':
        return "\b";
    case 't':
    case '\t':
        return "\t";
    case 'n':
        return "\n";
    case 'v':
        return "\v";
    case 'f':
        return "\f";
    case 'r':
        return "\r";
    case 'e':
        return "\x1b";
    case ' ':
    case '"':
    case '/':
    case '\\':
        return std::string(1, e);
    case 'N':
        return "\xC2\x85";
    case '_':
        return "\xC2\xA0";
    case 'L':
        return "\xE2\x80\xA8";
    case 'P':
        return "\xE2\x80\xA9";
    default:
        return {};
    }
}

} // namespace

std::vector<text_run> yaml_document::flow_runs(std::size_t off, const std::string& value) const
{
    // Decode the scalar as YAML does (escapes, '' in single quotes, line folding), noting where
    // each character comes from; trust the result only when it gives yaml-cpp's value.
    const std::string& t = m_text;
    const char quote = (t[off] == '"' || t[off] == '\'') ? t[off] : '\0';
    std::size_t i = quote ? off + 1 : off;
    std::string out;
    std::vector<text_run> runs;
    std::size_t last = std::string::npos;
    const auto emit = [&](std::size_t from, const std::string& chars) {
        for (char c : chars) {
            if (last == std::string::npos || from != last + 1 || runs.empty()) {
                const location l = at_offset(from);
                runs.push_back({out.size(), l.line, l.col});
            }
            out += c;
            last = from;
        }
    };
    const auto is_break = [&](std::size_t k) {
        return k < t.size() && (t[k] == '\n' || t[k] == '\r');
    };
    const auto skip_break = [&](std::size_t k) {
        if (t[k] == '\r' && k + 1 < t.size() && t[k + 1] == '\n')
            ++k;
        return k + 1;
    };
    while (i < t.size() && (quote || out.size() < value.size())) {
        const char c = t[i];
        if (quote && c == quote) {
            if (quote == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
                emit(i, "'");
                i += 2;
                continue;
            }
            break;
        }
        if (quote == '"' && c == '\\' && i + 1 < t.size()) {
            const char e = t[i + 1];
            if (is_break(i + 1)) { // an escaped line break joins the lines
                i = skip_break(i + 1);
                while (i < t.size() && (t[i] == ' ' || t[i] == '\t'))
                    ++i;
                continue;
            }
            std::string chars = simple_escape(e);
            std::size_t len = 2;
            if (chars.empty()) {
                const int digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
                if (digits == 0 || i + 2 + digits > t.size())
                    return {};
                std::uint32_t cp = 0;
                for (int k = 0; k < digits; ++k) {
                    const int h = hex_digit(t[i + 2 + k]);
                    if (h < 0)
                        return {};
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                }
                append_utf8(chars, cp);
                len += digits;
            }
            emit(i, chars);
            i += len;
            continue;
        }
        if (c == ' ' || c == '\t') {
            std::size_t j = i;
            while (j < t.size() && (t[j] == ' ' || t[j] == '\t'))
                ++j;
            if (!is_break(j)) {
                for (; i < j; ++i)
                    emit(i, std::string(1, t[i]));
            }
            i = j; // blanks before a line break are dropped
            continue;
        }
        if (is_break(i)) {
            // Folding: one line break becomes a space, n > 1 of them n - 1 newlines; the
            // next line's leading blanks are dropped.
            const std::size_t first = i;
            int breaks = 0;
            while (is_break(i)) {
                i = skip_break(i);
                ++breaks;
                while (i < t.size() && (t[i] == ' ' || t[i] == '\t'))
                    ++i;
            }
            emit(first,
                 breaks == 1 ? " " : std::string(static_cast<std::size_t>(breaks - 1), '\n'));
            continue;
        }
        emit(i, std::string(1, c));
        ++i;
    }
    if (out != value)
        return {};
    if (runs.empty())
        runs.push_back({0, at_offset(i).line, at_offset(i).col});
    return runs;
}

// ---- conversions ----

std::string wrong_type(const std::string& expected, const std::string& got)
{
    return "wrong type (expected " + expected + ", got " + got + ")";
}

std::string out_of_range(const std::string& expected, const std::string& text)
{
    return "value out of range (expected " + expected + ", got " + text + ")";
}

namespace {

/// True when text is digits (or 0x and hex digits) without a leading zero: an integer that
/// failed to convert only because it is too large.
bool is_integer_text(std::string_view text)
{
    if (!text.empty() && text[0] == '-')
        text.remove_prefix(1);
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return std::all_of(text.begin() + 2, text.end(), [](char c) { return hex_digit(c) >= 0; });
    return !text.empty() && text[0] != '0' && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

} // namespace

converted<std::uint64_t> to_uint(const std::string& text, std::uint64_t lo, std::uint64_t hi)
{
    const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
    const auto v = parse_uint(text);
    if (!v) {
        if (is_integer_text(text) && text[0] != '-')
            return {std::nullopt, out_of_range(range, text), true};
        return {std::nullopt, wrong_type("an unsigned integer", "'" + text + "'")};
    }
    if (*v < lo || *v > hi)
        return {std::nullopt, out_of_range(range, text), true};
    return {v, {}};
}

converted<std::int64_t> to_int(const std::string& text)
{
    const auto v = parse_int(text);
    if (!v) {
        if (is_integer_text(text))
            return {std::nullopt, out_of_range("-9223372036854775808..9223372036854775807", text),
                    true};
        return {std::nullopt, wrong_type("an integer", "'" + text + "'")};
    }
    return {v, {}};
}

converted<double> to_number(const std::string& text)
{
    if (auto i = parse_int(text))
        return {static_cast<double>(*i), {}};
    if (auto u = parse_uint(text))
        return {static_cast<double>(*u), {}};
    if (auto d = parse_double(text))
        return {*d, {}};
    return {std::nullopt, wrong_type("a number", "'" + text + "'")};
}

converted<std::string> to_choice(const std::string& text, const std::vector<std::string>& choices)
{
    if (std::find(choices.begin(), choices.end(), text) != choices.end())
        return {text, {}};
    const std::string hint = suggest(text, choices);
    return {std::nullopt, "invalid choice (expected one of " + join(choices, "|") + ", got '" +
                              text + "'" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                              ")"};
}

std::string suggest(const std::string& word, const std::vector<std::string>& candidates)
{
    std::string best;
    std::size_t best_d = std::max<std::size_t>(1, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates)
{
    const std::string h = suggest(word, candidates);
    return h.empty() ? "" : " (did you mean '" + h + "'?)";
}

std::string join(const std::vector<std::string>& parts, const char* sep)
{
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : sep) + p;
    return out;
}

// ---- yaml_input ----

location yaml_input::where(const field& f) const
{
    return where(f.value.IsNull() ? f.key : f.value);
}

std::string yaml_input::what(const YAML::Node& n) const
{
    if (n.IsMap())
        return m_mapping;
    if (n.IsSequence())
        return "a list";
    if (!n.IsDefined() || n.IsNull())
        return "nothing";
    return "'" + n.Scalar() + "'";
}

void yaml_input::wrong_type(const field& f, const std::string& expected)
{
    error(where(f), f.path, config::wrong_type(expected, what(f.value)));
}

fields yaml_input::index(const YAML::Node& n, const std::string& path) const
{
    fields out;
    for (auto it = n.begin(); it != n.end(); ++it) {
        YAML::Node k, v;
        k.reset(it->first);
        v.reset(it->second);
        const std::string name = k.IsScalar() ? k.Scalar() : "?";
        field f{k, v, path.empty() ? name : path + "." + name};
        out.found.emplace(name, f);
        out.entries.push_back(std::move(f));
    }
    return out;
}

void yaml_input::check_keys(const fields& f, const std::vector<std::string>& known)
{
    std::set<std::string> seen;
    for (const field& e : f.entries) {
        const std::string name = e.key.IsScalar() ? e.key.Scalar() : "?";
        if (!seen.insert(name).second)
            error(e.key, e.path, "duplicate key");
        else if (std::find(known.begin(), known.end(), name) == known.end())
            error(e.key, e.path, "unknown key" + did_you_mean(name, known));
    }
}

fields yaml_input::open(const YAML::Node& n, const std::string& path,
                        const std::vector<std::string>& known)
{
    fields f = index(n, path);
    check_keys(f, known);
    for (auto it = f.found.begin(); it != f.found.end();)
        it = std::find(known.begin(), known.end(), it->first) == known.end() ? f.found.erase(it)
                                                                             : std::next(it);
    return f;
}

bool yaml_input::require(const fields& f, const YAML::Node& n, const std::string& path,
                         const char* key)
{
    if (f.get(key))
        return true;
    error(n, path, std::string("missing required key '") + key + "'");
    return false;
}

std::optional<std::string> yaml_input::scalar(const field& f, const std::string& expected)
{
    if (f.value.IsScalar())
        return f.value.Scalar();
    wrong_type(f, expected);
    return std::nullopt;
}

std::optional<std::uint64_t> yaml_input::uint(const field& f, std::uint64_t lo, std::uint64_t hi)
{
    return uint(f.value, f.path, lo, hi, f.value.IsNull() ? f.key : f.value);
}

std::optional<std::uint64_t> yaml_input::uint(const YAML::Node& v, const std::string& path,
                                              std::uint64_t lo, std::uint64_t hi,
                                              const YAML::Node& at)
{
    if (!v.IsScalar()) {
        error(at, path, config::wrong_type("an unsigned integer", what(v)));
        return std::nullopt;
    }
    auto c = to_uint(v.Scalar(), lo, hi);
    if (!c.value)
        error(at, path, c.problem);
    return c.value;
}

std::optional<double> yaml_input::number(const field& f)
{
    return number(f.value, f.path, f.value.IsNull() ? f.key : f.value);
}

std::optional<double> yaml_input::number(const YAML::Node& v, const std::string& path,
                                         const YAML::Node& at)
{
    if (!v.IsScalar()) {
        error(at, path, config::wrong_type("a number", what(v)));
        return std::nullopt;
    }
    auto c = to_number(v.Scalar());
    if (!c.value)
        error(at, path, c.problem);
    return c.value;
}

std::optional<std::string> yaml_input::choice(const field& f,
                                              const std::vector<std::string>& choices)
{
    auto text = scalar(f, "one of " + join(choices, "|"));
    if (!text)
        return text;
    auto c = to_choice(*text, choices);
    if (!c.value)
        error(where(f), f.path, c.problem);
    return c.value;
}

} // namespace vgpu::config
