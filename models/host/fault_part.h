// The page-fault driver part (seed 003): the shadow thread that services the fault unit's
// records (the host's memory manager maps on_demand pages), and evictions. See
// models/host/README.md ("Page faults").
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>
#include <vector>

namespace vgpu::host {

/// Time an eviction waits after its TLB shootdown before it copies the pages out, for accesses
/// translated before the shootdown to land (models/host/README.md, "Page faults").
constexpr double evict_drain_ns = 2000;

/// What the fault part knows of the platform.
struct fault_facts {
    std::uint64_t base = 0; ///< the fault unit's register window on the MMIO bus (0: none)
};

/// Native host on a platform with a fault unit: the shadow thread (an SC_THREAD of the driver,
/// asleep in a blocking read of the fault buffer) services each round of records in the
/// patent's order; evictions run `after_ns` into their phase. Its statistics exist on every
/// host; the firmware host reports its rounds through the calls below.
class fault_part : public driver_part {
public:
    /// `irq`: the driver's fault_irq port; `shadow`: spawn the shadow thread (now, at
    /// elaboration: the native host with a fault unit).
    fault_part(part_host& host, const fault_facts& facts, sc_core::sc_in<bool>& irq, bool shadow);
    void phase_launched(unsigned p, sc_core::sc_time start) override;
    void launch_table(vgpu_lt_header& h) const override; ///< fault_base

    std::uint64_t services() const { return m_services.value(); } ///< pages mapped
    std::uint64_t batches() const { return m_batches.value(); }   ///< service rounds
    /// An eviction's copy-out of pages vpns of buffer b (unmapped, shot down, drained): one DMA
    /// batch from their frames to the host's copies; the pages are no longer resident. `by`
    /// ends the log line.
    void copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                  tlm_utils::tlm_quantumkeeper& qk, const char* by);
    /// The fault service's quantum keeper (the shadow thread's, or the firmware host's).
    tlm_utils::tlm_quantumkeeper& service_qk() { return m_qk; }
    /// Firmware host: a page the firmware mapped.
    void page_mapped() { ++m_services; }
    /// Firmware host: a service round of `records` records begins now.
    void round_begun(std::uint32_t records);
    /// Firmware host: the round ended now with `fatal` records refused.
    void round_ended(std::uint32_t fatal);

private:
    /// A record of the fault buffer as the shadow thread read it.
    struct fault_entry {
        std::uint64_t va = 0;
        std::uint32_t sm = 0, warp = 0, pc = 0, info = 0;
    };
    /// The shadow thread: asleep in a blocking read of the fault buffer (irq); takes up to
    /// host.fault_batch records per round and services them in the patent's order.
    void shadow_thread();
    /// Steps (2) to (6) for one record: returns the FAULT_ACK value (1 mapped, 2 refused) and
    /// sets reason for a refusal.
    std::uint32_t service(const fault_entry& f, std::uint32_t& reason);
    /// The host's page-fault handler (the memory manager): places, allocates, fills and maps
    /// the page of va; 0 or a fault_reason.
    std::uint32_t map_page(std::uint64_t va, bool write, unsigned sm);
    /// Evicts every resident page of buffer b (the unpinned memory of seed 003).
    void evict(std::size_t b);
    bool fault_write(std::uint64_t off, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk);
    std::uint32_t fault_read(std::uint64_t off, tlm_utils::tlm_quantumkeeper& qk);

    part_host& m_host;
    const fault_facts m_facts;
    sc_core::sc_in<bool>& m_irq;
    tlm_utils::tlm_quantumkeeper m_qk; ///< see service_qk()
    std::vector<fault_entry> m_round;  ///< the shadow thread's records of the current round
    /// The memory manager's lock (the shadow thread and eviction threads share it).
    sc_core::sc_mutex m_lock;
    sc_core::sc_time m_round_start; ///< firmware host: the round's start
    stats::counter m_records, m_services, m_batches, m_fatal, m_evictions;
    stats::average m_service_time;
};

} // namespace vgpu::host
