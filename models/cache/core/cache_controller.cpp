// The SystemC-free part of a cache controller shared by the L1 and the LLC.
// See models/cache/README.md.
#include "models/cache/core/cache_controller.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace vgpu::cache {

namespace {
unsigned checked_mshrs(unsigned mshrs)
{
    if (mshrs == 0)
        throw std::invalid_argument("cache_controller: mshrs must be at least 1");
    return mshrs;
}

bool write_back(const controller_params& p)
{
    return p.policy == write_policy::write_back_allocate;
}

/// Write-back buffer entries (none under write-through).
unsigned wb_entries(const controller_params& p)
{
    if (!write_back(p))
        return 0;
    return p.wb_entries == 0 ? checked_mshrs(p.mshrs) : p.wb_entries;
}

/// MSHR-table entries: one per miss, and under write-back one per buffered write-back.
unsigned mshr_entries(const controller_params& p)
{
    return checked_mshrs(p.mshrs) + wb_entries(p);
}

/// Line buffers: two per miss (a fetch, and a victim's data or a span's scratch).
unsigned line_buffers(const controller_params& p)
{
    return 2 * checked_mshrs(p.mshrs);
}
} // namespace

cache_controller::cache_controller(const controller_params& p)
    : m_params(p), m_array(p.sets, p.ways, p.line_bytes,
                           make_index(line_index(p.index, p.sets, p.line_bytes, p.index_first_bit)),
                           p.sector_bytes),
      m_mshr(mshr_entries(p), 1), m_buffer_store(std::size_t{line_buffers(p)} * p.line_bytes),
      m_wb(wb_entries(p)), m_wb_store(std::size_t{wb_entries(p)} * p.line_bytes),
      m_fast_mshrs(checked_mshrs(p.mshrs)), m_fast_wb(std::max(1u, wb_entries(p)))
{
    m_stale.reserve(p.mshrs);
    m_free_buffers.reserve(line_buffers(p));
    for (std::size_t i = 0; i < line_buffers(p); ++i)
        m_free_buffers.push_back(m_buffer_store.data() + i * p.line_bytes);
    for (std::size_t i = 0; i < m_wb.size(); ++i)
        m_wb[i].data = m_wb_store.data() + i * p.line_bytes;
}

void cache_controller::cover(sector_cover& c, std::uint64_t addr, std::size_t n) const
{
    if (n == 0)
        return;
    const sector_mask touched = m_array.sectors_of(addr, n);
    c.touched |= touched;
    // Sectors whose first and last bytes both lie in the run are covered whole.
    const unsigned sb = m_array.sector_bytes();
    const std::uint64_t off = addr & (m_params.line_bytes - 1);
    const std::uint64_t first_whole = (off + sb - 1) / sb;
    const std::uint64_t end_whole = (off + n) / sb; // exclusive
    for (std::uint64_t i = first_whole; i < end_whole; ++i)
        c.whole |= sector_mask{1} << i;
}

void cache_controller::fetch_span(sector_mask fetch, unsigned& offset, unsigned& bytes) const
{
    if (fetch == 0) {
        offset = bytes = 0;
        return;
    }
    const unsigned sb = m_array.sector_bytes();
    const auto first = static_cast<unsigned>(__builtin_ctzll(fetch));
    const auto last = 63u - static_cast<unsigned>(__builtin_clzll(fetch));
    offset = first * sb;
    bytes = (last - first + 1) * sb;
}

cache_controller::outcome cache_controller::lookup(std::uint64_t addr, sector_mask need, request& r)
{
    const std::uint64_t line = line_addr(addr);
    if (m_mshr.lookup(line)) {
        if (!r.merged)
            ++m_counts.merges;
        r.merged = true;
        return outcome::merge;
    }
    const bool resident = m_array.lookup(addr).has_value();
    const sector_mask missing = resident ? need & ~m_array.valid_sectors(addr) : need;
    if (resident && missing == 0) {
        // A request that waited for the fill was counted as a merge.
        if (!r.merged)
            ++m_counts.hits;
        return outcome::hit;
    }
    if (m_misses_in_flight < m_params.mshrs) {
        ++m_counts.misses;
        if (resident)
            ++m_counts.sector_misses;
        m_mshr.add_target(m_mshr.allocate(line), target_miss);
        ++m_misses_in_flight;
        if (resident)
            m_array.pin(line, true);
        r.fetch = missing;
        return outcome::miss;
    }
    if (!r.stalled)
        ++m_counts.full_stalls;
    r.stalled = true;
    return outcome::stall;
}

bool cache_controller::busy(std::uint64_t line)
{
    return m_mshr.lookup(line_addr(line)) != nullptr;
}

void cache_controller::finish_miss(std::uint64_t line)
{
    line = line_addr(line);
    m_mshr.release(line);
    --m_misses_in_flight;
    if (m_array.probe(line))
        m_array.pin(line, false);
}

cache_controller::timed_outcome cache_controller::lookup_at(std::uint64_t addr, sector_mask need,
                                                            std::uint64_t tag_done)
{
    timed_outcome t;
    t.ready = tag_done;
    const bool resident = m_array.lookup(addr).has_value();
    const sector_mask valid = resident ? m_array.valid_sectors(addr) : 0;
    // Sectors whose fill was asked for after this request are missing at its time.
    t.early = resident ? m_array.asked_after(addr, need & valid, tag_done) : 0;
    const std::uint64_t arrives = resident ? m_array.ready(addr, need & valid & ~t.early) : 0;
    // The line's MSHR entry is held until its fill in flight has arrived.
    const std::uint64_t busy = resident ? m_array.busy_until(addr, tag_done) : 0;
    if (busy > tag_done)
        ++m_counts.merges;
    t.ready = std::max({tag_done, arrives, busy});
    t.fetch = (need & ~valid) | t.early;
    if (t.fetch != 0 || !resident) {
        ++m_counts.misses;
        if (resident)
            ++m_counts.sector_misses;
        t.busy_until = busy > tag_done ? busy : 0;
        t.ready = std::max(tag_done, arrives);
        t.result = outcome::miss;
        return t;
    }
    t.result = t.ready > tag_done ? outcome::merge : outcome::hit;
    if (t.result == outcome::hit)
        ++m_counts.hits;
    else if (busy <= tag_done)
        ++m_counts.merges;
    return t;
}

std::uint64_t cache_controller::fast_mshr_wait(std::uint64_t addr, sector_mask need,
                                               std::uint64_t tag_done, std::uint64_t now,
                                               bool queued, bool replay)
{
    if (m_array.probe(addr) && (need & ~m_array.valid_sectors(addr)) == 0)
        return 0; // a hit, or a merge with a fill in flight
    const std::uint64_t t = m_fast_mshrs.earliest(tag_done, m_fast_mshrs.hold_estimate(), now);
    if (t <= tag_done && !queued)
        return 0;
    if (!replay)
        ++m_counts.full_stalls;
    return std::max(t, tag_done);
}

cache_controller::fast_miss cache_controller::begin_fast_miss(std::uint64_t tag_done, bool fetch,
                                                              sector_mask victim_dirty,
                                                              std::uint64_t now)
{
    fast_miss m;
    m.has_mshr = fetch;
    m.has_wb = victim_dirty != 0 && write_back(m_params);
    std::uint64_t t = tag_done;
    // The issue must find both free: alternate until neither moves it any more. The first
    // round tells which of them the miss waited for.
    for (bool first = true;; first = false) {
        std::uint64_t u = t;
        if (m.has_mshr) {
            u = m_fast_mshrs.earliest(u, m_fast_mshrs.hold_estimate(), now);
            if (first && u > t)
                ++m_counts.full_stalls;
        }
        if (m.has_wb) {
            const std::uint64_t w = m_fast_wb.earliest(u, m_fast_wb.hold_estimate(), now);
            if (first && w > u)
                ++m_counts.wb_full_stalls;
            u = w;
        }
        if (u == t)
            break;
        t = u;
    }
    if (m.has_mshr)
        m.mshr = m_fast_mshrs.reserve(t, now);
    if (m.has_wb) {
        m.wb = m_fast_wb.reserve(t, now);
        ++m_counts.writebacks;
        m_counts.wb_sectors += static_cast<unsigned>(__builtin_popcountll(victim_dirty));
    }
    m.issue = t;
    return m;
}

void cache_controller::end_fast_miss(fast_miss& m, std::uint64_t fill_ready, std::uint64_t wb_done)
{
    if (m.has_mshr)
        m_fast_mshrs.finish(m.mshr, fill_ready);
    if (m.has_wb)
        m_fast_wb.finish(m.wb, wb_done);
}

void cache_controller::note_writeback(std::uint64_t line, std::uint64_t done, std::uint64_t now)
{
    // Forget write-backs that have landed once the map grows (bounded by what is in flight).
    if (m_wb_done.size() > 4 * m_wb.size() + 64 && now > m_wb_done_pruned) {
        for (auto it = m_wb_done.begin(); it != m_wb_done.end();)
            it = it->second <= now ? m_wb_done.erase(it) : std::next(it);
        m_wb_done_pruned = now;
    }
    std::uint64_t& d = m_wb_done[line_addr(line)];
    d = std::max(d, done);
}

std::uint64_t cache_controller::writeback_done(std::uint64_t line) const
{
    const auto it = m_wb_done.find(line_addr(line));
    return it == m_wb_done.end() ? 0 : it->second;
}

cache_array::victim cache_controller::allocate(std::uint64_t line)
{
    const cache_array::victim v = m_array.allocate(line);
    if (busy(line))
        m_array.pin(line, true);
    return v;
}

void cache_controller::fill(std::uint64_t line, const void* line_data, sector_mask sectors)
{
    m_array.fill(line, line_data, sectors);
    ++m_counts.fills;
    m_counts.filled_sectors += static_cast<unsigned>(__builtin_popcountll(sectors));
}

cache_array::victim cache_controller::complete_fill(std::uint64_t line, const void* line_data,
                                                    sector_mask sectors)
{
    line = line_addr(line);
    auto stale = std::find(m_stale.begin(), m_stale.end(), line);
    if (stale != m_stale.end()) {
        m_stale.erase(stale);
        return {};
    }
    cache_array::victim v;
    if (!m_array.probe(line)) {
        if (!m_array.can_allocate(line))
            return v;
        v = allocate(line);
    }
    fill(line, line_data, sectors);
    return v;
}

unsigned cache_controller::buffer_writeback(const cache_array::victim& v)
{
    if (wb_full())
        throw std::logic_error("cache_controller::buffer_writeback: the buffer is full");
    auto e = std::find_if(m_wb.begin(), m_wb.end(), [](const wb_entry& w) { return !w.busy; });
    m_mshr.add_target(m_mshr.allocate(v.line_addr), target_writeback);
    e->busy = true;
    e->line = v.line_addr;
    e->dirty = v.dirty_sectors;
    std::memcpy(e->data, v.data, m_params.line_bytes);
    ++m_wb_in_use;
    ++m_counts.writebacks;
    m_counts.wb_sectors += static_cast<unsigned>(__builtin_popcountll(v.dirty_sectors));
    return static_cast<unsigned>(e - m_wb.begin());
}

void cache_controller::count_wb_stall(request& r)
{
    if (!r.wb_stalled)
        ++m_counts.wb_full_stalls;
    r.wb_stalled = true;
}

int cache_controller::find_writeback(std::uint64_t line) const
{
    if (m_wb_in_use == 0)
        return -1; // the common case (always in fast mode): no scan of every entry
    line = line_addr(line);
    for (std::size_t i = 0; i < m_wb.size(); ++i)
        if (m_wb[i].busy && m_wb[i].line == line)
            return static_cast<int>(i);
    return -1;
}

void cache_controller::end_writeback(unsigned i)
{
    wb_entry& e = m_wb.at(i);
    if (!e.busy)
        throw std::logic_error("cache_controller::end_writeback: entry is free");
    m_mshr.release(e.line);
    e.busy = false;
    --m_wb_in_use;
}

void cache_controller::debug_write_buffered(std::uint64_t addr, const void* src, std::size_t size)
{
    const int i = find_writeback(addr);
    if (i < 0)
        return;
    wb_entry& e = m_wb[static_cast<std::size_t>(i)];
    const unsigned sb = m_array.sector_bytes();
    const auto* s = static_cast<const std::uint8_t*>(src);
    const std::uint64_t off = addr & (m_params.line_bytes - 1);
    for (std::size_t k = 0; k < size; ++k) {
        const std::uint64_t o = off + k;
        if (e.dirty & (sector_mask{1} << (o / sb)))
            e.data[o] = s[k];
    }
}

bool cache_controller::wrote_below(std::uint64_t addr)
{
    const std::uint64_t line = line_addr(addr);
    if (m_mshr.lookup(line) && std::find(m_stale.begin(), m_stale.end(), line) == m_stale.end())
        m_stale.push_back(line);
    return m_array.lookup(addr, false).has_value();
}

std::uint8_t* cache_controller::take_buffer()
{
    if (m_free_buffers.empty())
        return nullptr;
    std::uint8_t* b = m_free_buffers.back();
    m_free_buffers.pop_back();
    return b;
}

} // namespace vgpu::cache
