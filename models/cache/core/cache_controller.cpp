// The SystemC-free part of a cache controller shared by the L1 and the LLC.
// See models/cache/README.md.
#include "models/cache/core/cache_controller.h"

#include <algorithm>
#include <stdexcept>

namespace vgpu::cache {

namespace {
unsigned checked_mshrs(unsigned mshrs)
{
    if (mshrs == 0)
        throw std::invalid_argument("cache_controller: mshrs must be at least 1");
    return mshrs;
}

/// MSHR entries: one per miss, and under write-back one more per miss for its victim's
/// write-back (a miss writes back at most one victim at a time).
unsigned mshr_entries(const controller_params& p)
{
    const unsigned m = checked_mshrs(p.mshrs);
    return p.policy == write_policy::write_back_allocate ? 2 * m : m;
}
} // namespace

cache_controller::cache_controller(const controller_params& p)
    : m_params(p),
      m_array(p.sets, p.ways, p.line_bytes,
              make_index(line_index(p.index, p.sets, p.line_bytes, p.index_first_bit))),
      m_mshr(mshr_entries(p), 1), m_slots(p.mshrs),
      m_buffer_store(std::size_t{mshr_entries(p)} * p.line_bytes)
{
    m_stale.reserve(p.mshrs);
    m_free_buffers.reserve(mshr_entries(p));
    for (std::size_t i = 0; i < mshr_entries(p); ++i)
        m_free_buffers.push_back(&m_buffer_store[i * p.line_bytes]);
}

cache_controller::outcome cache_controller::lookup(std::uint64_t addr, request& r)
{
    const std::uint64_t line = line_addr(addr);
    if (m_mshr.lookup(line)) {
        if (!r.merged)
            ++m_counts.merges;
        r.merged = true;
        return outcome::merge;
    }
    if (m_array.lookup(addr)) {
        // A request that waited for the fill was counted as a merge.
        if (!r.merged)
            ++m_counts.hits;
        return outcome::hit;
    }
    if (m_misses_in_flight < m_params.mshrs) {
        ++m_counts.misses;
        begin_miss(line);
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

void cache_controller::begin_miss(std::uint64_t line)
{
    m_mshr.add_target(m_mshr.allocate(line_addr(line)), target_miss);
    ++m_misses_in_flight;
}

void cache_controller::finish_miss(std::uint64_t line)
{
    m_mshr.release(line_addr(line));
    --m_misses_in_flight;
}

cache_controller::timed_outcome cache_controller::lookup_at(std::uint64_t addr,
                                                            std::uint64_t tag_done)
{
    timed_outcome t;
    t.ready = tag_done;
    if (!m_array.lookup(addr)) {
        ++m_counts.misses;
        t.result = outcome::miss;
        return t;
    }
    const std::uint64_t line = line_addr(addr);
    const bool latest = m_params.fast_merge == merge_wait::latest_arrival;
    bool merged = false;
    for (const auto& f : m_slots) {
        if (f.line == line && f.ready > tag_done && (!latest || f.ready > t.ready)) {
            t.ready = f.ready;
            merged = true;
        }
    }
    t.result = merged ? outcome::merge : outcome::hit;
    ++(merged ? m_counts.merges : m_counts.hits);
    return t;
}

unsigned cache_controller::reserve_fill(std::uint64_t tag_done, std::uint64_t& issue)
{
    std::size_t pick = 0;
    for (std::size_t i = 1; i < m_slots.size(); ++i) {
        if (m_slots[i].ready < m_slots[pick].ready)
            pick = i;
    }
    issue = tag_done;
    if (m_slots[pick].ready > tag_done) {
        ++m_counts.full_stalls;
        issue = m_slots[pick].ready;
    }
    return static_cast<unsigned>(pick);
}

void cache_controller::fill_arrives(unsigned slot, std::uint64_t line, std::uint64_t ready)
{
    m_slots.at(slot) = fill_slot{line_addr(line), ready};
}

bool cache_controller::needs_fetch(bool write, unsigned len, bool byte_enables) const
{
    const bool replaces_line = write && len == m_params.line_bytes && !byte_enables;
    return !(m_params.policy == write_policy::write_back_allocate && replaces_line);
}

cache_array::victim cache_controller::allocate(std::uint64_t line)
{
    return m_array.allocate(line);
}

void cache_controller::fill(std::uint64_t line, const void* line_data)
{
    m_array.fill(line, line_data);
    ++m_counts.fills;
}

cache_array::victim cache_controller::complete_fill(std::uint64_t line, const void* line_data)
{
    line = line_addr(line);
    auto stale = std::find(m_stale.begin(), m_stale.end(), line);
    if (stale != m_stale.end()) {
        m_stale.erase(stale);
        return {};
    }
    const cache_array::victim v = m_array.allocate(line);
    fill(line, line_data);
    return v;
}

void cache_controller::begin_writeback(std::uint64_t line)
{
    m_mshr.add_target(m_mshr.allocate(line_addr(line)), target_writeback);
    ++m_counts.writebacks;
}

void cache_controller::end_writeback(std::uint64_t line)
{
    m_mshr.release(line_addr(line));
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
