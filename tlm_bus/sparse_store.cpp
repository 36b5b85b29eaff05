// Sparse byte-addressed backing store. See docs/tlm-bus.md.
#include "tlm_bus/sparse_store.h"

#include <algorithm>
#include <cstring>

namespace vgpu::tlm_bus {

const std::uint8_t* sparse_store::find(std::uint64_t page_no) const
{
    auto it = m_pages.find(page_no);
    return it == m_pages.end() ? nullptr : it->second.get();
}

void sparse_store::read(std::uint64_t addr, void* dst, std::uint64_t len) const
{
    auto* out = static_cast<std::uint8_t*>(dst);
    while (len > 0) {
        std::uint64_t off = addr % page_bytes;
        std::uint64_t n = std::min(len, page_bytes - off);
        if (const std::uint8_t* p = find(addr / page_bytes))
            std::memcpy(out, p + off, n);
        else
            std::memset(out, 0, n);
        addr += n;
        out += n;
        len -= n;
    }
}

void sparse_store::write(std::uint64_t addr, const void* src, std::uint64_t len)
{
    const auto* in = static_cast<const std::uint8_t*>(src);
    while (len > 0) {
        std::uint64_t off = addr % page_bytes;
        std::uint64_t n = std::min(len, page_bytes - off);
        std::memcpy(page(addr) + off, in, n);
        addr += n;
        in += n;
        len -= n;
    }
}

std::uint8_t* sparse_store::page(std::uint64_t addr)
{
    auto& p = m_pages[addr / page_bytes];
    if (!p)
        p = std::make_unique<std::uint8_t[]>(page_bytes); // value-initialised: zero
    return p.get();
}

} // namespace vgpu::tlm_bus
