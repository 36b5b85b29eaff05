// PTX parser: name resolution after the whole file is read (see parser_impl.h): every register
// is declared in scope, every label, variable and function exists.
#include "models/sm/ptx/parser_impl.h"

#include "models/common/edit_distance.h"

#include <algorithm>

namespace vgpu::ptx::detail {

namespace {

/// True when scope `inner` is `outer` or nested in it.
bool within(const function& f, int inner, int outer)
{
    while (true) {
        if (inner == outer)
            return true;
        if (inner == 0)
            return false;
        inner = f.scope_parent[static_cast<std::size_t>(inner)];
    }
}

/// The closest of `names` to `name` (within a third of its length), or "".
std::string closest(const std::string& name, const std::vector<std::string>& names)
{
    std::string best;
    std::size_t best_d = std::max<std::size_t>(1, name.size() / 3) + 1;
    for (const std::string& n : names) {
        const std::size_t d = edit_distance(name, n);
        if (d < best_d) {
            best_d = d;
            best = n;
        }
    }
    return best;
}

} // namespace

void parser::resolve_all()
{
    for (function& f : m_mod.functions)
        if (f.has_body)
            resolve_function(f);
}

bool parser::resolve_register(function& f, int scope, const std::string& name, position where,
                              int& decl, int& index)
{
    // innermost declaration first: a scalar named exactly, else a range %r<N> holding it
    std::size_t split = name.size();
    while (split > 1 && name[split - 1] >= '0' && name[split - 1] <= '9')
        --split;
    const std::string_view prefix(name.data(), split);
    const std::string_view digits(name.data() + split, name.size() - split);
    int best = -1, best_index = -1;
    auto consider = [&](std::string_view key, bool ranges) {
        const auto it = m_decl_index.find(key);
        if (it == m_decl_index.end())
            return true;
        for (const int i : it->second) {
            const variable& d = f.decls[static_cast<std::size_t>(i)];
            if (d.space != state_space::reg || (d.range != 0) != ranges ||
                !within(f, scope, d.scope))
                continue;
            int idx = -1;
            if (ranges) {
                if (digits.empty() || (digits.size() > 1 && digits[0] == '0'))
                    continue;
                const unsigned long n = digits.size() > 9 ? ~0ul : std::stoul(std::string(digits));
                if (n >= d.range) {
                    error_at(where.line, where.col,
                             "register " + name + " is outside its declaration " + d.name + "<" +
                                 std::to_string(d.range) + "> (" + d.name + "0 to " + d.name +
                                 std::to_string(d.range - 1) + ")");
                    return false;
                }
                idx = static_cast<int>(n);
            }
            // the innermost visible declaration wins
            if (best < 0 || within(f, d.scope, f.decls[static_cast<std::size_t>(best)].scope)) {
                best = i;
                best_index = idx;
            }
        }
        return true;
    };
    if (!consider(name, false))
        return false;
    if (best < 0 && !consider(prefix, true))
        return false;
    if (best < 0) {
        error_at(where.line, where.col,
                 "register " + name + " is not declared in '" + f.name + "'");
        return false;
    }
    decl = best;
    index = best_index;
    return true;
}

void parser::resolve_operand(function& f, int scope, operand& op, const instruction& ins,
                             bool is_target)
{
    switch (op.k) {
    case operand::kind::reg:
        resolve_register(f, scope, op.name, op.where, op.decl, op.index);
        return;
    case operand::kind::vector:
    case operand::kind::pair:
        for (operand& e : op.elems)
            resolve_operand(f, scope, e, ins, false);
        return;
    case operand::kind::address:
        if (op.name.empty())
            return;
        if (op.base_is_reg) {
            resolve_register(f, scope, op.name, op.where, op.decl, op.index);
            return;
        }
        [[fallthrough]];
    case operand::kind::symbol: {
        if (is_target) {
            if (f.labels.count(op.name) == 0) {
                std::vector<std::string> labels;
                for (const auto& [l, at] : f.labels)
                    labels.push_back(l);
                const std::string s = closest(op.name, labels);
                error_at(op.where.line, op.where.col,
                         "label '" + op.name + "' is not defined in '" + f.name + "'" +
                             (s.empty() ? "" : "; did you mean '" + s + "'?"));
            }
            return;
        }
        for (const variable& p : f.params)
            if (p.name == op.name)
                return;
        for (const variable& p : f.returns)
            if (p.name == op.name)
                return;
        if (const auto it = m_decl_index.find(op.name); it != m_decl_index.end())
            for (auto i = it->second.rbegin(); i != it->second.rend(); ++i) {
                const variable& d = f.decls[static_cast<std::size_t>(*i)];
                if (d.range != 0 || !within(f, scope, d.scope))
                    continue;
                op.decl = *i;
                // a register named without '%'
                if (d.space == state_space::reg && op.k == operand::kind::symbol)
                    op.k = operand::kind::reg;
                return;
            }
        if (m_mod.find_global(op.name) >= 0 || m_mod.find_function(op.name) >= 0 ||
            f.labels.count(op.name) != 0)
            return;
        std::vector<std::string> names;
        for (const variable& p : f.params)
            names.push_back(p.name);
        for (const variable& g : m_mod.globals)
            names.push_back(g.name);
        const std::string s = closest(op.name, names);
        error_at(op.where.line, op.where.col,
                 "'" + op.name + "' is not declared" +
                     (s.empty() ? "" : "; did you mean '" + s + "'?"));
        return;
    }
    default:
        return;
    }
}

void parser::resolve_function(function& f)
{
    m_decl_index.clear();
    for (std::size_t i = 0; i < f.decls.size(); ++i)
        m_decl_index[f.decls[i].name].push_back(static_cast<int>(i));
    for (instruction& ins : f.body) {
        if (m_errors.size() >= max_errors)
            return;
        if (!ins.guard.empty())
            resolve_register(f, ins.scope, ins.guard, ins.guard_where, ins.guard_decl,
                             ins.guard_index);
        const bool branch = ins.opcode == "bra";
        for (std::size_t i = 0; i < ins.ops.size(); ++i)
            resolve_operand(f, ins.scope, ins.ops[i], ins, branch && i == 0);
        for (operand& a : ins.args)
            resolve_operand(f, ins.scope, a, ins, false);
        if (!ins.callee.empty() && !ins.indirect && m_mod.find_function(ins.callee) < 0) {
            std::vector<std::string> names;
            for (const function& g : m_mod.functions)
                names.push_back(g.name);
            const std::string s = closest(ins.callee, names);
            error_at(ins.where.line, ins.where.col,
                     "call to '" + ins.callee + "', which is not declared" +
                         (s.empty() ? "" : "; did you mean '" + s + "'?"));
        }
        if (!ins.callee.empty() && ins.indirect) {
            int d = -1, idx = -1;
            resolve_register(f, ins.scope, ins.callee, ins.where, d, idx);
        }
    }
}

} // namespace vgpu::ptx::detail
