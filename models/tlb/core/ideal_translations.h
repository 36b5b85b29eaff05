// The translations of the ideal TLB model (tlb.model: ideal), shared by the SMs' TLBs. Pure
// C++, no SystemC. See models/tlb/README.md ("Ideal model").
#pragma once

#include "models/tlb/core/context.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vgpu::tlb {

/// Present PTEs by virtual page number, for the newest context seen. The ideal model costs no
/// simulated time, so what it keeps only saves host time: a page's walk (debug reads through
/// the memory system) is done once for every TLB that shares this, not once per SM. Within a
/// context the page table changes only through shootdowns, which drop the pages they name.
class ideal_translations {
public:
    /// The PTE of page `vpn` for a request of context (epoch, ptbr), or 0 if not known; a newer
    /// epoch or another page table drops every entry first (as an SM's TLB flushes).
    std::uint64_t find(std::uint32_t epoch, std::uint64_t ptbr, std::uint64_t vpn)
    {
        if (m_context.changes(epoch, ptbr))
            clear();
        if (m_size == 0)
            return 0;
        for (std::size_t i = home(vpn);; i = (i + 1) & m_mask) {
            if (m_slots[i].pte == 0)
                return 0;
            if (m_slots[i].vpn == vpn)
                return m_slots[i].pte;
        }
    }
    /// Keeps the present PTE (non-zero) of page vpn (found by a walk after find() returned 0).
    void insert(std::uint64_t vpn, std::uint64_t pte)
    {
        if (pte == 0)
            return;
        if (2 * (m_size + 1) > m_slots.size())
            grow();
        std::size_t i = home(vpn);
        while (m_slots[i].pte != 0 && m_slots[i].vpn != vpn)
            i = (i + 1) & m_mask;
        if (m_slots[i].pte != 0)
            return; // kept already (the first one stays, as with a map's emplace)
        m_slots[i] = {vpn, pte};
        ++m_size;
    }
    /// Shootdown: drops pages first..last (every page when `all`).
    void invalidate(std::uint64_t first, std::uint64_t last, bool all)
    {
        if (all) {
            clear();
            return;
        }
        for (std::uint64_t v = first; v <= last && m_size != 0; ++v) {
            erase(v);
            if (v == last)
                break; // last may be the largest page number
        }
    }
    std::size_t size() const { return m_size; } ///< pages kept

private:
    // An open-addressing table (linear probing, at most half full): a lookup is one multiply
    // and, mostly, one cache line, where a node-based map took a division and two or three
    // lines (every line request of the ideal model looks its page up here). A slot is empty
    // when its PTE is 0; present PTEs are never 0.
    struct slot {
        std::uint64_t vpn = 0;
        std::uint64_t pte = 0;
    };
    std::size_t home(std::uint64_t vpn) const
    {
        return static_cast<std::size_t>((vpn * 0x9e3779b97f4a7c15ull) >> m_shift) & m_mask;
    }
    void clear()
    {
        if (m_size == 0)
            return;
        std::fill(m_slots.begin(), m_slots.end(), slot{});
        m_size = 0;
    }
    void grow()
    {
        std::vector<slot> old(m_slots.size() < 16 ? 32 : 2 * m_slots.size());
        old.swap(m_slots);
        m_mask = m_slots.size() - 1;
        m_shift = 64 - static_cast<unsigned>(__builtin_ctzll(m_slots.size()));
        m_size = 0;
        for (const slot& s : old)
            if (s.pte != 0)
                insert(s.vpn, s.pte);
    }
    /// Removes vpn, moving back the entries after it that probed past its slot.
    void erase(std::uint64_t vpn)
    {
        std::size_t i = home(vpn);
        while (m_slots[i].pte != 0 && m_slots[i].vpn != vpn)
            i = (i + 1) & m_mask;
        if (m_slots[i].pte == 0)
            return;
        --m_size;
        for (std::size_t j = (i + 1) & m_mask;; j = (j + 1) & m_mask) {
            if (m_slots[j].pte == 0)
                break;
            // The entry at j may move to the hole at i if its home is not in (i, j].
            const std::size_t h = home(m_slots[j].vpn);
            if (((j - h) & m_mask) >= ((j - i) & m_mask)) {
                m_slots[i] = m_slots[j];
                i = j;
            }
        }
        m_slots[i] = slot{};
    }

    context m_context;
    std::vector<slot> m_slots;
    std::size_t m_mask = 0;
    unsigned m_shift = 64;
    std::size_t m_size = 0;
};

} // namespace vgpu::tlb
