// PTX-to-vgpu translator: local memory (translate_impl.h). The entry's .local variables (clang's
// `__local_depot`, nvcc's too) are laid out per thread; a local address in a PTX register is
// its byte offset in that layout (so `cvta.local` is a MOV, and pointer arithmetic on it is
// exact); every local access becomes an ordinary global LD/ST into the kernel's local area,
// interleaved per warp as on NVIDIA GPUs: word k of lane l of global warp w lives at
// base + (w * words + k) * 128 + 4 * l, so a warp's accesses to one local word are one line.
// See docs/cuda.md, "Local memory".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace vgpu::ptx::detail {

namespace {

using T = data_type;

bool is_int(data_type t)
{
    switch (t) {
    case T::u32:
    case T::s32:
    case T::b32:
    case T::u64:
    case T::s64:
    case T::b64:
        return true;
    default:
        return false;
    }
}

/// The register an operand names (a register, or the base of a register address).
bool reg_key(const operand& o, std::pair<int, int>& key)
{
    if ((o.k == operand::kind::reg || (o.k == operand::kind::address && o.base_is_reg)) &&
        o.decl >= 0) {
        key = {o.decl, o.index};
        return true;
    }
    return false;
}

/// Bytes from a warp's local line 0 to byte x of a thread's local memory (word x / 4 is line
/// x / 4; the lane's word in it is at the thread's base).
std::int64_t interleaved(std::int64_t x)
{
    return (x >> 2) * 128 + (x & 3);
}

/// A local address value is its byte offset plus this (a multiple of 4), so that no valid
/// local pointer is 0 (`p != nullptr` holds); accesses subtract it.
constexpr std::int64_t local_address_base = 16;

} // namespace

void translator::layout_local()
{
    std::uint64_t end = 0;
    auto place = [&](const variable& d) {
        if (d.space != state_space::local || m_local.count(d.name))
            return; // a function inlined twice: its copies share its variables
        const std::uint64_t align = std::max<std::uint64_t>({1, d.align, d.element_bytes()});
        end = (end + align - 1) / align * align;
        m_local[d.name] = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(end + local_address_base, UINT32_MAX));
        end += d.bytes();
    };
    for (const variable& d : m_mod.globals)
        place(d);
    for (const variable& d : m_fn.decls)
        place(d);
    if (end > (1u << 19)) { // CUDA's limit: 512 KiB of local memory per thread
        m_out.errors.push_back(m_mod.file + ":" + std::to_string(m_fn.where.line) + ":" +
                               std::to_string(m_fn.where.col) + ": error: '" + m_fn.name +
                               "' declares " + std::to_string(end) +
                               " bytes of local memory per thread (at most 512 KiB)");
        return;
    }
    m_local_words = static_cast<std::uint32_t>((end + 3) / 4);
    if (m_local.empty())
        return;
    // Which registers hold local addresses: those written from the address of a .local
    // variable, by cvta.local, or by integer arithmetic (add, sub, mov, cvt, mad, mul.wide,
    // ...) on such a register; flow-insensitive, to a fixed point. A register also written
    // with anything else is "mixed" (a generic access through it is refused). A register
    // written once, by the address of a variable or that plus a constant, has a known offset.
    // Each instruction as a definition: its destination (a register, or a .param variable's
    // slot: (-2 - declaration, byte offset), as lower_param_var keeps it) and its sources.
    struct source {
        int kind = 0; ///< 0 another value, 1 a register or slot, 2 a local variable, 3 immediate
        std::pair<int, int> key{};
        std::int64_t value = 0; ///< kind 2: its offset; kind 3: the immediate (negated by sub)
    };
    struct definition {
        std::pair<int, int> dst{};
        bool arith = false; ///< the value is computed from the sources by integer arithmetic
        bool cvta_local = false;
        bool offset_known = false; ///< mov/cvta/cvt/add/sub: the value is the sum of sources
        std::vector<source> srcs{};
    };
    auto slot = [&](const operand& o) {
        return o.k == operand::kind::address && !o.base_is_reg && o.decl >= 0 &&
               m_fn.decls[static_cast<std::size_t>(o.decl)].space == state_space::param;
    };
    std::vector<definition> defs_of;
    std::map<std::pair<int, int>, int> defs;
    for (const instruction& ins : m_fn.body) {
        definition d;
        const std::string& op = ins.opcode;
        if (op == "st" && ins.space == state_space::param && ins.ops.size() == 2 &&
            slot(ins.ops[0])) {
            d.dst = {-2 - ins.ops[0].decl, static_cast<int>(ins.ops[0].ival)};
            d.arith = d.offset_known = true;
            source s;
            if (reg_key(ins.ops[1], s.key))
                s.kind = 1;
            d.srcs.push_back(s);
        } else if (op == "st" || op == "red" || ins.ops.empty() ||
                   ins.ops[0].k != operand::kind::reg || !reg_key(ins.ops[0], d.dst)) {
            continue;
        } else if (op == "ld" && ins.space == state_space::param && ins.ops.size() == 2 &&
                   slot(ins.ops[1])) {
            d.arith = d.offset_known = true;
            d.srcs.push_back({1, {-2 - ins.ops[1].decl, static_cast<int>(ins.ops[1].ival)}, 0});
        } else {
            d.arith = op == "mov" || op == "add" || op == "sub" || op == "cvt" || op == "cvta" ||
                      op == "mad" || op == "mul";
            d.offset_known =
                op == "mov" || op == "cvta" || op == "cvt" || op == "add" || op == "sub";
            d.cvta_local = op == "cvta" && ins.has("local");
            for (std::size_t i = 1; d.arith && i < ins.ops.size(); ++i) {
                const operand& o = ins.ops[i];
                const bool neg = op == "sub" && i == 2;
                source s;
                if (o.k == operand::kind::symbol && m_local.count(o.name)) {
                    s.kind = 2;
                    s.value = m_local.find(o.name)->second;
                    d.offset_known &= !neg;
                } else if (reg_key(o, s.key)) {
                    s.kind = 1;
                    d.offset_known &= !neg;
                } else if (o.k == operand::kind::imm_int) {
                    s.kind = 3;
                    s.value = neg ? -o.ival : o.ival;
                }
                d.srcs.push_back(s);
            }
        }
        ++defs[d.dst];
        defs_of.push_back(d);
    }
    // Which registers hold local addresses: those written from the address of a .local
    // variable, by cvta.local, or by integer arithmetic (add, sub, mov, cvt, mad, mul.wide)
    // on such a register, through .param variables too; flow-insensitive, to a fixed point.
    // A register also written with anything else is "mixed" (a generic access through it is
    // refused). One written once, by a variable's address plus constants, has a known offset.
    std::map<std::pair<int, int>, int> kinds; // bit 0: a local def, bit 1: another def
    for (bool changed = true; changed;) {
        changed = false;
        for (const definition& d : defs_of) {
            bool local = d.cvta_local, other = false;
            std::int64_t value = 0;
            for (const source& s : d.srcs) {
                if (s.kind == 2) {
                    local = true;
                    value += s.value;
                } else if (s.kind == 1 && (kinds[s.key] & 1)) {
                    local = true;
                    const auto c = m_local_const.find(s.key);
                    other |= c == m_local_const.end();
                    value += c != m_local_const.end() ? c->second : 0;
                } else if (s.kind == 3) {
                    value += s.value;
                } else {
                    other = true;
                }
            }
            const int bit = local ? 1 : 2;
            if ((kinds[d.dst] & bit) == 0) {
                kinds[d.dst] |= bit;
                changed = true;
            }
            if (local && !other && d.offset_known && defs[d.dst] == 1 && kinds[d.dst] == 1 &&
                !m_local_const.count(d.dst)) {
                m_local_const[d.dst] = value;
                changed = true;
            }
        }
    }
    for (const auto& [k, v] : kinds)
        if (v & 1)
            m_local_ptr[k] = v == 1 ? 1 : 2;
    for (auto it = m_local_const.begin(); it != m_local_const.end();)
        it = kinds[it->first] == 1 ? std::next(it) : m_local_const.erase(it);
}

bool translator::lower_local(const instruction& ins)
{
    if (m_printf_skip.count(m_at)) // a vprintf call's format or arguments: lowered to nothing
        return true;               // (lower_printf.cpp)
    if (m_local.empty() && ins.space != state_space::local &&
        !(ins.opcode == "cvta" && ins.has("local")))
        return false;
    const std::string& op = ins.opcode;
    auto ptr_kind = [&](const operand& o) {
        std::pair<int, int> k;
        if (!reg_key(o, k))
            return 0;
        const auto it = m_local_ptr.find(k);
        return it == m_local_ptr.end() ? 0 : it->second;
    };
    if (op == "ld" || op == "st") {
        if (ins.ops.size() != 2)
            return false;
        const operand& a = ins.ops[op == "st" ? 0 : 1];
        if (op == "st" && ins.space != state_space::param) {
            // a local address written to memory would be read back as global
            const operand& d = ins.ops[1];
            bool escapes = ptr_kind(d) != 0;
            for (const operand& e : d.elems)
                escapes |= ptr_kind(e) != 0;
            if (escapes) {
                unsupported(ins, "a pointer to local memory stored to memory");
                return true;
            }
        }
        if (ins.space == state_space::local ||
            (ins.space == state_space::none && ptr_kind(a) == 1)) {
            local_access(ins, op == "st");
            return true;
        }
        if (ins.space == state_space::none && ptr_kind(a) == 2) {
            unsupported(ins, "a generic access through a register that holds a local address "
                             "on some paths and another address on others");
            return true;
        }
        return false;
    }
    if ((op == "atom" || op == "red") && ins.ops.size() >= 2 &&
        (ins.space == state_space::local || ptr_kind(ins.ops[op == "red" ? 0 : 1]) != 0)) {
        unsupported(ins, "an atomic operation on local memory");
        return true;
    }
    if (op == "cvta" && ins.has("local")) {
        // A local address is its offset in the thread's local memory; its generic form is the
        // same value (generic accesses through it are found by layout_local).
        if (!(ins.type() == T::u64 || ins.type() == T::u32) || !mods_ok(ins, {"to", "local"}) ||
            ins.ops.size() != 2) {
            unsupported(ins);
            return true;
        }
        const operand& s = ins.ops[1];
        const bool var = s.k == operand::kind::symbol && m_local.count(s.name);
        if (!var && ins.has("to") && ptr_kind(s) != 1) {
            unsupported(ins, "a generic address that is not known to be local");
            return true;
        }
        vins v;
        v.op = opcode::MOV;
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = var ? vimm(m_local.find(s.name)->second) : src(ins, s);
        emit(v);
        return true;
    }
    if (op == "mov" && ins.ops.size() == 2 && ins.ops[1].k == operand::kind::symbol &&
        m_local.count(ins.ops[1].name)) {
        if (!is_int(ins.type()) || !mods_ok(ins, {})) {
            unsupported(ins);
            return true;
        }
        vins v;
        v.op = opcode::MOV;
        v.dst = reg_of(ins, ins.ops[0]);
        v.src[0] = vimm(m_local.find(ins.ops[1].name)->second);
        emit(v);
        return true;
    }
    return false;
}

void translator::local_access(const instruction& ins, bool store)
{
    const bool mods =
        store
            ? mods_ok(ins, {"local", "cg", "cs", "wb", "wt", "volatile", "weak", "v2", "v4"})
            : mods_ok(ins, {"local", "ca", "cg", "cs", "lu", "cv", "volatile", "weak", "v2", "v4"});
    sm::mem_width width = sm::mem_width::b32;
    const data_type type = ins.type();
    // 64-bit elements: two words each, the low one first (a register pair's halves).
    const bool w64 = type == T::u64 || type == T::s64 || type == T::b64 || type == T::f64;
    if ((!w64 && !width_of(type, width)) || !mods) {
        unsupported(ins, !mods   ? ""
                         : store ? "only 8-, 16-, 32- and 64-bit local stores"
                                 : "only 8-, 16-, 32- and 64-bit local loads");
        return;
    }
    if (m_local_words == 0) { // no local area to address
        unsupported(ins, "a local access in a kernel that declares no .local variable");
        return;
    }
    const std::int64_t size = w64 ? 8 : sm::width_bytes(width);
    const operand& a = ins.ops[store ? 0 : 1];
    if (a.k != operand::kind::address) {
        unsupported(ins, "not an address operand");
        return;
    }
    // A known offset (a variable, or a register holding one plus a constant), or a register.
    bool known = false;
    std::int64_t at = a.ival;
    vop base;
    std::pair<int, int> key;
    if (reg_key(a, key) && m_local_const.count(key)) {
        known = true;
        at += m_local_const.find(key)->second;
    } else if (a.base_is_reg) {
        operand r;
        r.k = operand::kind::reg;
        r.name = a.name;
        r.decl = a.decl;
        r.index = a.index;
        base = reg_of(ins, r);
        if (base.k != vk::reg)
            return;
    } else if (a.name.empty() || m_local.count(a.name)) {
        known = true;
        at += a.name.empty() ? 0 : m_local.find(a.name)->second;
    } else {
        unsupported(ins, "'" + a.name + "' is not a .local variable");
        return;
    }
    const operand& d = ins.ops[store ? 1 : 0];
    std::vector<const operand*> elems;
    if (d.k == operand::kind::vector)
        for (const operand& e : d.elems)
            elems.push_back(&e);
    else
        elems.push_back(&d);
    at -= local_address_base; // the byte offset: known, or from the register's value
    const std::int64_t bytes = std::int64_t{m_local_words} * 4;
    if (known && (at < 0 || at + size * static_cast<std::int64_t>(elems.size()) > bytes)) {
        unsupported(ins, "a local access at byte " + std::to_string(at) + " outside the " +
                             std::to_string(bytes) + " bytes of local memory per thread");
        return;
    }
    if (known && at % size != 0) { // CUDA faults on it; known here, so refused here
        unsupported(ins, "a misaligned " + std::to_string(size * 8) + "-bit local access at byte " +
                             std::to_string(at));
        return;
    }
    m_local_used = true;
    const vop tb = vreg(local_base_reg());
    auto op3 = [&](opcode o, vop x, vop y) {
        vins v;
        v.op = o;
        v.dst = vreg(temp());
        v.src[0] = x;
        v.src[1] = y;
        emit(v);
        return v.dst;
    };
    // Dynamic 32-bit accesses at a word offset: (x / 4) * 128 = x * 32 for a word-aligned x;
    // x & 3 is added so that a misaligned x gives a misaligned address, which faults as a
    // misaligned global access does (the other forms keep x & 3 in the address already).
    vop word_base{};
    const bool fast = !known && width == sm::mem_width::b32 && at % 4 == 0;
    if (fast)
        word_base = op3(opcode::IADD, op3(opcode::IADD, op3(opcode::SHL, base, vimm(5)), tb),
                        op3(opcode::AND, base, vimm(3)));
    // The words to access: byte offset from `at`'s start, and the data (store) or destination.
    struct word {
        std::int64_t x;
        vop r;
    };
    std::vector<word> words;
    for (std::size_t k = 0; k < elems.size(); ++k) {
        const std::int64_t x = at + size * static_cast<std::int64_t>(k);
        const operand& e = *elems[k];
        if (!w64) {
            words.push_back({x, store                        ? reg_src(ins, e)
                                : e.k == operand::kind::sink ? vop{vk::rz, 0}
                                                             : reg_of(ins, e)});
            continue;
        }
        vop lo, hi;
        if (!store && e.k == operand::kind::sink) {
            continue;
        } else if (!store) {
            lo = reg_of(ins, e);
            hi = lo;
            hi.half = 1;
            if (lo.k != vk::reg || !is_wide_vreg(lo.v))
                hi = {vk::rz, 0}; // only the low word is used
        } else if (e.k == operand::kind::reg) {
            lo = pair_src(ins, e, type == T::f64);
            hi = lo;
            hi.half = 1;
        } else if (e.k == operand::kind::imm_int || e.k == operand::kind::imm_f64) {
            const auto b = static_cast<std::uint64_t>(e.ival); // an f64's bits too
            lo = vimm(static_cast<std::uint32_t>(b));
            hi = vimm(static_cast<std::uint32_t>(b >> 32));
        } else {
            unsupported(ins, "operand '" + e.name + "' of a 64-bit local store");
            return;
        }
        words.push_back({x, lo});
        if (hi.k != vk::rz)
            words.push_back({x + 4, hi});
    }
    for (const word& wd : words) {
        const std::int64_t x = wd.x;
        vins v;
        v.op = store ? opcode::ST : opcode::LD;
        v.space = sm::mem_space::local;
        v.width = width;
        if (known) {
            v.src[0] = tb;
            v.offset = static_cast<std::int32_t>(interleaved(x));
        } else if (fast) {
            v.src[0] = word_base;
            v.offset = static_cast<std::int32_t>(x * 32);
        } else { // e = base + x; ((e >> 2) << 7) + (e & 3) + tb
            const vop e =
                x == 0 ? base : op3(opcode::IADD, base, vimm(static_cast<std::uint32_t>(x)));
            const vop hi = op3(opcode::SHL, op3(opcode::SHR, e, vimm(2)), vimm(7));
            v.src[0] = op3(opcode::IADD, op3(opcode::IADD, hi, op3(opcode::AND, e, vimm(3))), tb);
        }
        if (store)
            v.src[1] = wd.r;
        else
            v.dst = wd.r;
        emit(v);
    }
}

bool translator::local_compare(const instruction& ins) const
{
    // Local addresses are small offsets (below 2^19 + 16): a 64-bit comparison of them is the
    // comparison of their low words, signed or unsigned alike.
    if (ins.opcode != "setp" || m_local_ptr.empty() || ins.ops.size() < 3 ||
        !(ins.type() == T::s64 || ins.type() == T::u64 || ins.type() == T::b64))
        return false;
    std::pair<int, int> k;
    return (reg_key(ins.ops[1], k) && m_local_ptr.count(k)) ||
           (reg_key(ins.ops[2], k) && m_local_ptr.count(k));
}

bool translator::local_compare_src(const instruction& ins, const operand& op, vop& out)
{
    std::pair<int, int> k;
    if (op.k == operand::kind::imm_int && op.ival >= 0 && op.ival <= INT32_MAX) {
        out = vimm(static_cast<std::uint32_t>(op.ival));
        return true;
    }
    const auto it = reg_key(op, k) ? m_local_ptr.find(k) : m_local_ptr.end();
    if (it != m_local_ptr.end() && it->second == 1) {
        out = src(ins, op);
        return true;
    }
    unsupported(ins, it != m_local_ptr.end()
                         ? "a 64-bit comparison of a register that holds a local address on "
                           "some paths and another value on others"
                         : "a 64-bit comparison of a local address with '" + op.name +
                               "', which is neither a local address nor an immediate in "
                               "0..2147483647");
    return false;
}

void translator::load_local_word(vop d, std::int64_t x, int guard)
{
    m_local_used = true;
    vins v;
    v.op = opcode::LD;
    v.space = sm::mem_space::local;
    v.dst = d;
    v.src[0] = vreg(local_base_reg());
    v.offset = static_cast<std::int32_t>(interleaved(x - local_address_base));
    v.guard = guard;
    emit(v);
}

} // namespace vgpu::ptx::detail
