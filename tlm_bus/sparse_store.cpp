// Sparse byte-addressed backing store. See docs/tlm-bus.md.
#include "tlm_bus/sparse_store.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace vgpu::tlm_bus {

sparse_store::chunk* sparse_store::find_chunk(std::uint64_t page_no) const
{
    const std::uint64_t no = page_no / chunk_pages;
    if (no == m_last_no)
        return m_last;
    chunk* c = nullptr;
    if (no < dense_chunks) {
        if (no >= m_dense.size() || !m_dense[no])
            return nullptr;
        c = m_dense[no].get();
    } else {
        auto it = m_chunks.find(no);
        if (it == m_chunks.end())
            return nullptr;
        c = it->second.get();
    }
    m_last_no = no;
    m_last = c;
    return m_last;
}

const std::uint8_t* sparse_store::find(std::uint64_t page_no) const
{
    const chunk* c = find_chunk(page_no);
    const std::uint64_t i = page_no % chunk_pages;
    if (!c || !(c->used[i / 64] >> (i % 64) & 1))
        return nullptr;
    return c->data.get() + i * page_bytes;
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
    const std::uint64_t page_no = addr / page_bytes;
    chunk* c = find_chunk(page_no);
    if (!c) {
        auto fresh = std::make_unique<chunk>();
        // calloc of a large block maps fresh pages that the system zeroes on first touch.
        fresh->data.reset(static_cast<std::uint8_t*>(std::calloc(chunk_pages, page_bytes)));
        if (!fresh->data)
            throw std::bad_alloc();
        c = fresh.get();
        const std::uint64_t no = page_no / chunk_pages;
        if (no < dense_chunks) {
            if (no >= m_dense.size())
                m_dense.resize(no + 1);
            m_dense[no] = std::move(fresh);
        } else {
            m_chunks.emplace(no, std::move(fresh));
        }
        m_last_no = page_no / chunk_pages;
        m_last = c;
    }
    const std::uint64_t i = page_no % chunk_pages;
    std::uint64_t& word = c->used[i / 64];
    if (!(word >> (i % 64) & 1)) {
        word |= std::uint64_t{1} << (i % 64);
        ++m_pages;
    }
    return c->data.get() + i * page_bytes;
}

} // namespace vgpu::tlm_bus
