// PTX-to-vgpu translator, first slice (translate.h): basic blocks, the reconverging layout
// (layout.cpp), lowering (lower.cpp), copy propagation, linear-scan register allocation and
// assembler text. See docs/cuda.md, "Translation".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace vgpu::ptx {

namespace detail {

namespace {

/// Registers an instruction reads (r) and writes (w), in the joint numbering: virtual
/// registers 0..nr-1, predicates nr.. .
void uses_defs(const vins& v, std::uint32_t nr, std::vector<std::uint32_t>& r,
               std::vector<std::uint32_t>& w)
{
    r.clear();
    w.clear();
    auto id = [&](const vop& o) { return o.k == vk::reg ? o.v : nr + o.v; };
    for (const vop& s : v.src)
        if (s.k == vk::reg || s.k == vk::pred)
            r.push_back(id(s));
    if (v.guard >= 0)
        r.push_back(nr + static_cast<std::uint32_t>(v.guard));
    if (v.dst.k == vk::reg || v.dst.k == vk::pred) {
        w.push_back(id(v.dst));
        // A guarded write keeps the old value in the other lanes; a write of a pair's high
        // word keeps its low word (the low word's write comes first and defines the pair).
        if (v.guard >= 0 || v.dst.half)
            r.push_back(id(v.dst));
    }
}

std::string imm_text(opcode op, std::uint32_t bits)
{
    char buf[24];
    if (sm::info(op).imm == sm::imm_type::integer)
        std::snprintf(buf, sizeof buf, "%d", static_cast<std::int32_t>(bits));
    else
        std::snprintf(buf, sizeof buf, "0x%08x", bits);
    return buf;
}

} // namespace

void translator::propagate_copies()
{
    // MOV d, s where s is written once by an LDP or an S2R (the same value whenever it runs
    // in a thread) and d is written only by the MOV: every read of d sees s's value, so
    // reads of d read s and the MOV goes (cvta of a parameter becomes nothing).
    std::vector<unsigned> defs(m_nregs, 0);
    std::vector<char> invariant(m_nregs, 0);
    for (const block& b : m_blocks)
        for (const vins& v : b.code)
            if (v.dst.k == vk::reg) {
                ++defs[v.dst.v];
                invariant[v.dst.v] = (v.op == opcode::LDP || v.op == opcode::S2R) && v.guard < 0;
            }
    std::vector<std::uint32_t> to(m_nregs);
    for (std::uint32_t r = 0; r < m_nregs; ++r)
        to[r] = r;
    bool any = false;
    for (const block& b : m_blocks)
        for (const vins& v : b.code)
            if (v.op == opcode::MOV && v.guard < 0 && v.dst.k == vk::reg && v.src[0].k == vk::reg &&
                defs[v.dst.v] == 1 && defs[v.src[0].v] == 1 && invariant[v.src[0].v]) {
                to[v.dst.v] = v.src[0].v;
                any = true;
            }
    if (!any)
        return;
    auto root = [&](std::uint32_t r) {
        while (to[r] != r)
            r = to[r];
        return r;
    };
    for (block& b : m_blocks) {
        std::vector<vins> kept;
        for (vins v : b.code) {
            if (v.op == opcode::MOV && v.dst.k == vk::reg && to[v.dst.v] != v.dst.v)
                continue;
            for (vop& o : v.src)
                if (o.k == vk::reg)
                    o.v = root(o.v);
            kept.push_back(v);
        }
        b.code = std::move(kept);
    }
}

void translator::run()
{
    layout_shared();
    layout_local();
    layout_const();
    if (!m_out.errors.empty())
        return;
    // The local area's base follows the entry's parameters and their 64-bit high words.
    m_out.local_param = static_cast<unsigned>(m_fn.params.size());
    for (const auto& prm : m_fn.params)
        m_out.local_param += type_bits(prm.type) == 64;
    find_printf(); // kernel printf (lower_printf.cpp): its FIFO takes the next parameter
    if (m_has_printf)
        m_out.printf_param = m_out.local_param++;
    if (!m_out.errors.empty())
        return;
    find_wide(); // which 64-bit registers become register pairs (lower_wide.cpp)
    build_blocks();
    if (!m_out.errors.empty())
        return;
    propagate_copies();
    flow_graph g;
    for (const block& b : m_blocks) {
        std::vector<std::size_t> s;
        if (b.has_branch)
            s.push_back(b.target);
        if (b.fall != npos && !b.ends)
            s.push_back(b.fall);
        g.succs.push_back(s);
    }
    std::string why;
    const std::vector<std::size_t> order = reconverging_layout(g, &why);
    if (order.empty()) {
        m_out.errors.push_back(m_mod.file + ":" + std::to_string(m_fn.where.line) + ":" +
                               std::to_string(m_fn.where.col) + ": error: unsupported " + why +
                               " in '" + m_fn.name + "'");
        return;
    }
    finish(order);
}

void translator::finish(const std::vector<std::size_t>& order)
{
    // Linear code in layout order; BRA targets are blocks until every block has its PC.
    std::vector<vins> code;
    std::vector<std::size_t> block_pc(m_blocks.size(), npos);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const block& b = m_blocks[order[k]];
        const std::size_t next = k + 1 < order.size() ? order[k + 1] : npos;
        block_pc[order[k]] = code.size();
        code.insert(code.end(), b.code.begin(), b.code.end());
        if (b.ends)
            continue;
        auto bra = [&](std::size_t target, int guard, bool neg) {
            vins v;
            v.op = opcode::BRA;
            v.target = target;
            v.guard = guard;
            v.guard_neg = neg;
            v.ptx = b.branch_ptx;
            code.push_back(v);
        };
        std::size_t fall = b.fall;
        if (b.has_branch) {
            if (b.guard >= 0 && b.target == next && fall != npos && fall != next) {
                bra(fall, b.guard, !b.guard_neg); // invert: the taken side falls through
                continue;
            }
            if (b.target != next || b.guard >= 0)
                bra(b.target, b.guard, b.guard_neg);
            if (b.guard < 0)
                continue;
        }
        if (fall == npos) { // the end of the function: lanes finish
            vins v;
            v.op = opcode::EXIT;
            v.ptx = b.end > 0 ? b.end - 1 : npos;
            code.push_back(v);
        } else if (fall != next) {
            bra(fall, -1, false);
        }
    }
    for (vins& v : code)
        if (v.op == opcode::BRA)
            v.target = block_pc[v.target];
    allocate_and_emit(code);
}

void translator::allocate_and_emit(std::vector<vins>& code)
{
    insert_local_prologue(code); // when local memory or a spill needs it (regalloc.cpp)
    // Liveness (backward, to a fixed point) over the linear code.
    const std::size_t n = code.size();
    const std::uint32_t nr = m_nregs, nv = m_nregs + m_npreds;
    const std::size_t words = (nv + 63) / 64;
    std::vector<std::vector<std::uint64_t>> live_in(n, std::vector<std::uint64_t>(words, 0));
    std::vector<std::vector<std::uint32_t>> reads(n), writes(n);
    for (std::size_t i = 0; i < n; ++i)
        uses_defs(code[i], nr, reads[i], writes[i]);
    auto succs = [&](std::size_t i, std::size_t out[2]) {
        std::size_t c = 0;
        const vins& v = code[i];
        if (v.op == opcode::BRA) {
            out[c++] = v.target;
            if (v.guard >= 0 && i + 1 < n)
                out[c++] = i + 1;
        } else if (v.op == opcode::EXIT) {
            if (v.guard >= 0 && i + 1 < n)
                out[c++] = i + 1;
        } else if (i + 1 < n) {
            out[c++] = i + 1;
        }
        return c;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t i = n; i-- > 0;) {
            std::vector<std::uint64_t> live(words, 0);
            std::size_t s[2];
            const std::size_t c = succs(i, s);
            for (std::size_t k = 0; k < c; ++k)
                for (std::size_t w = 0; w < words; ++w)
                    live[w] |= live_in[s[k]][w];
            for (const std::uint32_t d : writes[i])
                live[d / 64] &= ~(std::uint64_t{1} << (d % 64));
            for (const std::uint32_t u : reads[i])
                live[u / 64] |= std::uint64_t{1} << (u % 64);
            if (live != live_in[i]) {
                live_in[i] = std::move(live);
                changed = true;
            }
        }
    }
    // One interval per virtual register: every point where it is live in or written.
    std::vector<std::size_t> first(nv, npos), last(nv, 0);
    auto touch = [&](std::uint32_t x, std::size_t i) {
        first[x] = std::min(first[x], i);
        last[x] = std::max(last[x], i);
    };
    for (std::size_t i = 0; i < n; ++i) {
        for (std::uint32_t x = 0; x < nv; ++x)
            if (live_in[i][x / 64] >> (x % 64) & 1)
                touch(x, i);
        for (const std::uint32_t d : writes[i])
            touch(d, i);
    }
    // A bulk CDL writes every lane: its register is nobody else's, and is never spilled (a
    // spill keeps only the active lanes' values).
    if (m_has_bulk) {
        first[m_bulk] = 0;
        last[m_bulk] = n - 1;
        m_fixed.resize(std::max<std::size_t>(m_fixed.size(), m_bulk + 1), 0);
        m_fixed[m_bulk] = 1;
    }
    // Linear scan: by start; a register is free again after its interval's last point.
    std::vector<std::uint32_t> phys(nv, 0);
    std::vector<std::uint32_t> by_start;
    for (std::uint32_t x = 0; x < nv; ++x)
        if (first[x] != npos)
            by_start.push_back(x);
    std::stable_sort(by_start.begin(), by_start.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return first[a] < first[b]; });
    std::vector<std::size_t> busy_until_r(m_opt.max_registers, npos),
        busy_until_p(m_opt.max_predicates, npos);
    unsigned used_r = 0, used_p = 0;
    for (const std::uint32_t x : by_start) {
        const bool is_pred = x >= nr;
        auto& busy = is_pred ? busy_until_p : busy_until_r;
        const std::size_t width = !is_pred && is_wide_vreg(x) ? 2 : 1; // a pair: Rn, Rn+1
        auto is_free = [&](std::size_t k) { return busy[k] == npos || busy[k] < first[x]; };
        std::size_t pick = npos;
        for (std::size_t k = 0; k + width <= busy.size() && pick == npos; ++k)
            if (is_free(k) && (width == 1 || is_free(k + 1)))
                pick = k;
        if (pick == npos && !is_pred) { // spill the value live here that lives longest
            if (const std::uint32_t v = spill_victim(x, first, last); v != UINT32_MAX) {
                spill(code, v);
                allocate_and_emit(code);
                return;
            }
        }
        if (pick == npos) {
            const std::size_t at = code[first[x]].ptx;
            const instruction& ins = m_fn.body[at == npos ? 0 : at];
            m_failed = false;
            fail(ins, std::string("unsupported: the kernel needs more than ") +
                          std::to_string(busy.size()) + (is_pred ? " predicates" : " registers") +
                          " per thread here" +
                          (is_pred ? "" : " (even with spilling to local memory)"));
            return;
        }
        for (std::size_t k = pick; k < pick + width; ++k)
            busy[k] = last[x];
        phys[x] = static_cast<std::uint32_t>(pick);
        (is_pred ? used_p : used_r) =
            std::max(is_pred ? used_p : used_r, static_cast<unsigned>(pick + width));
    }
    m_out.registers = std::max(used_r, 1u);
    m_out.predicates = used_p;
    patch_local_words(code);

    // Text: one instruction per line, a label before every branch target.
    std::vector<char> is_target(n + 1, 0);
    for (const vins& v : code)
        if (v.op == opcode::BRA)
            is_target[v.target] = 1;
    auto opnd = [&](const vins& v, const vop& o) -> std::string {
        switch (o.k) {
        case vk::reg:
            return "R" + std::to_string(phys[o.v] + o.half);
        case vk::pred:
            return "P" + std::to_string(phys[nr + o.v]);
        case vk::imm:
            return imm_text(v.op, o.v);
        case vk::rz:
            return "RZ";
        default:
            return "?";
        }
    };
    std::string& t = m_out.text;
    for (std::size_t i = 0; i < n; ++i) {
        const vins& v = code[i];
        std::string line = is_target[i] ? "L" + std::to_string(i) + ":" : "";
        line.resize(std::max<std::size_t>(line.size(), 8), ' ');
        if (v.guard >= 0)
            line += std::string("@") + (v.guard_neg ? "!" : "") + "P" +
                    std::to_string(phys[nr + static_cast<std::uint32_t>(v.guard)]) + " ";
        std::string mn = sm::info(v.op).name;
        const sm::syntax form = sm::info(v.op).form;
        if (form == sm::syntax::setp)
            mn += std::string(".") + sm::name(v.cond);
        if (v.op == opcode::ATOM)
            mn += std::string(".") + sm::name(v.aop);
        if (sm::has_mod(v.op))
            mn += sm::mod_text(v.op, v.mod);
        if (v.width != sm::mem_width::b32)
            mn += std::string(".") + sm::name(v.width);
        if (v.space != sm::mem_space::global)
            mn += std::string(".") + sm::name(v.space);
        line += mn;
        auto mem = [&](const vop& base) {
            std::string s = "[" + opnd(v, base);
            if (v.offset > 0)
                s += " + " + std::to_string(v.offset);
            else if (v.offset < 0)
                s += " - " + std::to_string(-static_cast<std::int64_t>(v.offset));
            return s + "]";
        };
        std::string ops;
        switch (form) {
        case sm::syntax::none:
            break;
        case sm::syntax::r_s:
        case sm::syntax::r_sm:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]);
            break;
        case sm::syntax::wsync:
            ops = opnd(v, v.src[0]);
            break;
        case sm::syntax::r_ss:
        case sm::syntax::setp:
        case sm::syntax::r_ssm:
        case sm::syntax::setpm:
        case sm::syntax::vote:
        case sm::syntax::ballot:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        case sm::syntax::r_sss:
        case sm::syntax::sel:
        case sm::syntax::r_sssm:
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]) + ", " + opnd(v, v.src[1]) + ", " +
                  opnd(v, v.src[2]);
            break;
        case sm::syntax::s2r:
            ops = opnd(v, v.dst) + ", SR_" + sm::name(v.sreg);
            break;
        case sm::syntax::ldp:
            ops = opnd(v, v.dst) + ", " + std::to_string(v.src[0].v);
            break;
        case sm::syntax::bra:
            ops = "L" + std::to_string(v.target);
            break;
        case sm::syntax::ld:
            ops = opnd(v, v.dst) + ", " + mem(v.src[0]);
            break;
        case sm::syntax::st:
            ops = mem(v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        case sm::syntax::atom:
            ops = opnd(v, v.dst) + ", " + mem(v.src[0]) + ", " + opnd(v, v.src[1]);
            break;
        case sm::syntax::cdl: // CDL rd, offset, cbv[slot][, n]
            ops = opnd(v, v.dst) + ", " + opnd(v, v.src[0]) + ", cbv[" +
                  std::to_string(v.src[1].v) + "]" +
                  (v.src[2].k == vk::imm ? ", " + std::to_string(v.src[2].v) : "");
            break;
        case sm::syntax::cas:
            ops = opnd(v, v.dst) + ", " + mem(v.src[0]) + ", " + opnd(v, v.src[1]) + ", " +
                  opnd(v, v.src[2]);
            break;
        default:
            break;
        }
        if (!ops.empty())
            line += " " + ops;
        pc_origin o;
        if (v.ptx != npos) {
            const instruction& ins = m_fn.body[v.ptx];
            o.ptx_line = ins.where.line;
            o.cuda = m_mod.source_line(ins);
        }
        line.resize(std::max<std::size_t>(line.size(), 40), ' ');
        line += "# " + std::to_string(i) +
                (o.ptx_line ? " ptx:" + std::to_string(o.ptx_line) : std::string(" layout")) +
                (o.cuda.empty() ? "" : " " + o.cuda);
        t += line + "\n";
        m_out.pcs.push_back(o);
    }
}

} // namespace detail

translation translate(const module& m, int entry, const translate_options& opt)
{
    translation out;
    if (entry < 0 || static_cast<std::size_t>(entry) >= m.functions.size()) {
        out.errors.push_back(m.file + ": error: no entry " + std::to_string(entry));
        return out;
    }
    const function* fp = &m.functions[static_cast<std::size_t>(entry)];
    function inlined; // the entry with its device functions inlined (inline.cpp)
    if (detail::calls_functions(m, *fp)) {
        inlined = detail::inline_calls(m, *fp, out.errors);
        if (!out.ok())
            return out;
        fp = &inlined;
    }
    const function& f = *fp;
    translate_options o = opt; // __launch_bounds__ cap the registers (docs/cuda.md)
    out.maxntid = f.maxntid;
    out.reqntid = f.reqntid;
    detail::apply_launch_bounds(f, o);
    out.register_cap = o.max_registers;
    if (f.body.empty()) {
        out.text = "        EXIT\n";
        out.pcs.push_back({});
        out.registers = 1;
        return out;
    }
    detail::translator(m, f, o, out).run();
    if (!out.ok()) {
        out.text.clear();
        out.pcs.clear();
    }
    return out;
}

} // namespace vgpu::ptx