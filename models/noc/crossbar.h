// Crossbar with contended output ports: the cluster crossbar and the module NoC.
// See models/noc/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/noc/interconnect.h"
#include "models/noc/noc_config.h"
#include "models/noc/shared_resource.h"

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

namespace vgpu::noc {

/// N inputs x M outputs in one hop: the route function picks the output. Each output port is a
/// shared_resource named after the port: a request pays hop_latency cycles, then waits for its
/// output and occupies it for ceil(max(length, 8) / width_bytes) NoC cycles.
class crossbar : public interconnect {
public:
    /// `hop_latency_cycles` in NoC cycles (noc.hop_latency or noc.xbar_hop_latency).
    crossbar(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks,
             unsigned hop_latency_cycles);

    /// NoC cycles an output is occupied by a request of `bytes` data bytes.
    unsigned occupancy_cycles(unsigned bytes) const;

    std::uint64_t requests(unsigned output) const; ///< requests forwarded to an output
    std::uint64_t unmapped() const { return m_unmapped.value(); } ///< address errors returned

private:
    /// Statistics and contention of one output port.
    struct out_port {
        out_port(stats::group& g, const std::string& port, const resource_params& p);
        shared_resource res;
        stats::counter requests, bytes;
    };

    void create_ports() override;
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp) override;
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override;

    const noc_config m_cfg;
    const clock_params m_clocks;
    const sc_core::sc_time m_hop;
    logger m_log;
    stats::group m_stats;
    std::vector<std::unique_ptr<out_port>> m_out;           ///< one per output
    std::vector<std::unique_ptr<stats::counter>> m_in_reqs; ///< one per input
    stats::counter m_unmapped;
    stats::average m_latency;
};

} // namespace vgpu::noc
