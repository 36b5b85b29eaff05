// TLB set-index functions: the low VPN bits (modulo) and the XOR hash of seed 004, where set-index
// bit i is the XOR of VPN bits i, i + n, i + 2n, ... (n = index width). See models/tlb/README.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace vgpu::tlb {

/// Maps a virtual page number to a set of a TLB.
using index_fn = std::function<unsigned(std::uint64_t vpn)>;

/// How a TLB chooses the set of a virtual page number (`tlb.index`).
enum class index_kind {
    modulo,   ///< the low log2(sets) bits of the VPN
    xor_hash, ///< bit i = XOR of VPN bits i, i + n, i + 2n, ... below xor_bits (n = log2(sets))
};

/// The XOR hash: bit i of the result is the XOR of bits i, i + index_bits, i + 2 index_bits,
/// ... of the lowest `xor_bits` bits of vpn (0 or >= 64: every bit). 0 when index_bits is 0.
inline unsigned xor_index(std::uint64_t vpn, unsigned index_bits, unsigned xor_bits)
{
    if (index_bits == 0)
        return 0;
    if (xor_bits != 0 && xor_bits < 64)
        vpn &= (std::uint64_t{1} << xor_bits) - 1;
    const std::uint64_t mask = (std::uint64_t{1} << index_bits) - 1;
    std::uint64_t h = 0;
    for (; vpn != 0; vpn = index_bits < 64 ? vpn >> index_bits : 0)
        h ^= vpn & mask;
    return static_cast<unsigned>(h);
}

/// log2(v) for a power of two v.
unsigned log2_exact(std::uint64_t v);

/// Why a TLB of `sets` sets cannot use `kind` with `xor_bits` for VPNs of `vpn_bits` bits, or
/// an empty string when it can. sets must be a power of two; the XOR hash needs at least 2
/// sets, and every index bit must combine at least two VPN bits (the patent's point): the
/// bits it folds (xor_bits, or all vpn_bits when xor_bits is 0) must number at least twice
/// the index width, and xor_bits may not exceed vpn_bits.
std::string index_error(index_kind kind, std::uint64_t sets, unsigned xor_bits, unsigned vpn_bits);

/// The index function of a TLB with `sets` sets (a valid combination, see index_error();
/// otherwise std::invalid_argument with its message).
index_fn make_index(index_kind kind, std::uint64_t sets, unsigned xor_bits, unsigned vpn_bits);

} // namespace vgpu::tlb
