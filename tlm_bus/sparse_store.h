// Sparse byte-addressed backing store: pages allocated on first write, zero elsewhere.
// See docs/tlm-bus.md.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

namespace vgpu::tlm_bus {

/// Memory contents of a large address space, allocated page by page (no SystemC).
class sparse_store {
public:
    static constexpr std::uint64_t page_bytes = 4096; ///< allocation granule

    void read(std::uint64_t addr, void* dst, std::uint64_t len) const;
    void write(std::uint64_t addr, const void* src, std::uint64_t len);
    /// The page holding `addr`, allocated (zeroed) if needed; for DMI.
    std::uint8_t* page(std::uint64_t addr);
    /// Asks the host to bring [addr, addr + len) into its caches ahead of a read (a hint: no
    /// effect on contents).
    void prefetch(std::uint64_t addr, std::uint64_t len) const;
    /// Pages allocated so far.
    std::size_t pages() const { return m_pages; }

private:
    /// Pages are reserved a chunk at a time in one zero-filled block (the host system zeroes
    /// its pages when first touched), so a lookup searches a small table of chunks and a page
    /// costs no explicit clearing; a page counts as allocated from its first write or DMI grant.
    static constexpr std::uint64_t chunk_pages = 512;
    static constexpr std::uint64_t chunk_bytes = chunk_pages * page_bytes;
    struct unmap_chunk {
        void operator()(std::uint8_t* p) const;
    };
    /// A zero-filled chunk (throws std::bad_alloc); `huge`: aligned to its size and backed by
    /// a huge page where the host has them.
    static std::uint8_t* map_chunk(bool huge);
    /// Whether chunk no - 1 exists with at least half its pages written: a buffer filled in
    /// address order (the driver's loads) is dense, so chunk no takes a huge page; scattered
    /// writes over a large range never pay 2 MiB for one page.
    bool dense_before(std::uint64_t no) const;
    struct chunk {
        std::unique_ptr<std::uint8_t, unmap_chunk> data; ///< chunk_pages pages, zero-filled
        std::uint64_t used[chunk_pages / 64] = {};       ///< allocated pages, a bit each
    };
    /// The chunk of page `page_no`, or nullptr.
    chunk* find_chunk(std::uint64_t page_no) const;
    const std::uint8_t* find(std::uint64_t page_no) const;

    /// Chunks by number: the first dense_chunks (the first 128 GiB, where DRAM lies) in a
    /// table indexed directly, grown as needed; any above in a map.
    static constexpr std::uint64_t dense_chunks = std::uint64_t{1} << 16;
    std::vector<std::unique_ptr<chunk>> m_dense;
    std::unordered_map<std::uint64_t, std::unique_ptr<chunk>> m_chunks;
    std::size_t m_pages = 0;
    // The last chunk found (accesses cluster), a cache only.
    mutable std::uint64_t m_last_no = ~std::uint64_t{0};
    mutable chunk* m_last = nullptr;
};

} // namespace vgpu::tlm_bus
