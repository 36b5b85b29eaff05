// Itanium demangler subset (see demangle.h).
#include "models/sm/ptx/demangle.h"

#include <cctype>

namespace vgpu::ptx {

namespace {

/// A parsed name or type: its text and, for a pointer-like suffix, where qualifiers attach.
struct node {
    std::string text;
    bool is_template = false; ///< a name ending with template arguments
};

class demangler {
public:
    explicit demangler(std::string_view s) : m_s(s) {}

    demangled run()
    {
        demangled out;
        if (m_s.substr(0, 2) != "_Z")
            return out;
        m_p = 2;
        std::string scoped, unq;
        node name;
        if (!parse_name(name, scoped, unq))
            return out;
        out.qualified = name.text;
        out.scoped = scoped;
        out.unqualified = unq;
        // template functions encode their return type first
        if (name.is_template && m_p < m_s.size()) {
            node ret;
            if (!parse_type(ret))
                return out;
        }
        while (m_p < m_s.size() && m_s[m_p] != '.') {
            node t;
            if (!parse_type(t))
                return out;
            out.params.push_back(t.text);
        }
        if (out.params.size() == 1 && out.params[0] == "void")
            out.params.clear();
        out.ok = m_ok;
        return out;
    }

private:
    bool fail()
    {
        m_ok = false;
        return false;
    }
    bool eat(char c)
    {
        if (m_p < m_s.size() && m_s[m_p] == c) {
            ++m_p;
            return true;
        }
        return false;
    }
    char peek() const { return m_p < m_s.size() ? m_s[m_p] : '\0'; }

    bool source_name(std::string& out)
    {
        std::size_t n = 0;
        if (!std::isdigit(static_cast<unsigned char>(peek())))
            return fail();
        while (std::isdigit(static_cast<unsigned char>(peek())))
            n = n * 10 + static_cast<std::size_t>(m_s[m_p++] - '0');
        if (n == 0 || m_p + n > m_s.size())
            return fail();
        out = std::string(m_s.substr(m_p, n));
        m_p += n;
        if (out.rfind("_GLOBAL__N", 0) == 0)
            out = "(anonymous namespace)";
        return true;
    }

    /// S_ S0_ ... St; the substitution's text in out.
    bool substitution(node& out)
    {
        ++m_p; // 'S'
        if (eat('t')) {
            out.text = "std";
            return true;
        }
        static const char* abbrev[][2] = {{"a", "std::allocator"}, {"b", "std::basic_string"},
                                          {"s", "std::string"},    {"i", "std::istream"},
                                          {"o", "std::ostream"},   {"d", "std::iostream"}};
        for (const auto& a : abbrev)
            if (eat(a[0][0])) {
                out.text = a[1];
                return true;
            }
        std::size_t idx = 0;
        if (!eat('_')) {
            std::size_t v = 0;
            while (std::isalnum(static_cast<unsigned char>(peek())) && peek() != '_') {
                const char c = m_s[m_p++];
                const std::size_t d = std::isdigit(static_cast<unsigned char>(c))
                                          ? static_cast<std::size_t>(c - '0')
                                          : static_cast<std::size_t>(c - 'A' + 10);
                if (!std::isdigit(static_cast<unsigned char>(c)) && !std::isupper(c))
                    return fail();
                v = v * 36 + d;
            }
            if (!eat('_'))
                return fail();
            idx = v + 1;
        }
        if (idx >= m_subs.size())
            return fail();
        out = m_subs[idx];
        return true;
    }

    bool template_args(std::string& out)
    {
        ++m_p; // 'I'
        std::vector<std::string> args;
        while (!eat('E')) {
            if (m_p >= m_s.size())
                return fail();
            if (eat('L')) {
                node t;
                if (peek() == '_' && m_s.substr(m_p, 3) == "_Z") // address of an entity
                    return fail();
                if (!parse_type(t))
                    return false;
                std::string v;
                if (eat('n'))
                    v = "-";
                while (m_p < m_s.size() && peek() != 'E')
                    v += m_s[m_p++];
                if (!eat('E'))
                    return fail();
                if (t.text == "bool")
                    v = v == "0" ? "false" : "true";
                else if (t.text == "unsigned int")
                    v += "u";
                args.push_back(v);
            } else if (peek() == 'X' || peek() == 'J') {
                return fail();
            } else {
                node t;
                if (!parse_type(t))
                    return false;
                args.push_back(t.text);
            }
        }
        if (m_type_depth == 0) // the function's own arguments, which T_ names
            m_targs = args;
        out = "<";
        for (std::size_t i = 0; i < args.size(); ++i)
            out += (i ? ", " : "") + args[i];
        out += out.back() == '>' ? " >" : ">";
        return true;
    }

    /// name := nested-name | [St] source-name [template-args] | substitution template-args
    bool parse_name(node& out, std::string& scoped, std::string& unq)
    {
        if (eat('N')) {
            while (peek() == 'K' || peek() == 'V' || peek() == 'r')
                ++m_p;
            std::string cur;
            bool first = true;
            bool cur_is_sub = false; // a substitution is not a new candidate
            while (!eat('E')) {
                if (m_p >= m_s.size())
                    return fail();
                if (peek() == 'I') {
                    if (first)
                        return fail();
                    // the template prefix is a candidate
                    if (!cur_is_sub)
                        m_subs.push_back({cur, false});
                    cur_is_sub = false;
                    std::string args;
                    if (!template_args(args))
                        return false;
                    cur += args;
                    out.is_template = true;
                } else {
                    if (!first && !cur_is_sub) {
                        // the previous prefix is a candidate (unless it was just added)
                        if (m_subs.empty() || m_subs.back().text != cur)
                            m_subs.push_back({cur, out.is_template});
                    }
                    cur_is_sub = false;
                    std::string part;
                    if (peek() == 'S') {
                        node n;
                        if (!substitution(n))
                            return false;
                        part = n.text;
                        scoped = part;
                        unq = part;
                        cur = part;
                        first = false;
                        cur_is_sub = true;
                        out.is_template = false;
                        continue;
                    }
                    if (peek() == 'T') {
                        node n;
                        if (!template_param(n))
                            return false;
                        part = n.text;
                    } else if (eat('L'), !source_name(part)) { // L: internal linkage
                        return false;
                    }
                    scoped = cur.empty() ? part : scoped + "::" + part;
                    cur = cur.empty() ? part : cur + "::" + part;
                    unq = part;
                    out.is_template = false;
                }
                first = false;
            }
            out.text = cur;
            return true;
        }
        if (peek() == 'S' && m_s.substr(m_p, 2) == "St") {
            m_p += 2;
            std::string part;
            if (!source_name(part))
                return false;
            out.text = "std::" + part;
            scoped = out.text;
            unq = part;
        } else if (peek() == 'Z') {
            return fail(); // local names: not a kernel
        } else {
            std::string part;
            eat('L'); // internal linkage (a static function)
            if (!source_name(part))
                return false;
            out.text = part;
            scoped = part;
            unq = part;
        }
        if (peek() == 'I') {
            m_subs.push_back({out.text, false});
            std::string args;
            if (!template_args(args))
                return false;
            out.text += args;
            out.is_template = true;
        }
        return true;
    }

    bool template_param(node& out)
    {
        ++m_p; // 'T'
        std::size_t idx = 0;
        if (!eat('_')) {
            std::size_t v = 0;
            while (std::isdigit(static_cast<unsigned char>(peek())))
                v = v * 10 + static_cast<std::size_t>(m_s[m_p++] - '0');
            if (!eat('_'))
                return fail();
            idx = v + 1;
        }
        if (idx >= m_targs.size())
            return fail();
        out.text = m_targs[idx];
        return true;
    }

    bool parse_type(node& out)
    {
        ++m_type_depth;
        const bool ok = parse_type_inner(out);
        --m_type_depth;
        return ok;
    }

    bool parse_type_inner(node& out)
    {
        static const char* builtins[][2] = {{"v", "void"},        {"w", "wchar_t"},
                                            {"b", "bool"},        {"c", "char"},
                                            {"a", "signed char"}, {"h", "unsigned char"},
                                            {"s", "short"},       {"t", "unsigned short"},
                                            {"i", "int"},         {"j", "unsigned int"},
                                            {"l", "long"},        {"m", "unsigned long"},
                                            {"x", "long long"},   {"y", "unsigned long long"},
                                            {"n", "__int128"},    {"o", "unsigned __int128"},
                                            {"f", "float"},       {"d", "double"},
                                            {"e", "long double"}, {"g", "__float128"},
                                            {"z", "..."}};
        const char c = peek();
        if (c == '\0')
            return fail();
        for (const auto& b : builtins)
            if (c == b[0][0]) {
                ++m_p;
                out.text = b[1];
                return true;
            }
        if (c == 'D') {
            static const char* dtypes[][2] = {
                {"h", "__half"}, {"s", "char16_t"}, {"i", "char32_t"}, {"n", "decltype(nullptr)"}};
            ++m_p;
            for (const auto& d : dtypes)
                if (eat(d[0][0])) {
                    out.text = d[1];
                    return true;
                }
            if (m_s.substr(m_p, 4) == "F16_") {
                m_p += 4;
                out.text = "_Float16";
                return true;
            }
            return fail();
        }
        if (c == 'K' || c == 'V' || c == 'r') {
            std::string quals;
            while (peek() == 'r' || peek() == 'V' || peek() == 'K') {
                const char q = m_s[m_p++];
                quals += q == 'K' ? "const" : q == 'V' ? "volatile" : "__restrict";
                quals += " ";
            }
            node inner;
            if (!parse_type(inner))
                return false;
            quals.pop_back();
            // a qualifier after a pointer binds to the pointer
            if (!inner.text.empty() && (inner.text.back() == '*' || inner.text.back() == '&'))
                out.text = inner.text + " " + quals;
            else
                out.text = quals + " " + inner.text;
            m_subs.push_back(out);
            return true;
        }
        if (c == 'P' || c == 'R' || c == 'O') {
            ++m_p;
            node inner;
            if (!parse_type(inner))
                return false;
            out.text = inner.text + (c == 'P' ? "*" : c == 'R' ? "&" : "&&");
            m_subs.push_back(out);
            return true;
        }
        if (c == 'A') {
            ++m_p;
            std::string n;
            while (std::isdigit(static_cast<unsigned char>(peek())))
                n += m_s[m_p++];
            if (!eat('_'))
                return fail();
            node inner;
            if (!parse_type(inner))
                return false;
            out.text = inner.text + "[" + n + "]";
            m_subs.push_back(out);
            return true;
        }
        if (c == 'S') {
            const bool st = m_s.substr(m_p, 2) == "St";
            if (!st) {
                if (!substitution(out))
                    return false;
                if (peek() == 'I') {
                    m_subs.push_back(out);
                    std::string args;
                    if (!template_args(args))
                        return false;
                    out.text += args;
                    m_subs.push_back(out);
                }
                return true;
            }
        }
        if (c == 'T') {
            if (!template_param(out))
                return false;
            m_subs.push_back(out);
            return true;
        }
        if (c == 'N' || c == 'S' || std::isdigit(static_cast<unsigned char>(c))) {
            // a class or enum name: the name and every prefix are candidates
            std::string scoped, unq;
            if (!parse_name(out, scoped, unq))
                return false;
            out.is_template = false;
            m_subs.push_back(out);
            return true;
        }
        return fail();
    }

    std::string_view m_s;
    std::size_t m_p = 0;
    bool m_ok = true;
    std::vector<node> m_subs;
    std::vector<std::string> m_targs;
    int m_type_depth = 0;
};

} // namespace

std::string demangled::signature() const
{
    if (!ok)
        return qualified;
    std::string s = qualified + "(";
    for (std::size_t i = 0; i < params.size(); ++i)
        s += (i ? ", " : "") + params[i];
    return s + ")";
}

demangled demangle(std::string_view name)
{
    demangled d = demangler(name).run();
    if (!d.ok) {
        demangled plain;
        plain.qualified = plain.unqualified = plain.scoped = std::string(name);
        return plain;
    }
    return d;
}

} // namespace vgpu::ptx
