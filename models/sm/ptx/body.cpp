// PTX parser: function bodies, instructions and operands (see parser_impl.h).
#include "models/sm/ptx/parser_impl.h"

#include "models/common/edit_distance.h"

#include <cstring>
#include <iterator>
#include <unordered_set>

namespace vgpu::ptx::detail {

namespace {

// clang-format off
/// Every PTX 9.0 opcode (what the parser accepts; the translator decides what it runs).
constexpr std::string_view opcodes[] = {
    "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar",
    "barrier", "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call", "clz",
    "clusterlaunchcontrol", "cnot", "copysign", "cos", "cp", "createpolicy", "cvt", "cvta",
    "discard", "div", "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma", "fns",
    "getctarank", "griddepcontrol", "isspacep", "istypep", "ld", "ldmatrix", "ldu", "lg2",
    "lop3", "mad", "mad24", "madc", "mapa", "match", "max", "mbarrier", "membar", "min", "mma",
    "mov", "movmatrix", "mul", "mul24", "multimem", "nanosleep", "neg", "not", "or", "pmevent",
    "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "redux", "rem", "ret", "rsqrt", "sad",
    "selp", "set", "setmaxnreg", "setp", "shf", "shfl", "shl", "shr", "sin", "slct", "sqrt", "st",
    "stackrestore", "stacksave", "stmatrix", "sub", "subc", "suld", "suq", "sured", "sust",
    "szext", "tanh", "tcgen05", "tensormap", "testp", "tex", "tld4", "trap", "txq", "vabsdiff",
    "vabsdiff2", "vabsdiff4", "vadd", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmad", "vmax",
    "vmax2", "vmax4", "vmin", "vmin2", "vmin4", "vote", "vset", "vset2", "vset4", "vshl", "vshr",
    "vsub", "vsub2", "vsub4", "wgmma", "wmma", "xor"};
/// Special registers with .x/.y/.z components.
constexpr std::string_view vector_specials[] = {
    "%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid",
    "%cluster_nctaid"};
/// Scalar special registers.
constexpr std::string_view scalar_specials[] = {
    "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%lanemask_eq",
    "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi",
    "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size",
    "%dynamic_smem_size", "%aggr_smem_size", "%is_explicit_cluster", "%cluster_ctarank",
    "%cluster_nctarank", "%current_graph_exec"};
// clang-format on

/// True when `s` is one of `a` (a hash set built once per table).
template <std::size_t N> bool contains(const std::string_view (&a)[N], std::string_view s)
{
    static const std::unordered_set<std::string_view> set(std::begin(a), std::end(a));
    return set.count(s) != 0;
}

/// %pm0..7 and %envreg0..31 are also special.
bool numbered_special(std::string_view s)
{
    for (std::string_view p : {std::string_view("%pm"), std::string_view("%envreg")}) {
        if (s.size() > p.size() && s.substr(0, p.size()) == p) {
            bool digits = true;
            for (char c : s.substr(p.size()))
                digits = digits && c >= '0' && c <= '9';
            if (digits)
                return true;
        }
    }
    return false;
}

} // namespace

void parser::function_body(function& f)
{
    const token open = next(); // '{'
    m_scope = 0;
    m_loc_file = m_loc_line = m_loc_col = m_call_file = m_call_line = 0;
    while (m_errors.size() < max_errors) {
        const token t = peek();
        if (t.k == token::kind::end) {
            error(open, "the body of '" + f.name + "' is not closed with '}'");
            return;
        }
        if (t.is('}')) {
            ++m_pos;
            if (m_scope == 0)
                return;
            m_scope = f.scope_parent[static_cast<std::size_t>(m_scope)];
            continue;
        }
        if (t.is('{')) {
            ++m_pos;
            f.scope_parent.push_back(m_scope);
            m_scope = static_cast<int>(f.scope_parent.size()) - 1;
            continue;
        }
        statement(f);
    }
}

void parser::statement(function& f)
{
    const token t = peek();
    if (t.k == token::kind::directive) {
        if (t.text == "reg" || t.text == "local" || t.text == "shared" || t.text == "param" ||
            t.text == "shared::cta") {
            body_declaration(f);
        } else if (t.text == "loc") {
            directive_loc();
        } else if (t.text == "pragma") {
            skip_statement();
        } else if (t.text == "global" || t.text == "const") {
            error(t, "." + std::string(t.text) + " variables are declared outside functions");
            skip_statement();
        } else {
            error(t, "unexpected ." + std::string(t.text) + " in the body of '" + f.name + "'");
            skip_statement();
        }
        return;
    }
    if (t.k == token::kind::ident && peek(1).is(':')) {
        m_pos += 2;
        const std::string label(t.text);
        const bool table = peek().k == token::kind::directive &&
                           (peek().text == "callprototype" || peek().text == "branchtargets");
        if (table) // for an indirect call or branch, which check_entry rejects
            skip_statement();
        if (f.labels.count(label) != 0) {
            error(t, "label '" + label + "' is defined twice");
            return;
        }
        f.labels[label] = f.body.size();
        f.label_where[label] = {t.line, t.col};
        return;
    }
    instruction ins;
    ins.where = {t.line, t.col};
    ins.scope = m_scope;
    ins.loc_file = m_loc_file;
    ins.loc_line = m_loc_line;
    ins.loc_col = m_loc_col;
    ins.call_file = m_call_file;
    ins.call_line = m_call_line;
    if (t.is('@')) {
        ++m_pos;
        if (peek().is('!')) {
            ++m_pos;
            ins.guard_negated = true;
        }
        const token g = peek();
        if (g.k != token::kind::ident) {
            error(g, "expected a predicate register after '@', found " + describe(g));
            return skip_statement();
        }
        ++m_pos;
        ins.guard = std::string(g.text);
        ins.guard_where = {g.line, g.col};
    }
    const token op = peek();
    if (op.k != token::kind::ident) {
        error(op, "expected an instruction, found " + describe(op));
        return skip_statement();
    }
    ++m_pos;
    ins.opcode = std::string(op.text);
    if (!contains(opcodes, ins.opcode)) {
        std::string best;
        std::size_t best_d = 3;
        for (std::string_view o : opcodes) {
            const std::size_t d = edit_distance(ins.opcode, o);
            if (d < best_d) {
                best_d = d;
                best = std::string(o);
            }
        }
        error(op, "unknown instruction '" + ins.opcode + "'" +
                      (best.empty() ? "" : "; did you mean '" + best + "'?"));
        return skip_statement();
    }
    while (peek().k == token::kind::directive) {
        std::string m(next().text);
        const data_type ty = parse_type(m);
        if (ty != data_type::none) {
            ins.types.push_back(ty);
        } else {
            const state_space s = parse_space(m == "shared::cta" ? "shared" : m);
            if (s != state_space::none && s != state_space::reg && s != state_space::sreg)
                ins.space = s;
        }
        ins.mods.push_back(std::move(m));
    }
    if (ins.opcode == "call") {
        if (!parse_call(ins))
            return skip_statement();
    } else if (!peek().is(';')) {
        while (true) {
            operand o;
            if (!parse_operand(o))
                return skip_statement();
            ins.ops.push_back(std::move(o));
            if (peek().is(',')) {
                ++m_pos;
                continue;
            }
            break;
        }
    }
    if (!expect(';', "at the end of the instruction"))
        return skip_statement();
    f.body.push_back(std::move(ins));
}

void parser::body_declaration(function& f)
{
    std::vector<variable> vars;
    if (!variable_declaration(vars, false, false))
        return;
    for (variable& v : vars) {
        for (const variable& d : f.decls)
            if (d.name == v.name && d.scope == v.scope) {
                error_at(v.where.line, v.where.col, "'" + v.name + "' is declared twice");
                return;
            }
        f.decls.push_back(std::move(v));
    }
}

void parser::directive_loc()
{
    const token d = next();
    std::uint64_t file = 0, line = 0, col = 0;
    if (!integer(file, "a file index after .loc") || !integer(line, "a line after .loc")) {
        skip_line(d.line);
        return;
    }
    if (peek().k == token::kind::integer && peek().line == d.line)
        col = next().value;
    m_loc_uses.push_back({static_cast<int>(file), {d.line, d.col}});
    m_loc_file = static_cast<int>(file);
    m_loc_line = static_cast<int>(line);
    m_loc_col = static_cast<int>(col);
    m_call_file = m_call_line = 0;
    // PTX 7.2: , function_name LABEL [+ off] , inlined_at FILE LINE COL
    while (peek().line == d.line && peek().is(',')) {
        ++m_pos;
        const token key = peek();
        if (key.line != d.line || key.k != token::kind::ident)
            break;
        ++m_pos;
        if (key.text == "inlined_at" && peek().k == token::kind::integer &&
            peek(1).k == token::kind::integer) {
            m_call_file = static_cast<int>(next().value);
            m_call_line = static_cast<int>(next().value);
            m_loc_uses.push_back({m_call_file, {key.line, key.col}});
        }
        while (peek().k != token::kind::end && peek().line == d.line && !peek().is(','))
            ++m_pos;
    }
    skip_line(d.line);
}

bool parser::parse_operand(operand& op)
{
    const token t = peek();
    op.where = {t.line, t.col};
    const nesting level(m_depth);
    if (m_depth > max_nesting) {
        error(t, "operand nested too deeply");
        return false;
    }
    if (t.is('['))
        return parse_address(op);
    if (t.is('{')) {
        ++m_pos;
        op.k = operand::kind::vector;
        while (true) {
            operand e;
            if (!parse_operand(e))
                return false;
            op.elems.push_back(std::move(e));
            if (peek().is(',')) {
                ++m_pos;
                continue;
            }
            return expect('}', "after the vector elements");
        }
    }
    if (t.is('_')) {
        ++m_pos;
        op.k = operand::kind::sink;
        return true;
    }
    if (t.is('!')) {
        ++m_pos;
        const token r = peek();
        if (r.k != token::kind::ident) {
            error(r, "expected a predicate register after '!', found " + describe(r));
            return false;
        }
        if (!parse_operand(op))
            return false;
        op.negated = true;
        return true;
    }
    bool neg = false;
    if (t.is('-')) {
        neg = true;
        ++m_pos;
    }
    const token v = peek();
    if (v.k == token::kind::integer) {
        ++m_pos;
        op.k = operand::kind::imm_int;
        op.ival = static_cast<std::int64_t>(neg ? 0 - v.value : v.value);
        return true;
    }
    if (v.k == token::kind::f32 || v.k == token::kind::f64) {
        ++m_pos;
        std::uint64_t bits = v.value;
        if (v.k == token::kind::f32) {
            if (neg)
                bits ^= 0x80000000u;
            const auto b = static_cast<std::uint32_t>(bits);
            float f = 0;
            std::memcpy(&f, &b, sizeof f);
            op.fval = f;
            op.k = operand::kind::imm_f32;
        } else {
            if (neg)
                bits ^= 0x8000000000000000ull;
            std::memcpy(&op.fval, &bits, sizeof bits);
            op.k = operand::kind::imm_f64;
        }
        op.ival = static_cast<std::int64_t>(bits);
        return true;
    }
    if (neg || v.k != token::kind::ident) {
        error(v, "expected an operand, found " + describe(v));
        return false;
    }
    ++m_pos;
    op.name = std::string(v.text);
    if (op.name == "WARP_SZ") {
        op.k = operand::kind::imm_int;
        op.ival = 32;
        return true;
    }
    if (op.name[0] == '%') {
        if (contains(vector_specials, op.name)) {
            const token c = peek();
            if (c.k != token::kind::directive ||
                (c.text != "x" && c.text != "y" && c.text != "z")) {
                error(c, op.name + " needs a component .x, .y or .z");
                return false;
            }
            ++m_pos;
            op.name += "." + std::string(c.text);
            op.k = operand::kind::special;
        } else if (contains(scalar_specials, op.name) || numbered_special(op.name)) {
            op.k = operand::kind::special;
        } else {
            op.k = operand::kind::reg;
        }
    } else {
        op.k = operand::kind::symbol;
    }
    if (peek().is('|')) {
        ++m_pos;
        operand second;
        if (!parse_operand(second))
            return false;
        operand first = std::move(op);
        op = operand{};
        op.k = operand::kind::pair;
        op.where = first.where;
        op.elems.push_back(std::move(first));
        op.elems.push_back(std::move(second));
    }
    return true;
}

bool parser::parse_address(operand& op)
{
    ++m_pos; // '['
    op.k = operand::kind::address;
    const token b = peek();
    if (b.k == token::kind::ident) {
        ++m_pos;
        op.name = std::string(b.text);
        op.base_is_reg = b.text[0] == '%';
    } else if (b.k == token::kind::integer) {
        ++m_pos;
        op.ival = static_cast<std::int64_t>(b.value);
        return expect(']', "after the address");
    } else {
        error(b, "expected a register, a variable or an address inside [ ], found " + describe(b));
        return false;
    }
    if (peek().is('+') || peek().is('-')) {
        bool minus = next().is('-');
        if (peek().is('-')) { // [%rd1+-4]
            ++m_pos;
            minus = !minus;
        }
        std::uint64_t off = 0;
        if (!integer(off, "an address offset"))
            return false;
        op.ival = minus ? -static_cast<std::int64_t>(off) : static_cast<std::int64_t>(off);
    }
    while (peek().is(',')) { // texture and surface operands: [tex, sampler, {coords}]
        ++m_pos;
        operand e;
        if (!parse_operand(e))
            return false;
        op.elems.push_back(std::move(e));
    }
    return expect(']', "after the address");
}

bool parser::parse_operand_list(std::vector<operand>& out, const char* after)
{
    ++m_pos; // '('
    while (!peek().is(')')) {
        operand o;
        if (!parse_operand(o))
            return false;
        out.push_back(std::move(o));
        if (!peek().is(','))
            break;
        ++m_pos;
    }
    return expect(')', after);
}

bool parser::parse_call(instruction& ins)
{
    // call[.uni] [(ret, ...),] callee [, (arg, ...)] [, prototype];
    if (peek().is('(')) {
        if (!parse_operand_list(ins.ops, "after the call's return values") ||
            !expect(',', "after the call's return values"))
            return false;
    }
    const token c = peek();
    if (c.k != token::kind::ident) {
        error(c, "expected the called function, found " + describe(c));
        return false;
    }
    ++m_pos;
    ins.callee = std::string(c.text);
    ins.indirect = c.text[0] == '%';
    if (peek().is(',')) {
        ++m_pos;
        if (peek().is('(')) {
            if (!parse_operand_list(ins.args, "after the call's arguments"))
                return false;
            if (peek().is(',')) { // prototype or target list of an indirect call
                ++m_pos;
                if (peek().k != token::kind::ident) {
                    error(peek(), "expected a call prototype, found " + describe(peek()));
                    return false;
                }
                ++m_pos;
            }
        } else if (peek().k == token::kind::ident) {
            ++m_pos; // prototype
        }
    }
    return true;
}

} // namespace vgpu::ptx::detail
