// Sparse byte-addressed backing store. See docs/tlm-bus.md.
#include "tlm_bus/sparse_store.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <sys/mman.h>

namespace vgpu::tlm_bus {

void sparse_store::unmap_chunk::operator()(std::uint8_t* p) const
{
    ::munmap(p, chunk_bytes);
}

std::uint8_t* sparse_store::map_chunk(bool huge)
{
    // A fresh anonymous mapping, not the heap: the host zeroes a page when it is first touched
    // (the heap's calloc clears reused memory itself). Without huge pages a page costs host
    // memory once touched. With them the chunk, aligned to its size, is one host page: one
    // fault instead of 512, and one TLB entry for the random reads of a large buffer, but its
    // first touch commits all of it.
    const std::uint64_t span = huge ? 2 * chunk_bytes : chunk_bytes;
    void* p = ::mmap(nullptr, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw std::bad_alloc();
    auto* base = static_cast<std::uint8_t*>(p);
    if (!huge) {
#ifdef MADV_NOHUGEPAGE
        ::madvise(base, chunk_bytes, MADV_NOHUGEPAGE);
#endif
        return base;
    }
    const std::uint64_t skip =
        (chunk_bytes - reinterpret_cast<std::uintptr_t>(base) % chunk_bytes) % chunk_bytes;
    if (skip != 0)
        ::munmap(base, skip);
    ::munmap(base + skip + chunk_bytes, chunk_bytes - skip);
#ifdef MADV_HUGEPAGE
    ::madvise(base + skip, chunk_bytes, MADV_HUGEPAGE);
#endif
    return base + skip;
}

bool sparse_store::dense_before(std::uint64_t no) const
{
    if (no == 0)
        return false;
    const chunk* prev = find_chunk((no - 1) * chunk_pages);
    if (!prev)
        return false;
    unsigned used = 0;
    for (std::uint64_t w : prev->used)
        used += static_cast<unsigned>(__builtin_popcountll(w));
    return used >= chunk_pages / 2;
}

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

void sparse_store::prefetch(std::uint64_t addr, std::uint64_t len) const
{
    if (len == 0)
        return;
    const std::uint8_t* p = find(addr / page_bytes);
    if (!p)
        return;
    // Host cache lines of 64 bytes, within the page.
    const std::uint64_t off = addr % page_bytes;
    const std::uint64_t end = std::min(page_bytes, off + len);
    for (std::uint64_t o = off & ~std::uint64_t{63}; o < end; o += 64)
        __builtin_prefetch(p + o);
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
        const std::uint64_t no = page_no / chunk_pages;
        auto fresh = std::make_unique<chunk>();
        fresh->data.reset(map_chunk(dense_before(no)));
        c = fresh.get();
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
