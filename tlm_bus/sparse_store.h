// Sparse byte-addressed backing store: pages allocated on first write, zero elsewhere.
// See docs/tlm-bus.md.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace vgpu::tlm_bus {

/// Memory contents of a large address space, allocated page by page (no SystemC).
class sparse_store {
public:
    static constexpr std::uint64_t page_bytes = 4096; ///< allocation granule

    void read(std::uint64_t addr, void* dst, std::uint64_t len) const;
    void write(std::uint64_t addr, const void* src, std::uint64_t len);
    /// The page holding `addr`, allocated (zeroed) if needed; for DMI.
    std::uint8_t* page(std::uint64_t addr);
    std::size_t pages() const { return m_pages.size(); }

private:
    const std::uint8_t* find(std::uint64_t page_no) const;
    std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> m_pages;
};

} // namespace vgpu::tlm_bus
