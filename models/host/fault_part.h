// The page-fault driver part (seed 003): the shadow threads that service the fault unit's
// records against the host's own page table (the host's memory manager maps on_demand pages,
// brings swapped-out pages back, resolves copy-on-write), and evictions (scripted, and under
// memory pressure). See models/host/README.md ("Page faults").
#pragma once

#include "models/host/driver_part.h"
#include "models/host/host_page_table.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace vgpu::host {

/// Time an eviction waits after its TLB shootdown before it copies the pages out, for accesses
/// translated before the shootdown to land (models/host/README.md, "Page faults").
constexpr double evict_drain_ns = 2000;

/// What the fault part knows of the platform.
struct fault_facts {
    std::uint64_t base = 0; ///< the fault unit's register window on the MMIO bus (0: none)
};

/// Native host on a platform with a fault unit. host.fault_service shadow (seed 003): the
/// driver's interrupt handler reads every record and hands it to the shadow thread of its warp
/// (an SC_THREAD spawned at the warp's first fault, asleep in a blocking read of its own
/// records); host.shadow_threads of them run at once. batched: one SC_THREAD serves rounds of
/// up to host.fault_batch records. Evictions run `after_ns` into their phase, or when a fault
/// finds no free frame. Its statistics exist on every host; the firmware host reports its
/// rounds through the calls below.
class fault_part : public driver_part {
public:
    /// `irq`: the driver's fault_irq port; `shadow`: spawn the service threads (now, at
    /// elaboration: the native host with a fault unit).
    fault_part(part_host& host, const fault_facts& facts, sc_core::sc_in<bool>& irq, bool shadow);
    bool set_up() override; ///< the host's page table; copy-on-write pages made not writable
    void phase_launched(unsigned p, sc_core::sc_time start) override;
    void launch_table(vgpu_lt_header& h) const override; ///< fault_base
    void page_placed(std::uint64_t vpn) override;        ///< present and evictable

    std::uint64_t services() const { return m_services.value(); } ///< pages mapped
    std::uint64_t batches() const { return m_batches.value(); }   ///< service rounds
    /// An eviction's copy-out of pages vpns of buffer b (unmapped, shot down, drained): one DMA
    /// batch from their frames to the host's copies; the pages are no longer resident (swapped
    /// out in the host's page table). `by` ends the log line. `release_frames`: their frames
    /// are free for other pages (memory pressure; a scripted eviction leaves them unused).
    void copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                  tlm_utils::tlm_quantumkeeper& qk, const char* by, bool release_frames = false);
    /// The fault service's quantum keeper (the memory manager's, or the firmware host's).
    tlm_utils::tlm_quantumkeeper& service_qk() { return m_qk; }
    /// Firmware host: a page the firmware mapped.
    void page_mapped() { ++m_services; }
    /// Firmware host: a service round of `records` records begins now.
    void round_begun(std::uint32_t records);
    /// Firmware host: the round ended now with `fatal` records refused.
    void round_ended(std::uint32_t fatal);
    /// The host's page table (tests).
    const host_page_table& host_table() const { return m_table; }

private:
    /// A record of the fault buffer as the host read it.
    struct fault_entry {
        std::uint64_t va = 0;
        std::uint32_t sm = 0, warp = 0, pc = 0, info = 0;
        sc_core::sc_time taken; ///< when the host read it
    };
    /// The shadow thread of one GPU warp: its records, in order, and its own timing.
    struct shadow {
        std::deque<fault_entry> records;
        sc_core::sc_event arrived;
        tlm_utils::tlm_quantumkeeper qk;
        std::uint64_t key = 0; ///< SM << 32 | warp
    };
    /// host.fault_service shadow: the driver's interrupt handler. Asleep until the fault
    /// buffer holds records; reads each (FAULT_POP) and hands it to its warp's shadow thread.
    void dispatcher();
    /// The blocking read of the fault buffer: asleep until it holds records; their count (qk
    /// reset, then advanced by the COUNT read).
    std::uint32_t wait_for_records(tlm_utils::tlm_quantumkeeper& qk);
    /// The shadow thread of s: the patent's steps 50 to 56 for each of its records.
    void shadow_thread(shadow& s);
    /// host.fault_service batched: one thread, rounds of up to host.fault_batch records.
    void batched_thread();
    /// Reads the head record and pops it (qk timed).
    fault_entry take_record(tlm_utils::tlm_quantumkeeper& qk);
    /// Steps 52 to 42 for one record: returns the FAULT_ACK value (1 mapped, 2 refused) and
    /// sets reason for a refusal. `per_fault`: the shadow service (the OS handler's time per
    /// fault, its own lock); else the batched round (charged per round, lock held by it).
    std::uint32_t service(const fault_entry& f, std::uint32_t& reason,
                          tlm_utils::tlm_quantumkeeper& qk, bool per_fault);
    /// Step 56's answer: FAULT_ACK_VA, FAULT_ACK (and FAULT_ACK_REASON first for 2).
    void answer(const fault_entry& f, std::uint32_t ack, std::uint32_t reason,
                tlm_utils::tlm_quantumkeeper& qk);
    /// Brings page va in (placing it with map_page), evicting under memory pressure first.
    std::uint32_t bring_in(std::uint64_t va, bool write, unsigned sm);
    /// Copy-on-write: a new frame with the page's contents, mapped writable.
    std::uint32_t copy_page(std::uint64_t va);
    /// The host's page-fault handler (the memory manager): places, allocates, fills and maps
    /// the page of va; 0 or a fault_reason.
    std::uint32_t map_page(std::uint64_t va, bool write, unsigned sm);
    /// Evicts every resident page of buffer b (the unpinned memory of seed 003).
    void evict(std::size_t b);
    /// Memory pressure: evicts the oldest resident buffer page of every full module (m_qk,
    /// memory manager's lock held). False when a full module has no page to give.
    bool evict_for_pressure(std::uint64_t keep_vpn);
    /// Unmaps pages vpns (their PTEs cleared, every SM's TLB shot down for each), waits for
    /// accesses translated before that to land, and copies them out. Returns how many of the
    /// first pages were evicted: a failed PTE write stops it there (that page and the later
    /// ones stay mapped and present).
    std::size_t unmap_and_copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                                   tlm_utils::tlm_quantumkeeper& qk, const char* by,
                                   bool release_frames);
    /// A host core for a shadow thread (FIFO): waits while host.shadow_threads are busy.
    void acquire_core();
    void release_core();
    /// Drops physical [pa, pa + bytes) from every SM's L1 (the CP's L1_INV_* registers,
    /// four timed register writes): a frame an eviction frees may be reused within the kernel.
    bool invalidate_l1(std::uint64_t pa, std::uint64_t bytes, tlm_utils::tlm_quantumkeeper& qk);
    bool fault_write(std::uint64_t off, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk);
    std::uint32_t fault_read(std::uint64_t off, tlm_utils::tlm_quantumkeeper& qk);

    part_host& m_host;
    const fault_facts m_facts;
    sc_core::sc_in<bool>& m_irq;
    tlm_utils::tlm_quantumkeeper m_qk; ///< the memory manager's (map_page), see service_qk()
    tlm_utils::tlm_quantumkeeper m_dispatch_qk; ///< the interrupt handler's
    std::vector<fault_entry> m_round; ///< the batched thread's records of the current round
    std::map<std::uint64_t, std::unique_ptr<shadow>> m_shadows; ///< by SM << 32 | warp
    unsigned m_free_cores = 0;                     ///< host cores no shadow thread holds
    std::deque<sc_core::sc_event*> m_core_waiters; ///< shadow threads waiting for one, in order
    std::set<std::uint64_t> m_in_service;          ///< pages a shadow thread is bringing in
    sc_core::sc_event m_page_done;                 ///< a page left m_in_service
    host_page_table m_table;                       ///< the host's own page table
    std::deque<std::uint64_t> m_resident;          ///< resident buffer pages, oldest first
    /// The memory manager's lock (the service threads and eviction threads share it).
    sc_core::sc_mutex m_lock;
    sc_core::sc_time m_round_start; ///< firmware host: the round's start
    stats::counter m_records, m_services, m_batches, m_fatal, m_evictions, m_shadow_threads,
        m_protection, m_cow, m_other, m_swap_ins, m_pressure_evictions, m_shootdowns;
    stats::average m_service_time, m_core_wait, m_eviction_time;
};

} // namespace vgpu::host
