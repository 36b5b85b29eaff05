// The operations of an atomic access (access_kind::atomic) and the one rule that computes the
// new word, used by every block that carries one out or mirrors it. Plain C++ (no SystemC),
// so that the SM's instruction set uses it too. See docs/isa.md ("Atomics").
#pragma once

#include <cstdint>
#include <cstring>

namespace vgpu::tlm_bus {

// clang-format off
/// The operation of an atomic write; the order is sm::atom_op's, then CAS.
enum class atomic_op : std::uint8_t {
    add, fadd, min, max, umin, umax, exch, and_, or_, xor_, inc, dec, cas
};
// clang-format on

/// The new word of atomic `op` on `old` with operand b (CAS: compare with b, write `swap` where
/// equal). min/max signed, umin/umax unsigned; fadd an fp32 add rounded to nearest even with
/// subnormal inputs and result flushed to sign-preserving zero (global memory's atom.add.f32;
/// shared memory keeps subnormals: sm::atom_apply);
/// inc: old >= b ? 0 : old + 1; dec: old == 0 || old > b ? b : old - 1 (PTX's atom.inc/dec).
inline std::uint32_t atomic_result(atomic_op op, std::uint32_t old, std::uint32_t b,
                                   std::uint32_t swap = 0)
{
    const auto s = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };
    switch (op) {
    case atomic_op::add:
        return old + b;
    case atomic_op::fadd: { // global memory: subnormal inputs and results flush to zero
        const auto flush = [](std::uint32_t v) { // (PTX ISA, atom: atom.add.f32 on global
            return (v & 0x7f800000u) == 0 ? v & 0x80000000u : v; // memory), keeping the sign
        };
        old = flush(old);
        b = flush(b);
        float x, y;
        std::memcpy(&x, &old, 4);
        std::memcpy(&y, &b, 4);
        const float r = x + y;
        std::uint32_t bits;
        std::memcpy(&bits, &r, 4);
        return flush(bits);
    }
    case atomic_op::min:
        return s(b) < s(old) ? b : old;
    case atomic_op::max:
        return s(b) > s(old) ? b : old;
    case atomic_op::umin:
        return b < old ? b : old;
    case atomic_op::umax:
        return b > old ? b : old;
    case atomic_op::exch:
        return b;
    case atomic_op::and_:
        return old & b;
    case atomic_op::or_:
        return old | b;
    case atomic_op::xor_:
        return old ^ b;
    case atomic_op::inc:
        return old >= b ? 0 : old + 1;
    case atomic_op::dec:
        return old == 0 || old > b ? b : old - 1;
    case atomic_op::cas:
        return old == b ? swap : old;
    }
    return old;
}

/// The new value of a 64-bit atomic (ATOM.B64 / CAS.B64 on an 8-byte-aligned doubleword): as
/// atomic_result on 64 bits, except fadd, an fp64 add rounded to nearest even with subnormals
/// kept (global and shared memory alike) and a NaN result the canonical 0x7fffffffffffffff of
/// the fp64 instructions; inc and dec have no 64-bit form (old is kept).
inline std::uint64_t atomic_result64(atomic_op op, std::uint64_t old, std::uint64_t b,
                                     std::uint64_t swap = 0)
{
    const auto s = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
    switch (op) {
    case atomic_op::add:
        return old + b;
    case atomic_op::fadd: {
        double x, y;
        std::memcpy(&x, &old, 8);
        std::memcpy(&y, &b, 8);
        const double r = x + y;
        if (r != r)
            return 0x7fffffffffffffffull;
        std::uint64_t bits;
        std::memcpy(&bits, &r, 8);
        return bits;
    }
    case atomic_op::min:
        return s(b) < s(old) ? b : old;
    case atomic_op::max:
        return s(b) > s(old) ? b : old;
    case atomic_op::umin:
        return b < old ? b : old;
    case atomic_op::umax:
        return b > old ? b : old;
    case atomic_op::exch:
        return b;
    case atomic_op::and_:
        return old & b;
    case atomic_op::or_:
        return old | b;
    case atomic_op::xor_:
        return old ^ b;
    case atomic_op::cas:
        return old == b ? swap : old;
    case atomic_op::inc:
    case atomic_op::dec:
        break;
    }
    return old;
}

/// True for the sizes of an atomic access: one aligned word (4) or doubleword (8).
inline bool atomic_size_ok(std::uint64_t addr, unsigned len)
{
    return (len == 4 || len == 8) && (addr & (len - 1)) == 0;
}

/// Carries out an atomic of len bytes (4 or 8; atomic_size_ok) on the little-endian value at
/// `mem` with the operand in `data`: `mem` receives the new value, `data` the old one.
inline void atomic_apply_bytes(atomic_op op, unsigned len, std::uint8_t* mem, std::uint8_t* data,
                               std::uint64_t swap)
{
    std::uint64_t old = 0, b = 0;
    std::memcpy(&old, mem, len);
    std::memcpy(&b, data, len);
    const std::uint64_t next =
        len == 8 ? atomic_result64(op, old, b, swap)
                 : atomic_result(op, static_cast<std::uint32_t>(old), static_cast<std::uint32_t>(b),
                                 static_cast<std::uint32_t>(swap));
    std::memcpy(mem, &next, len);
    std::memcpy(data, &old, len);
}

} // namespace vgpu::tlm_bus
