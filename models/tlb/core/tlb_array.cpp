// Set-associative TLB array. See models/tlb/README.md.
#include "models/tlb/core/tlb_array.h"

#include <stdexcept>

namespace vgpu::tlb {

tlb_array::tlb_array(unsigned sets, unsigned ways, index_fn index)
    : m_sets(sets), m_ways(ways), m_index(std::move(index))
{
    if (sets == 0 || ways == 0)
        throw std::invalid_argument("a TLB needs at least one set and one way");
    m_entries.resize(static_cast<std::size_t>(sets) * ways);
}

unsigned tlb_array::set_of(std::uint64_t vpn) const
{
    return m_index ? m_index(vpn) % m_sets : static_cast<unsigned>(vpn % m_sets);
}

const tlb_array::entry* tlb_array::find(std::uint64_t vpn) const
{
    const entry* set = &m_entries[static_cast<std::size_t>(set_of(vpn)) * m_ways];
    for (unsigned w = 0; w < m_ways; ++w)
        if (set[w].valid && set[w].vpn == vpn)
            return &set[w];
    return nullptr;
}

tlb_array::entry* tlb_array::find(std::uint64_t vpn)
{
    return const_cast<entry*>(static_cast<const tlb_array*>(this)->find(vpn));
}

std::optional<translation> tlb_array::lookup(std::uint64_t vpn)
{
    entry* e = find(vpn);
    if (!e) {
        ++m_misses;
        return std::nullopt;
    }
    ++m_hits;
    e->used = ++m_clock;
    return e->t;
}

std::optional<translation> tlb_array::probe(std::uint64_t vpn) const
{
    const entry* e = find(vpn);
    return e ? std::optional<translation>(e->t) : std::nullopt;
}

std::optional<std::uint64_t> tlb_array::insert(std::uint64_t vpn, const translation& t)
{
    if (entry* e = find(vpn)) {
        e->t = t;
        e->used = ++m_clock;
        return std::nullopt;
    }
    entry* set = &m_entries[static_cast<std::size_t>(set_of(vpn)) * m_ways];
    entry* slot = &set[0];
    for (unsigned w = 0; w < m_ways; ++w) {
        if (!set[w].valid) {
            slot = &set[w];
            break;
        }
        if (set[w].used < slot->used)
            slot = &set[w];
    }
    std::optional<std::uint64_t> victim;
    if (slot->valid) {
        victim = slot->vpn;
        ++m_evictions;
    }
    *slot = entry{true, vpn, ++m_clock, t};
    return victim;
}

bool tlb_array::invalidate(std::uint64_t vpn)
{
    entry* e = find(vpn);
    if (!e)
        return false;
    e->valid = false;
    return true;
}

unsigned tlb_array::invalidate_range(std::uint64_t first_vpn, std::uint64_t last_vpn)
{
    unsigned n = 0;
    for (entry& e : m_entries)
        if (e.valid && e.vpn >= first_vpn && e.vpn <= last_vpn) {
            e.valid = false;
            ++n;
        }
    return n;
}

unsigned tlb_array::invalidate_all()
{
    return invalidate_range(0, ~std::uint64_t{0});
}

} // namespace vgpu::tlb
