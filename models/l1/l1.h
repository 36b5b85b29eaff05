// L1 data cache of one SM: read-allocate, write-through, no-write-allocate, MSHR merging,
// invalidated at kernel boundaries (epoch). See models/l1/README.md.
#pragma once

#include "models/cache/cache_stats.h"
#include "models/cache/core/cache_controller.h"
#include "models/cache/mshr_waits.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/l1/l1_config.h"
#include "models/l1/peer_policy.h"
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
class l1 : public sc_core::sc_module, public peer_host {
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

    /// The L1's statistics (`<sm>_l1.*`): a block attached to the L1 may add its own counters.
    stats::group& stats() { return m_stats; }
    /// Attaches a peer policy (l1.sharing adaptive: the L1-sharing block attaches one)
    /// before the simulation starts; without one, misses go below and stores update no one.
    void attach_peer(std::unique_ptr<peer_policy> policy) { m_peer = std::move(policy); }
    /// Drops the lines of physical [pa, pa + bytes) (a page the host evicted, whose frame it may
    /// reuse within the kernel): a fill of one in flight is not installed, and an attached peer
    /// policy forgets its blocks. Takes no simulated time (the CP's L1_INVALIDATE write is
    /// timed). Returns the resident lines dropped.
    std::uint64_t invalidate_range(std::uint64_t pa, std::uint64_t bytes);

private:
    using segment = tlm_bus::line_segment;

    // peer_host: what the attached policy may use
    cache::cache_controller& core() override { return m_core; }
    tlm_bus::initiator_port& below() override { return out; }
    bool accurate() const override { return m_accurate; }
    sc_core::sc_time hit_latency() const override { return m_hit; }
    int owner() const override { return m_owner; }
    std::uint32_t epoch() const override { return m_epoch; }
    std::uint64_t book_tag(std::uint64_t arrival_ps) override { return tag_start(arrival_ps); }
    bool accept(tlm::tlm_generic_payload& gp) override { return admit(gp); }
    void count_error() override { ++m_cache_stats.errors; }
    void count_remote_read() override { ++m_remote_reads; }
    void count_remote_hit() override { ++m_remote_hits; }
    void apply_write(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                     const std::uint8_t* be, unsigned be_len) override
    {
        update_copy(addr, data, len, be, be_len);
    }
    unsigned debug(tlm::tlm_generic_payload& gp) override { return transport_dbg(gp); }

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure warns, sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    /// check(), then a newer kernel epoch invalidates the L1 (every request, own or a peer's).
    bool admit(tlm::tlm_generic_payload& gp);
    void new_epoch(std::uint32_t epoch);
    /// The outcomes of one request's line lookups, counted as the core counts them. The
    /// statistics of the requesting SM (remote hits, the peer policy's counts) take them from
    /// here: in accurate mode other requests change the core's counts while this one waits.
    struct lookups {
        std::uint64_t hits = 0, misses = 0, merges = 0;
        std::uint64_t retry_ps = 0; ///< fast mode: replay the access then (every MSHR busy)
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
    /// Reads the sectors `fetch` of `line` below (or from `peer` of the peer policy, >= 0) into
    /// `buf` (an image of the line) with `delay` as the offset; counts the bytes.
    tlm::tlm_response_status fetch(std::uint64_t line, cache::sector_mask fetch, std::uint8_t* buf,
                                   const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay,
                                   int peer);
    /// Copies the valid sectors of `line` among `sectors` into `buf` (an image of the line).
    void copy_valid(std::uint64_t line, cache::sector_mask sectors, std::uint8_t* buf) const;
    /// Installs fetched sectors unless a write overtook their fill; the victim is never dirty.
    /// A valid victim of a fill from `peer` (>= 0) is handed to the peer policy.
    void install(std::uint64_t line, const std::uint8_t* data, cache::sector_mask sectors, int peer,
                 const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay);
    /// Updates the resident copy of the written bytes (clean) and marks a fill in flight stale;
    /// tells the peer policy which lines were written.
    void update_copy(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                     const std::uint8_t* be, unsigned be_len);
    /// Copies the enabled bytes of `s` out of the resident line.
    void copy_from_array(const segment& s) const;
    /// Copies the enabled bytes of `s` out of a line buffer holding its line.
    void copy_from_buffer(const segment& s, const std::uint8_t* line_data) const;
    std::uint8_t* take_buffer();

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
    cache::cache_stats m_cache_stats; ///< reads, writes, lookup outcomes, bytes, miss latency
    stats::counter m_invalidations, m_range_invalidations, m_lines_invalidated, m_tag_stalls,
        m_remote_reads, m_remote_hits, m_retries, m_data_misses;
    stats::average m_tag_wait;
    /// The sharing counters: reported by every L1 (zero without a policy), counted by the policy.
    int m_owner = -1;                    ///< see set_owner()
    std::unique_ptr<peer_policy> m_peer; ///< see attach_peer(); null: private or shared
    /// Fast mode: the reads answered with retry_ps whose replay has not come, in the order
    /// they were answered (the SM's replay order), each with the time it may go (see
    /// read_fast): the misses in line.
    std::deque<std::uint64_t> m_retry_waiters;
};

} // namespace vgpu::l1
