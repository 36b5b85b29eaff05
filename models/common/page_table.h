// The GPU page-table format, defined once: flat table of 64-bit entries indexed by virtual page
// number, written by the host driver and walked by translation. See docs/architecture.md.
#pragma once

#include <cstdint>

namespace vgpu::page_table {

constexpr unsigned va_bits = 32;                    ///< virtual addresses are 32 bits
constexpr std::uint64_t va_limit = 1ull << va_bits; ///< first virtual address not covered
constexpr std::uint64_t entry_bytes = 8;            ///< one little-endian 64-bit word a page
constexpr std::uint64_t present_bit = 1;            ///< entry bit 0: the page is mapped
constexpr std::uint64_t writable_bit = 2;           ///< entry bit 1: writes are allowed
constexpr std::uint64_t min_page_bytes = 4096;      ///< pages are powers of two this or more
constexpr std::uint64_t frame_mask = ~(min_page_bytes - 1); ///< entry bits 12..63: the frame

/// A decoded page-table entry.
struct entry {
    bool present = false;    ///< the page is mapped
    bool writable = false;   ///< writes are allowed (meaningful when present)
    std::uint64_t frame = 0; ///< physical address of the page (page-aligned)
};

/// True if page_bytes is a valid page size: a power of two of at least min_page_bytes.
constexpr bool valid_page_bytes(std::uint64_t page_bytes)
{
    return page_bytes >= min_page_bytes && (page_bytes & (page_bytes - 1)) == 0;
}

/// The raw entry of a present page at physical address frame (page-aligned).
constexpr std::uint64_t encode(std::uint64_t frame, bool writable)
{
    return (frame & frame_mask) | (writable ? writable_bit : 0) | present_bit;
}

/// The entry of raw for pages of page_bytes: the frame is raw with the bits below the page size
/// cleared (bits 2 .. log2(page_bytes) - 1 are ignored).
constexpr entry decode(std::uint64_t raw, std::uint64_t page_bytes)
{
    return entry{(raw & present_bit) != 0, (raw & writable_bit) != 0, raw & ~(page_bytes - 1)};
}

/// True if va lies in the virtual space the table covers.
constexpr bool covers(std::uint64_t va)
{
    return va < va_limit;
}

/// Virtual page number of va.
constexpr std::uint64_t vpn_of(std::uint64_t va, std::uint64_t page_bytes)
{
    return va / page_bytes;
}

/// Physical address of the entry of virtual page vpn in the table at ptbr.
constexpr std::uint64_t entry_address(std::uint64_t ptbr, std::uint64_t vpn)
{
    return ptbr + vpn * entry_bytes;
}

/// Bytes of a table that covers the whole virtual space with pages of page_bytes.
constexpr std::uint64_t table_bytes(std::uint64_t page_bytes)
{
    return va_limit / page_bytes * entry_bytes;
}

/// Physical address of va through e (present) for pages of page_bytes.
constexpr std::uint64_t physical(const entry& e, std::uint64_t va, std::uint64_t page_bytes)
{
    return e.frame | (va & (page_bytes - 1));
}

} // namespace vgpu::page_table
