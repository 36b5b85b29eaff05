// PTX parser (see parser.h), the file level: parse(), module directives, module scope; see
// declarations.cpp, body.cpp and resolve.cpp for the rest.
#include "models/sm/ptx/parser.h"

#include "models/sm/ptx/lexer.h"
#include "models/sm/ptx/parser_impl.h"

#include <cstring>

namespace vgpu::ptx {

namespace detail {

void parser::error_at(int line, int col, const std::string& msg)
{
    if (m_errors.size() < max_errors)
        m_errors.push_back(m_mod.file + ":" + std::to_string(line) + ":" + std::to_string(col) +
                           ": error: " + msg);
}

void parser::error(const token& t, const std::string& msg)
{
    error_at(t.line, t.col, msg);
}

std::string parser::describe(const token& t)
{
    switch (t.k) {
    case token::kind::end:
        return "end of file";
    case token::kind::directive:
        return "'." + std::string(t.text) + "'";
    case token::kind::string:
        return "\"" + std::string(t.text) + "\"";
    default:
        return "'" + std::string(t.text) + "'";
    }
}

bool parser::expect(char c, const char* what)
{
    if (peek().is(c)) {
        ++m_pos;
        return true;
    }
    error(peek(), std::string("expected '") + c + "' " + what + ", found " + describe(peek()));
    return false;
}

void parser::skip_statement()
{
    int depth = 0;
    while (peek().k != token::kind::end) {
        const token& t = peek();
        if (t.is('{'))
            ++depth;
        if (t.is('}')) {
            if (depth == 0)
                return;
            --depth;
        }
        ++m_pos;
        if (t.is(';') && depth == 0)
            return;
    }
}

void parser::skip_line(int line)
{
    while (peek().k != token::kind::end && peek().line == line)
        ++m_pos;
}

bool parser::integer(std::uint64_t& v, const char* what)
{
    const token& t = peek();
    if (t.k != token::kind::integer) {
        error(t, std::string("expected ") + what + ", found " + describe(t));
        return false;
    }
    v = t.value;
    ++m_pos;
    return true;
}

bool parser::small_integer(unsigned& v, const char* what, std::uint64_t max)
{
    const token t = peek();
    std::uint64_t x = 0;
    if (!integer(x, what))
        return false;
    if (x > max) {
        error(t, std::string(what) + " " + std::to_string(x) + " is larger than " +
                     std::to_string(max));
        return false;
    }
    v = static_cast<unsigned>(x);
    return true;
}

parse_result parser::run()
{
    lex_result lr = lex(m_text);
    m_toks = std::move(lr.tokens);
    if (!lr.error.empty())
        error_at(lr.error_line, lr.error_col, lr.error);
    bool seen_version = false;
    while (peek().k != token::kind::end && m_errors.size() < max_errors) {
        const token t = peek();
        if (t.k != token::kind::directive) {
            error(t, "expected a directive (.version, .entry, .func, a variable), found " +
                         describe(t));
            skip_statement();
            if (peek().is('}'))
                ++m_pos;
            continue;
        }
        if (!seen_version && t.text != "version") {
            error(t, "the file must start with .version");
            seen_version = true;
        }
        if (t.text == "version") {
            seen_version = true;
            directive_version();
        } else if (t.text == "target") {
            directive_target();
        } else if (t.text == "address_size") {
            ++m_pos;
            const token n = peek();
            unsigned v = 0;
            if (small_integer(v, "address size", 64)) {
                m_mod.address_size = v;
                if (v != 64)
                    error(n, "unsupported .address_size " + std::to_string(v) +
                                 " (vgpu reads 64-bit PTX)");
            }
        } else if (t.text == "file") {
            directive_file();
        } else if (t.text == "section") {
            skip_section();
        } else if (t.text == "pragma") {
            skip_statement();
        } else {
            top_level_declaration();
        }
    }
    if (lr.error.empty() && m_errors.empty()) {
        if (!seen_version)
            error_at(1, 1, "the file must start with .version");
        else if (m_mod.target.empty())
            error_at(1, 1, "missing .target");
        else if (m_mod.address_size == 0)
            error_at(1, 1, "missing .address_size (vgpu reads 64-bit PTX: .address_size 64)");
    }
    for (const auto& [file, where] : m_loc_uses)
        if (m_mod.files.count(file) == 0) {
            error_at(where.line, where.col,
                     ".loc names file " + std::to_string(file) + ", which no .file declares");
            break;
        }
    if (m_errors.empty())
        resolve_all();
    parse_result res;
    res.mod = std::move(m_mod);
    res.errors = std::move(m_errors);
    return res;
}

void parser::directive_version()
{
    const token d = next();
    const token v = peek();
    if (v.k != token::kind::f64 || v.text.find('.') == std::string_view::npos) {
        error(v, "expected a version such as 6.0 after .version, found " + describe(v));
        skip_line(d.line);
        return;
    }
    ++m_pos;
    const std::string s(v.text);
    const std::size_t dot = s.find('.');
    const unsigned major =
        static_cast<unsigned>(std::strtoul(s.substr(0, dot).c_str(), nullptr, 10));
    const unsigned minor =
        static_cast<unsigned>(std::strtoul(s.substr(dot + 1).c_str(), nullptr, 10));
    m_mod.version_major = major;
    m_mod.version_minor = minor;
    const unsigned ver = major * 10 + minor;
    if (minor > 9 || ver < min_version || ver > max_version)
        error(v, "unsupported PTX ISA version " + s + " (vgpu reads 6.0 to 9.0)");
}

void parser::directive_target()
{
    const token d = next();
    bool first = true;
    while (peek().line == d.line && peek().k == token::kind::ident) {
        const token t = next();
        if (first)
            m_mod.target = std::string(t.text);
        else
            m_mod.target_options.emplace_back(t.text);
        first = false;
        if (!peek().is(','))
            break;
        ++m_pos;
    }
    if (first) {
        error(peek(), "expected a target such as sm_70 after .target, found " + describe(peek()));
        skip_line(d.line);
        return;
    }
    if (m_mod.target.rfind("sm_", 0) != 0 && m_mod.target.rfind("compute_", 0) != 0)
        error(d, "unsupported .target " + m_mod.target + " (expected sm_NN)");
    for (const std::string& o : m_mod.target_options)
        if (o == "map_f64_to_f32" || o == "texmode_independent")
            error(d, "unsupported .target option " + o);
}

void parser::directive_file()
{
    const token d = next();
    std::uint64_t index = 0;
    if (!integer(index, "a file index after .file")) {
        skip_line(d.line);
        return;
    }
    const token s = peek();
    if (s.k != token::kind::string) {
        error(s, "expected a file name in quotes after .file " + std::to_string(index) +
                     ", found " + describe(s));
        skip_line(d.line);
        return;
    }
    ++m_pos;
    m_mod.files[static_cast<int>(index)] = std::string(s.text);
    skip_line(d.line); // optional timestamp and size
}

void parser::skip_section()
{
    const token d = next();
    if (peek().k == token::kind::directive)
        ++m_pos;
    if (!peek().is('{')) {
        skip_line(d.line);
        return;
    }
    int depth = 0;
    while (peek().k != token::kind::end) {
        const token t = next();
        if (t.is('{'))
            ++depth;
        else if (t.is('}') && --depth == 0)
            return;
    }
    error(d, "unterminated .section");
}

void parser::top_level_declaration()
{
    linkage link;
    while (peek().k == token::kind::directive) {
        const std::string_view d = peek().text;
        if (d == "visible")
            link.visible = true;
        else if (d == "extern")
            link.is_extern = true;
        else if (d == "weak" || d == "common")
            link.weak = true;
        else
            break;
        ++m_pos;
    }
    const token t = peek();
    if (t.k == token::kind::directive && (t.text == "entry" || t.text == "func")) {
        function_declaration(link);
        return;
    }
    if (t.k == token::kind::directive &&
        (t.text == "global" || t.text == "const" || t.text == "shared" || t.text == "local" ||
         t.text == "shared::cta" || t.text == "shared::cluster")) {
        std::vector<variable> vars;
        if (variable_declaration(vars, false, true)) {
            for (variable& v : vars) {
                v.is_extern = link.is_extern;
                v.is_visible = link.visible;
                v.is_weak = link.weak;
                if (m_mod.find_global(v.name) >= 0)
                    error_at(v.where.line, v.where.col, "'" + v.name + "' is declared twice");
                m_mod.globals.push_back(std::move(v));
            }
        }
        return;
    }
    if (t.k == token::kind::directive && t.text == "alias") {
        error(t, "unsupported .alias");
        skip_statement();
        return;
    }
    if (t.k == token::kind::directive &&
        (t.text == "tex" || t.text == "texref" || t.text == "surfref" || t.text == "samplerref")) {
        // a texture reference: recorded; an entry that uses one is rejected by check_entry
        std::vector<variable> vars;
        if (variable_declaration(vars, false, true))
            for (variable& v : vars)
                m_mod.globals.push_back(std::move(v));
        return;
    }
    error(t, "expected .entry, .func or a variable declaration, found " + describe(t));
    skip_statement();
}

} // namespace detail

parse_result parse(std::string_view text, const std::string& file)
{
    detail::parser p(text, file);
    return p.run();
}

} // namespace vgpu::ptx
