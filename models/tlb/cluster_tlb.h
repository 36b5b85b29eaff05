// The translation state a cluster's SMs share: the L2 TLB, the page-walk cache and the page-table
// walkers, with fast-mode interval booking and accurate-mode waiting. See models/tlb/README.md.
#pragma once

#include "models/cache/core/capacity_timeline.h"
#include "models/cache/mshr_waits.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/sm/same_time_gate.h"
#include "models/tlb/core/context.h"
#include "models/tlb/core/fill_queue.h"
#include "models/tlb/core/page_walk_cache.h"
#include "models/tlb/core/tlb_array.h"
#include "models/tlb/tlb_config.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vgpu::tlb {

/// What a translation found: the leaf PTE (raw 0: not present) and when it is known.
struct lookup_result {
    std::uint64_t pte = 0;      ///< raw leaf entry (models/common/page_table.h), 0 if none
    std::uint64_t ready_ps = 0; ///< simulated time the translation is available
    bool ok = true;             ///< false: a PTE read failed (an error response below)
};

/// Fast mode: a line read that waits for its page's walk (one in flight, or one that has not
/// started: a walk runs at its own simulated time) is answered at once and replayed when the
/// walk has ended, as accurate mode's read waits in the TLB. The cluster fills in `result`
/// when the walk has run and releases `wait` at its end; the replay takes `result`.
struct walk_wait {
    std::shared_ptr<tlm_bus::fault_wait> wait; ///< released (resolved) at the walk's end
    lookup_result result;                      ///< the walk's answer, once `known`
    bool known = false;                        ///< the walk has run (result is set)
    /// Called when the walk runs, after `result` is set (the L1 TLB enters the entry at the
    /// walk's end, in time order with its lookups).
    std::function<void(const lookup_result&)> on_known;
};

/// The leaf PTE that encodes TLB entry t for pages of page_bytes.
std::uint64_t to_pte(const translation& t, std::uint64_t page_bytes);
/// The TLB entry of a present leaf PTE for pages of page_bytes.
translation to_translation(std::uint64_t pte, std::uint64_t page_bytes);

/// One per cluster; the SMs' L1 TLBs (class tlb) call translate() on a miss. Walks read PTEs
/// with timed reads (`access_kind::page_walk`) through the initiator port the caller passes
/// (its SM's side port into the cluster crossbar), so they contend with data and can hit in the
/// LLC; concurrent misses on one page share one walk.
class cluster_tlb {
public:
    /// `name` prefixes the statistics (e.g. "gpu.m0.c1.tlb"); page_bytes: memory.page_bytes.
    cluster_tlb(const std::string& name, const tlb_config& cfg, const clock_params& clk,
                std::uint64_t page_bytes);

    /// The leaf PTE of va for a lookup that reaches the L2 TLB at arrival_ps (an L1 TLB miss):
    /// from the L2 TLB, a walk in flight, or a new walk. Fast mode books walkers as intervals
    /// and returns when the result is ready; accurate mode waits (the caller's thread) and
    /// returns ready_ps = now.
    /// Fast mode with `waits` (a line read the SM can replay): a lookup that must wait for a
    /// walk returns at once with `waits` set to the walk_wait it is answered with; the walk, if
    /// a new one, runs when global time reaches its start (a walker free, the lookup's time).
    lookup_result translate(std::uint64_t va, std::uint64_t arrival_ps,
                            const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port,
                            std::shared_ptr<walk_wait>* waits = nullptr);
    /// Drops every L2 TLB and page-walk cache entry when ext names a newer epoch or another
    /// page table than seen so far (as the L1 TLBs do).
    void check_context(const tlm_bus::gpu_extension& ext);
    /// Shootdown: drops the L2 TLB entries of the pages of [va, va + bytes) (bytes 0: every
    /// page) and the whole page-walk cache (a table may have changed).
    void invalidate(std::uint64_t va, std::uint64_t bytes);

    /// Fast mode: the walk thread sleeps through `gate` as early member `key` from now on
    /// (before the simulation starts), so that at one simulated time it runs before the SMs
    /// (what it does then serves older requests), not in SystemC's process order.
    void join_gate(sm::same_time_gate& gate, unsigned key);

    std::uint64_t walks() const { return m_walks.value(); }         ///< walks started
    std::uint64_t pte_reads() const { return m_pte_reads.value(); } ///< PTEs read
    std::uint64_t merged() const { return m_merged.value(); }       ///< misses that joined a walk
    const tlb_array* l2() const { return m_l2.get(); }              ///< nullptr: no L2 TLB
    const page_walk_cache& pwc() const { return m_pwc; }            ///< page-walk cache

private:
    /// Accurate mode: a walk in flight, waited on by the requests that miss on its page.
    struct walk_in_flight {
        sc_core::sc_event done;
        std::uint64_t pte = 0;
        bool ok = true;
    };
    /// Reads the PTEs of va from the deepest level the page-walk cache knows, timed from
    /// `start_ps`; returns the leaf (0: not present) and the time after the last read.
    /// use_pwc false: from the root, without reading or filling the page-walk cache (a walk of
    /// a context the cluster has left).
    lookup_result walk(std::uint64_t va, std::uint64_t start_ps, const tlm_bus::gpu_extension& ext,
                       tlm_bus::initiator_port& port, bool use_pwc = true);
    lookup_result translate_fast(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                 const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port,
                                 std::shared_ptr<walk_wait>* waits);
    /// Fast mode: a walk not started yet, run by walk_thread() at its time.
    struct queued_walk {
        std::uint64_t va = 0;
        std::uint64_t arrival_ps = 0; ///< the first lookup's time (the walk starts after it)
        tlm_bus::gpu_extension ext;
        tlm_bus::initiator_port* port = nullptr;
        std::vector<std::shared_ptr<walk_wait>> waiters; ///< lookups answered "wait"
        std::uint64_t generation = 0;                    ///< m_generation when queued (its context)
    };
    /// Fast mode: starts a walk on a walker at `t` or later (ahead of global time if later),
    /// books it and shares its result with the later lookups of the page until its end.
    /// asked_ps: when the walk was asked for (its walker wait is counted from there).
    /// `current` false: a walk of a context the cluster has left since it was queued; it reads
    /// its own page table from the root and fills neither the page-walk cache nor the L2 TLB.
    lookup_result run_walk(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                           const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port,
                           std::uint64_t asked_ps, bool current = true);
    /// Fast mode: runs the queued walks whose time has come, when a walker is free, and
    /// releases the waiters whose walk has ended.
    void walk_thread();
    /// Fast mode: the walk thread has work at at_ps (now if earlier).
    void kick(std::uint64_t at_ps);
    /// Fast mode: w's wait is released at at_ps.
    void release_at(std::uint64_t at_ps, std::shared_ptr<walk_wait> w);
    /// Runs queued walk `it` now and hands its waiters the result (released at its end);
    /// returns the result.
    lookup_result
    start_queued(std::map<std::pair<std::uint64_t, std::uint64_t>, queued_walk>::iterator it,
                 std::uint64_t t);
    lookup_result translate_accurate(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                     const tlm_bus::gpu_extension& ext,
                                     tlm_bus::initiator_port& port);

    const tlb_config m_cfg;
    const bool m_accurate;
    const std::uint64_t m_cycle_ps, m_page_bytes;
    std::unique_ptr<tlb_array> m_l2;
    page_walk_cache m_pwc;
    cache::capacity_timeline m_walkers; ///< fast mode: walks in progress as intervals
    cache::mshr_waits m_walker_waits;   ///< accurate mode: misses waiting for a walker
    unsigned m_walkers_busy = 0;        ///< accurate mode: walks in progress
    std::uint64_t m_l2_inflight = 0;    ///< fast mode: L2 lookups that found a walk in flight
    fill_queue m_fills; ///< fast mode: walks booked ahead, entering the L2 TLB at their end
    std::unordered_map<std::uint64_t, std::shared_ptr<walk_in_flight>> m_walking; ///< accurate
    /// Fast mode: walks not started yet by (arrival, sequence), and their key by page.
    std::map<std::pair<std::uint64_t, std::uint64_t>, queued_walk> m_queued;
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> m_queued_by_vpn;
    std::uint64_t m_queue_seq = 0;
    /// Fast mode: waits to release, by time (then order of release_at()).
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::shared_ptr<walk_wait>> m_releases;
    std::uint64_t m_release_seq = 0;
    sc_core::sc_event m_kick;             ///< walk_thread(): a walk was queued or a release added
    sm::same_time_gate* m_gate = nullptr; ///< fast mode: the walk thread's same-time order
    unsigned m_gate_key = 0;              ///< its key there
    context m_context;                    ///< the page table and newest epoch the entries belong to
    std::uint64_t m_generation = 0;       ///< context changes seen (queued walks carry theirs)
    stats::group m_stats;
    stats::counter m_lookups, m_walks, m_pte_reads, m_merged, m_walker_stalls, m_flushes;
    stats::formula m_l2_hits, m_l2_misses, m_l2_evictions, m_pwc_hits, m_pwc_misses,
        m_walks_per_miss;
    stats::average m_walk_latency, m_walker_wait;
    stats::histogram m_walk_hist;
};

} // namespace vgpu::tlb
