// An SM's L1 TLB: the stage between the SM and its L1 that translates virtual to physical
// addresses, with the cluster's shared L2 TLB and walkers behind it. See models/tlb/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/tlb/cluster_tlb.h"
#include "models/tlb/core/context.h"
#include "models/tlb/core/fill_queue.h"
#include "models/tlb/core/ideal_translations.h"
#include "models/tlb/core/tlb_array.h"
#include "models/tlb/fault_unit.h"
#include "models/tlb/tlb_config.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/path_stage.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <unordered_map>
#include <vector>

namespace vgpu::tlb {

/// Translates each request (virtual addresses, the `gpu_extension`'s ptbr and epoch) and
/// forwards it at its physical address; a page that is not present and a request crossing a
/// page come back as TLM_ADDRESS_ERROR_RESPONSE, a store to a page that is not writable as
/// TLM_COMMAND_ERROR_RESPONSE. With a fault unit, a page that is not present is a page fault
/// the host services: the response carries gpu_extension::fault, and the requester replays.
class tlb : public sc_core::sc_module, public tlm_bus::path_stage {
public:
    tlm_utils::simple_target_socket<tlb> in; ///< virtual-address requests from the SM
    tlm_bus::initiator_port out;             ///< the same requests at physical addresses (L1)
    tlm_bus::initiator_port walk;            ///< PTE reads of the walks this TLB's misses start

    /// page_bytes: memory.page_bytes; `shared`: the cluster's L2 TLB and walkers.
    tlb(const sc_core::sc_module_name& name, const tlb_config& cfg, const clock_params& clk,
        std::uint64_t page_bytes, cluster_tlb& shared);

    tlm::tlm_target_socket<>& path_in() override { return in; }      ///< = in
    tlm::tlm_initiator_socket<>& path_out() override { return out; } ///< = out
    std::vector<tlm_bus::side_port> side_ports() override { return {{"walk", &walk}}; }
    const char* stage_name() const override { return name(); } ///< SystemC instance name

    /// Pages that are not present become page faults raised with `faults` (nullptr: plain
    /// address errors, as without a host that services faults).
    void set_fault_unit(fault_unit* faults) { m_fault_unit = faults; }
    /// The answer of first-touch placement to a touch of a page that is not present.
    struct touch_answer {
        std::uint64_t pte = 0; ///< the page's new leaf PTE (0 without `wait`: fault as usual)
        /// Not decided yet: the access waits for this and replays (not a page fault: no record).
        std::shared_ptr<tlm_bus::fault_wait> wait;
    };
    /// First-touch placement (models/page_alloc/README.md): asked, when a page is not present,
    /// with the touching SM, the time the walk found it so, and whether the requester can
    /// replay the access (an SM's data, atomic or constant access).
    using first_touch_fn =
        std::function<touch_answer(std::uint64_t va, int sm, std::uint64_t at_ps, bool can_wait)>;
    void set_first_touch(first_touch_fn place) { m_first_touch = std::move(place); }
    /// tlb.model ideal: keep translations in `shared` (the platform gives every SM's TLB the
    /// same one, so each page is walked once) instead of this TLB's own.
    void share_ideal(std::shared_ptr<ideal_translations> shared) { m_ideal = std::move(shared); }
    /// Shootdown: drops the entries of the pages of [va, va + bytes) (bytes 0: every page).
    void invalidate(std::uint64_t va, std::uint64_t bytes);
    const tlb_array& array() const { return m_l1; }    ///< the L1 TLB
    std::uint64_t hits() const { return m_l1.hits(); } ///< lookups that found their page
    std::uint64_t misses() const { return m_l1.misses() + m_inflight_misses; } ///< the others
    std::uint64_t translations() const { return m_translations.value(); } ///< b_transport calls
    std::uint64_t faults() const { return m_faults.value(); }             ///< error responses

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    /// Flushes the L1 TLB when ext names a newer epoch or another page table.
    void check_context(const tlm_bus::gpu_extension& ext);
    /// The leaf PTE of va (0: not present) for a request at arrival_ps, and when it is known;
    /// ok false when a PTE read failed.
    /// `waits` (fast mode, an SM access that can replay: a load, store, atomic, constant or
    /// unit read): set when the request is to wait for its page's walk
    /// (cluster_tlb::translate).
    lookup_result lookup(std::uint64_t va, std::uint64_t arrival_ps,
                         const tlm_bus::gpu_extension& ext,
                         std::shared_ptr<walk_wait>* waits = nullptr);
    /// The leaf PTE of va read with debug transport (zero time, no side effects).
    std::uint64_t debug_pte(std::uint64_t va, std::uint64_t ptbr);
    /// A replay of a request the L1 answered "every MSHR busy" (fast mode) takes back the
    /// translation that request had: true and pte set if one is kept for page vpn.
    bool take_kept(std::uint64_t vpn, std::uint64_t& pte);
    /// The replay of a request told to wait for its page's walk takes that wait back (nullptr:
    /// none kept under key).
    std::shared_ptr<walk_wait> take_walked(std::uint64_t key);

    const tlb_config m_cfg;
    const bool m_accurate;
    const std::uint64_t m_page_bytes, m_cycle_ps;
    cluster_tlb& m_shared;
    fault_unit* m_fault_unit = nullptr;
    first_touch_fn m_first_touch; ///< see set_first_touch()
    /// The key of a line request of this SM: its VA (32 bits, page_table::covers) and warp
    /// slot. The SM's replay of a request carries both again.
    static std::uint64_t request_key(std::uint64_t va, const tlm_bus::gpu_extension& ext);
    /// Requests told to replay while their page's first touch is decided, by request_key(),
    /// with the wait each was told (two requests of a warp may read one VA): the replay, once
    /// its wait is released, asks the placement again without a second walk. Keyed by
    /// request, not by page: a replay after such a wait is not marked `gpu_extension::replay`
    /// (that mark is the L1's MSHR replay), and a new request of another warp to the page must
    /// not skip its walk. Cleared by a flush and by invalidate() (the replay walks again).
    std::unordered_map<std::uint64_t, std::deque<std::shared_ptr<tlm_bus::fault_wait>>>
        m_touch_waits;
    tlb_array m_l1;
    fill_queue m_fills;                  ///< fast mode: translations that enter the L1 TLB later
    std::uint64_t m_inflight_misses = 0; ///< fast: lookups of an entry not filled yet
    /// ideal model: the present PTEs (this TLB's own, or shared with the other SMs')
    std::shared_ptr<ideal_translations> m_ideal = std::make_shared<ideal_translations>();
    context m_context; ///< the page table and newest epoch the entries belong to
    /// Fast mode: translations of requests the L1 answered "replay when an MSHR is free", by
    /// page: the leaf PTE and how many such requests wait. The replay goes below with it, as
    /// accurate mode's request waits in the L1 with its physical address (translated once).
    struct kept_translation {
        std::uint64_t pte = 0;
        unsigned waiting = 0;
    };
    std::unordered_map<std::uint64_t, kept_translation> m_kept;
    /// Fast mode: requests told to wait for their page's walk, by request_key() (oldest first);
    /// the replay goes below with the walk's answer (cluster_tlb.h, walk_wait). A replay takes
    /// only a wait already released: another request under the key, made while the first
    /// waits, walks itself.
    std::unordered_map<std::uint64_t, std::deque<std::shared_ptr<walk_wait>>> m_walked;
    logger m_log;
    stats::group m_stats;
    stats::counter m_translations, m_faults, m_page_faults, m_flushes, m_touch_replays,
        m_walk_replays;
    stats::formula m_hits, m_misses, m_evictions;
};

} // namespace vgpu::tlb
