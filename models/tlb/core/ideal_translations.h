// The translations of the ideal TLB model (tlb.model: ideal), shared by the SMs' TLBs. Pure
// C++, no SystemC. See models/tlb/README.md ("Ideal model").
#pragma once

#include "models/tlb/core/context.h"

#include <cstdint>
#include <unordered_map>

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
            m_ptes.clear();
        const auto it = m_ptes.find(vpn);
        return it == m_ptes.end() ? 0 : it->second;
    }
    /// Keeps the present PTE of page vpn (found by a walk after find() returned 0).
    void insert(std::uint64_t vpn, std::uint64_t pte) { m_ptes.emplace(vpn, pte); }
    /// Shootdown: drops pages first..last (every page when `all`).
    void invalidate(std::uint64_t first, std::uint64_t last, bool all)
    {
        if (all) {
            m_ptes.clear();
            return;
        }
        for (std::uint64_t v = first; v <= last && !m_ptes.empty(); ++v)
            m_ptes.erase(v);
    }
    std::size_t size() const { return m_ptes.size(); } ///< pages kept

private:
    context m_context;
    std::unordered_map<std::uint64_t, std::uint64_t> m_ptes;
};

} // namespace vgpu::tlb
