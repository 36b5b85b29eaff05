// Instruction cache of one SM: line tags with LRU replacement, fills in flight shared by the
// warps that need their line, tagged next-line prefetch. Pure C++; see models/sm/README.md.
#include "models/sm/core/icache.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vgpu::sm {

icache::icache(std::uint64_t bytes, unsigned line_bytes, unsigned ways)
    : m_line_bytes(line_bytes), m_sets(1), m_ways(ways)
{
    if (line_bytes == 0 || (line_bytes & (line_bytes - 1)) != 0)
        throw std::invalid_argument("icache: line_bytes must be a power of two, got " +
                                    std::to_string(line_bytes));
    if (ways == 0)
        throw std::invalid_argument("icache: ways must be >= 1");
    const std::uint64_t lines = std::max<std::uint64_t>(1, bytes / line_bytes);
    if (ways > lines)
        throw std::invalid_argument("icache: " + std::to_string(ways) + " ways but room for " +
                                    std::to_string(lines) + " lines");
    m_sets = static_cast<unsigned>(lines / ways);
    m_ways_of_sets.resize(std::uint64_t{m_sets} * m_ways);
}

icache::way* icache::find(std::uint64_t line)
{
    way* set = &m_ways_of_sets[std::uint64_t{set_of(line)} * m_ways];
    for (unsigned i = 0; i < m_ways; ++i)
        if (set[i].valid && set[i].line == line)
            return &set[i];
    return nullptr;
}

const icache::way* icache::find(std::uint64_t line) const
{
    return const_cast<icache*>(this)->find(line);
}

std::vector<icache::fill>::iterator icache::find_fill(std::uint64_t line)
{
    return std::find_if(m_fills.begin(), m_fills.end(),
                        [line](const fill& f) { return f.line == line; });
}

void icache::install(std::uint64_t line, bool prefetched)
{
    way* set = &m_ways_of_sets[std::uint64_t{set_of(line)} * m_ways];
    way* victim = &set[0];
    for (unsigned i = 0; i < m_ways; ++i) {
        if (!set[i].valid) {
            victim = &set[i];
            break;
        }
        if (set[i].used < victim->used)
            victim = &set[i];
    }
    victim->valid = true;
    victim->line = line;
    victim->used = ++m_stamp;
    victim->prefetched = prefetched;
}

void icache::retire(std::uint64_t cycle)
{
    for (;;) {
        // The earliest arrival first (request order among equals), so that LRU order follows
        // arrival order.
        auto first = m_fills.end();
        for (auto it = m_fills.begin(); it != m_fills.end(); ++it)
            if (it->ready <= cycle && (first == m_fills.end() || it->ready < first->ready))
                first = it;
        if (first == m_fills.end())
            return;
        const fill f = *first;
        m_fills.erase(first);
        if (!find(f.line))
            install(f.line, f.prefetched);
    }
}

icache::result icache::access(std::uint64_t addr, std::uint64_t cycle)
{
    const std::uint64_t line = line_of(addr);
    retire(cycle);
    result r;
    if (way* w = find(line)) {
        w->used = ++m_stamp;
        r.kind = outcome::hit;
        r.prefetch_next = w->prefetched;
        w->prefetched = false;
        return r;
    }
    if (auto f = find_fill(line); f != m_fills.end()) {
        r.kind = outcome::in_flight;
        r.ready = f->ready;
        r.prefetch_next = f->prefetched;
        f->prefetched = false;
        return r;
    }
    m_fills.push_back({line, unknown, false});
    r.kind = outcome::miss;
    r.ready = unknown;
    r.prefetch_next = true;
    return r;
}

bool icache::quiet(std::uint64_t addr, std::uint64_t cycle) const
{
    for (const fill& f : m_fills)
        if (f.ready <= cycle)
            return false; // access() would install it first
    const std::uint64_t line = line_of(addr);
    if (const way* w = find(line))
        return !w->prefetched;
    for (const fill& f : m_fills)
        if (f.line == line)
            return !f.prefetched;
    return false; // a miss
}

bool icache::prefetch(std::uint64_t addr, std::uint64_t cycle)
{
    const std::uint64_t line = line_of(addr);
    retire(cycle);
    if (find(line) || find_fill(line) != m_fills.end())
        return false;
    m_fills.push_back({line, unknown, true});
    return true;
}

void icache::filled(std::uint64_t addr, std::uint64_t ready)
{
    const auto f = find_fill(line_of(addr));
    if (f != m_fills.end())
        f->ready = ready;
}

void icache::fill_failed(std::uint64_t addr)
{
    const auto f = find_fill(line_of(addr));
    if (f != m_fills.end())
        m_fills.erase(f);
}

void icache::invalidate()
{
    for (way& w : m_ways_of_sets)
        w = way{};
}

bool icache::present(std::uint64_t addr) const
{
    return find(line_of(addr)) != nullptr;
}

bool icache::in_flight(std::uint64_t addr, std::uint64_t& ready) const
{
    const std::uint64_t line = line_of(addr);
    for (const fill& f : m_fills)
        if (f.line == line) {
            ready = f.ready;
            return true;
        }
    return false;
}

} // namespace vgpu::sm
