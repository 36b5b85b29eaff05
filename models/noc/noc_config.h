// Configuration of the NoC models: cluster crossbar, module NoC and inter-module links
// (section `noc`). See models/noc/README.md.
#pragma once

#include "models/common/config.h"
#include "models/noc/core/arbiter.h"

#include <cstdint>

namespace vgpu::noc {

/// Shape of the module NoC (config `noc.topology`); the mesh of the barrier-aware-arbiter
/// block is added here.
enum class topology_kind { crossbar };
} // namespace vgpu::noc

template <> struct vgpu::enum_names<vgpu::noc::topology_kind> {
    static constexpr std::pair<std::string_view, noc::topology_kind> table[] = {
        {"crossbar", noc::topology_kind::crossbar}};
};

namespace vgpu::noc {

/// Section `noc`: topology, arbitration, latencies and widths of the on-chip networks.
struct noc_config {
    topology_kind topology = topology_kind::crossbar; ///< shape of the module NoC
    arbiter_kind arbiter = arbiter_kind::round_robin; ///< output-port grant policy (accurate mode)
    unsigned hop_latency = 2;          ///< module NoC: cycles a request spends in a hop
    unsigned width_bytes = 32;         ///< bytes a crossbar or NoC port moves per NoC cycle
    unsigned xbar_hop_latency = 1;     ///< cluster crossbar: cycles a request spends in it
    duration link_latency{20000};      ///< inter-module link: one-way flight time
    double link_bandwidth_gbps = 64.0; ///< inter-module link: bytes per ns, each direction

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("topology", topology,
                 spec("shape of the module NoC: crossbar (every input reaches every output in "
                      "one hop)"));
        v.choice("arbiter", arbiter,
                 spec("grant policy of every crossbar, NoC and link port in accurate mode"));
        v.value("hop_latency", hop_latency,
                spec("module NoC: cycles a request spends in a hop, besides its transfer")
                    .range(0, 1000)
                    .unit("cycles"));
        v.value("width_bytes", width_bytes,
                spec("bytes a crossbar or NoC output port moves per NoC cycle")
                    .range(1, 4096)
                    .unit("bytes"));
        v.value("xbar_hop_latency", xbar_hop_latency,
                spec("cluster crossbar: cycles a request spends in it, besides its transfer")
                    .range(0, 1000)
                    .unit("cycles"));
        v.value(
            "link_latency", link_latency,
            spec("inter-module link: one-way flight time (a read pays it twice)").range(0, 1e6));
        v.value("link_bandwidth_gbps", link_bandwidth_gbps,
                spec("inter-module link: peak bandwidth of each direction; bytes per NoC cycle "
                     "= this x the NoC clock period")
                    .range(0.01, 1e4)
                    .unit("GB/s"));
    }

    /// Ranges are checked by the declaration; no combination of `noc` keys is invalid.
    void validate(config::checker&) const {}

    /// Bytes one direction of a link moves per NoC cycle of `noc_ps` picoseconds.
    double link_bytes_per_cycle(std::uint64_t noc_ps) const
    {
        return link_bandwidth_gbps * static_cast<double>(noc_ps) / 1000.0;
    }
};

} // namespace vgpu::noc
