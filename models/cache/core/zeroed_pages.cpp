// Zero-filled memory whose pages the host maps on first write, for the large cache arrays.
// See models/cache/README.md ("Host memory").
#include "models/cache/core/zeroed_pages.h"

#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <utility>

namespace vgpu::cache {

zeroed_pages::zeroed_pages(std::size_t bytes)
{
    if (bytes == 0)
        return;
    if (bytes >= mapped_threshold) {
        // MAP_NORESERVE: the range is not counted against the host's commit limit, so a large,
        // mostly untouched array is accepted whatever the overcommit policy; the pages written
        // are what the run costs.
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
        // Sets spread over the array: with huge pages one write would commit 2 MiB.
        ::madvise(p, bytes, MADV_NOHUGEPAGE);
#endif
        m_data = static_cast<std::uint8_t*>(p);
        m_mapped = true;
    } else {
        m_data = static_cast<std::uint8_t*>(std::calloc(bytes, 1));
        if (m_data == nullptr)
            throw std::bad_alloc();
    }
    m_bytes = bytes;
}

zeroed_pages::~zeroed_pages()
{
    release();
}

zeroed_pages::zeroed_pages(zeroed_pages&& o) noexcept
    : m_data(std::exchange(o.m_data, nullptr)), m_bytes(std::exchange(o.m_bytes, 0)),
      m_mapped(std::exchange(o.m_mapped, false))
{
}

zeroed_pages& zeroed_pages::operator=(zeroed_pages&& o) noexcept
{
    if (this != &o) {
        release();
        m_data = std::exchange(o.m_data, nullptr);
        m_bytes = std::exchange(o.m_bytes, 0);
        m_mapped = std::exchange(o.m_mapped, false);
    }
    return *this;
}

void zeroed_pages::release()
{
    if (m_data == nullptr)
        return;
    if (m_mapped)
        ::munmap(m_data, m_bytes);
    else
        std::free(m_data);
    m_data = nullptr;
    m_bytes = 0;
    m_mapped = false;
}

} // namespace vgpu::cache
