// The GPU's fault unit: page faults from the TLBs become records in a fault buffer the host
// reads through registers, with an interrupt; the host's answer per page releases the waiting
// accesses. See models/tlb/README.md ("Page faults") and docs/registers.md ("Fault unit").
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/tlb/core/fault_table.h"
#include "models/tlb/fault_regs.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/reg_bank.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::tlb {

/// What a failed access reports for r, e.g. "read-only".
constexpr const char* reason_text(fault_reason r)
{
    switch (r) {
    case fault_reason::not_mapped:
        return "not mapped";
    case fault_reason::read_only:
        return "read-only";
    case fault_reason::memory_full:
        return "memory full";
    case fault_reason::not_a_fault:
        return "not a page fault";
    }
    return "host refused the page";
}

/// One record of the fault buffer.
struct fault_record {
    std::uint64_t va = 0;   ///< faulting virtual address
    std::uint32_t sm = 0;   ///< SM (global index)
    std::uint32_t warp = 0; ///< warp slot
    std::uint32_t pc = 0;   ///< PC of the instruction
    fault_access access = fault_access::load;
    fault_type type = fault_type::not_present; ///< FAULT_INFO bits 8..15
};

/// The GPU's fault unit: one per GPU, shared by every TLB.
class fault_unit : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<fault_unit> mmio; ///< register window
    sc_core::sc_out<bool> irq; ///< level: records in the buffer and IRQ_ENABLE bit 0

    /// `capacity`: fault-buffer entries (tlb.fault_buffer); `page_bytes`: memory.page_bytes;
    /// `timeout_ps`: host.fault_timeout (a waiting access is reported after it).
    fault_unit(const sc_core::sc_module_name& name, unsigned capacity, std::uint64_t page_bytes,
               std::uint64_t timeout_ps);

    /// A TLB found va's page not present (or not writable for a store: `protection`; or the
    /// access is otherwise wrong: `other`) at simulated time at_ps (the requester's local time,
    /// >= now). Coalesces with a fault of the same kind already pending on the page (other
    /// exceptions never join a page's fault); otherwise a record enters the buffer at at_ps.
    /// Returns what the access waits for before it replays (or fails).
    std::shared_ptr<tlm_bus::fault_wait> raise(std::uint64_t va, const tlm_bus::gpu_extension& ext,
                                               fault_access access, std::uint64_t at_ps,
                                               fault_type type = fault_type::not_present);

    std::uint64_t faults() const { return m_table.faults(); }     ///< accesses that faulted
    std::uint64_t records() const { return m_table.records(); }   ///< records written
    std::uint64_t answered() const { return m_answered.value(); } ///< pages answered (ACK)
    std::size_t pending_pages() const { return m_table.pages(); } ///< pages not answered yet
    const tlm_bus::reg_bank& regs() const { return m_regs; }      ///< the register file

private:
    struct timed_record {
        std::uint64_t at_ps = 0; ///< when it reaches the buffer
        std::uint64_t key = 0;   ///< its key in the table (see key_of)
        fault_record rec;
    };
    /// The coalescing key of a fault on page vpn: the VPN, or for an other exception the VPN
    /// with bit 63 set (it never joins, nor is joined by, a page fault).
    static std::uint64_t key_of(std::uint64_t vpn, fault_type type)
    {
        return type == fault_type::other ? vpn | std::uint64_t{1} << 63 : vpn;
    }
    void define_registers();
    void deliver();      ///< SC_METHOD: records whose time has come enter the buffer
    void update_irq();   ///< SC_METHOD: drives irq from the buffer and IRQ_ENABLE
    void refresh_head(); ///< COUNT and the head record's registers from the buffer
    bool answer(std::uint64_t va, bool fatal, const sc_core::sc_time& delay);
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);

    const unsigned m_capacity;
    const std::uint64_t m_page_bytes, m_timeout_ps;
    fault_table m_table; ///< pages with a fault pending (coalescing)
    std::unordered_map<std::uint64_t, std::shared_ptr<tlm_bus::fault_wait>> m_waits; ///< by key
    std::vector<timed_record> m_arriving; ///< raised, not yet at their time (sorted by time)
    std::deque<fault_record> m_overflow;  ///< at their time, waiting for a free entry
    std::deque<fault_record> m_buffer;    ///< the fault buffer (head = front)
    sc_core::sc_event m_arrive, m_changed;
    tlm_bus::reg_bank m_regs;
    logger m_log;
    stats::group m_stats;
    stats::counter m_answered, m_fatal, m_stray_acks, m_overflows;
    stats::formula m_faults, m_records, m_coalesced;
};

} // namespace vgpu::tlb
