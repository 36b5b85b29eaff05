// The GPU's fault unit: page faults from the TLBs become records in a fault buffer the host
// reads through registers, with an interrupt; the host's answer per page releases the waiting
// accesses. See models/tlb/README.md ("Page faults") and docs/registers.md ("Fault unit").
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/tlb/core/fault_table.h"
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

/// Register offsets of the fault unit's window (docs/registers.md).
namespace fault_reg {
inline constexpr std::uint64_t COUNT = 0x00;         ///< RO records in the fault buffer
inline constexpr std::uint64_t VA_LO = 0x04;         ///< RO head record: faulting VA, bits 0..31
inline constexpr std::uint64_t VA_HI = 0x08;         ///< RO bits 32..63
inline constexpr std::uint64_t SM = 0x0c;            ///< RO head record: SM (global index)
inline constexpr std::uint64_t WARP = 0x10;          ///< RO head record: warp slot
inline constexpr std::uint64_t PC = 0x14;            ///< RO head record: PC
inline constexpr std::uint64_t INFO = 0x18;          ///< RO head record: fault_access | type << 8
inline constexpr std::uint64_t POP = 0x1c;           ///< WO bit 0 = 1: drop the head record
inline constexpr std::uint64_t ACK_VA_LO = 0x20;     ///< RW page to answer, bits 0..31
inline constexpr std::uint64_t ACK_VA_HI = 0x24;     ///< RW bits 32..63
inline constexpr std::uint64_t ACK_REASON = 0x28;    ///< RW fault_reason of a fatal answer
inline constexpr std::uint64_t ACK = 0x2c;           ///< WO 1: page mapped, replay; 2: fatal
inline constexpr std::uint64_t IRQ_ENABLE = 0x30;    ///< RW bit 0: records drive fault_irq
inline constexpr std::uint64_t CAPACITY = 0x34;      ///< RO fault-buffer entries
inline constexpr std::uint64_t OVERFLOWS = 0x38;     ///< RO records that waited for a free entry
inline constexpr std::uint64_t WINDOW_BYTES = 0x100; ///< size to map
} // namespace fault_reg

/// The access that faulted (FAULT INFO bits 0..7).
enum class fault_access : std::uint32_t { load = 0, store = 1, fetch = 2 };

/// Why the host refused a page (ACK_REASON); the text is what the failed access reports.
enum class fault_reason : std::uint32_t {
    not_mapped = 1,  ///< the address is outside every allocation
    read_only = 2,   ///< a store to a read-only allocation
    memory_full = 3, ///< no free frame on any module the policy allows
    not_a_fault = 4, ///< the record was not a page fault (the other-exception path)
};
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
    std::uint32_t type = 0; ///< 0: page not present
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

    /// A TLB found va's page not present at simulated time at_ps (the requester's local time,
    /// >= now). Coalesces with a fault already pending on the page; otherwise a record enters
    /// the buffer at at_ps. Returns what the access waits for before it replays.
    std::shared_ptr<tlm_bus::fault_wait> raise(std::uint64_t va, const tlm_bus::gpu_extension& ext,
                                               fault_access access, std::uint64_t at_ps);

    std::uint64_t faults() const { return m_table.faults(); }     ///< accesses that faulted
    std::uint64_t records() const { return m_table.records(); }   ///< records written
    std::uint64_t answered() const { return m_answered.value(); } ///< pages answered (ACK)
    std::size_t pending_pages() const { return m_table.pages(); } ///< pages not answered yet
    const tlm_bus::reg_bank& regs() const { return m_regs; }      ///< the register file

private:
    struct timed_record {
        std::uint64_t at_ps = 0; ///< when it reaches the buffer
        fault_record rec;
    };
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
    std::unordered_map<std::uint64_t, std::shared_ptr<tlm_bus::fault_wait>> m_waits; ///< by VPN
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
