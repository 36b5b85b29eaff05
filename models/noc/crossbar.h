// Crossbar with contended output ports: the cluster crossbar and the module NoC.
// See models/noc/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/noc/noc_config.h"
#include "models/noc/shared_resource.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

namespace vgpu::noc {

/// Output index of a request, or -1 when no output serves its address.
using route_fn = std::function<int(const tlm::tlm_generic_payload&)>;

/// N inputs x M outputs; a builder-supplied route function picks the output, global physical
/// addresses pass unchanged. Each output port is a shared_resource: a request pays hop_latency
/// cycles, then waits for its output and occupies it for ceil(max(length, 8) / width_bytes)
/// NoC cycles.
class crossbar : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<crossbar> in;     ///< requesters, bind order = input
    tlm_utils::multi_passthrough_initiator_socket<crossbar> out; ///< targets, bind order = output

    /// `hop_latency_cycles` in NoC cycles (noc.hop_latency or noc.xbar_hop_latency).
    crossbar(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks,
             unsigned hop_latency_cycles);

    /// Sets the route function; call before the simulation starts.
    void set_route(route_fn route);
    /// NoC cycles an output is occupied by a request of `bytes` data bytes.
    unsigned occupancy_cycles(unsigned bytes) const;

    unsigned inputs() const { return m_inputs; }   ///< bound inputs (after elaboration)
    unsigned outputs() const { return m_outputs; } ///< bound outputs (after elaboration)
    std::uint64_t requests(unsigned output) const; ///< requests forwarded to an output
    std::uint64_t unmapped() const { return m_unmapped.value(); } ///< address errors returned

private:
    /// Statistics and contention of one output port.
    struct out_port {
        out_port(stats::group& g, unsigned index, const resource_params& p);
        shared_resource res;
        stats::counter requests, bytes;
    };

    void before_end_of_elaboration() override;
    void end_of_elaboration() override;
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);
    /// The output of `gp`, or -1 when it is unmapped.
    int route(const tlm::tlm_generic_payload& gp);

    const noc_config m_cfg;
    const clock_params m_clocks;
    const sc_core::sc_time m_hop;
    route_fn m_route;
    unsigned m_inputs = 0, m_outputs = 0;
    logger m_log;
    stats::group m_stats;
    std::vector<std::unique_ptr<out_port>> m_out;           ///< one per output binding
    std::vector<std::unique_ptr<stats::counter>> m_in_reqs; ///< one per input binding
    stats::counter m_unmapped;
    stats::average m_latency;
};

} // namespace vgpu::noc
