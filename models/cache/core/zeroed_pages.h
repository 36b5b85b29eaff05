// Zero-filled memory whose pages the host maps on first write, for the large cache arrays.
// Pure C++, no SystemC; see models/cache/README.md ("Host memory").
#pragma once

#include <cstddef>
#include <cstdint>

namespace vgpu::cache {

/// A block of `bytes` zero bytes that costs host memory only for the pages written. Blocks of
/// at least `mapped_threshold` bytes are anonymous mappings reserved without commit (Linux maps
/// a page on its first write; reading an untouched page reads the shared zero page) and without
/// transparent huge pages (a write commits 4 KiB, not 2 MiB); smaller blocks come from the heap.
class zeroed_pages {
public:
    /// Blocks at least this large are mapped rather than taken from the heap: the heap's
    /// calloc clears reused memory byte by byte, which for the L1 arrays of an 80-SM platform
    /// was a tenth of a short run's host time.
    static constexpr std::size_t mapped_threshold = std::size_t{64} << 10;

    zeroed_pages() = default;
    /// bytes zero bytes (throws std::bad_alloc if the host refuses the address range).
    explicit zeroed_pages(std::size_t bytes);
    ~zeroed_pages();
    zeroed_pages(zeroed_pages&& o) noexcept;            ///< takes o's block, leaving o empty
    zeroed_pages& operator=(zeroed_pages&& o) noexcept; ///< frees this block, takes o's
    zeroed_pages(const zeroed_pages&) = delete;
    zeroed_pages& operator=(const zeroed_pages&) = delete;

    std::uint8_t* data() { return m_data; }             ///< the first byte (nullptr if empty)
    const std::uint8_t* data() const { return m_data; } ///< the first byte (nullptr if empty)
    std::size_t size() const { return m_bytes; }        ///< bytes in the block
    bool empty() const { return m_bytes == 0; }         ///< no block

private:
    void release();

    std::uint8_t* m_data = nullptr;
    std::size_t m_bytes = 0;
    bool m_mapped = false;
};

} // namespace vgpu::cache
