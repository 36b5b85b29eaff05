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
    // ld.const{.v2,.v4}.{b,u,s}32/.f32 (and the 64-bit integers, whose low dword is the
    // register's 32 bits, docs/cuda.md "64-bit address arithmetic"): dwords of the bank.
    const data_type t = ins.type();
    const bool wide = is_int64(t);
    if (ins.ops.size() != 2 || !mods_ok(ins, {"v2", "v4"}) ||
        !(is_int32(t) || t == T::f32 || wide)) {
        unsupported(ins, "constant loads are of 32-bit elements (b32, u32, s32, f32; 64-bit "
                         "integers carry their low dword): CDL reads dwords");
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
    const std::int64_t es = wide ? 8 : 4, n = static_cast<std::int64_t>(elems.size());
    const std::int64_t bank = static_cast<std::int64_t>(m_out.const_bank.size());
    if (base.k == vk::rz && (off < 0 || off + es * n > bank || off % 4 != 0)) {
        unsupported(
            ins, off % 4 != 0
                     ? "a constant load at byte " + std::to_string(off) + " (not a multiple of 4)"
                     : "bytes " + std::to_string(off) + ".." + std::to_string(off + es * n - 1) +
                           " are outside the constant bank (" + std::to_string(bank) + " bytes)");
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
    if (base.k == vk::rz && n == 1 && !wide && ins.guard.empty() && d.k == operand::kind::reg)
        group_end = scalar_group(off);
    const bool group = group_end > off + 4; // scalar loads of this block in one 128-byte window
    if (base.k == vk::rz && ((n >= 2 && !wide) || group)) {
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
    for (std::int64_t k = 0; k < n; ++k) { // legacy: each lane its own offset
        const operand& e = *elems[static_cast<std::size_t>(k)];
        if (e.k == operand::kind::sink)
            continue;
        const std::int64_t o = off + es * k;
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
        c.dst = reg_of(ins, e);
        c.src[0] = at;
        c.src[1] = vimm(slot);
        emit(c);
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
    // The constant as a comparison of RZ with itself (EQ: true, NE: false); a predicate
    // through its 0/1 value (pred_as_int, with its negation), compared with 0.
    const operand* a = ins.ops.size() == 2 ? &ins.ops[1] : nullptr;
    const bool imm = a && a->k == operand::kind::imm_int && (a->ival == 0 || a->ival == 1);
    if (!a || !mods_ok(ins, {}) || !(imm || a->k == operand::kind::reg)) {
        unsupported(ins, "mov.pred copies 0, 1 or a predicate");
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
