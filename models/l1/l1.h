// L1 data cache of one SM: read-allocate, write-through, no-write-allocate, MSHR merging,
// invalidated at kernel boundaries (epoch). See models/l1/README.md.
#pragma once

#include "models/cache/core/cache_controller.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/l1/l1_config.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::l1 {

/// The L1 of one SM; lines are never dirty, so it never writes back.
class l1 : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<l1> in; ///< physical requests from the SM's xlate
    tlm_bus::initiator_port out;            ///< line fills and write-through to the crossbar

    /// Timing from `clk`: the hit latency is in core cycles; fast or accurate MSHR model.
    l1(const sc_core::sc_module_name& name, const l1_config& cfg, const clock_params& clk);

private:
    using segment = tlm_bus::line_segment;

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure warns, sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    void new_epoch(std::uint32_t epoch);
    tlm::tlm_response_status read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    void write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    tlm::tlm_response_status read_fast(const segment& s, const tlm_bus::gpu_extension* ext,
                                       sc_core::sc_time& delay);
    tlm::tlm_response_status read_accurate(const segment& s, const tlm_bus::gpu_extension* ext,
                                           sc_core::sc_time& delay);
    /// Installs a fetched line unless a write overtook its fill; the victim is never dirty.
    void install(std::uint64_t line, const std::uint8_t* data);
    /// Copies the enabled bytes of `s` out of the resident line.
    void copy_from_array(const segment& s) const;
    /// Copies the enabled bytes of `s` out of a line buffer holding its line.
    void copy_from_buffer(const segment& s, const std::uint8_t* line_data) const;
    std::uint8_t* take_buffer();

    const l1_config m_cfg;
    const bool m_accurate;
    const sc_core::sc_time m_hit;   ///< hit latency
    cache::cache_controller m_core; ///< tags, data, MSHRs, write-through policy, outcome counts
    sc_core::sc_event m_fill_done;  ///< accurate mode: an MSHR was released
    std::uint32_t m_epoch = 0;      ///< newest epoch seen
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_invalidations, m_errors;
    stats::formula m_hits, m_misses, m_merges, m_full_stalls, m_hit_rate;
    stats::average m_miss_latency;
};

} // namespace vgpu::l1
