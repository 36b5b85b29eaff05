// The translation state a cluster's SMs share: the L2 TLB, the page-walk cache and the page-table
// walkers, with fast-mode interval booking and accurate-mode waiting. See models/tlb/README.md.
#pragma once

#include "models/cache/core/capacity_timeline.h"
#include "models/cache/mshr_waits.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/tlb/core/context.h"
#include "models/tlb/core/fill_queue.h"
#include "models/tlb/core/page_walk_cache.h"
#include "models/tlb/core/tlb_array.h"
#include "models/tlb/tlb_config.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <unordered_map>

namespace vgpu::tlb {

/// What a translation found: the leaf PTE (raw 0: not present) and when it is known.
struct lookup_result {
    std::uint64_t pte = 0;      ///< raw leaf entry (models/common/page_table.h), 0 if none
    std::uint64_t ready_ps = 0; ///< simulated time the translation is available
    bool ok = true;             ///< false: a PTE read failed (an error response below)
};

/// The leaf PTE that encodes TLB entry t for pages of page_bytes.
std::uint64_t to_pte(const translation& t, std::uint64_t page_bytes);

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
    lookup_result translate(std::uint64_t va, std::uint64_t arrival_ps,
                            const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port);
    /// Drops every L2 TLB and page-walk cache entry when ext names a newer epoch or another
    /// page table than seen so far (as the L1 TLBs do).
    void check_context(const tlm_bus::gpu_extension& ext);
    /// Shootdown: drops the L2 TLB entries of the pages of [va, va + bytes) (bytes 0: every
    /// page) and the whole page-walk cache (a table may have changed).
    void invalidate(std::uint64_t va, std::uint64_t bytes);

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
    lookup_result walk(std::uint64_t va, std::uint64_t start_ps, const tlm_bus::gpu_extension& ext,
                       tlm_bus::initiator_port& port);
    lookup_result translate_fast(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                 const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port);
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
    context m_context; ///< the page table and newest epoch the entries belong to
    stats::group m_stats;
    stats::counter m_lookups, m_walks, m_pte_reads, m_merged, m_walker_stalls, m_flushes;
    stats::formula m_l2_hits, m_l2_misses, m_l2_evictions, m_pwc_hits, m_pwc_misses,
        m_walks_per_miss;
    stats::average m_walk_latency, m_walker_wait;
    stats::histogram m_walk_hist;
};

} // namespace vgpu::tlb
