// L1 data cache of one SM: read-allocate, write-through, no-write-allocate, MSHR merging,
// invalidated at kernel boundaries (epoch). See models/l1/README.md.
#pragma once

#include "models/cache/core/cache_controller.h"
#include "models/cache/mshr_waits.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/l1/l1_config.h"
#include "models/l1_share/cluster_classes.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace vgpu::l1 {

/// The L1 of one SM; lines are never dirty, so it never writes back.
class l1 : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<l1> in; ///< physical requests from the SM's TLB
    tlm_bus::initiator_port out;            ///< line fills and write-through to the crossbar

    /// Timing from `clk`: the hit latency is in core cycles; fast or accurate MSHR model.
    /// `home_bits`: l1.sharing shared: log2(SMs per cluster), the line-number bits that chose
    /// this L1 as the home, which its set index skips (0: private, modulo set index).
    l1(const sc_core::sc_module_name& name, const l1_config& cfg, const clock_params& clk,
       unsigned home_bits = 0);
    /// The SM whose L1 this is (global index): reads of other SMs count as remote.
    void set_owner(int sm) { m_owner = sm; }

    // --- l1.sharing adaptive (models/l1_share/README.md) ---------------------------------
    /// Requests of borrowing SMs, their replacement blocks and the cluster's store updates,
    /// from the cluster crossbar `l1_route` (adaptive only; nullptr otherwise).
    std::unique_ptr<tlm_utils::simple_target_socket<l1>> remote_in;
    /// This L1's requests to its partner, its replacement blocks and its store updates into
    /// `l1_route` (adaptive only); the target L1 is the address window (peer_address()).
    std::unique_ptr<tlm_bus::initiator_port> peer;
    /// First address bit of the L1 windows on `l1_route` (physical addresses stay below it).
    static constexpr unsigned peer_shift = peer_window_shift;
    /// `addr` in the window of the cluster's L1 `index` on `l1_route`.
    static std::uint64_t peer_address(unsigned index, std::uint64_t addr)
    {
        return addr | (std::uint64_t{index} + 1) << peer_shift;
    }
    /// The L1 (index in the cluster) whose window holds `addr`, -1 if none.
    static int peer_target(std::uint64_t addr) { return static_cast<int>(addr >> peer_shift) - 1; }
    /// adaptive: the cluster's classification, this L1's index in the cluster and the number of
    /// L1s in it (stores update every other one).
    void set_adaptive(l1_share::cluster_classes* classes, unsigned index, unsigned cluster_l1s);

private:
    using segment = tlm_bus::line_segment;

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure warns, sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    void new_epoch(std::uint32_t epoch);
    /// The outcomes of one request's line lookups, counted as the core counts them. The
    /// statistics of the requesting SM (remote hits, adaptive classification) take them from
    /// here: in accurate mode other requests change the core's counts while this one waits.
    struct lookups {
        std::uint64_t hits = 0, misses = 0, merges = 0;
    };
    tlm::tlm_response_status read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay,
                                  lookups& n);
    void write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    tlm::tlm_response_status read_fast(const segment& s, const tlm_bus::gpu_extension* ext,
                                       sc_core::sc_time& delay, lookups& n);
    tlm::tlm_response_status read_accurate(const segment& s, const tlm_bus::gpu_extension* ext,
                                           sc_core::sc_time& delay, lookups& n);
    /// Books the tag stage (l1.lines_per_cycle lookups per cycle) for a lookup arriving at
    /// `arrival` (ps); returns when its tag check starts.
    std::uint64_t tag_start(std::uint64_t arrival);
    /// Sectors of the line that the enabled bytes of `s` touch.
    cache::sector_mask need(const segment& s) const;
    /// Reads the sectors `fetch` of `line` below (or from L1 `partner` of the cluster, adaptive)
    /// into `buf` (an image of the line) with `delay` as the offset; counts the bytes.
    tlm::tlm_response_status fetch(std::uint64_t line, cache::sector_mask fetch, std::uint8_t* buf,
                                   const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay,
                                   int partner = -1);
    /// Copies the valid sectors of `line` among `sectors` into `buf` (an image of the line).
    void copy_valid(std::uint64_t line, cache::sector_mask sectors, std::uint8_t* buf) const;
    /// Installs fetched sectors unless a write overtook their fill; the victim is never dirty.
    /// adaptive: a valid victim of a fill from `partner` (>= 0) goes there (S15).
    void install(std::uint64_t line, const std::uint8_t* data, cache::sector_mask sectors,
                 int partner, const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay);
    /// Copies the enabled bytes of `s` out of the resident line.
    void copy_from_array(const segment& s) const;
    /// Copies the enabled bytes of `s` out of a line buffer holding its line.
    void copy_from_buffer(const segment& s, const std::uint8_t* line_data) const;
    std::uint8_t* take_buffer();

    /// A line a borrowing SM evicted, on its way to (or waiting in) its partner's L1.
    struct block {
        std::uint64_t line = 0;         ///< line address
        std::uint32_t epoch = 0;        ///< kernel epoch of the request that evicted it
        std::uint64_t stamp = 0;        ///< l1_share::store_order stamp when it was taken
        cache::sector_mask sectors = 0; ///< its valid sectors
        std::vector<std::uint8_t> data; ///< the whole line image
        int partner = -1;               ///< (outgoing) the L1 it goes to
    };
    /// adaptive: the partner of this L1's SM at `at` ps (-1: misses go to the LLC).
    int borrow_partner(std::uint64_t at);
    /// adaptive: S15, a line this L1 evicted for a fill from its partner goes there.
    void send_block(const cache::cache_array::victim& v, int partner,
                    const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay);
    /// Puts block `b` on l1_route (a replacement request) with `delay` as its offset.
    void transmit_block(const block& b, sc_core::sc_time& delay);
    /// Accurate mode: sends the outgoing blocks one after another (posted, off the load path).
    void send_blocks();
    /// Stores update or invalidate the copies in the other L1s of the cluster.
    void update_peers(tlm::tlm_generic_payload& gp, const std::uint8_t* data,
                      const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay);
    /// Updates the resident copy of the written bytes (clean) and marks a fill in flight stale;
    /// drops pending and outgoing blocks of the lines written.
    void update_copy(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                     const std::uint8_t* be, unsigned be_len);
    /// remote_in: a borrower's read (S21-S24), a replacement block, or a store update.
    void remote_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    /// remote_in debug access: the address without its window, as transport_dbg().
    unsigned remote_dbg(tlm::tlm_generic_payload& gp);
    /// S22-S23: serves a borrower's read: hit -> data, miss -> LLC without filling this L1.
    tlm::tlm_response_status serve_remote(tlm::tlm_generic_payload& gp, std::uint64_t addr,
                                          const tlm_bus::gpu_extension* ext,
                                          sc_core::sc_time& delay);
    /// S24: stores a pending replacement block (unless the line is in flight or its set pinned)
    /// with its tag-stage slot at or after `at`.
    void store_block(const block& b, std::uint64_t at);

    const l1_config m_cfg;
    const bool m_accurate;
    const sc_core::sc_time m_hit;    ///< hit latency
    const std::uint64_t m_cycle_ps;  ///< core clock period: a lookup holds the tag stage that long
    cache::cache_controller m_core;  ///< tags, data, MSHRs, write-through policy, outcome counts
    cache::capacity_timeline m_tags; ///< the tag stage: lines_per_cycle lookups per cycle
    cache::mshr_waits m_waits;       ///< accurate mode: merges and stalled misses waiting
    std::uint32_t m_epoch = 0;       ///< newest epoch seen
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_invalidations, m_errors, m_bytes_fetched, m_tag_stalls,
        m_remote_reads, m_remote_hits;
    int m_owner = -1; ///< see set_owner()
    stats::formula m_hits, m_misses, m_line_misses, m_sector_misses, m_merges, m_full_stalls,
        m_hit_rate, m_overrun;
    stats::average m_miss_latency, m_tag_wait;
    // adaptive
    l1_share::cluster_classes* m_classes = nullptr; ///< the cluster's classification
    unsigned m_index = 0;                           ///< this L1's index in the cluster
    unsigned m_cluster_l1s = 1;                     ///< L1s in the cluster
    /// Remote requests and pending replacement blocks in the patent's order (the local queue
    /// is the tag stage's bookings of the SM's own lookups, which remote requests queue behind).
    l1_share::share_queues<std::uint64_t, block> m_queues;
    std::deque<block> m_outbox;                       ///< accurate mode: blocks waiting to be sent
    sc_core::sc_event m_outbox_event;                 ///< a block was queued in m_outbox
    std::uint64_t m_sending_line = ~std::uint64_t{0}; ///< block on l1_route now (accurate)
    bool m_sending_stale = false;                     ///< a store wrote that line meanwhile
    /// Stores of this L1's SM: begins (or ends, after the updates) the store_order of each
    /// line written.
    void order_stores(const tlm::tlm_generic_payload& gp, bool begin);
    /// Blocks not sent or not stored: taken during a store of their line, overtaken by one,
    /// their line in flight or their set pinned at S24.
    std::uint64_t m_unstorable = 0;
    stats::counter m_remote_misses, m_borrowed, m_blocks_sent, m_blocks_received, m_blocks_stored,
        m_updates_sent, m_updates_received;
    stats::formula m_blocks_dropped;
    stats::average m_remote_wait;
};

} // namespace vgpu::l1
