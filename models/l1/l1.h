// L1 data cache of one SM: read-allocate, write-through, no-write-allocate, MSHR merging,
// invalidated at kernel boundaries (epoch). See models/l1/README.md.
#pragma once

#include "models/cache/core/cache_array.h"
#include "models/cache/core/mshr_table.h"
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
#include <vector>

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
    /// Fast mode: a line fill and the time its data arrives.
    struct fill_slot {
        std::uint64_t line = 0;  ///< line address
        std::uint64_t ready = 0; ///< arrival of the data (sc_time value)
    };

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
    /// Allocates `line` (never dirty: an L1 holds no dirty data) and fills it from `data`.
    void install(std::uint64_t line, const std::uint8_t* data);
    /// Copies the enabled bytes of `s` out of the resident line.
    void copy_from_array(const segment& s) const;
    /// Copies the enabled bytes of `s` out of a line buffer holding its line.
    void copy_from_buffer(const segment& s, const std::uint8_t* line_data) const;
    std::uint8_t* take_buffer();
    void give_buffer(std::uint8_t* b) { m_free_buffers.push_back(b); }

    const l1_config m_cfg;
    const bool m_accurate;
    const sc_core::sc_time m_hit; ///< hit latency
    cache::cache_array m_array;
    cache::mshr_table<std::uint8_t> m_mshr;    ///< accurate mode: fills in flight
    std::vector<fill_slot> m_slots;            ///< fast mode: one per MSHR
    std::vector<std::uint64_t> m_stale;        ///< accurate mode: fills overtaken by a write
    std::vector<std::uint8_t> m_buffer_store;  ///< one line buffer per MSHR
    std::vector<std::uint8_t*> m_free_buffers; ///< unused line buffers
    sc_core::sc_event m_fill_done;             ///< accurate mode: an MSHR was released
    std::uint32_t m_epoch = 0;                 ///< newest epoch seen
    logger m_log;
    stats::group m_stats;
    stats::counter m_reads, m_writes, m_hits, m_misses, m_merges, m_full_stalls, m_invalidations,
        m_errors;
    stats::formula m_hit_rate;
    stats::average m_miss_latency;
};

} // namespace vgpu::l1
