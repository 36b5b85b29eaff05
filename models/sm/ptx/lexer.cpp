// PTX lexer (see lexer.h).
#include "models/sm/ptx/lexer.h"

#include <cctype>
#include <cstring>

namespace vgpu::ptx {

namespace {

bool ident_start(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

bool ident_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

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

class lexer {
public:
    explicit lexer(std::string_view text) : m_text(text) {}

    lex_result run()
    {
        lex_result res;
        res.tokens.reserve(m_text.size() / 4);
        while (m_error.empty()) {
            skip_space();
            if (!m_error.empty())
                break;
            token t;
            t.line = m_line;
            t.col = col();
            if (m_pos >= m_text.size()) {
                res.tokens.push_back(t);
                break;
            }
            if (!next(t))
                break;
            res.tokens.push_back(t);
        }
        if (!m_error.empty()) {
            res.error = m_error;
            res.error_line = m_err_line;
            res.error_col = m_err_col;
            token t;
            t.line = m_line;
            t.col = col();
            res.tokens.push_back(t);
        }
        return res;
    }

private:
    int col() const { return static_cast<int>(m_pos - m_line_start) + 1; }

    void fail(const std::string& msg) { fail_at(m_pos, msg); }

    /// An error at text offset `at` of the current line (a token's start).
    void fail_at(std::size_t at, const std::string& msg)
    {
        if (m_error.empty()) {
            m_error = msg;
            m_err_line = m_line;
            m_err_col = static_cast<int>(at - m_line_start) + 1;
        }
    }

    void newline()
    {
        ++m_line;
        m_line_start = m_pos;
    }

    void skip_space()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\n') {
                ++m_pos;
                newline();
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/') {
                while (m_pos < m_text.size() && m_text[m_pos] != '\n')
                    ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '*') {
                const int line = m_line, column = col();
                m_pos += 2;
                while (m_pos < m_text.size() &&
                       !(m_text[m_pos] == '*' && m_pos + 1 < m_text.size() &&
                         m_text[m_pos + 1] == '/')) {
                    if (m_text[m_pos++] == '\n')
                        newline();
                }
                if (m_pos >= m_text.size()) {
                    m_err_line = line;
                    m_err_col = column;
                    m_error = "unterminated comment";
                    return;
                }
                m_pos += 2;
            } else {
                return;
            }
        }
    }

    bool next(token& t)
    {
        const char c = m_text[m_pos];
        const std::size_t start = m_pos;
        // directives and modifiers; some start with a digit (.1d, .2d)
        if (c == '.' && m_pos + 1 < m_text.size() &&
            (ident_start(m_text[m_pos + 1]) ||
             std::isdigit(static_cast<unsigned char>(m_text[m_pos + 1])))) {
            ++m_pos;
            while (m_pos < m_text.size() && ident_char(m_text[m_pos]))
                ++m_pos;
            // PTX 7.8 scope qualifiers: .shared::cta, .shared::cluster
            while (m_pos + 2 < m_text.size() && m_text[m_pos] == ':' && m_text[m_pos + 1] == ':' &&
                   ident_start(m_text[m_pos + 2])) {
                m_pos += 2;
                while (m_pos < m_text.size() && ident_char(m_text[m_pos]))
                    ++m_pos;
            }
            t.k = token::kind::directive;
            t.text = m_text.substr(start + 1, m_pos - start - 1);
            return true;
        }
        if (c == '_' && (m_pos + 1 >= m_text.size() || !ident_char(m_text[m_pos + 1]))) {
            ++m_pos;
            t.k = token::kind::punct;
            t.text = m_text.substr(start, 1);
            return true;
        }
        if (ident_start(c)) {
            ++m_pos;
            while (m_pos < m_text.size() && ident_char(m_text[m_pos]))
                ++m_pos;
            t.k = token::kind::ident;
            t.text = m_text.substr(start, m_pos - start);
            return true;
        }
        if (std::isdigit(static_cast<unsigned char>(c)))
            return number(t);
        if (c == '"') {
            ++m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] != '"' && m_text[m_pos] != '\n')
                ++m_pos;
            if (m_pos >= m_text.size() || m_text[m_pos] != '"') {
                fail_at(start, "unterminated string");
                return false;
            }
            t.k = token::kind::string;
            t.text = m_text.substr(start + 1, m_pos - start - 1);
            ++m_pos;
            return true;
        }
        if (std::strchr(",;:{}[]()<>+-!@=|*", c) != nullptr) {
            ++m_pos;
            t.k = token::kind::punct;
            t.text = m_text.substr(start, 1);
            return true;
        }
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            fail("unexpected byte 0x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) +
                 std::string(1, "0123456789abcdef"[c & 15]));
        else
            fail(std::string("unexpected character '") + c + "'");
        return false;
    }

    bool hex_literal(token& t, unsigned digits, token::kind k)
    {
        const std::size_t start = m_pos;
        m_pos += 2;
        std::uint64_t v = 0;
        unsigned n = 0;
        while (m_pos < m_text.size() && hex_digit(m_text[m_pos]) >= 0) {
            v = (v << 4) | static_cast<unsigned>(hex_digit(m_text[m_pos]));
            ++m_pos;
            ++n;
        }
        if (n != digits) {
            fail_at(start, std::string(k == token::kind::f32 ? "0f" : "0d") +
                               " literal needs exactly " + std::to_string(digits) + " hex digits");
            return false;
        }
        t.k = k;
        t.value = v;
        t.text = m_text.substr(start, m_pos - start);
        return true;
    }

    bool number(token& t)
    {
        const std::size_t start = m_pos;
        const char c1 = m_pos + 1 < m_text.size() ? m_text[m_pos + 1] : '\0';
        if (m_text[m_pos] == '0' && (c1 == 'f' || c1 == 'F'))
            return hex_literal(t, 8, token::kind::f32);
        if (m_text[m_pos] == '0' && (c1 == 'd' || c1 == 'D'))
            return hex_literal(t, 16, token::kind::f64);
        unsigned base = 10;
        if (m_text[m_pos] == '0' && (c1 == 'x' || c1 == 'X')) {
            base = 16;
            m_pos += 2;
        } else if (m_text[m_pos] == '0' && (c1 == 'b' || c1 == 'B')) {
            base = 2;
            m_pos += 2;
        } else if (m_text[m_pos] == '0' && c1 >= '0' && c1 <= '7') {
            base = 8;
            m_pos += 1;
        }
        const std::size_t digits_start = m_pos;
        while (m_pos < m_text.size() && std::isalnum(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
        // a decimal float: digits '.' digits [e[+-]digits]
        if (base == 10 && m_pos < m_text.size() &&
            (m_text[m_pos] == '.' || m_text[m_pos - 1] == 'e' || m_text[m_pos - 1] == 'E')) {
            m_pos = start;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
                ++m_pos;
            if (m_pos < m_text.size() && m_text[m_pos] == '.')
                ++m_pos;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
                ++m_pos;
            if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
                ++m_pos;
                if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                    ++m_pos;
                while (m_pos < m_text.size() &&
                       std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
                    ++m_pos;
            }
            const std::string s(m_text.substr(start, m_pos - start));
            const double d = std::strtod(s.c_str(), nullptr);
            std::memcpy(&t.value, &d, sizeof d);
            t.k = token::kind::f64;
            t.text = m_text.substr(start, m_pos - start);
            return true;
        }
        std::size_t end = m_pos;
        if (end > digits_start && (m_text[end - 1] == 'U' || m_text[end - 1] == 'u')) {
            t.is_unsigned = true;
            --end;
        }
        if (end == digits_start) {
            fail_at(start, "malformed number");
            return false;
        }
        std::uint64_t v = 0;
        for (std::size_t i = digits_start; i < end; ++i) {
            const int d = hex_digit(m_text[i]);
            if (d < 0 || static_cast<unsigned>(d) >= base) {
                fail_at(start, "malformed number '" +
                                   std::string(m_text.substr(start, m_pos - start)) + "'");
                return false;
            }
            if (v > (~std::uint64_t{0} - static_cast<unsigned>(d)) / base) {
                fail_at(start, "integer '" + std::string(m_text.substr(start, m_pos - start)) +
                                   "' does not fit in 64 bits");
                return false;
            }
            v = v * base + static_cast<unsigned>(d);
        }
        t.k = token::kind::integer;
        t.value = v;
        t.text = m_text.substr(start, m_pos - start);
        return true;
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::size_t m_line_start = 0;
    int m_line = 1;
    std::string m_error;
    int m_err_line = 0;
    int m_err_col = 0;
};

} // namespace

lex_result lex(std::string_view text)
{
    return lexer(text).run();
}

} // namespace vgpu::ptx
