// Set-associative cache array that holds data: tags, true LRU, dirty bits, line data.
// Pure C++ core of the L1/LLC models, no SystemC; see models/cache/README.md.
#include "models/cache/core/cache_array.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace vgpu::cache {

namespace {
bool is_pow2(unsigned v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

unsigned log2u(unsigned v)
{
    unsigned n = 0;
    while ((1u << n) < v)
        ++n;
    return n;
}
} // namespace

cache_array::cache_array(unsigned sets, unsigned ways, unsigned line_bytes, index_fn index)
    : m_sets(sets), m_ways(ways), m_line_bytes(line_bytes), m_offset_mask(line_bytes - 1ull),
      m_line_shift(log2u(line_bytes)), m_index(std::move(index))
{
    if (!is_pow2(sets))
        throw std::invalid_argument("cache_array: sets must be a power of two, got " +
                                    std::to_string(sets));
    if (ways == 0)
        throw std::invalid_argument("cache_array: ways must be at least 1");
    if (!is_pow2(line_bytes))
        throw std::invalid_argument("cache_array: line_bytes must be a power of two, got " +
                                    std::to_string(line_bytes));
    m_meta.resize(std::size_t{sets} * ways);
    m_data.resize(m_meta.size() * line_bytes);
    m_victim_data.resize(line_bytes);
}

unsigned cache_array::set_of(std::uint64_t addr) const
{
    const std::uint64_t line = line_addr(addr);
    if (m_index)
        return m_index(line) & (m_sets - 1);
    return static_cast<unsigned>(line >> m_line_shift) & (m_sets - 1);
}

std::size_t cache_array::find(std::uint64_t addr) const
{
    const std::uint64_t line = line_addr(addr);
    const std::size_t base = slot(set_of(addr), 0);
    for (std::size_t s = base; s < base + m_ways; ++s) {
        if (m_meta[s].valid && m_meta[s].tag == line)
            return s;
    }
    return npos;
}

std::optional<unsigned> cache_array::lookup(std::uint64_t addr, bool touch)
{
    const std::size_t s = find(addr);
    if (s == npos)
        return std::nullopt;
    if (touch)
        m_meta[s].stamp = ++m_clock;
    return static_cast<unsigned>(s % m_ways);
}

bool cache_array::probe(std::uint64_t addr) const
{
    return find(addr) != npos;
}

bool cache_array::is_dirty(std::uint64_t addr) const
{
    const std::size_t s = find(addr);
    return s != npos && m_meta[s].dirty;
}

std::size_t cache_array::resident_slot(std::uint64_t addr, std::size_t size, const char* what) const
{
    if ((addr & m_offset_mask) + size > m_line_bytes)
        throw std::out_of_range(std::string("cache_array::") + what + ": access of " +
                                std::to_string(size) + " bytes at " + hex(addr) +
                                " crosses a line");
    const std::size_t s = find(addr);
    if (s == npos)
        throw std::logic_error(std::string("cache_array::") + what + ": line of address " +
                               hex(addr) + " is not resident");
    return s;
}

void cache_array::read(std::uint64_t addr, void* dst, std::size_t size) const
{
    const std::size_t s = resident_slot(addr, size, "read");
    std::memcpy(dst, data_of(s) + (addr & m_offset_mask), size);
}

void cache_array::write(std::uint64_t addr, const void* src, std::size_t size, bool mark_dirty)
{
    const std::size_t s = resident_slot(addr, size, "write");
    std::memcpy(data_of(s) + (addr & m_offset_mask), src, size);
    if (mark_dirty && !m_meta[s].dirty) {
        m_meta[s].dirty = true;
        ++m_dirty_count;
    }
}

void cache_array::fill(std::uint64_t addr, const void* line_data)
{
    const std::size_t s = resident_slot(line_addr(addr), m_line_bytes, "fill");
    std::memcpy(data_of(s), line_data, m_line_bytes);
    if (m_meta[s].dirty) {
        m_meta[s].dirty = false;
        --m_dirty_count;
    }
}

cache_array::victim cache_array::remove(std::size_t s)
{
    meta& m = m_meta[s];
    victim v;
    if (!m.valid)
        return v;
    v.valid = true;
    v.dirty = m.dirty;
    v.line_addr = m.tag;
    std::memcpy(m_victim_data.data(), data_of(s), m_line_bytes);
    v.data = m_victim_data.data();
    --m_valid_count;
    if (m.dirty)
        --m_dirty_count;
    m = meta{};
    return v;
}

cache_array::victim cache_array::allocate(std::uint64_t addr)
{
    if (find(addr) != npos)
        throw std::logic_error("cache_array::allocate: line " + hex(line_addr(addr)) +
                               " is already resident");
    // An invalid way has stamp 0, below every used stamp, so one minimum search finds
    // the first invalid way or else the LRU way.
    const std::size_t base = slot(set_of(addr), 0);
    std::size_t pick = base;
    for (std::size_t s = base + 1; s < base + m_ways; ++s) {
        if (m_meta[s].stamp < m_meta[pick].stamp)
            pick = s;
    }
    const victim v = remove(pick);
    meta& m = m_meta[pick];
    m.tag = line_addr(addr);
    m.valid = true;
    m.stamp = ++m_clock;
    ++m_valid_count;
    std::memset(data_of(pick), 0, m_line_bytes);
    return v;
}

cache_array::victim cache_array::invalidate(std::uint64_t addr)
{
    const std::size_t s = find(addr);
    return s == npos ? victim{} : remove(s);
}

} // namespace vgpu::cache
