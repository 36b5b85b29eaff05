// TLB set-index functions. See models/tlb/README.md.
#include "models/tlb/core/xor_index.h"

#include <stdexcept>

namespace vgpu::tlb {

unsigned log2_exact(std::uint64_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
}

std::string index_error(index_kind kind, std::uint64_t sets, unsigned xor_bits, unsigned vpn_bits)
{
    if (sets == 0 || (sets & (sets - 1)) != 0)
        return "sets must be a power of two (got " + std::to_string(sets) + ")";
    if (kind == index_kind::modulo)
        return {};
    const unsigned n = log2_exact(sets);
    if (n == 0)
        return "the xor index needs at least 2 sets (got 1)";
    if (xor_bits > vpn_bits)
        return "xor_bits (" + std::to_string(xor_bits) + ") exceeds the " +
               std::to_string(vpn_bits) + " bits of a virtual page number";
    const unsigned folded = xor_bits == 0 ? vpn_bits : xor_bits;
    if (folded < 2 * n)
        return "the xor index of " + std::to_string(sets) + " sets (" + std::to_string(n) +
               " index bits) must fold at least " + std::to_string(2 * n) +
               " VPN bits so that every index bit combines two or more, but " +
               (xor_bits == 0 ? "a virtual page number has only " + std::to_string(vpn_bits)
                              : "xor_bits is " + std::to_string(xor_bits));
    return {};
}

index_fn make_index(index_kind kind, std::uint64_t sets, unsigned xor_bits, unsigned vpn_bits)
{
    const std::string why = index_error(kind, sets, xor_bits, vpn_bits);
    if (!why.empty())
        throw std::invalid_argument(why);
    const unsigned n = log2_exact(sets);
    if (kind == index_kind::modulo) {
        const std::uint64_t mask = sets - 1;
        return [mask](std::uint64_t vpn) { return static_cast<unsigned>(vpn & mask); };
    }
    return [n, xor_bits](std::uint64_t vpn) { return xor_index(vpn, n, xor_bits); };
}

} // namespace vgpu::tlb
