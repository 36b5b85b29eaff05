// Constant memory through the CDL block (docs/cuda.md, "Constant memory"): the kernel's
// constant bank (the .const variables, laid out with their initialisers) and `ld.const` as a
// legacy CDL per element, or a bulk CDL plus one SHFL.IDX per element when a vector load reads
// consecutive dwords at an address known at translation time.
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>

namespace vgpu::ptx::detail {

namespace {

using T = data_type;
bool is_int32(data_type t)
{
    return t == T::b32 || t == T::u32 || t == T::s32;
}
bool is_int64(data_type t)
{
    return t == T::b64 || t == T::u64 || t == T::s64;
}

constexpr std::uint64_t max_const_bytes = 64 * 1024; ///< CUDA's constant memory per module

/// "file:LINE:COL: error: " for a variable.
std::string at_var(const module& m, const variable& d)
{
    return m.file + ":" + std::to_string(d.where.line) + ":" + std::to_string(d.where.col) +
           ": error: ";
}

} // namespace

void translator::layout_const()
{
    // Module variables first, then the entry's, in declaration order, each at its alignment
    // (as layout_shared); the initialisers give the bank's first contents (zero elsewhere).
    std::uint64_t end = 0;
    std::vector<const variable*> placed;
    auto place = [&](const variable& d) {
        if (d.space != state_space::const_)
            return;
        if (d.is_extern) {
            m_out.errors.push_back(at_var(m_mod, d) + "unsupported .extern .const variable '" +
                                   d.name + "' (its contents are defined in another module)");
            return;
        }
        if (!d.init_symbols.empty()) {
            m_out.errors.push_back(at_var(m_mod, d) + "unsupported: the initialiser of .const " +
                                   "variable '" + d.name + "' holds the address of '" +
                                   d.init_symbols.begin()->second.first +
                                   "' (addresses in constant memory are not supported)");
            return;
        }
        const std::uint64_t align = std::max<std::uint64_t>({1, d.align, d.element_bytes()});
        end = (end + align - 1) / align * align;
        if (end + d.bytes() > max_const_bytes) {
            m_out.errors.push_back(at_var(m_mod, d) + "the constant bank of '" + m_fn.name +
                                   "' needs " + std::to_string(end + d.bytes()) +
                                   " bytes with .const variable '" + d.name +
                                   "' (at most 65536, as CUDA's constant memory)");
            end = max_const_bytes + 1;
            return;
        }
        m_const[d.name] = static_cast<std::uint32_t>(end);
        m_out.const_vars.push_back({d.name, static_cast<std::uint32_t>(end),
                                    static_cast<std::uint32_t>(d.bytes()), d.type});
        placed.push_back(&d);
        end += d.bytes();
    };
    for (const variable& d : m_mod.globals)
        if (end <= max_const_bytes)
            place(d);
    for (const variable& d : m_fn.decls)
        if (end <= max_const_bytes)
            place(d);
    if (!m_out.errors.empty() || end == 0)
        return;
    m_out.const_bank.assign(static_cast<std::size_t>((end + 3) / 4 * 4), 0);
    for (std::size_t v = 0; v < placed.size(); ++v) {
        const variable& d = *placed[v];
        const std::uint64_t size = (type_bits(d.type) + 7) / 8; // one initialiser entry
        const std::uint32_t base = m_out.const_vars[v].offset;
        for (std::size_t i = 0; i < d.init.size() && (i + 1) * size <= d.bytes(); ++i)
            for (std::uint64_t b = 0; b < size; ++b)
                m_out.const_bank[base + i * size + b] =
                    static_cast<std::uint8_t>(b < 8 ? d.init[i] >> (8 * b) : 0);
    }
}

std::int64_t translator::const_offset(std::string_view name) const
{
    const auto it = m_const.find(name);
    return it == m_const.end() ? -1 : std::int64_t{it->second};
}

void translator::lower_const_ld(const instruction& ins)
{
    // ld.const{.v2,.v4} of every integer and float width: dwords of the bank. 32-bit elements
    // are one dword each; a 64-bit element is two (the low word first), or only the low one
    // when its register is not a pair (docs/cuda.md, "64-bit address arithmetic"); an 8- or
    // 16-bit element is extracted from the dword that holds it (BFX.U/.S: the zero- or
    // sign-extension LD.U8..S16 give).
    const data_type t = ins.type();
    const bool wide = is_int64(t) || t == T::f64;
    const unsigned sub_bits = t == T::u8 || t == T::s8 || t == T::b8      ? 8
                              : t == T::u16 || t == T::s16 || t == T::b16 ? 16
                                                                          : 0;
    const bool sub_signed = t == T::s8 || t == T::s16;
    if (ins.ops.size() != 2 || !mods_ok(ins, {"v2", "v4"}) ||
        !(is_int32(t) || t == T::f32 || wide || sub_bits)) {
        unsupported(ins, "constant loads are of integer and floating-point elements of 8 to 64 "
                         "bits: CDL reads dwords");
        return;
    }
    const operand& a = ins.ops[1];
    if (a.k != operand::kind::address || a.ival < INT32_MIN || a.ival > INT32_MAX) {
        unsupported(ins, "not an address operand");
        return;
    }
    std::int64_t off = a.ival;
    vop base{vk::rz, 0};
    if (a.base_is_reg) {
        operand r;
        r.k = operand::kind::reg;
        r.name = a.name;
        r.decl = a.decl;
        r.index = a.index;
        base = reg_of(ins, r);
        if (base.k != vk::reg)
            return;
    } else if (!a.name.empty()) {
        const std::int64_t o = const_offset(a.name);
        if (o < 0) {
            unsupported(ins, "'" + a.name + "' is not a .const variable");
            return;
        }
        off += o;
    }
    const operand& d = ins.ops[0];
    std::vector<const operand*> elems;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            elems.push_back(&e);
    else
        elems.push_back(&d);
    const std::int64_t es = wide ? 8 : sub_bits ? sub_bits / 8 : 4;
    const std::int64_t n = static_cast<std::int64_t>(elems.size());
    const std::int64_t align = std::min<std::int64_t>(es, 4); // no element spans two dwords
    const std::int64_t bank = static_cast<std::int64_t>(m_out.const_bank.size());
    if (base.k == vk::rz && (off < 0 || off + es * n > bank || off % align != 0)) {
        unsupported(ins, off % align != 0 ? "a constant load at byte " + std::to_string(off) +
                                                " (not a multiple of " + std::to_string(align) + ")"
                                          : "bytes " + std::to_string(off) + ".." +
                                                std::to_string(off + es * n - 1) +
                                                " are outside the constant bank (" +
                                                std::to_string(bank) + " bytes)");
        return;
    }
    const std::uint32_t slot = m_opt.const_slot;
    if (const auto lane = m_bulk_lane.find(m_at); lane != m_bulk_lane.end() && n == 1) {
        vins sh; // a later load of a scalar group: its word is in m_bulk since the group's CDL
        sh.op = opcode::SHFL;
        sh.mod = 3; // IDX
        sh.dst = reg_of(ins, d);
        sh.src[0] = vreg(m_bulk);
        sh.src[1] = vimm(lane->second);
        sh.src[2] = vimm(0x1f);
        emit(sh);
        return;
    }
    std::int64_t group_end = off; // a scalar group: one past its last word's byte
    const bool dword = !wide && !sub_bits;
    if (m_opt.bulk_cdl && base.k == vk::rz && n == 1 && dword && ins.guard.empty() &&
        d.k == operand::kind::reg)
        group_end = scalar_group(off);
    const bool group = group_end > off + 4; // scalar loads of this block in one 128-byte window
    if (m_opt.bulk_cdl && base.k == vk::rz && ((n >= 2 && dword) || group)) {
        // Bulk: one CDL of n dwords into the lanes 0..n-1 of one register (lane l: dword l),
        // then each element from its lane. The bulk CDL writes every lane of the warp, active
        // or not, so its register belongs to no other value (translate.cpp, allocation).
        if (!m_has_bulk) {
            m_bulk = temp();
            m_has_bulk = true;
        }
        vins c;
        c.op = opcode::CDL;
        c.dst = vreg(m_bulk);
        c.src[0] = vimm(static_cast<std::uint32_t>(off));
        c.src[1] = vimm(slot);
        c.src[2] = vimm(static_cast<std::uint32_t>(group ? (group_end - off) / 4 : n));
        emit(c);
        for (std::int64_t k = 0; k < n; ++k) {
            if (elems[static_cast<std::size_t>(k)]->k == operand::kind::sink)
                continue;
            vins s;
            s.op = opcode::SHFL;
            s.mod = 3; // IDX
            s.dst = reg_of(ins, *elems[static_cast<std::size_t>(k)]);
            s.src[0] = vreg(m_bulk);
            s.src[1] = vimm(static_cast<std::uint32_t>(k));
            s.src[2] = vimm(0x1f); // clamp 31, the whole warp one segment
            emit(s);
        }
        return;
    }
    // Legacy: each lane its own offset. cdl(dst, o) loads the dword at byte o (+ base).
    auto cdl = [&](vop dst, std::int64_t o) {
        vop at = vimm(static_cast<std::uint32_t>(o));
        if (base.k == vk::reg && o != 0) {
            vins add;
            add.op = opcode::IADD;
            add.dst = vreg(temp());
            add.src[0] = base;
            add.src[1] = vimm(static_cast<std::uint32_t>(o));
            emit(add);
            at = add.dst;
        } else if (base.k == vk::reg) {
            at = base;
        }
        vins c;
        c.op = opcode::CDL;
        c.dst = dst;
        c.src[0] = at;
        c.src[1] = vimm(slot);
        emit(c);
    };
    for (std::int64_t k = 0; k < n; ++k) {
        const operand& e = *elems[static_cast<std::size_t>(k)];
        if (e.k == operand::kind::sink)
            continue;
        const std::int64_t o = off + es * k;
        const vop r = reg_of(ins, e);
        if (r.k != vk::reg)
            return;
        if (t == T::f64 && !is_wide_vreg(r.v)) {
            unsupported(ins, "register '" + e.name + "' is not a register pair");
            return;
        }
        if (!sub_bits) {
            cdl(r, o);
            if (wide && is_wide_vreg(r.v))
                cdl({vk::reg, r.v, 1}, o + 4); // the high word
            continue;
        }
        vins x; // BFX.U/.S r, dword, bit position, length
        x.op = opcode::BFX;
        x.mod =
            static_cast<std::uint8_t>(sub_signed ? sm::mods::bfx_mode::S : sm::mods::bfx_mode::U);
        x.dst = r;
        x.src[2] = vimm(sub_bits);
        if (base.k == vk::rz) {
            const vop w = vreg(temp());
            cdl(w, o & ~std::int64_t{3});
            x.src[0] = w;
            x.src[1] = vimm(static_cast<std::uint32_t>(8 * (o & 3)));
            emit(x);
            continue;
        }
        // A register offset: the dword at (base + o) & ~3, the field at 8 * ((base + o) & 3).
        vop at = base;
        if (o != 0) {
            vins add;
            add.op = opcode::IADD;
            add.dst = vreg(temp());
            add.src[0] = base;
            add.src[1] = vimm(static_cast<std::uint32_t>(o));
            emit(add);
            at = add.dst;
        }
        vins m;
        m.op = opcode::AND;
        m.dst = vreg(temp());
        m.src[0] = at;
        m.src[1] = vimm(~3u);
        emit(m);
        const vop w = vreg(temp());
        vins c;
        c.op = opcode::CDL;
        c.dst = w;
        c.src[0] = m.dst;
        c.src[1] = vimm(slot);
        emit(c);
        vins pos; // 8 * (at & 3) = (at << 3) & 24
        pos.op = opcode::SHL;
        pos.dst = vreg(temp());
        pos.src[0] = at;
        pos.src[1] = vimm(3);
        emit(pos);
        vins p2;
        p2.op = opcode::AND;
        p2.dst = vreg(temp());
        p2.src[0] = pos.dst;
        p2.src[1] = vimm(24);
        emit(p2);
        x.src[0] = w;
        x.src[1] = p2.dst;
        emit(x);
    }
}

std::int64_t translator::scalar_group(std::int64_t off)
{
    // The unguarded 32-bit scalar ld.const at immediate addresses that follow in this block
    // with their words in the 32 dwords from `off`, up to the first vector one or the first
    // one outside the window (whose bulk CDL would overwrite m_bulk before this group's later
    // loads read it): each is recorded with its lane; returns the end of the last word.
    std::size_t end = m_fn.body.size();
    for (const block& b : m_blocks)
        if (&b.code == m_code)
            end = b.end;
    std::int64_t last = off + 4;
    std::map<std::size_t, std::uint32_t> group;
    for (std::size_t j = m_at + 1; j < end; ++j) {
        const instruction& x = m_fn.body[j];
        if (x.opcode != "ld" || x.space != state_space::const_)
            continue;
        if (x.has("v2") || x.has("v4"))
            break;
        const data_type t = x.type();
        if (!x.guard.empty() || x.ops.size() != 2 || x.ops[0].k != operand::kind::reg ||
            !(is_int32(t) || t == T::f32) || x.ops[1].k != operand::kind::address ||
            x.ops[1].base_is_reg)
            continue;
        const std::int64_t base = x.ops[1].name.empty() ? 0 : const_offset(x.ops[1].name);
        const std::int64_t o = base + x.ops[1].ival;
        if (base < 0 || o < off || o + 4 > off + 128 || o % 4 != 0 ||
            o + 4 > static_cast<std::int64_t>(m_out.const_bank.size()))
            break; // its own group would write m_bulk before this group's later loads read it
        group[j] = static_cast<std::uint32_t>((o - off) / 4);
        last = std::max(last, o + 4);
    }
    m_bulk_lane.insert(group.begin(), group.end());
    return last;
}

void translator::lower_mov_pred(const instruction& ins)
{
    // The constant as a comparison of RZ with itself (EQ: true, NE: false); true is 1 or -1
    // (clang writes an i1 true as all ones); a predicate through its 0/1 value (pred_as_int,
    // with its negation), compared with 0.
    const operand* a = ins.ops.size() == 2 ? &ins.ops[1] : nullptr;
    const bool imm =
        a && a->k == operand::kind::imm_int && (a->ival == 0 || a->ival == 1 || a->ival == -1);
    if (!a || !mods_ok(ins, {}) || !(imm || a->k == operand::kind::reg)) {
        unsupported(ins, "mov.pred copies 0, 1 (or -1: true), or a predicate");
        return;
    }
    vins v;
    v.op = opcode::ISETP;
    v.dst = pred_of(ins, ins.ops[0]);
    if (imm) {
        v.cond = a->ival != 0 ? cmp_op::EQ : cmp_op::NE;
        v.src[0] = {vk::rz, 0};
        v.src[1] = {vk::rz, 0};
    } else {
        v.cond = cmp_op::NE;
        v.src[0] = pred_as_int(ins, *a);
        v.src[1] = vimm(0);
    }
    emit(v);
}

} // namespace vgpu::ptx::detail
