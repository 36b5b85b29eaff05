// One LLC slice: write-back, write-allocate, banked, MSHR merging; the point of coherence of
// the lines it is home to. See models/llc/README.md.
#pragma once

#include "models/cache/cache_stats.h"
#include "models/cache/core/cache_controller.h"
#include "models/cache/mshr_waits.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/llc/llc_config.h"
#include "models/llc/llc_switcher.h"
#include "models/noc/core/address_map.h"
#include "models/noc/occupancy_probe.h"
#include "models/noc/shared_resource.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vgpu::llc {

/// An LLC slice in front of its module's DRAM controller.
class llc : public sc_core::sc_module, public slice_if {
public:
    tlm_utils::simple_target_socket<llc> in; ///< from the module NoC (global physical addresses)
    tlm_bus::initiator_port out;             ///< fills and write-backs to the DRAM controller

    /// Timing from `clk`: hit latency and banks in NoC cycles; fast or accurate MSHR model.
    llc(const sc_core::sc_module_name& name, const llc_config& cfg, const clock_params& clk);

    /// Bank that serves the line of `addr` (the bank of its set).
    unsigned bank_of(std::uint64_t addr) const;
    /// Registers `<path>.mshrs_in_use` (MSHRs held by misses) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;
    /// On a multi-module GPU: this slice belongs to `module` of `map`, and `sw` switches the
    /// organisation (before simulation). Without it the slice is shared-mode only.
    void attach(llc_switcher& sw, unsigned module, const noc::address_map& map);

    unsigned drop_remote_lines() override;
    unsigned drop_remote_range(std::uint64_t pa, std::uint64_t bytes) override;
    unsigned tag_walk_cycles() const override
    {
        return (m_cfg.sets + m_cfg.banks - 1) / m_cfg.banks;
    }

private:
    using segment = tlm_bus::line_segment;

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure warns, sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);
    tlm::tlm_response_status access(const segment& s, bool write, const tlm_bus::gpu_extension* ext,
                                    sc_core::sc_time& delay);
    tlm::tlm_response_status miss_fast(const segment& s, bool write, const cache::sector_cover& c,
                                       const cache::cache_controller::timed_outcome& t,
                                       const tlm_bus::gpu_extension* ext, std::uint64_t tag_done,
                                       sc_core::sc_time& delay);
    tlm::tlm_response_status
    miss_accurate(const segment& s, bool write, const cache::sector_cover& c,
                  cache::cache_controller::request& r, const tlm_bus::gpu_extension* ext,
                  const sc_core::sc_time& tag_done, sc_core::sc_time& delay);
    /// Reads the sectors `fetch` of `line` from DRAM into `buf` (an image of the line).
    tlm::tlm_response_status fetch(std::uint64_t line, cache::sector_mask fetch, std::uint8_t* buf,
                                   const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay);
    /// Writes the dirty sectors of a victim to DRAM, one write per run of adjacent dirty
    /// sectors, all starting at `delay`; returns the latest completion (delay after the call).
    sc_core::sc_time write_victim(std::uint64_t line, const std::uint8_t* data,
                                  cache::sector_mask dirty, const sc_core::sc_time& delay);
    /// Accurate mode: writes buffered victim `entry` to DRAM, then frees the entry.
    void drain(unsigned entry);
    /// Reads `s` out of, or writes it into (dirty), its resident line; a write first makes the
    /// sectors it covers whole valid; `atomic` (the extension of an atomic, else nullptr): the
    /// word's read-modify-write, its old value back in the segment's data.
    void apply(const segment& s, bool write, const tlm_bus::gpu_extension* atomic,
               cache::sector_mask whole);
    /// Accurate mode: lets the annotated time pass, so the waiting requests see the result then.
    void settle(sc_core::sc_time& delay);
    std::uint8_t* take_buffer();
    /// True when `addr` is homed on another module (a private copy, llc.mode private).
    bool remote(std::uint64_t addr) const;
    /// A write or atomic to a line homed elsewhere: passed through to its home (write
    /// through), the resident copy's valid sectors patched with the result.
    tlm::tlm_response_status write_home(const segment& s, const tlm_bus::gpu_extension* ext,
                                        sc_core::sc_time& delay);
    /// A read of a read-only line homed elsewhere (llc.remote_ways): served by the remote
    /// ways, a miss filled through the home. `delay` is at the tag check.
    tlm::tlm_response_status read_remote_ways(const segment& s, cache::sector_mask need,
                                              const tlm_bus::gpu_extension* ext, bool local,
                                              sc_core::sc_time& delay);
    /// The extension of a request to a line's home: `ext`'s, marked home_access.
    static tlm_bus::gpu_extension home_ext(const tlm_bus::gpu_extension* ext);

    const llc_config m_cfg;
    const bool m_accurate;
    const sc_core::sc_time m_cycle; ///< NoC clock period
    const sc_core::sc_time m_hit;   ///< hit latency
    cache::cache_controller m_core; ///< tags, data, MSHRs, write-back buffer, outcome counts
    cache::mshr_waits m_waits;      ///< accurate mode: merges and stalled misses waiting
    /// accurate mode: an MSHR or buffer entry was released (a miss waiting for a way that is
    /// not pinned, or for a buffer entry, looks again)
    sc_core::sc_event m_released;
    std::vector<std::unique_ptr<sc_core::sc_event>> m_drain_go; ///< accurate: entry i filled
    tlm_bus::gpu_extension m_wb_attrs;                          ///< attributes of write-backs
    std::vector<std::unique_ptr<noc::shared_resource>> m_banks;
    noc::occupancy_probe m_mshrs_in_use; ///< misses holding an MSHR, in simulated time
    llc_switcher* m_switcher = nullptr;  ///< organisation control (multi-module GPUs)
    bool m_measure = false; ///< llc.mode adaptive: lookups and DRAM fills timed for the monitor
    /// llc.remote_ways: read-only lines of other modules (sets x remote_ways, always clean)
    std::unique_ptr<cache::cache_array> m_remote_ways;
    /// Accurate mode: remote-way fills in flight, by line (reads of the line wait for them).
    std::unordered_map<std::uint64_t, std::shared_ptr<sc_core::sc_event>> m_remote_fills;
    /// Accurate mode: lines homed elsewhere whose frame was invalidated while their fill was in
    /// flight; the fill is not kept.
    std::unordered_set<std::uint64_t> m_stale_fills;
    /// Accurate mode: writes and atomics of this slice on their way to the home of a line homed
    /// elsewhere, by line; a fill of the line's copy is not issued while one is in flight.
    std::unordered_map<std::uint64_t, unsigned> m_home_writes_in_flight;
    sc_core::sc_event m_home_written; ///< accurate mode: a write to a home has completed
    std::uint64_t m_copy_drops = 0;   ///< drop_remote_lines calls (the module left private)
    unsigned m_module = 0;
    std::optional<noc::address_map> m_map;
    logger m_log;
    stats::group m_stats;
    cache::cache_stats m_cache_stats; ///< reads, writes, lookup outcomes, bytes, miss latency
    stats::counter m_writeback_bytes, m_wb_read_waits, m_local_lookups, m_local_hits,
        m_remote_lookups, m_remote_hits, m_home_writes, m_switch_waits, m_remote_way_hits,
        m_remote_way_misses, m_range_lookups, m_range_dropped;
    stats::formula m_fills, m_writebacks, m_wb_full_stalls, m_local_hit_rate, m_remote_hit_rate;
    stats::average m_bank_wait, m_wb_occupancy;
};

} // namespace vgpu::llc
