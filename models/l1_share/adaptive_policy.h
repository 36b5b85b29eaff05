// L1 sharing `adaptive` as the peer policy of one L1: borrowed reads to the partner's L1 (S14),
// replacement blocks (S15, S24), store updates, and the borrowers' requests (S21-S24).
// See models/l1_share/README.md.
#pragma once

#include "models/l1/l1_config.h"
#include "models/l1/peer_policy.h"
#include "models/l1_share/cluster_classes.h"
#include "models/l1_share/core/l1_share.h"
#include "models/l1_share/core/share_stats.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <deque>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace vgpu::l1_share {

/// The adaptive peer policy of one L1 of a cluster: while its SM is memory-intensive its misses
/// read the partner's L1 and the lines they evict go there; every store updates the cluster's
/// other L1s; borrowers' reads, blocks and updates arrive on `remote_in`.
class adaptive_policy : public sc_core::sc_module, public l1::peer_policy {
public:
    /// Requests of borrowing SMs, their replacement blocks and the cluster's store updates, from
    /// the cluster crossbar `l1_route`.
    tlm_utils::simple_target_socket<adaptive_policy> remote_in;
    /// This L1's requests to its partner, its replacement blocks and its store updates into
    /// `l1_route`; the target L1 is the address window (peer_address()).
    tlm_bus::initiator_port peer;

    /// First address bit of the L1 windows on `l1_route` (physical addresses stay below it).
    static constexpr unsigned peer_shift = l1::peer_window_shift;
    /// `addr` in the window of the cluster's L1 `index` on `l1_route`.
    static std::uint64_t peer_address(unsigned index, std::uint64_t addr)
    {
        return addr | (std::uint64_t{index} + 1) << peer_shift;
    }
    /// The L1 (index in the cluster) whose window holds `addr`, -1 if none.
    static int peer_target(std::uint64_t addr) { return static_cast<int>(addr >> peer_shift) - 1; }

    /// The policy of `host`, the L1 `index` of a cluster of `cluster_l1s` whose classification
    /// is `classes`; `cfg`: the L1's configuration (l1.replacement_queue).
    adaptive_policy(const sc_core::sc_module_name& name, l1::peer_host& host,
                    cluster_classes& classes, unsigned index, unsigned cluster_l1s,
                    const l1::l1_config& cfg, share_stats& counts);

    int miss_source(std::uint64_t arrival_ps) override;
    tlm::tlm_response_status read_peer(int partner, std::uint64_t addr, std::uint8_t* data,
                                       unsigned len, sc_core::sc_time& delay,
                                       const tlm_bus::gpu_extension* ext) override;
    void evicted(int partner, const cache::cache_array::victim& v,
                 const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay) override;
    void tick(std::uint64_t now_ps) override { m_classes.tick(now_ps); }
    void own_reads(std::uint64_t lookups, std::uint64_t misses) override
    {
        m_classes.count(m_index, lookups, misses);
    }
    void store_begins(const tlm::tlm_generic_payload& gp) override { order_stores(gp, true); }
    void store_done(tlm::tlm_generic_payload& gp, const std::uint8_t* data,
                    const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay) override;
    void store_ends(const tlm::tlm_generic_payload& gp) override { order_stores(gp, false); }
    void line_written(std::uint64_t line) override;
    void new_kernel_epoch() override;

private:
    /// A line a borrowing SM evicted, on its way to (or waiting in) its partner's L1.
    struct block {
        std::uint64_t line = 0;         ///< line address
        std::uint32_t epoch = 0;        ///< kernel epoch of the request that evicted it
        std::uint64_t stamp = 0;        ///< store_order stamp when it was taken
        cache::sector_mask sectors = 0; ///< its valid sectors
        std::vector<std::uint8_t> data; ///< the whole line image
        int partner = -1;               ///< (outgoing) the L1 it goes to
    };
    /// Stores of this L1's SM: begins (or ends, after the updates) the store_order of each
    /// line written.
    void order_stores(const tlm::tlm_generic_payload& gp, bool begin);
    /// Puts block `b` on l1_route (a replacement request) with `delay` as its offset.
    void transmit_block(const block& b, sc_core::sc_time& delay);
    /// Accurate mode: sends the outgoing blocks one after another (posted, off the load path).
    void send_blocks();
    /// remote_in: a borrower's read (S21-S24), a replacement block, or a store update.
    void remote_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    /// remote_in debug access: the address without its window, as the L1's own.
    unsigned remote_dbg(tlm::tlm_generic_payload& gp);
    /// remote_in DMI: refused, as by the L1 (a cache must see every access).
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// S22-S23: serves a borrower's read: hit -> data, miss -> LLC without filling this L1.
    tlm::tlm_response_status serve_remote(tlm::tlm_generic_payload& gp, std::uint64_t addr,
                                          const tlm_bus::gpu_extension* ext,
                                          sc_core::sc_time& delay);
    /// S24: stores a pending replacement block (unless the line is in flight or its set pinned)
    /// with its tag-stage slot at or after `at`.
    void store_block(const block& b, std::uint64_t at);

    l1::peer_host& m_host;
    cluster_classes& m_classes;   ///< the cluster's classification
    const unsigned m_index;       ///< this L1's index in the cluster
    const unsigned m_cluster_l1s; ///< L1s in the cluster
    const unsigned m_line_bytes;  ///< l1.line_bytes
    share_stats& m_counts;        ///< the host L1's sharing counters
    /// Remote requests and pending replacement blocks in the patent's order (the local queue
    /// is the tag stage's bookings of the SM's own lookups, which remote requests queue behind).
    share_queues<std::uint64_t, block> m_queues;
    std::deque<block> m_outbox;                       ///< accurate mode: blocks waiting to be sent
    sc_core::sc_event m_outbox_event;                 ///< a block was queued in m_outbox
    std::uint64_t m_sending_line = ~std::uint64_t{0}; ///< block on l1_route now (accurate)
    bool m_sending_stale = false;                     ///< a store wrote that line meanwhile
};

} // namespace vgpu::l1_share
