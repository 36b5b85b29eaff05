// PTX-to-vgpu translator: kernel printf (translate_impl.h). A `call vprintf` becomes ordinary
// instructions that append a record to the launch's printf FIFO, a buffer in device memory
// whose address is the hidden parameter translation.printf_param: an ATOM.ADD on the FIFO's
// cursor reserves the record, a store writes the format's id + 1, LD.LOCAL/ST pairs copy the
// argument buffer (its size is known from the format string); a record that does not fit
// counts itself in the FIFO's dropped word instead. The host formats the records after the
// kernel (models/host/printf_part.cpp). See docs/cuda.md, "Kernel printf".
#include "models/sm/ptx/printf_format.h"
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <string>

namespace vgpu::ptx::detail {

namespace {

using key = std::pair<int, int>;

bool key_of(const operand& o, key& k)
{
    if ((o.k == operand::kind::reg || (o.k == operand::kind::address && o.base_is_reg)) &&
        o.decl >= 0) {
        k = {o.decl, o.index};
        return true;
    }
    return false;
}

/// The NUL-terminated text of a `.global .b8` array with an initialiser, or false.
bool string_of(const variable& v, std::string& out)
{
    if (v.space != state_space::global || type_bits(v.type) != 8 || v.vec != 1 || v.init.empty() ||
        !v.init_symbols.empty())
        return false;
    out.clear();
    for (std::uint64_t b : v.init) {
        if (b == 0)
            return true;
        out += static_cast<char>(b);
    }
    return false; // no NUL
}

} // namespace

void translator::find_printf()
{
    const std::vector<instruction>& body = m_fn.body;
    // Definitions and uses of every register (flow-insensitive).
    std::map<key, unsigned> defs, uses;
    std::map<key, std::size_t> def_at;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const instruction& ins = body[i];
        const bool writes = !ins.ops.empty() && ins.opcode != "st" && ins.opcode != "red";
        for (std::size_t k = 0; k < ins.ops.size(); ++k) {
            const operand& o = ins.ops[k];
            const bool def = writes && k == 0 && o.k != operand::kind::address;
            auto count = [&](const operand& x) {
                key r;
                if (!key_of(x, r))
                    return;
                if (def) {
                    ++defs[r];
                    def_at[r] = i;
                } else {
                    ++uses[r];
                }
            };
            count(o);
            for (const operand& e : o.elems)
                count(e);
        }
        if (ins.guard_decl >= 0)
            ++uses[{ins.guard_decl, ins.guard_index}];
    }
    for (std::size_t i = 0; i < body.size(); ++i) {
        const instruction& ins = body[i];
        if (ins.opcode != "call" || ins.callee != "vprintf")
            continue;
        m_has_printf = true;
        m_failed = false;
        if (!ins.guard.empty()) {
            unsupported(ins, "a guarded call of vprintf");
            continue;
        }
        if (ins.args.size() != 2 || ins.ops.size() > 1) {
            unsupported(ins, "vprintf takes a format and an argument buffer");
            continue;
        }
        // The st.param of each argument before the call (its call sequence).
        std::size_t st[2] = {npos, npos};
        for (std::size_t j = i; j-- > 0 && (st[0] == npos || st[1] == npos);) {
            const instruction& s = body[j];
            if (s.opcode == "call")
                break;
            if (s.opcode != "st" || s.space != state_space::param || s.ops.size() != 2 ||
                s.ops[0].k != operand::kind::address || s.ops[0].ival != 0)
                continue;
            for (unsigned a = 0; a < 2; ++a)
                if (st[a] == npos && s.ops[0].decl >= 0 && s.ops[0].decl == ins.args[a].decl)
                    st[a] = j;
        }
        if (st[0] == npos || st[1] == npos) {
            unsupported(ins, "the arguments of vprintf are not stored in its call sequence");
            continue;
        }
        // The format: a register written once from a string constant's address (mov, then
        // cvta.global), each link read once (by the next).
        std::vector<std::size_t> chain = {st[0]};
        std::string sym;
        key r;
        bool ok = key_of(body[st[0]].ops[1], r);
        for (int hop = 0; ok && hop < 4 && sym.empty(); ++hop) {
            ok = defs[r] == 1 && uses[r] == 1;
            if (!ok)
                break;
            const std::size_t d = def_at[r];
            const instruction& di = body[d];
            chain.push_back(d);
            if ((di.opcode == "mov" || (di.opcode == "cvta" && di.has("global"))) &&
                di.ops.size() == 2 && di.ops[1].k == operand::kind::symbol)
                sym = di.ops[1].name;
            else if (di.opcode == "cvta" && di.has("global") && di.ops.size() == 2)
                ok = key_of(di.ops[1], r);
            else
                ok = false;
        }
        std::string text;
        const int g = sym.empty() ? -1 : m_mod.find_global(sym);
        if (!ok || g < 0 || !string_of(m_mod.globals[static_cast<std::size_t>(g)], text)) {
            unsupported(ins, "the format of vprintf is not a string constant of the module");
            continue;
        }
        printf_format f;
        const std::string why = parse_printf_format(text, f);
        if (!why.empty()) {
            unsupported(ins, "printf format \"" + text.substr(0, text.find('\n')) + "\": " + why);
            continue;
        }
        f.ptx_line = ins.where.line;
        f.cuda = m_mod.source_line(ins);
        // The argument buffer: a local address known at translation (clang's and nvcc's depot).
        printf_call c;
        if (f.arg_bytes > 0) {
            key a;
            const auto it =
                key_of(body[st[1]].ops[1], a) ? m_local_const.find(a) : m_local_const.end();
            if (it == m_local_const.end()) {
                unsupported(ins, "the argument buffer of vprintf is not at a known place in "
                                 "local memory");
                continue;
            }
            c.args = it->second;
        }
        c.format = m_out.printf_formats.size();
        m_out.printf_formats.push_back(f);
        m_printf_calls[i] = c;
        chain.push_back(st[1]);
        m_printf_skip.insert(chain.begin(), chain.end());
    }
}

void translator::lower_printf(const instruction& ins)
{
    const auto it = m_printf_calls.find(m_at);
    if (it == m_printf_calls.end()) { // refused by find_printf
        m_failed = true;
        return;
    }
    const printf_format& f = m_out.printf_formats[it->second.format];
    const std::uint32_t bytes = f.record_bytes();
    auto add = [&](opcode o, vop a, vop b = {}, std::int32_t off = 0, int guard = -1,
                   bool neg = false) {
        vins v;
        v.op = o;
        v.dst = vreg(temp());
        v.src[0] = a;
        v.src[1] = b;
        v.offset = off;
        v.guard = guard;
        v.guard_neg = neg;
        emit(v);
        return v.dst;
    };
    const vop buf = add(opcode::LDP, vimm(m_out.printf_param));
    // Reserve: o = the cursor before this lane's record (lanes in lane order).
    vins atom;
    atom.op = opcode::ATOM;
    atom.aop = sm::atom_op::ADD;
    atom.dst = vreg(temp());
    atom.src[0] = buf;
    atom.src[1] = add(opcode::MOV, vimm(bytes));
    atom.offset = 0;
    emit(atom);
    const vop o = atom.dst;
    const vop cap = add(opcode::LD, buf, {}, 8);
    const vop end = add(opcode::IADD, o, vimm(bytes));
    vins fits;
    fits.op = opcode::USETP;
    fits.cond = cmp_op::LE;
    fits.dst = temp_pred();
    fits.src[0] = end;
    fits.src[1] = cap;
    emit(fits);
    const int p = static_cast<int>(fits.dst.v);
    // The record: the format's id, then the argument buffer's words.
    const vop at = add(opcode::IADD, buf, o, 0, p);
    // id + 1: a zero word is no record (the host stops there).
    const vop id = add(opcode::MOV, vimm(static_cast<std::uint32_t>(it->second.format + 1)));
    auto store = [&](vop data, std::int32_t off) {
        vins s;
        s.op = opcode::ST;
        s.src[0] = at;
        s.src[1] = data;
        s.offset = off;
        s.guard = p;
        emit(s);
    };
    const auto hdr = static_cast<std::int32_t>(printf_header_bytes);
    store(id, hdr);
    for (std::uint32_t w = 0; w < (f.arg_bytes + 3) / 4; ++w) {
        const vop d = vreg(temp());
        load_local_word(d, it->second.args + 4 * w, p);
        store(d, hdr + 4 + 4 * static_cast<std::int32_t>(w));
    }
    // A record that does not fit is dropped and counted.
    vins drop = atom;
    drop.dst = {vk::rz, 0};
    drop.src[1] = add(opcode::MOV, vimm(1));
    drop.offset = 4;
    drop.guard = p;
    drop.guard_neg = true;
    emit(drop);
    // The result: the number of arguments, or -1 when the record was dropped.
    if (!ins.ops.empty()) {
        const auto rk = std::make_pair(-2 - ins.ops[0].decl, 0);
        auto r = m_regs.find(rk);
        if (r == m_regs.end())
            r = m_regs.emplace(rk, m_nregs++).first;
        vins v;
        v.op = opcode::SEL;
        v.dst = vreg(r->second);
        v.src[0] = vimm(static_cast<std::uint32_t>(f.args.size()));
        v.src[1] = vimm(0xffffffffu);
        v.src[2] = {vk::pred, static_cast<std::uint32_t>(p)};
        emit(v);
    }
}

} // namespace vgpu::ptx::detail
