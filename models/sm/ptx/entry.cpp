// Entry lookup, parameters and the checks of what an entry may use (see entry.h).
#include "models/sm/ptx/entry.h"

#include "models/common/edit_distance.h"

#include <functional>

namespace vgpu::ptx {

namespace {

std::string join(const std::vector<std::string>& v)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + v[i];
    return s;
}

/// "file:line:col: error: message (CUDA source f.cu:12)".
std::string located(const module& m, const instruction& ins, const std::string& msg)
{
    const std::string src = m.source_line(ins);
    return m.file + ":" + std::to_string(ins.where.line) + ":" + std::to_string(ins.where.col) +
           ": error: " + msg + (src.empty() ? "" : " (CUDA source " + src + ")");
}

/// Why a call to a function without a body cannot run, or "" when vgpu provides it.
std::string undefined_callee(const std::string& name)
{
    if (name == "vprintf")
        return "";
    if (name == "__vgpu_unsupported_texture_fetch")
        return "unsupported texture fetch (tex1Dfetch, tex1D, tex2D read a texture)";
    for (const char* n : {"cudaLaunchDevice", "cudaLaunchDeviceV2", "cudaGetParameterBuffer",
                          "cudaGetParameterBufferV2", "cudaDeviceSynchronize",
                          "cudaStreamCreateWithFlags", "cudaCGGetIntrinsicHandle_device"})
        if (name == n)
            return "unsupported dynamic parallelism (device-side '" + name + "')";
    for (const char* n : {"cudaCGSynchronize", "cudaCGSynchronizeGrid", "cudaCGGetIntrinsicHandle",
                          "cudaCGGetRank", "cudaCGGetSize"})
        if (name == n)
            return "unsupported grid-wide synchronisation ('" + name + "', cooperative groups)";
    if (name == "malloc" || name == "free")
        return "unsupported device-side " + name;
    return "unsupported call to '" + name +
           "', which the PTX declares but does not define (a library function vgpu does not "
           "provide)";
}

bool is_texture_global(const module& m, const std::string& name)
{
    const int g = m.find_global(name);
    if (g < 0)
        return false;
    const variable& v = m.globals[static_cast<std::size_t>(g)];
    return v.space == state_space::tex || v.type == data_type::texref ||
           v.type == data_type::surfref || v.type == data_type::samplerref;
}

bool uses_texture(const module& m, const operand& op)
{
    if ((op.k == operand::kind::symbol || op.k == operand::kind::address) && !op.base_is_reg &&
        !op.name.empty())
        return is_texture_global(m, op.name);
    for (const operand& e : op.elems)
        if (uses_texture(m, e))
            return true;
    return false;
}

void check_instruction(const module& m, const instruction& ins, std::vector<std::string>& errs)
{
    const std::string& op = ins.opcode;
    std::string full = op;
    for (const std::string& mod : ins.mods)
        full += "." + mod;
    if (op == "tex" || op == "tld4" || op == "txq" || op == "istypep")
        errs.push_back(located(m, ins, "unsupported texture instruction '" + full + "'"));
    else if (op == "suld" || op == "sust" || op == "sured" || op == "suq")
        errs.push_back(located(m, ins, "unsupported surface instruction '" + full + "'"));
    else if (op == "call" && ins.indirect)
        errs.push_back(located(m, ins, "unsupported indirect call through " + ins.callee));
    else if (op == "brx")
        errs.push_back(located(m, ins, "unsupported indirect branch '" + full + "'"));
    else if (op == "call") {
        const int c = m.find_function(ins.callee);
        if (c >= 0 && !m.functions[static_cast<std::size_t>(c)].has_body) {
            const std::string why = undefined_callee(ins.callee);
            if (!why.empty())
                errs.push_back(located(m, ins, why));
        }
    } else {
        for (const operand& o : ins.ops)
            if (uses_texture(m, o)) {
                errs.push_back(located(m, ins,
                                       "unsupported texture or surface reference '" +
                                           (o.elems.empty() ? o.name : full) + "'"));
                break;
            }
    }
}

} // namespace

entry_lookup find_entry(const module& m, std::string_view name, const config::location& where)
{
    entry_lookup res;
    const std::string prefix = where.str() + ": error: entry: ";
    std::vector<int> entries;
    for (std::size_t i = 0; i < m.functions.size(); ++i)
        if (m.functions[i].is_entry && m.functions[i].has_body)
            entries.push_back(static_cast<int>(i));
    std::vector<int> matches;
    for (int i : entries) {
        const std::string& mangled = m.functions[static_cast<std::size_t>(i)].name;
        if (mangled == name) {
            res.index = i;
            res.name = demangle(mangled);
            return res;
        }
        const demangled d = demangle(mangled);
        if (d.unqualified == name || d.scoped == name || d.qualified == name)
            matches.push_back(i);
    }
    auto describe = [&](int i) {
        const std::string& mangled = m.functions[static_cast<std::size_t>(i)].name;
        const demangled d = demangle(mangled);
        return d.ok ? d.signature() + " [" + mangled + "]" : mangled;
    };
    if (matches.size() == 1) {
        res.index = matches[0];
        res.name = demangle(m.functions[static_cast<std::size_t>(res.index)].name);
        return res;
    }
    if (matches.size() > 1) {
        std::vector<std::string> c;
        for (int i : matches)
            c.push_back(describe(i));
        res.errors.push_back(prefix + "'" + std::string(name) + "' is ambiguous in " + m.file +
                             ": it names " + std::to_string(matches.size()) +
                             " kernels: " + join(c) + "; give the mangled name of one");
        return res;
    }
    if (entries.empty()) {
        res.errors.push_back(prefix + "no kernel '" + std::string(name) + "' in " + m.file +
                             ", which has no .entry");
        return res;
    }
    std::string best;
    std::size_t best_d = name.size() / 3 + 2;
    std::vector<std::string> all;
    for (int i : entries) {
        const demangled d = demangle(m.functions[static_cast<std::size_t>(i)].name);
        const std::size_t dist = edit_distance(name, d.unqualified);
        if (dist < best_d) {
            best_d = dist;
            best = d.unqualified;
        }
        all.push_back(describe(i));
    }
    res.errors.push_back(prefix + "no kernel '" + std::string(name) + "' in " + m.file +
                         (best.empty() ? "" : "; did you mean '" + best + "'?") +
                         " (kernels: " + join(all) + ")");
    return res;
}

std::vector<param_info> entry_params(const module& m, int index)
{
    const function& f = m.functions[static_cast<std::size_t>(index)];
    const demangled d = demangle(f.name);
    std::vector<param_info> out;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        const variable& p = f.params[i];
        param_info info{p.name, p.type, p.bytes(), p.align, p.is_ptr, ""};
        if (info.align == 0)
            info.align = static_cast<unsigned>(p.element_bytes());
        if (d.ok && d.params.size() == f.params.size()) {
            info.cxx_type = d.params[i];
            info.is_pointer = info.is_pointer || (!info.cxx_type.empty() &&
                                                  info.cxx_type.find('*') != std::string::npos);
        }
        out.push_back(std::move(info));
    }
    return out;
}

std::vector<std::string> check_entry(const module& m, int index)
{
    std::vector<std::string> errs;
    // 0 unvisited, 1 on the call stack, 2 done
    std::vector<int> state(m.functions.size(), 0);
    std::vector<std::string> stack;
    std::function<void(int)> visit = [&](int fi) {
        const function& f = m.functions[static_cast<std::size_t>(fi)];
        state[static_cast<std::size_t>(fi)] = 1;
        stack.push_back(f.name);
        for (const instruction& ins : f.body) {
            check_instruction(m, ins, errs);
            if (ins.opcode != "call" || ins.indirect)
                continue;
            const int c = m.find_function(ins.callee);
            if (c < 0 || !m.functions[static_cast<std::size_t>(c)].has_body)
                continue;
            if (state[static_cast<std::size_t>(c)] == 1) {
                std::string chain;
                bool on = false;
                for (const std::string& s : stack) {
                    on = on || s == ins.callee;
                    if (on)
                        chain += demangle(s).signature() + " -> ";
                }
                errs.push_back(located(
                    m, ins, "unsupported recursion: " + chain + demangle(ins.callee).signature()));
            } else if (state[static_cast<std::size_t>(c)] == 0) {
                visit(c);
            }
        }
        stack.pop_back();
        state[static_cast<std::size_t>(fi)] = 2;
    };
    visit(index);
    return errs;
}

} // namespace vgpu::ptx
