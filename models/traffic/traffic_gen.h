// Traffic generator: drives reads and writes of a pattern through its bus port and checks
// every read against its own reference memory. See models/traffic/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/traffic/core/pattern.h"
#include "tlm_bus/initiator_port.h"

#include <memory>
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <unordered_map>
#include <vector>

namespace vgpu::traffic {

/// A self-checking initiator: `transactions` accesses from a pattern, timed by a quantum keeper.
class traffic_gen : public sc_core::sc_module {
public:
    tlm_bus::initiator_port mem; ///< all traffic

    traffic_gen(const sc_core::sc_module_name& name, const pattern_params& p,
                std::uint64_t transactions, bool check);
    bool finished() const { return m_finished; }                      ///< all transactions issued
    std::uint64_t mismatches() const { return m_mismatches.value(); } ///< wrong read data
    std::uint64_t failures() const { return m_errors.value(); }       ///< error responses
    /// Transactions completed so far (reads, writes and error responses).
    std::uint64_t done_transactions() const
    {
        return m_reads.value() + m_writes.value() + m_errors.value();
    }
    sc_core::sc_event done; ///< notified when finished

private:
    void run();
    /// The bytes written by transaction `seq` (deterministic, distinct per transaction).
    void fill(std::uint64_t seq, std::uint8_t* data) const;
    /// Reference bytes at region offset `offset` (an access never crosses a reference page);
    /// nullptr for a page never written (all zero). `create` allocates it first.
    std::uint8_t* reference(std::uint64_t offset, bool create);

    /// Granule of the reference memory: at least the largest access (traffic.access_bytes).
    static constexpr std::uint64_t ref_page_bytes = 4096;

    const pattern_params m_params;
    const std::uint64_t m_transactions;
    const bool m_check;
    /// Expected contents of the region: only the pages written so far (zero elsewhere), so a
    /// huge footprint costs only what the transactions touch.
    std::unordered_map<std::uint64_t, std::unique_ptr<std::uint8_t[]>> m_reference;
    tlm_utils::tlm_quantumkeeper m_qk;
    bool m_finished = false;
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_errors, m_mismatches;
    stats::average m_latency;
};

} // namespace vgpu::traffic
