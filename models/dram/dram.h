// DRAM controller of one module: line-interleaved channels, each with banks, open-page row
// buffers and a request queue; a sparse backing store; DMI in fast mode.
// See models/dram/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/dram/core/address_mapping.h"
#include "models/dram/dram_channel.h"
#include "models/dram/dram_config.h"
#include "models/noc/occupancy_probe.h"
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
    unsigned channel_of(std::uint64_t addr) const { return m_map.channel(addr - m_base); }
    /// Channel, bank, row and column of physical address `addr` (inside this module).
    dram_address decode(std::uint64_t addr) const { return m_map.decode(addr - m_base); }
    /// Picoseconds a transfer of `bytes` occupies its channel's data bus.
    std::uint64_t transfer_ps(unsigned bytes) const { return m_timing.transfer_ps(bytes); }
    /// Channel `c` (its bank and bus state, for tests).
    const dram_channel& channel(unsigned c) const { return *m_channels.at(c); }
    /// Registers `<path>.ch<c>_busy` (1 while channel c's data bus transfers) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;

private:
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks the attributes; on failure sets the error response, warns and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    bool dmi_active() const { return m_cfg.dmi && !m_clk.accurate; }

    const dram_config m_cfg;
    const clock_params m_clk;
    const std::uint64_t m_base;
    const dram_timing m_timing;
    const address_mapping m_map;
    const sc_core::sc_time m_dmi_latency; ///< a read that finds its bank closed, no contention
    tlm_bus::sparse_store m_store;
    std::vector<std::unique_ptr<dram_channel>> m_channels;
    std::vector<std::unique_ptr<noc::occupancy_probe>> m_busy; ///< ch<c>_busy, per channel
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_bytes_read, m_bytes_written, m_errors, m_dmi_grants;
    stats::formula m_utilisation;
};

} // namespace vgpu::dram
