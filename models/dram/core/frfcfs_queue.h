// The request queue of one DRAM channel in accurate mode, scheduled first-ready first-come
// first-served (row hits first, then the oldest). Pure C++; see models/dram/README.md.
#pragma once

#include "models/dram/core/channel_state.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace vgpu::dram {

/// One queued access.
struct dram_request {
    unsigned bank = 0;            ///< bank within the channel
    std::uint64_t row = 0;        ///< row within the bank
    std::uint64_t bytes = 0;      ///< bytes moved
    bool write = false;           ///< a (posted) write
    std::uint64_t arrival_ps = 0; ///< when it entered the queue
    void* owner = nullptr;        ///< the caller's handle (opaque to the queue)
};

/// Up to `capacity` requests in arrival order. At each DRAM clock edge the controller issues,
/// one after the other, the requests pick() returns: among those whose first command can issue
/// within this cycle ([edge, edge + cycle)), the oldest row hit, else the oldest request.
/// A request that is not ready stays queued, so a younger row hit may overtake it. Row hits
/// first holds per bank too: a conflict does not PRECHARGE a bank while a queued request hits
/// the bank's open row (even one not ready this cycle, e.g. waiting for the data bus), as in
/// gem5's and Ramulator's FR-FCFS; otherwise the open rows of a stream are closed under the
/// hits that wait for the bus.
class frfcfs_queue {
public:
    /// `capacity` >= 1.
    explicit frfcfs_queue(unsigned capacity);

    bool full() const { return m_q.size() >= m_capacity; }            ///< no free entry
    bool empty() const { return m_q.empty(); }                        ///< nothing queued
    std::size_t size() const { return m_q.size(); }                   ///< entries in use
    unsigned capacity() const { return m_capacity; }                  ///< entries in all
    const dram_request& at(std::size_t i) const { return m_q.at(i); } ///< i-th oldest

    /// Appends `r` (the youngest); throws std::logic_error when full.
    void push(const dram_request& r);
    /// Index of the request to issue now, or nothing when no request can start this cycle.
    std::optional<std::size_t> pick(const channel_state& ch, std::uint64_t edge,
                                    std::uint64_t cycle) const;
    /// The plan of the request the last pick() returned, from the edge it was given: what
    /// channel_state::plan() gives it there (valid until the next call).
    const access_plan& picked_plan() const { return m_picked; }
    /// Removes and returns the i-th oldest request.
    dram_request take(std::size_t i);
    /// The next edge after `edge` at which pick() can return a request if nothing else changes
    /// (no commit, no arrival); nothing when empty. Lets the controller sleep until then.
    std::optional<std::uint64_t> next_edge(const channel_state& ch, std::uint64_t edge,
                                           std::uint64_t cycle) const;

private:
    /// What a group of queued requests finds when planned (scratch of next_edge()).
    struct planned {
        row_outcome outcome;
        std::uint64_t first_ps; ///< its first command
    };

    /// The queued requests of one bank to one row with one size: they find the same plan at
    /// any start, so pick() and next_edge() plan each group once, and its oldest member
    /// stands for it (FR-FCFS picks the oldest of equals).
    struct group {
        std::uint64_t row = 0, bytes = 0;
        std::uint64_t oldest = 0; ///< arrival number of its oldest member
        unsigned count = 0;       ///< members
        /// Its last plan, from `plan_start` on `plan_state` after `plan_commits` commits: the
        /// plan from any later start up to its first command while no commit changes it (see
        /// plan_of()).
        mutable access_plan plan{};
        mutable std::uint64_t plan_start = 0, plan_commits = 0;
        mutable const channel_state* plan_state = nullptr;
    };

    /// A plan computed in one pick() or next_edge() call: requests to one row of a bank find
    /// the same thing at the same start, so each (bank, row, bytes) is planned once per call
    /// (each (bank, outcome, bytes) where the bank has nothing booked after the start).
    struct bank_plan {
        std::uint64_t row = 0, bytes = 0;
        access_plan plan;
        std::size_t next = 0; ///< the bank's previous entry in m_plans, or none
    };
    static constexpr std::size_t none = ~std::size_t{0};
    /// Forgets the plans of the last call.
    void clear_plans(unsigned banks) const;
    /// Index in m_plans of the plan of an access to (`bank`, `row`, `bytes`) at `start`,
    /// computed once per call.
    std::size_t plan_index(const channel_state& ch, unsigned bank, std::uint64_t row,
                           std::uint64_t bytes, std::uint64_t start) const;
    /// The plan of `g`'s accesses (to `bank`) at `start`: its last plan when that still holds,
    /// else plan_index()'s. A plan started at s whose first command is at f is also the plan
    /// from any start in [s, f] (the gaps before s that did not hold it cannot hold it later,
    /// and in its own gap every time is a max of the start and fixed times, or a bus first fit
    /// from them), as long as no commit since changed it (channel_state::plan_holds()) and
    /// forget() dropped nothing at or after the new start.
    const access_plan& plan_of(const channel_state& ch, unsigned bank, const group& g,
                               std::uint64_t start) const;
    /// Index in m_q of the request with arrival number `seq` (queued).
    std::size_t index_of(std::uint64_t seq) const;

    /// True unless `bank` has no command before `before` when started at `start` (cached in
    /// m_may_start within one call).
    bool may_start(const channel_state& ch, unsigned bank, std::uint64_t start,
                   std::uint64_t before) const;

    /// What a bank's groups' plans add up to, from a call that planned them all at `start`:
    /// each is then its plan from any start in [start, min_first], so the summary holds there
    /// while no commit touches the bank or the bus over [data_lo, data_hi) and forget() drops
    /// nothing after the start (see plan_of()); a push or take of the bank drops it.
    struct bank_summary {
        bool valid = false;
        const channel_state* state = nullptr;
        std::uint64_t commits = 0;   ///< ch.commits() when it last held
        std::uint64_t start = 0;     ///< the start its plans were taken at
        std::uint64_t min_first = 0; ///< the earliest first command of its groups
        /// the earliest first command of the groups not held back (a conflict waits while the
        /// bank has a hit queued)
        std::uint64_t min_open = 0;
        std::uint64_t data_lo = 0, data_hi = 0; ///< the span of its groups' data slots
    };
    /// Bank `bank`'s summary when it holds at `start` (nullptr otherwise).
    const bank_summary* summary_at(const channel_state& ch, unsigned bank,
                                   std::uint64_t start) const;
    /// A bank's summary gathered while its groups are planned, one plan at a time.
    struct summary_builder {
        std::uint64_t min_first = ~std::uint64_t{0}, min_not_conflict = ~std::uint64_t{0};
        std::uint64_t data_lo = ~std::uint64_t{0}, data_hi = 0;
        bool hits = false;
        void add(const access_plan& p)
        {
            min_first = std::min(min_first, p.first_ps);
            if (p.outcome != row_outcome::conflict)
                min_not_conflict = std::min(min_not_conflict, p.first_ps);
            data_lo = std::min(data_lo, p.data_ps);
            data_hi = std::max(data_hi, p.end_ps);
            hits = hits || p.outcome == row_outcome::hit;
        }
    };
    /// Records bank `bank`'s summary from `s`, every group of the bank planned at `start`.
    void summarise(const channel_state& ch, unsigned bank, std::uint64_t start,
                   const summary_builder& s) const;

    unsigned m_capacity;
    mutable std::vector<bank_summary> m_summary;   ///< per bank
    mutable std::vector<bank_plan> m_plans;        ///< the plans of this call
    mutable std::vector<std::size_t> m_first_plan; ///< per bank: its latest entry, or none
    /// Per bank, within one call: null (not known yet), &m_booked_after (it has a booking
    /// after the start), else channel_state::state_at() (its plans depend on the row only
    /// through the outcome).
    mutable std::vector<const bank_state*> m_state_at;
    bank_state m_booked_after;                     ///< a marker, never read
    mutable std::vector<planned> m_scratch;        ///< next_edge(): per group of a bank
    mutable std::vector<std::uint8_t> m_may_start; ///< per bank: 0 unknown, 1 may, 2 may not
    /// next_edge(): the banks with requests by the earliest edge any of them could start.
    mutable std::vector<std::pair<std::uint64_t, unsigned>> m_bounds;
    std::vector<std::vector<group>> m_groups; ///< per bank, in no particular order
    std::vector<std::uint64_t> m_seq;         ///< arrival number of each entry of m_q
    std::uint64_t m_arrivals = 0;             ///< arrival number of the next push()
    mutable access_plan m_picked;             ///< see picked_plan()
    std::vector<dram_request> m_q;            ///< oldest first
};

} // namespace vgpu::dram
