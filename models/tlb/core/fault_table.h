// Fault-coalescing table: the pages with a fault being serviced and the accesses waiting on
// each, so that many warps faulting on one page cost one fault record and one service. Pure
// C++, no SystemC. See models/tlb/README.md ("Page faults").
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vgpu::tlb {

/// Pages (by VPN) with a service pending, each with the accesses (opaque ids chosen by the
/// caller, e.g. SM, warp and request) that wait on it, in arrival order.
class fault_table {
public:
    /// Access `waiter` faulted on page vpn. True when the page had no service pending: the
    /// caller writes a fault record and the host services it; false when it joins one.
    bool add(std::uint64_t vpn, std::uint64_t waiter);
    /// Page vpn was serviced: its waiters in arrival order (to replay); the page leaves the
    /// table. Empty when the page had no service pending.
    std::vector<std::uint64_t> complete(std::uint64_t vpn);
    /// True if page vpn has a service pending.
    bool pending(std::uint64_t vpn) const { return m_pages.count(vpn) != 0; }
    std::size_t pages() const { return m_pages.size(); } ///< pages with a service pending
    std::size_t waiting() const { return m_waiting; }    ///< accesses waiting on them

    std::uint64_t faults() const { return m_faults; }   ///< add() calls
    std::uint64_t records() const { return m_records; } ///< add() calls that returned true
    std::uint64_t coalesced() const { return m_faults - m_records; } ///< that joined a pending one

private:
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> m_pages;
    std::size_t m_waiting = 0;
    std::uint64_t m_faults = 0, m_records = 0;
};

} // namespace vgpu::tlb
