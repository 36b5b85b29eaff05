// Where an offset in a module's DRAM lives: channel, bank, row and column. Pure C++; see
// models/dram/README.md ("Address mapping").
#pragma once

#include <cstdint>

namespace vgpu::dram {

/// The DRAM coordinates of one byte offset.
struct dram_address {
    unsigned channel = 0;  ///< channel (line-interleaved)
    unsigned bank = 0;     ///< bank within the channel
    std::uint64_t row = 0; ///< row within the bank
    unsigned column = 0;   ///< line within the row
};

/// Lines are interleaved over the channels; within a channel, `row_bytes / line_bytes`
/// consecutive lines of that channel fill one row of one bank, the next row-sized block goes to
/// the next bank, and the bank index is XORed with the low bits of the row (permutation
/// interleaving), so that blocks a power-of-two number of rows apart do not all hit one bank.
class address_mapping {
public:
    /// channels, banks: powers of two; row_bytes a power-of-two multiple of line_bytes.
    /// Throws std::invalid_argument otherwise.
    address_mapping(unsigned channels, unsigned banks, std::uint64_t row_bytes,
                    unsigned line_bytes);

    /// Coordinates of the byte at `offset` from the module's first address.
    dram_address decode(std::uint64_t offset) const;
    /// Channel of the byte at `offset` (the first field of decode()).
    unsigned channel(std::uint64_t offset) const
    {
        return static_cast<unsigned>((offset / m_line) & (m_channels - 1));
    }

    unsigned channels() const { return m_channels; }           ///< channels per module
    unsigned banks() const { return m_banks; }                 ///< banks per channel
    unsigned lines_per_row() const { return m_lines_per_row; } ///< lines of one channel per row

private:
    unsigned m_channels, m_banks, m_line, m_lines_per_row;
};

} // namespace vgpu::dram
