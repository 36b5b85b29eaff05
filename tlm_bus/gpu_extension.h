// The GPU payload extension: who issued a transaction and why; every model's requests carry it.
// See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/atomic_op.h"

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>

namespace vgpu::tlm_bus {

/// What a memory access is for (stats, routing and the blocks that care, e.g. the LLC).
enum class access_kind : std::uint8_t {
    data,        ///< LD/ST from a warp
    instruction, ///< program fetch
    constant,    ///< constant-data load (CDL)
    trace,       ///< shader-trace group write
    page_walk,   ///< page-table walker read
    host,        ///< driver/firmware access through MMIO or DMA
    writeback,   ///< cache eviction or flush
    other,       ///< traffic generators and tests
    atomic,      ///< ATOM/CAS on one aligned word or doubleword: a 4- or 8-byte write whose
                 ///< data is the operand
                 ///< (gpu_extension::atomic says which operation), carried out at the LLC
                 ///< (read-modify-write), which answers with the old value in the same data
                 ///< buffer (docs/isa.md, "Atomics")
};

/// A recoverable page fault the host is servicing (models/tlb/fault_unit.h). Translation
/// answers the faulting access with TLM_ADDRESS_ERROR_RESPONSE and sets gpu_extension::fault;
/// the initiator waits for `done` and replays the access once `resolved` (a replay is not a new
/// instruction). Every access that faulted on the page shares the one object.
struct fault_wait {
    sc_core::sc_event done;        ///< notified when the host has answered the page
    bool resolved = false;         ///< the host has answered
    const char* fatal = nullptr;   ///< answered without a page: why (e.g. "read-only")
    std::uint64_t raised_ps = 0;   ///< simulated time of the first fault on the page
    std::uint64_t deadline_ps = 0; ///< raised_ps + host.fault_timeout: report a waiter after it
    /// Not a page fault: a cache with every MSHR busy (fast mode) answered without taking the
    /// access; the initiator replays it at this time, when an MSHR is free, as accurate mode's
    /// miss waits in the cache until then (models/l1/README.md). 0: a page fault.
    std::uint64_t retry_ps = 0;
    /// Not a page fault either: the page waits for its first-touch placement to be decided
    /// (models/page_alloc/README.md); waited for and replayed as a fault, not counted as one.
    bool placement = false;
    /// With `placement`: the access waits for its page's translation walk (fast mode, the timed
    /// TLB), as accurate mode's access waits in the TLB; the requester keeps its
    /// sm.max_line_requests place until the replay completes.
    bool walk = false;
};

/// Attributes of a GPU memory transaction, attached to every pooled payload.
class gpu_extension : public tlm::tlm_extension<gpu_extension> {
public:
    std::int16_t module = -1;              ///< issuing module (chiplet), -1 if none
    std::int16_t cluster = -1;             ///< issuing cluster within the module
    std::int16_t sm = -1;                  ///< issuing SM (global index), -1 if not an SM
    std::int32_t warp = -1;                ///< issuing warp slot in the SM
    access_kind kind = access_kind::other; ///< purpose of the access
    std::uint16_t barrier_waiting = 0;     ///< warps of the issuing SM waiting at a barrier
    bool read_only = false;                ///< the page is known read-only (remote LLC hint)
    bool home_access = false;          ///< llc.mode private: a slice's request to the line's home
                                       ///< module (a fill, or a write passed through); routed home
    std::uint64_t vaddr = 0;           ///< virtual address before translation
    std::uint32_t pc = 0;              ///< program counter of the issuing instruction
    std::uint32_t epoch = 0;           ///< kernel-launch sequence number of the issuing CTA;
                                       ///< caches and translation caches of an SM drop what
                                       ///< they hold when they see a newer epoch
    std::uint64_t ptbr = 0;            ///< page-table base of the issuing context
    std::shared_ptr<fault_wait> fault; ///< set by translation on a recoverable page fault
    /// The initiator replays the access when answered with fault_wait::retry_ps (an SM's line
    /// request); caches answer others by annotating their wait instead.
    bool replayable = false;
    bool replay = false;               ///< this access is such a replay
    atomic_op atomic = atomic_op::add; ///< access_kind::atomic: the operation
    std::uint64_t swap = 0;            ///< atomic_op::cas: the value written where equal
    /// A response attribute: where the L1 adds the misses of this read (the line lookups it
    /// counts in its `misses` statistic), or null. An SM's source profile points it at the
    /// issuing PC's counter (models/sm/core/source_profile.h).
    std::uint64_t* l1_misses = nullptr;

    tlm::tlm_extension_base* clone() const override { return new gpu_extension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override
    {
        *this = static_cast<const gpu_extension&>(other);
    }
};

} // namespace vgpu::tlm_bus
