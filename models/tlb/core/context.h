// The translation context a TLB's entries belong to: a page table and the newest epoch (kernel
// launch) seen. Pure C++, no SystemC. See models/tlb/README.md ("Flushes").
#pragma once

#include <algorithm>
#include <cstdint>

namespace vgpu::tlb {

/// Tells when a request's context makes a TLB's entries stale: a newer epoch (the driver may
/// have remapped between kernels) or another page table.
class context {
public:
    /// True the first time and whenever (epoch, ptbr) names a newer epoch or another table
    /// than seen so far; the context then becomes (the newest epoch, ptbr).
    bool changes(std::uint32_t epoch, std::uint64_t ptbr)
    {
        if (m_valid && epoch <= m_epoch && ptbr == m_ptbr)
            return false;
        m_valid = true;
        m_epoch = std::max(m_epoch, epoch);
        m_ptbr = ptbr;
        return true;
    }

private:
    bool m_valid = false;
    std::uint32_t m_epoch = 0;
    std::uint64_t m_ptbr = 0;
};

} // namespace vgpu::tlb
