// One LLC slice: write-back, write-allocate, banked, MSHR merging; the point of coherence of
// the lines it is home to. See models/llc/README.md.
#pragma once

#include "models/cache/core/cache_controller.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/llc/llc_config.h"
#include "models/noc/occupancy_probe.h"
#include "models/noc/shared_resource.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace vgpu::llc {

/// An LLC slice in front of its module's DRAM controller.
class llc : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<llc> in; ///< from the module NoC (global physical addresses)
    tlm_bus::initiator_port out;             ///< fills and write-backs to the DRAM controller

    /// Timing from `clk`: hit latency and banks in NoC cycles; fast or accurate MSHR model.
    llc(const sc_core::sc_module_name& name, const llc_config& cfg, const clock_params& clk);

    /// Bank that serves the line of `addr` (the bank of its set).
    unsigned bank_of(std::uint64_t addr) const;
    /// Registers `<path>.mshrs_in_use` (MSHRs held by misses) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;

private:
    using segment = tlm_bus::line_segment;

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure warns, sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    tlm::tlm_response_status access(const segment& s, bool write, const tlm_bus::gpu_extension* ext,
                                    sc_core::sc_time& delay);
    tlm::tlm_response_status miss(const segment& s, bool write, const tlm_bus::gpu_extension* ext,
                                  const sc_core::sc_time& tag_done, sc_core::sc_time& delay);
    /// Allocates `line` until it is resident, writing dirty victims back first.
    void make_resident(std::uint64_t line, sc_core::sc_time& delay);
    void write_back(const cache::cache_array::victim& v, sc_core::sc_time& delay);
    /// Reads `s` out of, or writes it into (dirty), its resident line.
    void apply(const segment& s, bool write);
    /// Accurate mode: lets the annotated time pass, so the waiting requests see the result then.
    void settle(sc_core::sc_time& delay);
    std::uint8_t* take_buffer();

    const llc_config m_cfg;
    const bool m_accurate;
    const sc_core::sc_time m_cycle;    ///< NoC clock period
    const sc_core::sc_time m_hit;      ///< hit latency
    cache::cache_controller m_core;    ///< tags, data, MSHRs, write-back policy, outcome counts
    sc_core::sc_event m_mshr_freed;    ///< accurate mode: an MSHR entry was released
    tlm_bus::gpu_extension m_wb_attrs; ///< attributes of write-backs
    std::vector<std::unique_ptr<noc::shared_resource>> m_banks;
    noc::occupancy_probe m_mshrs_in_use; ///< misses holding an MSHR, in simulated time
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_errors;
    stats::formula m_hits, m_misses, m_merges, m_full_stalls, m_fills, m_writebacks, m_hit_rate;
    stats::average m_bank_wait, m_miss_latency;
};

} // namespace vgpu::llc
