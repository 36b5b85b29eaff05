// Set-associative cache array that holds data: tags, true LRU, dirty bits, line data.
// Pure C++ core of the L1/LLC models, no SystemC; see models/cache/README.md.
#include "models/cache/core/cache_array.h"

#include <algorithm>
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

cache_array::cache_array(unsigned sets, unsigned ways, unsigned line_bytes, index_fn index,
                         unsigned sector_bytes)
    : m_sets(sets), m_ways(ways), m_line_bytes(line_bytes),
      m_sector_bytes(sector_bytes == 0 ? line_bytes : sector_bytes), m_sectors(1),
      m_sector_shift(0), m_all(1), m_offset_mask(line_bytes - 1ull), m_index(std::move(index))
{
    if (!is_pow2(sets))
        throw std::invalid_argument("cache_array: sets must be a power of two, got " +
                                    std::to_string(sets));
    if (ways == 0)
        throw std::invalid_argument("cache_array: ways must be at least 1");
    if (!is_pow2(line_bytes))
        throw std::invalid_argument("cache_array: line_bytes must be a power of two, got " +
                                    std::to_string(line_bytes));
    if (!is_pow2(m_sector_bytes) || m_sector_bytes > line_bytes || line_bytes / m_sector_bytes > 64)
        throw std::invalid_argument(
            "cache_array: sector_bytes must be a power of two dividing line_bytes into at most 64 "
            "sectors, got " +
            std::to_string(m_sector_bytes));
    m_sectors = line_bytes / m_sector_bytes;
    m_sector_shift = log2u(m_sector_bytes);
    m_all = m_sectors == 64 ? ~sector_mask{0} : (sector_mask{1} << m_sectors) - 1;
    // Nothing here writes the arrays: their pages cost memory once a line in them is allocated.
    const std::size_t lines = std::size_t{sets} * ways;
    m_way_pages = zeroed_pages(lines * sizeof(way));
    m_state_pages = zeroed_pages(lines * sizeof(line_state));
    m_data_pages = zeroed_pages(lines * line_bytes);
    m_way = reinterpret_cast<way*>(m_way_pages.data());
    m_state = reinterpret_cast<line_state*>(m_state_pages.data());
    m_data = m_data_pages.data();
    m_victim_data.resize(line_bytes);
    m_touched.assign((sets + 63) / 64, 0);
    if (!m_index)
        m_spec_index = spec_index(line_index(index_kind::modulo, sets, line_bytes));
    else if (const spec_index* f = m_index.target<spec_index>()) {
        m_spec_index = *f;
        m_index = nullptr;
    }
}

std::size_t cache_array::touched_sets() const
{
    std::size_t n = 0;
    for (const std::uint64_t w : m_touched)
        n += static_cast<std::size_t>(__builtin_popcountll(w));
    return n;
}

unsigned cache_array::set_of(std::uint64_t addr) const
{
    const std::uint64_t line = line_addr(addr);
    if (m_index)
        return m_index(line) & (m_sets - 1);
    if (m_set_known && m_set_line == line)
        return m_set;
    m_set = m_spec_index(line) & (m_sets - 1);
    m_set_line = line;
    m_set_known = true;
    return m_set;
}

sector_mask cache_array::sectors_of(std::uint64_t addr, std::size_t size) const
{
    const std::uint64_t off = addr & m_offset_mask;
    if (size == 0 || off + size > m_line_bytes)
        throw std::out_of_range("cache_array::sectors_of: " + std::to_string(size) + " bytes at " +
                                hex(addr) + " do not fit in one line");
    const unsigned first = static_cast<unsigned>(off >> m_sector_shift);
    const unsigned last = static_cast<unsigned>((off + size - 1) >> m_sector_shift);
    const sector_mask upto = last == 63 ? ~sector_mask{0} : (sector_mask{1} << (last + 1)) - 1;
    return upto & ~((sector_mask{1} << first) - 1);
}

std::size_t cache_array::find(std::uint64_t addr) const
{
    // An empty cache (every cache while the host loads memory through it) holds no line.
    if (m_valid_count == 0)
        return npos;
    const std::uint64_t line = line_addr(addr);
    if (m_way[m_last_found].tag == line && m_way[m_last_found].resident)
        return m_last_found;
    if (m_absent_known && m_absent == line)
        return npos;
    const std::size_t base = slot(set_of(addr), 0);
    for (std::size_t s = base; s < base + m_ways; ++s) {
        if (m_way[s].tag == line && m_way[s].resident) {
            m_last_found = s;
            return s;
        }
    }
    m_absent = line;
    m_absent_known = true;
    return npos;
}

std::optional<unsigned> cache_array::lookup(std::uint64_t addr, bool touch)
{
    const std::size_t s = find(addr);
    if (s == npos)
        return std::nullopt;
    if (touch) {
        m_way[s].stamp = ++m_clock;
        forget_lru(s);
    }
    return static_cast<unsigned>(s % m_ways);
}

bool cache_array::probe(std::uint64_t addr) const
{
    return find(addr) != npos;
}

bool cache_array::is_dirty(std::uint64_t addr) const
{
    return dirty_sectors(addr) != 0;
}

sector_mask cache_array::valid_sectors(std::uint64_t addr) const
{
    const std::size_t s = find(addr);
    return s == npos ? 0 : state(s).valid;
}

sector_mask cache_array::dirty_sectors(std::uint64_t addr) const
{
    const std::size_t s = find(addr);
    return s == npos ? 0 : state(s).dirty;
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
    if (size > 0 && (sectors_of(addr, size) & ~state(s).valid) != 0)
        throw std::logic_error(std::string("cache_array::") + what + ": " + std::to_string(size) +
                               " bytes at " + hex(addr) + " touch a sector that holds no data");
    return s;
}

void cache_array::read(std::uint64_t addr, void* dst, std::size_t size) const
{
    const std::size_t s = resident_slot(addr, size, "read");
    std::memcpy(dst, data_of(s) + (addr & m_offset_mask), size);
}

void cache_array::set_dirty(line_state& m, sector_mask dirty)
{
    if (m.dirty == 0 && dirty != 0)
        ++m_dirty_count;
    else if (m.dirty != 0 && dirty == 0)
        --m_dirty_count;
    m.dirty = dirty;
}

void cache_array::write(std::uint64_t addr, const void* src, std::size_t size, bool mark_dirty)
{
    const std::size_t s = resident_slot(addr, size, "write");
    std::memcpy(data_of(s) + (addr & m_offset_mask), src, size);
    if (mark_dirty && size > 0)
        set_dirty(state(s), state(s).dirty | sectors_of(addr, size));
}

void cache_array::write_valid(std::uint64_t addr, const void* src, std::size_t size,
                              bool mark_dirty)
{
    const std::size_t s = resident_slot(addr, 0, "write_valid");
    if ((addr & m_offset_mask) + size > m_line_bytes)
        throw std::out_of_range("cache_array::write_valid: access of " + std::to_string(size) +
                                " bytes at " + hex(addr) + " crosses a line");
    const auto* from = static_cast<const std::uint8_t*>(src);
    const std::uint64_t off = addr & m_offset_mask;
    sector_mask written = 0;
    std::size_t k = 0;
    while (k < size) {
        const std::uint64_t o = off + k;
        const auto sector = static_cast<unsigned>(o >> m_sector_shift);
        const std::size_t n =
            std::min<std::size_t>(size - k, (std::uint64_t{sector + 1} << m_sector_shift) - o);
        if (state(s).valid & (sector_mask{1} << sector)) {
            std::memcpy(data_of(s) + o, from + k, n);
            written |= sector_mask{1} << sector;
        }
        k += n;
    }
    if (mark_dirty)
        set_dirty(state(s), state(s).dirty | written);
}

void cache_array::set_valid(std::uint64_t addr, sector_mask sectors)
{
    const std::size_t s = resident_slot(line_addr(addr), 0, "set_valid");
    state(s).valid |= sectors & m_all;
}

void cache_array::fill(std::uint64_t addr, const void* line_data, sector_mask sectors)
{
    const std::size_t s = resident_slot(line_addr(addr), 0, "fill");
    sectors &= m_all;
    const auto* src = static_cast<const std::uint8_t*>(line_data);
    if (sectors == m_all) {
        std::memcpy(data_of(s), src, m_line_bytes);
    } else {
        for (sector_mask m = sectors; m != 0; m &= m - 1) {
            const unsigned off = static_cast<unsigned>(__builtin_ctzll(m)) << m_sector_shift;
            std::memcpy(data_of(s) + off, src + off, m_sector_bytes);
        }
    }
    state(s).valid |= sectors;
    set_dirty(state(s), state(s).dirty & ~sectors);
}

void cache_array::clear_ready(std::size_t s)
{
    if (m_ready == nullptr)
        return;
    // Only times that were set are cleared, so a page never set stays unwritten.
    for (std::uint64_t* pool : {m_ready, m_asked}) {
        if (pool == nullptr)
            continue;
        std::uint64_t* const first = pool + entry_of(s) * m_sectors;
        for (std::uint64_t* t = first; t != first + m_sectors; ++t)
            if (*t != 0)
                *t = 0;
    }
}

void cache_array::make_time_pools(bool asked)
{
    const std::size_t n = std::size_t{m_sets} * m_ways * m_sectors;
    if (m_ready == nullptr) {
        m_ready_pages = zeroed_pages(n * ready_bytes_per_sector);
        m_ready = reinterpret_cast<std::uint64_t*>(m_ready_pages.data());
    }
    if (asked && m_asked == nullptr) {
        m_asked_pages = zeroed_pages(n * asked_bytes_per_sector);
        m_asked = reinterpret_cast<std::uint64_t*>(m_asked_pages.data());
    }
}

void cache_array::set_ready(std::uint64_t addr, sector_mask sectors, std::uint64_t t,
                            std::uint64_t asked)
{
    const std::size_t s = resident_slot(line_addr(addr), 0, "set_ready");
    make_time_pools(asked != 0);
    for (sector_mask m = sectors & m_all; m != 0; m &= m - 1) {
        const std::size_t i = entry_of(s) * m_sectors + static_cast<unsigned>(__builtin_ctzll(m));
        m_ready[i] = t;
        if (m_asked != nullptr)
            m_asked[i] = asked;
    }
}

sector_mask cache_array::asked_after(std::uint64_t addr, sector_mask sectors,
                                     std::uint64_t at) const
{
    if (m_ready == nullptr || m_asked == nullptr)
        return 0;
    const std::size_t s = find(addr);
    if (s == npos)
        return 0;
    sector_mask later = 0;
    for (sector_mask m = sectors & m_all; m != 0; m &= m - 1) {
        const auto k = static_cast<unsigned>(__builtin_ctzll(m));
        const std::size_t i = entry_of(s) * m_sectors + k;
        if (m_asked[i] > at && m_ready[i] > at)
            later |= sector_mask{1} << k;
    }
    return later;
}

std::uint64_t cache_array::busy_until(std::uint64_t addr, std::uint64_t at) const
{
    if (m_ready == nullptr)
        return 0;
    const std::size_t s = find(addr);
    if (s == npos)
        return 0;
    std::uint64_t until = 0;
    for (sector_mask m = valid_sectors(addr); m != 0; m &= m - 1) {
        const std::size_t i = entry_of(s) * m_sectors + static_cast<unsigned>(__builtin_ctzll(m));
        if (m_ready[i] > at && (m_asked == nullptr || m_asked[i] <= at))
            until = std::max(until, m_ready[i]);
    }
    return until;
}

void cache_array::advance_ready(std::uint64_t addr, sector_mask sectors, std::uint64_t t,
                                std::uint64_t asked)
{
    const std::size_t s = resident_slot(line_addr(addr), 0, "advance_ready");
    make_time_pools(true);
    for (sector_mask m = sectors & m_all; m != 0; m &= m - 1) {
        const std::size_t i = entry_of(s) * m_sectors + static_cast<unsigned>(__builtin_ctzll(m));
        m_ready[i] = std::min(m_ready[i], t);
        m_asked[i] = std::min(m_asked[i], asked); // 0 (not recorded): before any request
    }
}

std::uint64_t cache_array::ready(std::uint64_t addr, sector_mask sectors) const
{
    if (m_ready == nullptr)
        return 0;
    const std::size_t s = find(addr);
    if (s == npos)
        return 0;
    std::uint64_t t = 0;
    for (sector_mask m = sectors & m_all; m != 0; m &= m - 1)
        t = std::max(t,
                     m_ready[entry_of(s) * m_sectors + static_cast<unsigned>(__builtin_ctzll(m))]);
    return t;
}

cache_array::victim cache_array::remove(std::size_t s)
{
    way& w = m_way[s];
    victim v;
    if (!w.resident)
        return v;
    forget_lru(s);
    line_state& m = state(s);
    v.valid = true;
    v.dirty = m.dirty != 0;
    v.line_addr = w.tag;
    v.valid_sectors = m.valid;
    v.dirty_sectors = m.dirty;
    std::memcpy(m_victim_data.data(), data_of(s), m_line_bytes);
    v.data = m_victim_data.data();
    --m_valid_count;
    set_dirty(m, 0);
    m = line_state{};
    clear_ready(s);
    w = way{0, 0, w.entry, false, false}; // the way keeps its entry
    return v;
}

std::size_t cache_array::lru_slot(std::uint64_t addr) const
{
    // An invalid way has stamp 0, below every used stamp, so one minimum search finds
    // the first invalid way or else the LRU way; pinned ways are never chosen.
    const std::size_t base = slot(set_of(addr), 0);
    // The choice of the set's last search, if none of its ways has changed since.
    if (m_lru_base == base)
        return m_lru_pick;
    std::size_t pick = npos;
    std::uint64_t oldest = 0;
    for (std::size_t s = base; s < base + m_ways; ++s) {
        if (m_way[s].pinned)
            continue;
        const std::uint64_t stamp = m_way[s].stamp;
        if (stamp == 0) {
            pick = s; // the first invalid way
            break;
        }
        if (pick == npos || stamp < oldest) {
            pick = s;
            oldest = stamp;
        }
    }
    m_lru_base = base;
    m_lru_pick = pick;
    return pick;
}

void cache_array::prefetch_victim(std::uint64_t addr) const
{
    const std::size_t s = lru_slot(addr);
    if (s == npos)
        return;
    // A way without an entry takes the pool's next one.
    const std::size_t e = m_way[s].entry != 0 ? entry_of(s) : m_entries;
    __builtin_prefetch(&m_state[e], 1);
    const std::uint8_t* d = m_data + e * m_line_bytes;
    for (unsigned o = 0; o < m_line_bytes; o += 64)
        __builtin_prefetch(d + o, 1);
    if (m_ready != nullptr)
        __builtin_prefetch(m_ready + e * m_sectors, 1);
}

bool cache_array::can_allocate(std::uint64_t addr) const
{
    return lru_slot(addr) != npos;
}

bool cache_array::victim_dirty(std::uint64_t addr) const
{
    const std::size_t s = lru_slot(addr);
    return s != npos && m_way[s].resident && state(s).dirty != 0;
}

void cache_array::pin(std::uint64_t addr, bool pinned)
{
    const std::size_t s = find(addr);
    if (s == npos)
        throw std::logic_error("cache_array::pin: line of address " + hex(addr) +
                               " is not resident");
    m_way[s].pinned = pinned;
    forget_lru(s);
}

cache_array::victim cache_array::allocate(std::uint64_t addr)
{
    if (find(addr) != npos)
        throw std::logic_error("cache_array::allocate: line " + hex(line_addr(addr)) +
                               " is already resident");
    const std::size_t pick = lru_slot(addr);
    if (pick == npos)
        throw std::logic_error("cache_array::allocate: every way of the set of " +
                               hex(line_addr(addr)) + " is pinned");
    const victim v = remove(pick);
    m_absent_known = false;
    mark_touched(static_cast<unsigned>(pick / m_ways));
    way& w = m_way[pick];
    forget_lru(pick);
    if (w.entry == 0)
        w.entry = static_cast<std::uint32_t>(++m_entries); // the pool's next entry, zeroed
    else
        std::memset(data_of(pick), 0, m_line_bytes);
    w.tag = line_addr(addr);
    w.resident = true;
    w.stamp = ++m_clock;
    ++m_valid_count;
    return v;
}

cache_array::victim cache_array::invalidate(std::uint64_t addr)
{
    const std::size_t s = find(addr);
    return s == npos ? victim{} : remove(s);
}

} // namespace vgpu::cache
