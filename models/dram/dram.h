// DRAM controller of one module: line-interleaved channels with bandwidth and latency, a sparse
// backing store, DMI in fast mode. See models/dram/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/dram/dram_config.h"
#include "models/noc/occupancy_probe.h"
#include "models/noc/shared_resource.h"
#include "tlm_bus/sparse_store.h"

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

namespace vgpu::dram {

/// The memory of module m: physical addresses [base, base + size), channel = line % channels.
class dram : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<dram> in; ///< from the LLC slices (global PAs)

    /// `base` is the first physical address of this module; `line_bytes` the interleave unit.
    dram(const sc_core::sc_module_name& name, const dram_config& cfg, const clock_params& clk,
         std::uint64_t base, unsigned line_bytes);

    /// Withdraws every DMI grant from every initiator bound to `in`.
    void invalidate_dmi();
    /// Channel serving physical address `addr` (which must be inside this module).
    unsigned channel_of(std::uint64_t addr) const;
    /// DRAM cycles a transfer of `bytes` occupies its channel.
    unsigned transfer_cycles(unsigned bytes) const;
    /// Registers `<path>.ch<c>_busy` (1 while channel c transfers) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;

private:
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void before_end_of_elaboration() override;
    /// Checks the attributes; on failure sets the error response, warns and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    bool dmi_active() const { return m_cfg.dmi && !m_clk.accurate; }

    const dram_config m_cfg;
    const clock_params m_clk;
    const std::uint64_t m_base;
    const unsigned m_line_bytes;
    const double m_bytes_per_cycle;
    const sc_core::sc_time m_latency;
    tlm_bus::sparse_store m_store;
    std::vector<std::unique_ptr<noc::shared_resource>> m_channels; ///< built at elaboration end
    std::vector<std::unique_ptr<noc::occupancy_probe>> m_busy;     ///< ch<c>_busy, per channel
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_bytes_read, m_bytes_written, m_errors, m_dmi_grants;
    stats::formula m_utilisation;
};

} // namespace vgpu::dram
