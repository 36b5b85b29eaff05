// One DRAM channel: banks with row buffers, the data bus, the request queue (FR-FCFS per DRAM
// clock edge in accurate mode, bank-state booking in call order in fast mode) and statistics.
// See models/dram/README.md.
#pragma once

#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/dram/core/channel_state.h"
#include "models/dram/core/frfcfs_queue.h"
#include "models/dram/core/queue_booking.h"
#include "models/noc/occupancy_probe.h"

#include <cstdint>
#include <deque>
#include <systemc>
#include <vector>

namespace vgpu::dram {

/// The timing side of one channel; the controller (dram) moves the data and calls access().
class dram_channel : public sc_core::sc_module {
public:
    /// `latency` is the controller's fixed pipeline latency, added to reads after the transfer.
    dram_channel(const sc_core::sc_module_name& name, const dram_timing& t, unsigned banks,
                 unsigned queue_entries, std::uint64_t latency_ps, const clock_params& clk);

    /// Times one access of `bytes` to `row` of `bank`, arriving at now + `delay`. On return a
    /// read's `delay` covers the queue, the bank commands, the transfer and the pipeline
    /// latency; a write's (posted) only the wait for a free queue entry. Accurate mode: the
    /// request is registered with its arrival time and the caller waits once, until a read is
    /// issued or a write queued (call it from the transaction's own thread).
    void access(unsigned bank, std::uint64_t row, unsigned bytes, bool write,
                sc_core::sc_time& delay);

    const channel_state& state() const { return m_state; } ///< banks and bus (for tests)
    /// Reports every data-bus occupancy to `probe` (the waveform's ch<c>_busy), or to nothing.
    void set_busy_probe(noc::occupancy_probe* probe) { m_probe = probe; }

private:
    /// Accurate mode: a transaction waiting inside access().
    struct pending {
        dram_request req;
        std::uint64_t seq = 0;       ///< registration order (of requests that arrive together)
        sc_core::sc_event done;      ///< admitted (blocked write) or issued (read)
        std::uint64_t finish_ps = 0; ///< read: end of the transfer + latency
    };
    void access_fast(dram_request r, sc_core::sc_time& delay);
    void access_accurate(dram_request r, sc_core::sc_time& delay);
    /// Accurate mode: at each DRAM clock edge with work, issues what FR-FCFS picks.
    void schedule();
    /// Accurate mode: puts `p` into the queue at `now`.
    void admit(pending& p, std::uint64_t now);
    /// Accurate mode: the registered requests that have arrived by `now` enter the queue (or
    /// wait for a free entry), in arrival order, each at its arrival time.
    void arrive(std::uint64_t now);
    /// The registered request that arrives first (m_incoming's top) comes before `b`.
    static bool arrives_later(const pending* a, const pending* b)
    {
        return a->req.arrival_ps != b->req.arrival_ps ? a->req.arrival_ps > b->req.arrival_ps
                                                      : a->seq > b->seq;
    }
    /// Integrates the queue occupancy up to `now` (before its size changes).
    void note_queue(std::uint64_t now);
    /// Statistics of one issued access.
    void account(const dram_request& r, const access_plan& p);

    const std::uint64_t m_latency_ps;
    const clock_params m_clk;
    channel_state m_state;
    frfcfs_queue m_queue; ///< accurate mode
    /// accurate mode: registered requests that have not arrived yet (a heap, first on top)
    std::vector<pending*> m_incoming;
    std::uint64_t m_registered = 0;
    /// accurate mode: when the scheduler wakes next unless notified (a registration that
    /// arrives earlier wakes it)
    std::uint64_t m_wake_ps = 0;
    std::deque<pending*> m_blocked; ///< accurate mode: arrived while the queue was full
    queue_booking m_stays;          ///< fast mode
    sc_core::sc_event m_arrived;    ///< accurate mode: a request was registered
    std::uint64_t m_queue_since = 0;
    unsigned m_queue_max = 0;
    noc::occupancy_probe* m_probe = nullptr;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_hits, m_misses, m_conflicts, m_opened_ahead, m_full,
        m_busy_ps, m_queue_ps;
    stats::average m_wait, m_service;
    stats::formula m_occupancy, m_max, m_utilisation;
};

} // namespace vgpu::dram
