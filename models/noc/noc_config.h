// Configuration of the NoC models: cluster crossbar, module NoC and inter-module links
// (section `noc`). See models/noc/README.md.
#pragma once

#include "models/common/config.h"
#include "models/noc/core/arbiter.h"

#include <cstdint>

namespace vgpu::noc {

/// Shape of the module NoC (config `noc.topology`).
enum class topology_kind {
    crossbar, ///< every input reaches every output in one hop
    mesh      ///< a 2D mesh of routers with XY routing (models/noc/mesh.h)
};
} // namespace vgpu::noc

template <> struct vgpu::enum_names<vgpu::noc::topology_kind> {
    static constexpr std::pair<std::string_view, noc::topology_kind> table[] = {
        {"crossbar", noc::topology_kind::crossbar}, {"mesh", noc::topology_kind::mesh}};
};

namespace vgpu::noc {
/// What makes the output ports' grants (config `noc.arbiter_impl`).
enum class arbiter_impl_kind {
    tlm, ///< the C++ core (models/noc/core/arbiter.h)
    rtl  ///< the verilated RTL (models/noc/rtl) behind its adapter; accurate mode only
};

/// Inputs of the largest port the RTL arbiter serves (noc_arbiter.sv verilated for N = 64).
constexpr unsigned rtl_arbiter_max_inputs = 64;
/// The largest noc.max_wait_cycles the RTL arbiter holds (its 16-bit `max_wait`).
constexpr unsigned rtl_arbiter_max_wait = 65535;
/// True when this build has the verilated arbiter (verilator found at configure time,
/// cmake/dependencies.cmake VGPU_RTL).
bool rtl_arbiter_built();
} // namespace vgpu::noc

template <> struct vgpu::enum_names<vgpu::noc::arbiter_impl_kind> {
    static constexpr std::pair<std::string_view, noc::arbiter_impl_kind> table[] = {
        {"tlm", noc::arbiter_impl_kind::tlm}, {"rtl", noc::arbiter_impl_kind::rtl}};
};

namespace vgpu::noc {

/// Widths and latencies of one interconnect level, per direction (requests travel to the
/// outputs, responses back to the inputs on their own channels).
struct path_params {
    unsigned request_width = 32;  ///< bytes a request channel moves per NoC cycle
    unsigned response_width = 32; ///< bytes a response channel moves per NoC cycle
    unsigned request_hop = 1;     ///< NoC cycles of a request's hop, besides its transfer
    unsigned response_hop = 1;    ///< NoC cycles of a response's hop, besides its transfer
    /// Data-channel bytes of a read's request header or a write's acknowledgement; 0 = they
    /// take one cycle of the port's command channel instead (one header per NoC cycle).
    unsigned header_bytes = 0;
    /// Class of the interconnect (the module NoC follows noc.topology; crossbars stay).
    topology_kind topology = topology_kind::crossbar;
    unsigned mesh_columns = 0;      ///< mesh: routers per row; 0 = from the endpoint count
    unsigned mesh_rows = 0;         ///< mesh: routers per column; 0 = from the endpoint count
    unsigned mesh_buffer_depth = 4; ///< mesh, accurate mode: packets per router input buffer
    /// A response also holds its target's port (the output's response channel). Off only for
    /// the l1_route crossbar of l1.sharing, whose home L1s' ports are not a resource yet
    /// (models/noc/README.md, "A target's port is a resource").
    bool target_ports = true;
};

/// Section `noc`: topology, arbitration, latencies and widths of the on-chip networks.
struct noc_config {
    topology_kind topology = topology_kind::crossbar; ///< shape of the module NoC
    arbiter_kind arbiter = arbiter_kind::round_robin; ///< output-port grant policy (accurate mode)
    arbiter_impl_kind arbiter_impl = arbiter_impl_kind::tlm; ///< C++ core or verilated RTL
    unsigned max_wait_cycles = 0;      ///< barrier_aware: a request this old wins (0: no ageing)
    unsigned hop_latency = 2;          ///< module NoC: cycles a request spends in a hop
    unsigned width_bytes = 32;         ///< bytes a crossbar or NoC port moves per NoC cycle
    unsigned xbar_hop_latency = 1;     ///< cluster crossbar: cycles a request spends in it
    duration link_latency{20000};      ///< inter-module link: one-way flight time
    double link_bandwidth_gbps = 64.0; ///< inter-module link: bytes per ns, each direction
    unsigned link_header_bytes = 0;    ///< link data-channel bytes of a read header or a write ack
    unsigned request_width_bytes = 0;  ///< module NoC request channels; 0 = width_bytes
    unsigned response_width_bytes = 0; ///< module NoC response channels; 0 = width_bytes
    std::int64_t response_hop_latency = -1;      ///< module NoC responses; -1 = hop_latency
    unsigned xbar_request_width_bytes = 0;       ///< cluster crossbar requests; 0 = width_bytes
    unsigned xbar_response_width_bytes = 0;      ///< cluster crossbar responses; 0 = width_bytes
    std::int64_t xbar_response_hop_latency = -1; ///< cluster crossbar; -1 = xbar_hop_latency
    unsigned header_bytes = 0;      ///< module NoC data-channel bytes of a read header / write ack
    unsigned xbar_header_bytes = 0; ///< cluster crossbar: the same; 0 = command channel
    unsigned mesh_columns = 0;      ///< mesh: routers per row; 0 = auto
    unsigned mesh_rows = 0;         ///< mesh: routers per column; 0 = auto
    unsigned mesh_buffer_depth = 4; ///< mesh, accurate mode: packets per router input buffer

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("topology", topology,
                 spec("shape of the module NoC: crossbar (every input reaches every output in "
                      "one hop); mesh (a 2D grid of routers with XY routing, noc.hop_latency "
                      "per router, one link per neighbour and direction, requests and "
                      "responses on separate planes; cluster crossbars stay crossbars; "
                      "models/noc/README.md \"Mesh topology\")"));
        v.value("mesh_columns", mesh_columns,
                spec("mesh: routers per row; 0 = the smallest near-square grid that gives "
                     "every input and every output its own router (with noc.mesh_rows 0 too)")
                    .range(0, 256));
        v.value("mesh_rows", mesh_rows,
                spec("mesh: routers per column; 0 = the fewest rows that hold the endpoints "
                     "(with a grid smaller than the endpoints, endpoints share routers)")
                    .range(0, 256));
        v.value("mesh_buffer_depth", mesh_buffer_depth,
                spec("mesh, accurate mode: packets each router input buffer holds (per input "
                     "port and plane); credit-based back-pressure: a packet leaves a router "
                     "only when the next one has a free slot, so a full buffer stalls the "
                     "sender and nothing is dropped. Fast mode has no credits (links are "
                     "booked, never beyond their bandwidth)")
                    .range(1, 4096)
                    .unit("packets"));
        v.choice(
            "arbiter", arbiter,
            spec("grant policy of every crossbar, NoC (every mesh router output) and link port "
                 "in accurate mode: "
                 "round_robin (inputs in turn, each input's requests in arrival order); "
                 "barrier_aware (seed 004: each input keeps one queue per source SM and the "
                 "heads of all SM queues bound for the port are ranked by their SM's warps "
                 "waiting at a barrier, most first; ties round-robin among inputs, then the "
                 "earliest; an SM's own requests never overtake each other); fifo (oldest "
                 "first). Fast mode books ports in arrival order: the policy has no effect "
                 "there (a run that sets it warns once)"));
        v.choice(
            "arbiter_impl", arbiter_impl,
            spec("what makes the grants of every crossbar, NoC (every mesh router output) and "
                 "link port: tlm (the C++ arbiter, models/noc/core) or rtl (the arbiter's "
                 "SystemVerilog, models/noc/rtl/noc_arbiter.sv, verilated and stepped one clock "
                 "per cycle at which a port has a request; the same grants). rtl needs "
                 "accurate mode, noc.arbiter round_robin or barrier_aware, "
                 "noc.max_wait_cycles at most 65535, ports of at most 64 inputs, and a build "
                 "with Verilator (models/noc/rtl/README.md)"));
        v.value("max_wait_cycles", max_wait_cycles,
                spec("barrier_aware: ageing, an addition not in the patent (seed 004 ranks by "
                     "barrier count alone): an input's oldest request that has waited this many "
                     "NoC cycles wins regardless of barrier counts (round-robin among such "
                     "requests), so a request is granted within max_wait_cycles + inputs - 1 "
                     "grants after it became its input's oldest; 0 (default) disables ageing, "
                     "as the patent")
                    .unit("cycles"));
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
        v.value("request_width_bytes", request_width_bytes,
                spec("module NoC: bytes a request channel (toward the LLC slices and links) "
                     "moves per NoC cycle; 0 = noc.width_bytes")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("response_width_bytes", response_width_bytes,
                spec("module NoC: bytes a response channel moves per NoC cycle, both the "
                     "target's port it leaves by (an LLC slice or a link) and the port it returns "
                     "to (a cluster, the host or a link); 0 = noc.width_bytes")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("response_hop_latency", response_hop_latency,
                spec("module NoC: cycles a response spends in a hop; -1 = noc.hop_latency")
                    .range(-1, 1000)
                    .unit("cycles"));
        v.value("xbar_request_width_bytes", xbar_request_width_bytes,
                spec("cluster crossbar: bytes its request channel (toward the NoC) moves per NoC "
                     "cycle; 0 = noc.width_bytes")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("xbar_response_width_bytes", xbar_response_width_bytes,
                spec("cluster crossbar: bytes a response channel moves per NoC cycle, both the "
                     "target's port it leaves by (the NoC) and the port it returns to (an L1 or "
                     "a stage); 0 = noc.width_bytes")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("xbar_response_hop_latency", xbar_response_hop_latency,
                spec("cluster crossbar: cycles a response spends in it; -1 = "
                     "noc.xbar_hop_latency")
                    .range(-1, 1000)
                    .unit("cycles"));
        v.value("header_bytes", header_bytes,
                spec("module NoC: data-channel bytes a read's request header or a write's "
                     "acknowledgement occupies on a port; 0 = they travel on the port's command "
                     "channel (one header per NoC cycle per port and direction, as AXI's address "
                     "and write-response channels), so reads and writes through one port share "
                     "no data-channel cycles")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("xbar_header_bytes", xbar_header_bytes,
                spec("cluster crossbar: data-channel bytes a read's request header or a "
                     "write's acknowledgement occupies on a port; 0 = the port's command channel "
                     "(as noc.header_bytes)")
                    .range(0, 4096)
                    .unit("bytes"));
        v.value("link_bandwidth_gbps", link_bandwidth_gbps,
                spec("inter-module link: peak bandwidth of each direction; bytes per NoC cycle "
                     "= this x the NoC clock period")
                    .range(0.01, 1e4)
                    .unit("GB/s"));
        v.value("link_header_bytes", link_header_bytes,
                spec("inter-module link: data-channel bytes a read's request header or a "
                     "write's acknowledgement occupies; 0 = they travel on the link's command "
                     "sideband (as AXI's address and write-response channels) and cost only "
                     "the flight time, so a remote read and a remote write side by side share "
                     "no channel")
                    .range(0, 4096)
                    .unit("bytes"));
    }

    /// Ranges are checked by the declaration; `noc.arbiter_impl` rtl needs what the RTL has
    /// (a fifo policy, a longer ageing, a build without it are errors). `accurate`: the timing
    /// mode (rtl only there; platform.timing.mode is named). `gpu`: the platform builds NoCs
    /// (else noc.* is inert and not checked). noc_config.cpp.
    void validate(config::checker& c, bool accurate = true, bool gpu = true) const;

    /// The module NoC's widths and hops per direction, defaults resolved.
    path_params module_noc() const
    {
        return {request_width_bytes ? request_width_bytes : width_bytes,
                response_width_bytes ? response_width_bytes : width_bytes,
                hop_latency,
                response_hop_latency < 0 ? hop_latency
                                         : static_cast<unsigned>(response_hop_latency),
                header_bytes,
                topology,
                mesh_columns,
                mesh_rows,
                mesh_buffer_depth};
    }
    /// The cluster crossbar's widths and hops per direction, defaults resolved.
    path_params cluster_xbar() const
    {
        return {xbar_request_width_bytes ? xbar_request_width_bytes : width_bytes,
                xbar_response_width_bytes ? xbar_response_width_bytes : width_bytes,
                xbar_hop_latency,
                xbar_response_hop_latency < 0 ? xbar_hop_latency
                                              : static_cast<unsigned>(xbar_response_hop_latency),
                xbar_header_bytes,
                topology_kind::crossbar};
    }

    /// Bytes one direction of a link moves per NoC cycle of `noc_ps` picoseconds.
    double link_bytes_per_cycle(std::uint64_t noc_ps) const
    {
        return link_bandwidth_gbps * static_cast<double>(noc_ps) / 1000.0;
    }
};

} // namespace vgpu::noc
