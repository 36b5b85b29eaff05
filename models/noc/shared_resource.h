// A point of contention (crossbar or NoC output port, link, LLC bank, DRAM channel): busy-until
// accounting in fast mode, per-cycle arbitration among waiting requests in accurate mode.
// See docs/architecture.md ("Timing").
#pragma once

#include "models/common/stats.h"
#include "models/noc/core/arbiter.h"
#include "models/noc/noc_config.h"
#include "tlm_bus/busy_timeline.h"
#include "tlm_bus/gpu_extension.h"

#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <systemc>
#include <vector>

namespace vgpu::noc {

/// Construction parameters of a shared resource.
struct resource_params {
    bool accurate = false;                           ///< arbitrate per cycle (else busy-until)
    sc_core::sc_time cycle{1, sc_core::SC_NS};       ///< clock period of the resource
    arbiter_kind policy = arbiter_kind::round_robin; ///< accurate mode: grant policy
    unsigned inputs = 1;                             ///< requesters that compete (input ports)
    std::uint64_t max_wait_cycles = 0;               ///< barrier_aware ageing (0: none)
    /// Accurate mode: the C++ arbiter or the verilated RTL (noc.arbiter_impl; NoC ports only).
    arbiter_impl_kind impl = arbiter_impl_kind::tlm;
    /// Accurate mode: slots of the buffer this resource feeds (a mesh link's next router);
    /// a grant takes one, return_credit() gives it back; 0 = no credits (always grantable).
    unsigned credits = 0;
};

/// A port the configuration asks for but that cannot be built, found when the port is made (at
/// elaboration: only then are its inputs known). `key` names the configuration key at fault;
/// the platform's builder reports it at the place that set the key.
class port_config_error : public std::runtime_error {
public:
    port_config_error(std::string key_, const std::string& problem)
        : std::runtime_error(problem), key(std::move(key_))
    {
    }
    std::string key; ///< "noc.arbiter_impl"
};

/// Serves one request at a time, each for a number of cycles. Call use() from the thread that
/// carries the transaction (b_transport), with that transaction's annotated delay.
class shared_resource : public sc_core::sc_module {
public:
    shared_resource(const sc_core::sc_module_name& name, const resource_params& p);

    /// use() without an age.
    static constexpr std::uint64_t no_age = ~std::uint64_t{0};

    /// Occupies the resource for `cycles` cycles on behalf of input `input`. On return `delay`
    /// includes the queueing and the occupancy. Accurate mode: waits (lock-step callers only).
    /// `ext` gives the request's barrier count (gpu_extension::barrier_waiting) and its source
    /// SM (gpu_extension::sm: under barrier_aware each input keeps one queue per source SM and
    /// the heads of all of them compete); responses and requests without one pass nullptr
    /// (count 0, no SM: one queue). `age`: when the transaction entered
    /// the interconnect (ps); of the requests of one input that arrive at the same time, the
    /// oldest is served first (accurate mode; fast mode books in call order). Without it they
    /// are served in the order their threads reach the resource.
    void use(unsigned input, const tlm_bus::gpu_extension* ext, unsigned cycles,
             sc_core::sc_time& delay, std::uint64_t age = no_age);

    std::uint64_t grants() const { return m_grants.value(); } ///< requests served
    /// Accurate mode with credits: a slot of the buffer it feeds is free again.
    void return_credit();
    /// Accurate mode with credits: times requests waited because the buffer fed was full.
    std::uint64_t credit_stalls() const { return m_credit_stalls ? m_credit_stalls->value() : 0; }

private:
    struct request {
        unsigned input;
        int source; ///< issuing SM (gpu_extension::sm), -1 if none
        unsigned barrier_count;
        sc_core::sc_time arrival;
        std::uint64_t order; ///< arrival order at this resource
        std::uint64_t age;   ///< when it entered the interconnect (ps), or no_age
        unsigned cycles;
        sc_core::sc_event granted;
    };
    /// The requests of one source SM at one input, in arrival order (barrier_aware).
    struct source_queue {
        int source;
        std::deque<request*> q;
    };
    void arbitrate();
    /// barrier_aware: the request input i offers at `edge`: its oldest when that one has aged
    /// past max_wait_cycles, else the head of its SM queues with the highest barrier count
    /// (ties: the earliest arrived); null when none has arrived by `edge`.
    request* source_head(unsigned i, const sc_core::sc_time& edge);
    sc_core::sc_time next_edge(const sc_core::sc_time& t) const;

    const resource_params m_p;
    tlm_bus::busy_timeline m_busy;               ///< fast mode
    std::unique_ptr<arbiter> m_arbiter;          ///< accurate mode
    std::vector<std::deque<request*>> m_waiting; ///< accurate mode, per input, arrival order
    /// accurate mode, barrier_aware: per input, one queue per source SM (m_waiting split)
    std::vector<std::vector<source_queue>> m_sources;
    std::vector<request*> m_offered; ///< barrier_aware: per input, the request it offers
    const bool m_per_source;         ///< barrier_aware: per-SM queues
    std::vector<candidate> m_cands;
    std::vector<unsigned> m_nonempty; ///< accurate mode: inputs with requests waiting
    std::vector<unsigned> m_marked;   ///< accurate mode: inputs m_cands marks valid
    std::size_t m_pending = 0;
    unsigned m_credits = 0; ///< free slots of the buffer fed (with resource_params::credits)
    std::uint64_t m_arrivals = 0;
    sc_core::sc_event m_work;
    stats::group m_stats;
    stats::counter m_grants, m_busy_cycles, m_busy_ps, m_by_priority, m_by_age;
    stats::average m_wait;
    std::unique_ptr<stats::counter> m_credit_stalls; ///< only with credits
};

} // namespace vgpu::noc
