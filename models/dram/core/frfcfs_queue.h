// The request queue of one DRAM channel in accurate mode, scheduled first-ready first-come
// first-served (row hits first, then the oldest). Pure C++; see models/dram/README.md.
#pragma once

#include "models/dram/core/channel_state.h"

#include <cstddef>
#include <cstdint>
#include <optional>
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
    /// Removes and returns the i-th oldest request.
    dram_request take(std::size_t i);
    /// The next edge after `edge` at which pick() can return a request if nothing else changes
    /// (no commit, no arrival); nothing when empty. Lets the controller sleep until then.
    std::optional<std::uint64_t> next_edge(const channel_state& ch, std::uint64_t edge,
                                           std::uint64_t cycle) const;

private:
    /// What a queued request finds when planned (scratch of pick() and next_edge()).
    struct planned {
        row_outcome outcome;
        bool ready;             ///< its first command is within this cycle
        std::uint64_t first_ps; ///< its first command
    };

    /// The last plan computed for a bank in one pick() or next_edge() call: requests to one
    /// row of a bank, queued together, find the same thing at the same start.
    struct bank_plan {
        bool valid = false;
        std::uint64_t row = 0, bytes = 0;
        access_plan plan;
    };
    /// The plan of `r` at `start`, from `m_last` when its bank's last plan was for its row.
    const access_plan& plan_of(const channel_state& ch, const dram_request& r,
                               std::uint64_t start) const;

    unsigned m_capacity;
    mutable std::vector<bank_plan> m_last;         ///< per bank, valid within one call
    mutable std::vector<std::uint8_t> m_hit_banks; ///< per bank: a queued request hits its row
    mutable std::vector<planned> m_scratch;        ///< per queued request, oldest first
    std::vector<dram_request> m_q;                 ///< oldest first
};

} // namespace vgpu::dram
