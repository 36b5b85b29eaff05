// PTX-to-vgpu translator: spilling to local memory and the local-area prologue
// (translate_impl.h). When the linear scan (translate.cpp) finds no free register for a value,
// the value live at that point whose interval ends last is given a word of local memory after
// the .local variables: a load into a fresh temporary before each instruction that reads it,
// a store after each that writes it (a guarded write loads the old value first), and the
// allocation runs again. Spill temporaries and the prologue's values are never spilled, so
// this ends; what still does not fit is a located error. See docs/cuda.md, "Spilling".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace vgpu::ptx::detail {

std::uint32_t translator::local_base_reg()
{
    if (m_local_tb == UINT32_MAX) {
        m_local_tb = temp();
        m_fixed.resize(m_nregs, 0);
        m_fixed[m_local_tb] = 1;
    }
    return m_local_tb;
}

void translator::insert_local_prologue(std::vector<vins>& code)
{
    if (m_prologue_in || (!m_local_used && m_spill_slots == 0))
        return;
    m_prologue_in = true;
    // tb = base + (g / 32) * words * 128 + (g % 32) * 4, g = the thread's index in the grid
    // with each CTA rounded up to whole warps (its global warp and lane). Ordered so that at
    // most five registers are in use at once (an IMAD's three sources and its destination).
    const std::uint32_t tb = local_base_reg();
    std::vector<vins> p;
    auto fresh = [&] {
        const std::uint32_t r = temp();
        m_fixed.resize(m_nregs, 0);
        m_fixed[r] = 1;
        return vreg(r);
    };
    auto add = [&](opcode o, std::initializer_list<vop> s, vop dst = {}) {
        vins v;
        v.op = o;
        v.dst = dst.k == vk::none ? fresh() : dst;
        std::size_t i = 0;
        for (const vop& x : s)
            v.src[i++] = x;
        p.push_back(v);
        return v.dst;
    };
    auto sreg = [&](sm::special_reg r) {
        vins v;
        v.op = opcode::S2R;
        v.dst = fresh();
        v.sreg = r;
        p.push_back(v);
        return v.dst;
    };
    using SR = sm::special_reg;
    vop a = sreg(SR::TID_Z);
    a = add(opcode::IMAD, {a, sreg(SR::NTID_Y), sreg(SR::TID_Y)});
    const vop tid = add(opcode::IMAD, {a, sreg(SR::NTID_X), sreg(SR::TID_X)});
    vop c = sreg(SR::CTAID_Z);
    c = add(opcode::IMAD, {c, sreg(SR::NCTAID_Y), sreg(SR::CTAID_Y)});
    const vop cta = add(opcode::IMAD, {c, sreg(SR::NCTAID_X), sreg(SR::CTAID_X)});
    vop n = add(opcode::IMUL, {sreg(SR::NTID_X), sreg(SR::NTID_Y)});
    n = add(opcode::IMUL, {n, sreg(SR::NTID_Z)});
    n = add(opcode::AND, {add(opcode::IADD, {n, vimm(31)}), vimm(0xffffffe0u)});
    const vop g = add(opcode::IMAD, {cta, n, tid});
    vins ldp;
    ldp.op = opcode::LDP;
    ldp.dst = fresh();
    ldp.src[0] = vimm(m_out.local_param);
    const vop w = add(opcode::SHR, {g, vimm(5)});
    p.push_back(ldp);
    const vop line = add(opcode::IMAD, {w, vimm(0), ldp.dst}); // words * 128: patched
    m_local_line = line.v;
    const vop lane = add(opcode::SHL, {add(opcode::AND, {g, vimm(31)}), vimm(2)});
    add(opcode::IADD, {line, lane}, vreg(tb));
    code.insert(code.begin(), p.begin(), p.end());
    for (vins& v : code)
        if (v.op == opcode::BRA)
            v.target += p.size();
}

std::uint32_t translator::spill_victim(std::uint32_t x, const std::vector<std::size_t>& first,
                                       const std::vector<std::size_t>& last) const
{
    std::uint32_t best = UINT32_MAX;
    for (std::uint32_t y = 0; y < m_nregs; ++y) {
        if (first[y] == npos || first[y] > first[x] || last[y] < first[x] ||
            (y < m_fixed.size() && m_fixed[y]))
            continue;
        if (best == UINT32_MAX || last[y] > last[best])
            best = y;
    }
    return best;
}

void translator::spill(std::vector<vins>& code, std::uint32_t v)
{
    const auto off = static_cast<std::int32_t>((m_local_words + m_spill_slots++) * 128);
    const vop tb = vreg(local_base_reg());
    std::vector<vins> out;
    std::vector<std::size_t> at(code.size() + 1, 0);
    for (std::size_t i = 0; i < code.size(); ++i) {
        vins c = code[i];
        at[i] = out.size();
        const bool writes = c.dst.k == vk::reg && c.dst.v == v;
        bool reads = false;
        for (const vop& s : c.src)
            reads |= s.k == vk::reg && s.v == v;
        if (!reads && !writes) {
            out.push_back(c);
            continue;
        }
        const std::uint32_t t = temp();
        m_fixed.resize(m_nregs, 0);
        m_fixed[t] = 1;
        if (reads || c.guard >= 0) { // a guarded write keeps the old value in the other lanes
            vins l;
            l.op = opcode::LD;
            l.space = sm::mem_space::local;
            l.dst = vreg(t);
            l.src[0] = tb;
            l.offset = off;
            l.ptx = c.ptx;
            out.push_back(l);
        }
        for (vop& s : c.src)
            if (s.k == vk::reg && s.v == v)
                s = vreg(t);
        if (writes)
            c.dst = vreg(t);
        out.push_back(c);
        if (writes) {
            vins st;
            st.op = opcode::ST;
            st.space = sm::mem_space::local;
            st.src[0] = tb;
            st.src[1] = vreg(t);
            st.offset = off;
            st.ptx = c.ptx;
            out.push_back(st);
        }
    }
    at[code.size()] = out.size();
    for (vins& c : out)
        if (c.op == opcode::BRA)
            c.target = at[c.target];
    code = std::move(out);
}

void translator::patch_local_words(std::vector<vins>& code)
{
    if (!m_prologue_in)
        return;
    const std::uint32_t words = m_local_words + m_spill_slots;
    for (vins& c : code)
        if (c.op == opcode::IMAD && c.dst.k == vk::reg && c.dst.v == m_local_line)
            c.src[1] = vimm(words * 128);
    m_out.local_bytes = words * 4;
}

} // namespace vgpu::ptx::detail
