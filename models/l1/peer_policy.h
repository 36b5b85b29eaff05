// The L1's seam for peer policies: where a miss is read from, what becomes of its victim, who
// else a store updates. What the L1 asks a policy, and what it offers one. See models/l1/README.md.
#pragma once

#include "models/cache/core/cache_array.h"
#include "tlm_bus/gpu_extension.h"

#include <cstdint>
#include <systemc>
#include <tlm>

namespace vgpu::cache {
class cache_controller;
}
namespace vgpu::tlm_bus {
class initiator_port;
}

namespace vgpu::l1 {

/// What an L1 offers the peer policy attached to it: its core, its port below, its tag stage
/// and its counters. A policy serves the requests of other L1s (its own ports) through this.
class peer_host {
public:
    /// Tags, data, MSHRs of this L1 (a policy reads, fills and invalidates lines through it).
    virtual cache::cache_controller& core() = 0;
    /// The port below (`out`): a peer's request that misses here goes on through it.
    virtual tlm_bus::initiator_port& below() = 0;
    virtual bool accurate() const = 0;                ///< accurate timing mode
    virtual sc_core::sc_time hit_latency() const = 0; ///< l1.hit_latency as a time
    virtual int owner() const = 0;                    ///< global index of this L1's SM
    virtual std::uint32_t epoch() const = 0;          ///< newest kernel epoch seen
    /// Books a slot of the tag stage for a lookup arriving at `arrival_ps`; returns its start.
    virtual std::uint64_t book_tag(std::uint64_t arrival_ps) = 0;
    /// A request of a peer arrives: checks its attributes (false: answered with an error) and
    /// moves this L1 to its kernel epoch, as for a request of the L1's own SM.
    virtual bool accept(tlm::tlm_generic_payload& gp) = 0;
    /// Counts a peer's request that was answered with an error.
    virtual void count_error() = 0;
    /// Counts a read of another SM arriving here, and one served from the array.
    virtual void count_remote_read() = 0;
    virtual void count_remote_hit() = 0; ///< see count_remote_read()
    /// Applies a peer's store to this L1's copy of the bytes written (as a store of its own).
    virtual void apply_write(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                             const std::uint8_t* be, unsigned be_len) = 0;
    /// Debug access as the L1's own (`in`) would make it.
    virtual unsigned debug(tlm::tlm_generic_payload& gp) = 0;

protected:
    ~peer_host() = default;
};

/// What an L1 asks its peer policy. Without one (l1.sharing private or shared) every miss goes
/// below and stores update no one: the L1 tests one pointer, no virtual call is made. A policy
/// reaches the other L1s through ports of its own; their requests arrive there.
class peer_policy {
public:
    virtual ~peer_policy() = default;

    /// A read miss of this L1's own SM that arrived at `arrival_ps`: the peer its sectors are
    /// read from (a number the policy chooses, >= 0), or -1: below, on the L1's `out`.
    virtual int miss_source(std::uint64_t arrival_ps) = 0;
    /// Reads [addr, addr + len) of a miss that miss_source() sent to `peer` into `data`.
    virtual tlm::tlm_response_status read_peer(int peer, std::uint64_t addr, std::uint8_t* data,
                                               unsigned len, sc_core::sc_time& delay,
                                               const tlm_bus::gpu_extension* ext) = 0;
    /// The fill of a miss read from `peer` evicted the valid, clean line `v` (its data lives
    /// until the next removal); `delay`: the fill's time offset.
    virtual void evicted(int, const cache::cache_array::victim&, const tlm_bus::gpu_extension*,
                         const sc_core::sc_time&)
    {
    }

    /// An access (data or atomic) of this L1's own SM at `now_ps`: the policy's epochs tick.
    virtual void tick(std::uint64_t) {}
    /// A data read of this L1's own SM made `lookups` line lookups, `misses` of them missed.
    virtual void own_reads(std::uint64_t, std::uint64_t) {}

    /// A store (or atomic) of this L1's own SM to the lines of `gp` begins: it goes below next.
    virtual void store_begins(const tlm::tlm_generic_payload&) {}
    /// The store reached below; `data` are the bytes it wrote (an atomic: the new value): the
    /// other L1s that must see them are updated here, `delay` advanced.
    virtual void store_done(tlm::tlm_generic_payload&, const std::uint8_t*,
                            const tlm_bus::gpu_extension*, sc_core::sc_time&)
    {
    }
    /// The store is over (below and every update done).
    virtual void store_ends(const tlm::tlm_generic_payload&) {}
    /// A write (this SM's or a peer's update) reaches the line at `line` in this L1: copies of
    /// the line on their way here or away are older.
    virtual void line_written(std::uint64_t) {}

    /// A new kernel epoch invalidates the L1: what waits for it or leaves it is forgotten.
    virtual void new_kernel_epoch() {}
};

} // namespace vgpu::l1
