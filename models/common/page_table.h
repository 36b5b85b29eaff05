// The GPU page-table format, defined once: a multi-level radix table of 64-bit entries in 4 KiB
// nodes, written by the host driver and walked by translation. See docs/architecture.md
// ("Address spaces").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace vgpu::page_table {

constexpr unsigned va_bits = 32;                    ///< virtual addresses are 32 bits
constexpr std::uint64_t va_limit = 1ull << va_bits; ///< first virtual address not covered
constexpr std::uint64_t entry_bytes = 8;            ///< one little-endian 64-bit word an entry
constexpr std::uint64_t node_bytes = 4096;          ///< one table (node) of the radix tree
constexpr unsigned level_bits = 9;                  ///< VA bits a full node decodes (512 entries)
constexpr std::uint64_t min_page_bytes = 4096;      ///< pages are powers of two this or more

// Entry bits. Every entry: bit 0 present. A table entry (levels above the last) holds the
// physical address of the next node in bits 12..63. A leaf entry (last level) holds the page:
constexpr std::uint64_t present_bit = 1;        ///< bit 0: the entry is valid
constexpr std::uint64_t writable_bit = 2;       ///< leaf bit 1: stores are allowed
constexpr std::uint64_t read_only_bit = 4;      ///< leaf bit 2: read-only data (remote-LLC hint)
constexpr unsigned home_shift = 3;              ///< leaf bits 3..8: the module holding the frame
constexpr std::uint64_t home_mask = 0x3f;       ///< (6 bits: up to 64 modules)
constexpr std::uint64_t frame_mask = ~0xfffull; ///< bits 12..63: a page-aligned address

/// A decoded leaf entry.
struct entry {
    bool present = false;    ///< the page is mapped
    bool writable = false;   ///< writes are allowed (meaningful when present)
    bool read_only = false;  ///< read-only data hint
    unsigned home = 0;       ///< module whose DRAM holds the frame
    std::uint64_t frame = 0; ///< physical address of the page (page-aligned)
};

/// True if page_bytes is a valid page size: a power of two of at least min_page_bytes and below
/// the virtual space.
constexpr bool valid_page_bytes(std::uint64_t page_bytes)
{
    return page_bytes >= min_page_bytes && page_bytes < va_limit &&
           (page_bytes & (page_bytes - 1)) == 0;
}

/// log2(page_bytes) for a valid page size.
constexpr unsigned page_shift(std::uint64_t page_bytes)
{
    unsigned s = 0;
    while ((std::uint64_t{1} << s) < page_bytes)
        ++s;
    return s;
}

/// Levels of the tree for pages of page_bytes: the VPN's bits in groups of level_bits from the
/// leaf up; the root decodes what is left (4 KiB pages: 2 + 9 + 9 bits, 3 levels; 64 KiB:
/// 7 + 9, 2 levels; 2 MiB: 2 + 9, 2 levels).
constexpr unsigned levels(std::uint64_t page_bytes)
{
    return (va_bits - page_shift(page_bytes) + level_bits - 1) / level_bits;
}

/// Lowest VA bit that `level` (0 = root) decodes.
constexpr unsigned level_shift(unsigned level, std::uint64_t page_bytes)
{
    return page_shift(page_bytes) + level_bits * (levels(page_bytes) - 1 - level);
}

/// Physical address of the entry for va in the node at `table`, which is at `level`.
constexpr std::uint64_t entry_address(std::uint64_t table, std::uint64_t va, unsigned level,
                                      std::uint64_t page_bytes)
{
    return table +
           ((va >> level_shift(level, page_bytes)) & ((1ull << level_bits) - 1)) * entry_bytes;
}

/// The VA bits that select the entries of levels 0..level (a page-walk cache's key).
constexpr std::uint64_t prefix(std::uint64_t va, unsigned level, std::uint64_t page_bytes)
{
    return (va & (va_limit - 1)) >> level_shift(level, page_bytes);
}

/// A table entry pointing at the node at `node` (node-aligned).
constexpr std::uint64_t encode_table(std::uint64_t node)
{
    return (node & frame_mask) | present_bit;
}

/// The physical address of the next node in a table entry.
constexpr std::uint64_t table_of(std::uint64_t raw)
{
    return raw & frame_mask;
}

/// The leaf entry of a present page at physical address frame (page-aligned).
constexpr std::uint64_t encode(std::uint64_t frame, bool writable, bool read_only = false,
                               unsigned home = 0)
{
    return (frame & frame_mask) | (writable ? writable_bit : 0) | (read_only ? read_only_bit : 0) |
           ((std::uint64_t{home} & home_mask) << home_shift) | present_bit;
}

/// The leaf entry of raw for pages of page_bytes: the frame is raw with the bits below the page
/// size cleared.
constexpr entry decode(std::uint64_t raw, std::uint64_t page_bytes)
{
    return entry{(raw & present_bit) != 0, (raw & writable_bit) != 0, (raw & read_only_bit) != 0,
                 static_cast<unsigned>((raw >> home_shift) & home_mask), raw & ~(page_bytes - 1)};
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

/// Physical address of va through e (present) for pages of page_bytes.
constexpr std::uint64_t physical(const entry& e, std::uint64_t va, std::uint64_t page_bytes)
{
    return e.frame | (va & (page_bytes - 1));
}

/// Reads the 64-bit entry at a physical address; false when it cannot be read.
using read_fn = std::function<bool(std::uint64_t pa, std::uint64_t& raw)>;

/// Walks the tree at `root` for va: the raw leaf entry, or nothing when a level's entry is not
/// present or cannot be read (`reads`, if given, counts the entries read).
std::optional<std::uint64_t> walk(std::uint64_t root, std::uint64_t va, std::uint64_t page_bytes,
                                  const read_fn& read, unsigned* reads = nullptr);

/// Builds a tree in a pool of physical memory: nodes are taken from `pool` on, node_bytes each,
/// the root first. The entries to write (every other word of a node is 0, not present) are
/// kept by physical address.
class builder {
public:
    builder(std::uint64_t pool, std::uint64_t page_bytes);
    /// Maps the page of va to the leaf entry raw (see encode(); 0: not present, its nodes
    /// built), creating nodes as needed; returns the leaf entry's physical address.
    std::uint64_t map(std::uint64_t va, std::uint64_t raw);
    std::uint64_t root() const { return m_pool; }                ///< the PTBR
    std::uint64_t bytes() const { return m_nodes * node_bytes; } ///< pool bytes used
    /// Bytes a tree mapping these VPNs needs (without building it).
    static std::uint64_t bytes_for(const std::map<std::uint64_t, std::uint64_t>& vpns,
                                   std::uint64_t page_bytes);
    /// Physical address -> raw entry, for every entry mapped (leaves mapped as 0 included).
    const std::map<std::uint64_t, std::uint64_t>& entries() const { return m_entries; }

private:
    std::uint64_t m_pool, m_page_bytes;
    std::uint64_t m_nodes = 1; ///< the root exists from the start
    std::map<std::uint64_t, std::uint64_t> m_entries;
};

} // namespace vgpu::page_table
