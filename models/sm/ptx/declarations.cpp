// PTX parser: variable, parameter and function declarations (see parser_impl.h).
#include "models/sm/ptx/parser_impl.h"

#include <cstring>

namespace vgpu::ptx::detail {

namespace {

bool power_of_two(std::uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/// The bits of a floating value stored as `t`.
std::uint64_t float_bits(double d, data_type t)
{
    if (t == data_type::f32) {
        const float f = static_cast<float>(d);
        std::uint32_t b = 0;
        std::memcpy(&b, &f, sizeof b);
        return b;
    }
    std::uint64_t b = 0;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

double bits_to_double(std::uint64_t bits)
{
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

double bits_to_float(std::uint64_t bits)
{
    const auto b = static_cast<std::uint32_t>(bits);
    float f = 0;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

} // namespace

bool parser::variable_declaration(std::vector<variable>& out, bool is_param, bool allow_init)
{
    variable base;
    bool after_ptr = false;
    while (peek().k == token::kind::directive) {
        const token t = next();
        const std::string_view d = t.text;
        if (d == "shared::cluster") {
            error(t, "unsupported .shared::cluster (thread-block clusters)");
            skip_statement();
            return false;
        }
        const state_space s = parse_space(d == "shared::cta" ? "shared" : d);
        const data_type ty = parse_type(d);
        if (s != state_space::none) {
            if (after_ptr)
                base.ptr_space = s;
            else
                base.space = s;
        } else if (d == "align") {
            const token n = peek();
            unsigned a = 0;
            if (!small_integer(a, "an alignment", 1u << 16))
                return skip_statement(), false;
            if (!power_of_two(a)) {
                error(n, "alignment " + std::to_string(a) + " is not a power of two");
                return skip_statement(), false;
            }
            (after_ptr ? base.ptr_align : base.align) = a;
        } else if (d == "v2" || d == "v4" || d == "v8") {
            base.vec = static_cast<unsigned>(d[1] - '0');
        } else if (d == "ptr" && is_param) {
            base.is_ptr = true;
            after_ptr = true;
        } else if (ty != data_type::none) {
            if (base.type != data_type::none) {
                error(t, "a declaration has one type; '." + std::string(type_name(base.type)) +
                             "' and '." + std::string(d) + "'");
                return skip_statement(), false;
            }
            base.type = ty;
        } else if (d == "tex") {
            base.space = state_space::tex;
        } else {
            error(t, "unexpected '." + std::string(d) + "' in a declaration");
            return skip_statement(), false;
        }
    }
    if (base.type == data_type::none) {
        error(peek(),
              "expected a type (.u32, .f32, ...) in the declaration, found " + describe(peek()));
        return skip_statement(), false;
    }
    while (true) {
        variable v = base;
        const token name = peek();
        if (name.k != token::kind::ident) {
            error(name, "expected a name in the declaration, found " + describe(name));
            return skip_statement(), false;
        }
        ++m_pos;
        v.name = std::string(name.text);
        v.where = {name.line, name.col};
        v.scope = m_scope;
        if (peek().is('<')) {
            ++m_pos;
            const token n = peek();
            if (v.space != state_space::reg) {
                error(n, "only registers are declared as a range '" + v.name + "<N>'");
                return skip_statement(), false;
            }
            if (!small_integer(v.range, "a register count", 1u << 24) ||
                !expect('>', "after the register count"))
                return skip_statement(), false;
            if (v.range == 0) {
                error(n, "register range " + v.name + "<0> declares no register");
                return skip_statement(), false;
            }
        }
        while (peek().is('[')) {
            ++m_pos;
            std::uint64_t n = 0;
            if (peek().is(']')) {
                if (!v.dims.empty()) {
                    error(peek(), "only the first array dimension may be left out");
                    return skip_statement(), false;
                }
            } else {
                const token nt = peek();
                if (!integer(n, "an array size"))
                    return skip_statement(), false;
                if (n == 0) {
                    error(nt, "array '" + v.name + "' has size 0");
                    return skip_statement(), false;
                }
                if (n > (std::uint64_t{1} << 32)) {
                    error(nt, "array '" + v.name + "' is too large (" + std::to_string(n) +
                                  " elements)");
                    return skip_statement(), false;
                }
            }
            v.dims.push_back(n);
            if (!expect(']', "after the array size"))
                return skip_statement(), false;
        }
        if (peek().is('=')) {
            const token eq = next();
            if (!allow_init || v.space == state_space::reg) {
                error(eq, "'" + v.name + "' cannot have an initialiser");
                return skip_statement(), false;
            }
            if (!initialiser(v))
                return skip_statement(), false;
            if (!v.dims.empty() && v.dims[0] != 0 && v.init.size() > v.elements() * v.vec) {
                error(eq, "initialiser of '" + v.name + "' has " + std::to_string(v.init.size()) +
                              " values for " + std::to_string(v.elements() * v.vec) + " elements");
                return skip_statement(), false;
            }
        }
        if (!v.dims.empty() && v.dims[0] == 0 && v.init.empty() && !v.is_extern &&
            v.space != state_space::shared && !is_param) {
            error(name, "array '" + v.name + "' has no size and no initialiser");
            return skip_statement(), false;
        }
        out.push_back(std::move(v));
        if (is_param)
            return true;
        if (peek().is(',')) {
            ++m_pos;
            continue;
        }
        return expect(';', "after the declaration") || (skip_statement(), false);
    }
}

bool parser::initialiser(variable& v)
{
    const nesting level(m_depth);
    if (m_depth > max_nesting) {
        error(peek(), "initialiser nested too deeply");
        return false;
    }
    if (!peek().is('{'))
        return init_value(v);
    ++m_pos;
    if (peek().is('}')) {
        ++m_pos;
        return true;
    }
    while (true) {
        if (!initialiser(v))
            return false;
        if (peek().is(',')) {
            ++m_pos;
            continue;
        }
        return expect('}', "after the initialiser values");
    }
}

bool parser::init_value(variable& v)
{
    bool neg = false;
    if (peek().is('-')) {
        neg = true;
        ++m_pos;
    }
    const token t = peek();
    const bool is_float = v.type == data_type::f32 || v.type == data_type::f64;
    const std::uint64_t mask =
        type_bits(v.type) >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << type_bits(v.type)) - 1;
    switch (t.k) {
    case token::kind::integer: {
        ++m_pos;
        if (is_float) {
            const double d = static_cast<double>(t.value);
            v.init.push_back(float_bits(neg ? -d : d, v.type));
        } else {
            v.init.push_back((neg ? 0 - t.value : t.value) & mask);
        }
        return true;
    }
    case token::kind::f32:
    case token::kind::f64: {
        ++m_pos;
        if (!is_float) {
            error(t, "floating-point value " + std::string(t.text) + " for '" + v.name +
                         "' of type ." + type_name(v.type));
            return false;
        }
        double d = t.k == token::kind::f32 ? bits_to_float(t.value) : bits_to_double(t.value);
        if (neg)
            d = -d;
        if (t.k == token::kind::f32 && v.type == data_type::f32 && !neg)
            v.init.push_back(t.value);
        else if (t.k == token::kind::f64 && v.type == data_type::f64 && !neg)
            v.init.push_back(t.value);
        else
            v.init.push_back(float_bits(d, v.type));
        return true;
    }
    case token::kind::ident: {
        if (neg)
            break;
        ++m_pos;
        std::string sym(t.text);
        if (sym == "generic" && peek().is('(')) {
            ++m_pos;
            const token s = peek();
            if (s.k != token::kind::ident) {
                error(s, "expected a symbol inside generic(), found " + describe(s));
                return false;
            }
            sym = std::string(s.text);
            ++m_pos;
            if (!expect(')', "after generic(symbol"))
                return false;
        }
        std::int64_t off = 0;
        if (peek().is('+') || peek().is('-')) {
            const bool minus = next().is('-');
            std::uint64_t o = 0;
            if (!integer(o, "an offset"))
                return false;
            off = minus ? -static_cast<std::int64_t>(o) : static_cast<std::int64_t>(o);
        }
        if (type_bits(v.type) != 64 && type_bits(v.type) != 32) {
            error(t, "address of '" + sym + "' stored in '" + v.name + "' of type ." +
                         type_name(v.type) + " (needs .u64 or .b64)");
            return false;
        }
        v.init_symbols[v.init.size()] = {sym, off};
        v.init.push_back(0);
        return true;
    }
    default:
        break;
    }
    error(t, "expected an initialiser value, found " + describe(t));
    return false;
}

void parser::function_declaration(const linkage& link)
{
    function f;
    f.is_entry = next().text == "entry";
    f.is_visible = link.visible;
    f.is_extern = link.is_extern;
    m_scope = 0;
    if (!f.is_entry && peek().is('(')) { // return parameters
        if (!parameter_list(f.returns, false))
            return skip_statement();
    }
    const token name = peek();
    if (name.k != token::kind::ident) {
        error(name, std::string("expected a name after .") + (f.is_entry ? "entry" : "func") +
                        ", found " + describe(name));
        return skip_statement();
    }
    ++m_pos;
    f.name = std::string(name.text);
    f.where = {name.line, name.col};
    if (peek().is('(') && !parameter_list(f.params, f.is_entry))
        return skip_statement();
    performance_directives(f);
    const int existing = m_mod.find_function(f.name);
    if (peek().is(';')) {
        ++m_pos;
        if (existing < 0)
            m_mod.functions.push_back(std::move(f));
        return;
    }
    if (!peek().is('{')) {
        error(peek(), "expected '{' or ';' after the declaration of '" + f.name + "', found " +
                          describe(peek()));
        return skip_statement();
    }
    if (f.is_extern)
        error(name, "'" + f.name + "' is .extern but has a body");
    if (existing >= 0 && m_mod.functions[static_cast<std::size_t>(existing)].has_body) {
        error(name, "'" + f.name + "' is defined twice");
        return skip_statement();
    }
    f.has_body = true;
    function_body(f);
    if (existing >= 0)
        m_mod.functions[static_cast<std::size_t>(existing)] = std::move(f);
    else
        m_mod.functions.push_back(std::move(f));
}

bool parser::parameter_list(std::vector<variable>& out, bool is_entry)
{
    expect('(', "to open the parameter list");
    if (peek().is(')')) {
        ++m_pos;
        return true;
    }
    while (true) {
        const token t = peek();
        if (!(t.k == token::kind::directive && (t.text == "param" || t.text == "reg"))) {
            error(t, "expected '.param' in the parameter list, found " + describe(t));
            return false;
        }
        if (is_entry && t.text == "reg") {
            error(t, "kernel parameters are .param, not .reg");
            return false;
        }
        std::vector<variable> one;
        if (!variable_declaration(one, true, false))
            return false;
        for (const variable& p : out)
            if (p.name == one.front().name) {
                error_at(one.front().where.line, one.front().where.col,
                         "parameter '" + p.name + "' is declared twice");
                return false;
            }
        out.push_back(std::move(one.front()));
        if (peek().is(',')) {
            ++m_pos;
            continue;
        }
        return expect(')', "to close the parameter list");
    }
}

void parser::performance_directives(function& f)
{
    while (peek().k == token::kind::directive) {
        const token t = peek();
        std::vector<unsigned>* dims = nullptr;
        if (t.text == "maxntid")
            dims = &f.maxntid;
        else if (t.text == "reqntid")
            dims = &f.reqntid;
        if (dims != nullptr) {
            ++m_pos;
            do {
                unsigned v = 0;
                if (!small_integer(v, "a thread count", 1u << 20))
                    return;
                dims->push_back(v);
            } while (dims->size() < 3 && peek().is(',') && (++m_pos, true));
        } else if (t.text == "minnctapersm" || t.text == "maxnctapersm" || t.text == "maxnreg") {
            ++m_pos;
            unsigned v = 0;
            if (!small_integer(v, "a count", 1u << 20))
                return;
            if (t.text == "minnctapersm")
                f.minnctapersm = v;
            else if (t.text == "maxnreg")
                f.maxnreg = v;
        } else if (t.text == "noreturn") {
            ++m_pos;
            f.noreturn = true;
        } else if (t.text == "pragma") {
            ++m_pos;
            while (peek().k == token::kind::string || peek().is(','))
                ++m_pos;
            if (peek().is(';'))
                ++m_pos;
        } else if (t.text == "explicitcluster" || t.text == "reqnctapercluster" ||
                   t.text == "maxclusterrank") {
            error(t, "unsupported ." + std::string(t.text) + " (thread-block clusters)");
            ++m_pos;
            while (peek().k == token::kind::integer || peek().is(','))
                ++m_pos;
        } else {
            return;
        }
    }
}

} // namespace vgpu::ptx::detail
