// DRAM address mapping. See models/dram/README.md ("Address mapping").
#include "models/dram/core/address_mapping.h"

#include <stdexcept>

namespace vgpu::dram {
namespace {
bool pow2(std::uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}
} // namespace

address_mapping::address_mapping(unsigned channels, unsigned banks, std::uint64_t row_bytes,
                                 unsigned line_bytes)
    : m_channels(channels), m_banks(banks), m_line(line_bytes),
      m_lines_per_row(line_bytes ? static_cast<unsigned>(row_bytes / line_bytes) : 0)
{
    if (!pow2(channels) || !pow2(banks) || !pow2(line_bytes) || !pow2(row_bytes) ||
        row_bytes < line_bytes)
        throw std::invalid_argument("dram address mapping: channels, banks, line and row bytes "
                                    "must be powers of two, with a row at least a line");
}

dram_address address_mapping::decode(std::uint64_t offset) const
{
    const std::uint64_t line = offset / m_line;
    const std::uint64_t local = line / m_channels; // line index within the channel
    const std::uint64_t block = local / m_lines_per_row;
    dram_address a;
    a.channel = static_cast<unsigned>(line & (m_channels - 1));
    a.column = static_cast<unsigned>(local % m_lines_per_row);
    a.row = block / m_banks;
    a.bank = static_cast<unsigned>((block ^ a.row) & (m_banks - 1));
    return a;
}

} // namespace vgpu::dram
