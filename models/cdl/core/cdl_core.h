// The CDL access controller's algorithm (seed 001): what a constant-data load reads and which
// registers it writes, in both forms, and the bulk form's running offset / remaining amount /
// destination register state machine of claim 8. Pure C++, no SystemC. See
// models/cdl/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vgpu::cdl {

constexpr unsigned lanes = 32;           ///< dwords per vector register (SIMD32)
constexpr unsigned register_bytes = 128; ///< bytes one vector register holds
using lane_values = std::array<std::uint32_t, lanes>;

/// One constant buffer view: a virtual address range. bytes 0 = not programmed.
struct cbv {
    std::uint64_t base = 0;  ///< first byte (virtual address)
    std::uint64_t bytes = 0; ///< size; bytes beyond it read as zero
};

/// A CDL instruction as the warp issued it.
struct request {
    bool bulk = false;           ///< the mode identifier: the bulk form
    unsigned dst = 0;            ///< first destination register
    std::uint32_t dwords = 0;    ///< bulk: the data amount n
    std::uint32_t offset = 0;    ///< bulk: byte offset from the CBV base (an immediate or lane 0)
    lane_values offsets{};       ///< legacy: per-lane byte offsets
    std::uint32_t lane_mask = 0; ///< legacy: the lanes that receive a dword
};

/// Why the instruction is illegal ("" if it is not): a CBV slot outside the table or not
/// programmed, n = 0, or destination registers past the register file (`registers` of them).
std::string check(const request& r, const std::vector<cbv>& table, unsigned cbv_index,
                  unsigned registers);

/// Registers a bulk load of n dwords writes: ceil(n / 32) (claim 6).
constexpr unsigned registers_for(std::uint32_t dwords)
{
    return static_cast<unsigned>((std::uint64_t{dwords} + lanes - 1) / lanes);
}

/// One read of the bulk form: [addr, addr + bytes) in one line; the first `valid` bytes lie
/// inside the CBV and are read from memory, the rest read as zero without a memory access.
struct line_read {
    std::uint64_t addr = 0;
    unsigned bytes = 0;
    unsigned valid = 0;
};

/// The reads of a bulk load in address order: start = base + offset, end = start + 4n
/// (claim 2), cut at line boundaries (`line_bytes`, a power of two).
std::vector<line_read> bulk_reads(const cbv& view, std::uint32_t offset, std::uint32_t dwords,
                                  unsigned line_bytes);

/// Claim 8: reads retire in address order; each advances the running offset (from the start
/// address); each completed 128 bytes writes register dst + k, then decrements the unread
/// amount, then advances the destination register, so registers are written in ascending
/// order. The last register is partly filled (its remaining lanes zero).
class bulk_loader {
public:
    /// Called for each register written: (register, its 32 lanes).
    using write_fn = std::function<void(unsigned reg, const lane_values& values)>;

    bulk_loader(unsigned dst, std::uint32_t dwords);
    /// Retires the next read in address order: `bytes` bytes of `data`.
    void retire(const std::uint8_t* data, unsigned bytes, const write_fn& write);
    std::uint64_t offset() const { return m_offset; }       ///< bytes retired from the start
    std::uint32_t remaining() const { return m_remaining; } ///< dwords not yet in a register
    unsigned next_register() const { return m_reg; }        ///< the register written next
    bool done() const { return m_remaining == 0; }

private:
    void flush(const write_fn& write);
    unsigned m_reg;
    std::uint32_t m_remaining;
    std::uint64_t m_offset = 0;
    std::array<std::uint8_t, register_bytes> m_stage{};
    unsigned m_staged = 0; ///< bytes in m_stage
};

/// The legacy form: lane l of the mask receives the dword at base + offsets[l]. A lane whose
/// dword is not wholly inside the CBV receives zero; addr[l] is its address otherwise.
struct legacy_plan {
    lane_values addr{};     ///< per-lane virtual address (lanes in `read`)
    std::uint32_t read = 0; ///< lanes read from memory
    std::uint32_t zero = 0; ///< lanes outside the CBV (read as zero)
};
legacy_plan plan_legacy(const cbv& view, const lane_values& offsets, std::uint32_t lane_mask);

/// Bytes of a load beyond its CBV (statistic `out_of_range_bytes`).
std::uint64_t out_of_range_bytes(const std::vector<line_read>& reads);

} // namespace vgpu::cdl
