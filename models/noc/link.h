// One direction of an inter-module link: bandwidth-limited channel plus flight latency.
// See models/noc/README.md.
#pragma once

#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/noc/noc_config.h"
#include "models/noc/shared_resource.h"

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::noc {

/// Carries requests from module a to module b (`link_<a>_<b>`) and their responses back, on
/// two channels of link_bandwidth_gbps each: a request occupies `channel` for its request bytes
/// (write data, or link_header_bytes of read header) and flies link_latency to b; its response
/// occupies `response` for its response bytes (read data, or link_header_bytes of write
/// acknowledgement) and flies link_latency back. With link_header_bytes = 0 (the default)
/// headers and acknowledgements ride a command sideband, so a read and a write side by side
/// share no channel time.
class link : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<link> in;     ///< requests entering at module a
    tlm_utils::simple_initiator_socket<link> out; ///< requests leaving at module b
    shared_resource channel;                      ///< request wires a -> b
    shared_resource response;                     ///< response wires b -> a

    link(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks);

    /// NoC cycles the channel is occupied by a request of `bytes` data bytes.
    unsigned occupancy_cycles(unsigned bytes) const;
    std::uint64_t requests() const { return m_requests.value(); } ///< b_transport calls
    std::uint64_t bytes() const { return m_bytes.value(); }       ///< data bytes carried
    /// One-way crossings so far (a request's and its response's each count) and their summed
    /// time (ps: channel queueing, occupancy and flight), for a consumer measuring the link.
    std::uint64_t crossings() const { return m_crossings; }
    std::uint64_t crossing_ps() const { return m_crossing_ps; }

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
    static resource_params channel_params(const noc_config& cfg, const clock_params& clocks);

    const sc_core::sc_time m_latency;
    const sc_core::sc_time m_cycle;
    const double m_bytes_per_cycle;
    const unsigned m_header_bytes;
    std::uint64_t m_crossings = 0, m_crossing_ps = 0;
    stats::group m_stats;
    stats::counter m_requests, m_bytes, m_busy_cycles, m_rsp_busy_cycles;
    stats::formula m_utilisation, m_bandwidth;
};

} // namespace vgpu::noc
