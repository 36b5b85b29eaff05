// Set-index functions and their factory. See models/cache/README.md.
#include "models/cache/core/set_index.h"

#include <stdexcept>

namespace vgpu::cache {

namespace {
bool is_pow2(std::uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

unsigned log2_exact(std::uint64_t v)
{
    return static_cast<unsigned>(__builtin_ctzll(v));
}
} // namespace

std::string index_spec_error(const index_spec& s)
{
    if (s.count == 0)
        return "index count must be at least 1";
    if (s.count > (std::uint64_t{1} << 32))
        return "index count must be at most 2^32, got " + std::to_string(s.count);
    if (s.shift >= 64)
        return "index shift must be below 64, got " + std::to_string(s.shift);
    if (s.kind != index_kind::modulo && !is_pow2(s.count))
        return "index count must be a power of two for bit-select and XOR fold, got " +
               std::to_string(s.count);
    if (s.kind == index_kind::bit_select && s.first_bit + log2_exact(s.count) > 64 - s.shift)
        return "bit-select field [" + std::to_string(s.first_bit) + ", " +
               std::to_string(s.first_bit + log2_exact(s.count)) + ") lies beyond the " +
               std::to_string(64 - s.shift) + " bits left after the shift";
    if (s.kind != index_kind::bit_select && s.first_bit != 0)
        return "first_bit applies to bit-select only";
    return {};
}

spec_index::spec_index(const index_spec& s)
    : m_shift(s.shift), m_first_bit(s.first_bit), m_count(s.count)
{
    switch (s.kind) {
    case index_kind::modulo:
        m_op = is_pow2(s.count) ? op::mask : op::modulo;
        m_mask = s.count - 1;
        break;
    case index_kind::bit_select:
        m_op = op::bit_select;
        m_bits = log2_exact(s.count);
        break;
    case index_kind::xor_fold:
        m_op = op::xor_fold;
        m_bits = log2_exact(s.count);
        break;
    default:
        throw std::invalid_argument("make_index: unknown index kind");
    }
}

index_fn make_index(const index_spec& s)
{
    const std::string error = index_spec_error(s);
    if (!error.empty())
        throw std::invalid_argument("make_index: " + error);
    return spec_index(s);
}

index_spec line_index(index_kind kind, unsigned sets, unsigned line_bytes, unsigned first_bit)
{
    if (!is_pow2(line_bytes))
        throw std::invalid_argument("line_index: line_bytes must be a power of two, got " +
                                    std::to_string(line_bytes));
    index_spec s;
    s.kind = kind;
    s.count = sets;
    s.shift = log2_exact(line_bytes);
    s.first_bit = first_bit;
    return s;
}

} // namespace vgpu::cache
