// PTX-to-vgpu translator: inlining of device functions (translate_impl.h). Every `call` of a
// .func the module defines is replaced by the callee's body (its own calls inlined first):
// the callee's declarations are appended to the caller's (registers stay distinct), its
// labels renamed, `ret` becomes a branch to the instruction after the call, and its formal
// parameters and return value become the caller's `.param` variables of the call sequence
// (`param0`, `retval0`), which the lowering keeps in registers (lower_param_var). Calls of
// functions the module only declares stay: `vprintf` is lowered (lower_printf.cpp), others
// refused.
// See docs/cuda.md, "Device functions".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <string>

namespace vgpu::ptx::detail {

namespace {

constexpr int max_depth = 64; // deeper nesting than this is refused (recursion too)

struct inliner {
    const module& m;
    std::vector<std::string>& errors;
    unsigned sites = 0; ///< calls inlined so far (names the labels of each copy)

    void error(const instruction& ins, const std::string& why)
    {
        errors.push_back(m.file + ":" + std::to_string(ins.where.line) + ":" +
                         std::to_string(ins.where.col) + ": error: unsupported 'call' of '" +
                         ins.callee + "': " + why);
    }

    /// Adds `by` to every declaration index of o (registers, .param/.local variables).
    static void shift(operand& o, int by)
    {
        if (o.decl >= 0)
            o.decl += by;
        for (operand& e : o.elems)
            shift(e, by);
    }

    /// f with its calls inlined; false (errors added) when one cannot be.
    bool expand(function& f, int depth)
    {
        for (std::size_t i = 0; i < f.body.size(); ++i) {
            const instruction call = f.body[i];
            if (call.opcode != "call")
                continue;
            const int ci = m.find_function(call.callee);
            if (ci < 0 || !m.functions[static_cast<std::size_t>(ci)].has_body)
                continue; // a library function (vprintf): the lowering refuses or lowers it
            if (depth >= max_depth) {
                error(call, "calls nested deeper than " + std::to_string(max_depth) +
                                " (recursion is not supported)");
                return false;
            }
            function g = m.functions[static_cast<std::size_t>(ci)];
            if (g.body.empty()) {
                error(call, "the function has no instructions");
                return false;
            }
            if (!expand(g, depth + 1))
                return false;
            if (call.indirect || call.args.size() != g.params.size() ||
                call.ops.size() != g.returns.size()) {
                error(call, "the call does not match the function's parameters");
                return false;
            }
            auto param_var = [&](const operand& o) {
                return (o.k == operand::kind::symbol || o.k == operand::kind::address) &&
                       o.decl >= 0 &&
                       f.decls[static_cast<std::size_t>(o.decl)].space == state_space::param;
            };
            for (const operand& a : call.args)
                if (!param_var(a)) {
                    error(call, "argument '" + a.name + "' is not a .param variable");
                    return false;
                }
            for (const operand& r : call.ops)
                if (!param_var(r)) {
                    error(call, "return value '" + r.name + "' is not a .param variable");
                    return false;
                }
            // Declarations and scopes of the copy follow the caller's.
            const int by = static_cast<int>(f.decls.size());
            const int scopes = static_cast<int>(f.scope_parent.size());
            for (variable d : g.decls) {
                d.scope = d.scope == 0 ? call.scope : d.scope + scopes;
                f.decls.push_back(d);
            }
            for (std::size_t s = 0; s < g.scope_parent.size(); ++s)
                f.scope_parent.push_back(s == 0 ? call.scope : g.scope_parent[s] + scopes);
            const std::string tag = "$inl" + std::to_string(++sites) + "$";
            const std::string back = tag + "return";
            std::vector<instruction> code;
            for (instruction ins : g.body) {
                ins.scope = ins.scope == 0 ? call.scope : ins.scope + scopes;
                if (ins.guard_decl >= 0)
                    ins.guard_decl += by;
                auto rebind = [&](operand& o) {
                    if (o.decl < 0 && (o.k == operand::kind::symbol ||
                                       (o.k == operand::kind::address && !o.base_is_reg))) {
                        for (std::size_t k = 0; k < g.params.size(); ++k)
                            if (o.name == g.params[k].name) {
                                o.name = call.args[k].name;
                                o.decl = call.args[k].decl;
                                return;
                            }
                        for (std::size_t k = 0; k < g.returns.size(); ++k)
                            if (o.name == g.returns[k].name) {
                                o.name = call.ops[k].name;
                                o.decl = call.ops[k].decl;
                                return;
                            }
                        return;
                    }
                    shift(o, by);
                };
                for (operand& o : ins.ops)
                    rebind(o);
                for (operand& o : ins.args)
                    rebind(o);
                if (ins.opcode == "bra" && !ins.ops.empty())
                    ins.ops[0].name = tag + ins.ops[0].name;
                if (ins.opcode == "ret") { // back to the caller: a branch after the call
                    ins.opcode = "bra";
                    ins.mods.clear();
                    operand t;
                    t.k = operand::kind::symbol;
                    t.name = back;
                    t.where = ins.where;
                    ins.ops = {t};
                }
                if (ins.loc_line == 0) { // no line of its own: the call's
                    ins.loc_file = call.loc_file;
                    ins.loc_line = call.loc_line;
                    ins.loc_col = call.loc_col;
                }
                code.push_back(ins);
            }
            // Splice: the call's place holds the copy; labels after it move.
            const std::size_t n = code.size();
            for (auto& [name, at] : f.labels)
                if (at > i)
                    at += n - 1;
            for (const auto& [name, at] : g.labels) {
                f.labels[tag + name] = i + at;
                f.label_where[tag + name] = g.label_where[name];
            }
            f.labels[back] = i + n;
            f.label_where[back] = call.where;
            f.body.erase(f.body.begin() + static_cast<std::ptrdiff_t>(i));
            f.body.insert(f.body.begin() + static_cast<std::ptrdiff_t>(i), code.begin(),
                          code.end());
            i += n - 1;
        }
        return true;
    }
};

} // namespace

bool calls_functions(const module& m, const function& f)
{
    for (const instruction& ins : f.body)
        if (ins.opcode == "call") {
            const int ci = m.find_function(ins.callee);
            if (ci >= 0 && m.functions[static_cast<std::size_t>(ci)].has_body)
                return true;
        }
    return false;
}

function inline_calls(const module& m, const function& f, std::vector<std::string>& errors)
{
    function out = f;
    inliner in{m, errors};
    in.expand(out, 0);
    return out;
}

bool translator::lower_param_var(const instruction& ins)
{
    // ld/st.param of a call sequence's .param variable (after inlining: the callee's
    // parameters and return value too): one virtual register per variable and byte offset.
    if (ins.opcode == "call") {
        if (ins.callee == "vprintf")
            lower_printf(ins); // lower_printf.cpp
        else
            unsupported(ins, "a call of '" + ins.callee + "', which the module does not define");
        return true;
    }
    if ((ins.opcode != "ld" && ins.opcode != "st") || ins.space != state_space::param ||
        ins.ops.size() != 2)
        return false;
    const bool store = ins.opcode == "st";
    const operand& a = ins.ops[store ? 0 : 1];
    if (a.k != operand::kind::address || a.base_is_reg || a.decl < 0 ||
        m_fn.decls[static_cast<std::size_t>(a.decl)].space != state_space::param)
        return false; // a parameter of the entry (lower_ld)
    const data_type t = ins.type();
    const unsigned bits = type_bits(t);
    if (!(bits == 32 || bits == 64) || t == data_type::f64 || !mods_ok(ins, {"v2", "v4"})) {
        unsupported(ins, "only 32- and 64-bit integer and f32 values pass through .param");
        return true;
    }
    const operand& d = ins.ops[store ? 1 : 0];
    std::vector<const operand*> elems;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            elems.push_back(&e);
    else
        elems.push_back(&d);
    for (std::size_t k = 0; k < elems.size(); ++k) {
        const auto key = std::make_pair(-2 - a.decl, static_cast<int>(a.ival + k * bits / 8));
        auto it = m_regs.find(key);
        if (it == m_regs.end())
            it = m_regs.emplace(key, m_nregs++).first;
        vins v;
        v.op = opcode::MOV;
        if (store) {
            v.dst = vreg(it->second);
            v.src[0] = src(ins, *elems[k]);
        } else if (elems[k]->k == operand::kind::sink) {
            continue;
        } else {
            v.dst = reg_of(ins, *elems[k]);
            v.src[0] = vreg(it->second);
        }
        emit(v);
    }
    return true;
}

} // namespace vgpu::ptx::detail
