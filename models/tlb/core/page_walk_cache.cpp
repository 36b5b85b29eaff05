// Page-walk cache. See models/tlb/README.md.
#include "models/tlb/core/page_walk_cache.h"

namespace vgpu::tlb {

page_walk_cache::page_walk_cache(unsigned entries) : m_entries(entries) {}

page_walk_cache::entry* page_walk_cache::find(unsigned level, std::uint64_t prefix)
{
    for (entry& e : m_entries)
        if (e.valid && e.level == level && e.prefix == prefix)
            return &e;
    return nullptr;
}

std::optional<std::uint64_t> page_walk_cache::lookup(unsigned level, std::uint64_t prefix)
{
    entry* e = find(level, prefix);
    if (!e) {
        ++m_misses;
        return std::nullopt;
    }
    ++m_hits;
    e->used = ++m_clock;
    return e->table;
}

void page_walk_cache::insert(unsigned level, std::uint64_t prefix, std::uint64_t table)
{
    if (m_entries.empty())
        return;
    entry* slot = find(level, prefix);
    if (!slot) {
        slot = &m_entries[0];
        for (entry& e : m_entries) {
            if (!e.valid) {
                slot = &e;
                break;
            }
            if (e.used < slot->used)
                slot = &e;
        }
    }
    *slot = entry{true, level, prefix, table, ++m_clock};
}

unsigned page_walk_cache::invalidate_all()
{
    unsigned n = 0;
    for (entry& e : m_entries) {
        n += e.valid ? 1 : 0;
        e.valid = false;
    }
    return n;
}

} // namespace vgpu::tlb
