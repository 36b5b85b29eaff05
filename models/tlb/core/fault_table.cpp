// Fault-coalescing table. See models/tlb/README.md.
#include "models/tlb/core/fault_table.h"

namespace vgpu::tlb {

bool fault_table::add(std::uint64_t vpn, std::uint64_t waiter)
{
    ++m_faults;
    ++m_waiting;
    auto [it, first] = m_pages.try_emplace(vpn);
    it->second.push_back(waiter);
    if (first)
        ++m_records;
    return first;
}

std::vector<std::uint64_t> fault_table::complete(std::uint64_t vpn)
{
    auto it = m_pages.find(vpn);
    if (it == m_pages.end())
        return {};
    std::vector<std::uint64_t> waiters = std::move(it->second);
    m_pages.erase(it);
    m_waiting -= waiters.size();
    return waiters;
}

} // namespace vgpu::tlb
