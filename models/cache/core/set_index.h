// Set-index functions: modulo, bit-select and XOR fold over line (or page) numbers, and a
// factory that makes a cache::index_fn from a small description. See models/cache/README.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace vgpu::cache {

/// Maps a line address to a set; the result is reduced modulo the number of sets.
using index_fn = std::function<unsigned(std::uint64_t line_addr)>;

/// How an index is computed from the number n = key >> shift (a line or page number).
enum class index_kind {
    modulo,     ///< n mod count (the low bits of n when count is a power of two)
    bit_select, ///< bits [first_bit, first_bit + log2(count)) of n
    xor_fold,   ///< bit i = XOR of bits i, i + b, i + 2b, ... of n, b = log2(count)
};

/// A set-index function described by value: usable for cache sets (key = line address), a TLB
/// (key = virtual page number, shift 0) or routing a line to one of `count` homes.
struct index_spec {
    index_kind kind = index_kind::modulo; ///< the function
    std::uint64_t count = 1; ///< index values (sets, homes); a power of two unless modulo
    unsigned shift = 0;      ///< low key bits dropped first (log2 of the line or page bytes)
    unsigned first_bit = 0;  ///< bit_select: lowest bit of n taken
};

/// n mod count; count >= 1.
inline unsigned modulo_index(std::uint64_t n, std::uint64_t count)
{
    return static_cast<unsigned>(n % count);
}

/// bits bits of n starting at bit first_bit; 0 when bits is 0.
inline unsigned bit_select_index(std::uint64_t n, unsigned first_bit, unsigned bits)
{
    if (bits == 0 || first_bit >= 64)
        return 0;
    return static_cast<unsigned>((n >> first_bit) & ((std::uint64_t{1} << bits) - 1));
}

/// Bit i of the result is the XOR of bits i, i + bits, i + 2 bits, ... of n; 0 when bits is 0.
inline unsigned xor_fold_index(std::uint64_t n, unsigned bits)
{
    if (bits == 0)
        return 0;
    std::uint64_t h = 0;
    for (; n != 0; n >>= bits)
        h ^= n;
    return static_cast<unsigned>(h & ((std::uint64_t{1} << bits) - 1));
}

/// The index function of a checked spec, evaluated by a switch on its kind. make_index wraps
/// one in its index_fn, and cache_array takes it back out: a lookup then computes its set
/// inline instead of calling through the std::function.
class spec_index {
public:
    spec_index() = default; ///< modulo 1: always 0
    /// spec must be valid (index_spec_error(spec) empty).
    explicit spec_index(const index_spec& spec);
    /// The index of key, in [0, count).
    unsigned operator()(std::uint64_t key) const
    {
        const std::uint64_t n = key >> m_shift;
        switch (m_op) {
        case op::mask:
            return static_cast<unsigned>(n & m_mask);
        case op::modulo:
            return modulo_index(n, m_count);
        case op::bit_select:
            return bit_select_index(n, m_first_bit, m_bits);
        case op::xor_fold:
            return xor_fold_index(n, m_bits);
        }
        return 0;
    }

private:
    enum class op : std::uint8_t { mask, modulo, bit_select, xor_fold };
    op m_op = op::mask; // modulo a power of two is a mask
    unsigned m_shift = 0, m_first_bit = 0, m_bits = 0;
    std::uint64_t m_mask = 0, m_count = 1;
};

/// Why spec cannot be made into an index function, or an empty string when it can.
std::string index_spec_error(const index_spec& spec);

/// The index function of spec, giving values in [0, count); throws std::invalid_argument
/// (with index_spec_error's message) for a bad description.
index_fn make_index(const index_spec& spec);

/// The spec of a cache of `sets` sets of `line_bytes`-byte lines (key = line address);
/// line_bytes must be a power of two (else std::invalid_argument).
index_spec line_index(index_kind kind, unsigned sets, unsigned line_bytes, unsigned first_bit = 0);

} // namespace vgpu::cache
