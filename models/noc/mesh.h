// The module NoC as a 2D mesh of routers with XY routing, per-hop latency, link width and
// credit-based back-pressure. See models/noc/README.md ("Mesh topology").
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/noc/core/mesh_geometry.h"
#include "models/noc/interconnect.h"
#include "models/noc/noc_config.h"
#include "models/noc/shared_resource.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm>
#include <vector>

namespace vgpu::noc {

/// N inputs x M outputs placed on a grid of routers (mesh_geometry). A request travels on the
/// request plane from its input's router to its output's router by XY routing; its response
/// travels back on the response plane (links and buffers of its own, so requests and
/// responses never wait for each other). At every router a packet pays path_params's hop
/// latency, then holds the router's output (a link to the next router, or the ejection port of
/// its endpoint) for ceil(max(bytes, 8) / width) cycles; a response first holds its target's
/// port (`<output>_rsp`) for as long, cut through into the first router. Every router output is a
/// shared_resource whose arbiter inputs are the router's input ports (4 directions, then the
/// local injection ports), so noc.arbiter applies at every output port. Accurate mode adds
/// credits: each router input port holds path_params::mesh_buffer_depth packets per plane;
/// a packet keeps its slot until it holds a slot at the next router and has crossed the link,
/// so a full buffer stalls the sender and nothing is dropped.
class mesh : public interconnect {
public:
    /// Widths, hops and grid of path (noc_config::module_noc()).
    mesh(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks,
         const path_params& path);
    ~mesh() override;

    /// Grid and placement; valid once elaboration has counted the ports.
    const mesh_geometry& geometry() const { return *m_geo; }
    /// Unloaded time of a request from input i to output o (hops, transfers; no target).
    sc_core::sc_time request_time(unsigned i, unsigned o, unsigned bytes) const;
    /// Unloaded time of a response from output o back to input i.
    sc_core::sc_time response_time(unsigned o, unsigned i, unsigned bytes) const;

    std::uint64_t requests(unsigned output) const; ///< requests delivered to an output
    std::uint64_t unmapped() const { return m_unmapped.value(); } ///< address errors returned
    /// Accurate mode: times a link had packets waiting while the next router's buffer was full.
    std::uint64_t credit_stalls() const;
    /// Accurate mode: packets that found their injection buffer full.
    std::uint64_t injection_stalls() const { return m_injection_stalls.value(); }

private:
    /// One injection buffer of a router (accurate mode): free slots, and the packets waiting
    /// for one in arrival order (a freed slot goes to the oldest, as in a hardware FIFO).
    struct buffer {
        unsigned free = 0;
        std::deque<sc_core::sc_event*> waiting;
    };
    /// One router: its links to the neighbours per plane, its input buffers per plane.
    struct router;
    /// Counters of one output endpoint.
    struct out_port {
        out_port(stats::group& g, const std::string& port);
        stats::counter requests, bytes;
    };
    /// Counters of one input endpoint.
    struct in_port {
        in_port(stats::group& g, const std::string& port);
        stats::counter requests, bytes;
    };
    enum plane : unsigned { request_plane = 0, response_plane = 1 };

    void create_ports() override;
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;
    sc_core::sc_time unloaded_round_trip(unsigned in, unsigned out) const override;

    /// Carries a packet on plane `p` from router `from` (entering at local slot `slot`, through
    /// the endpoint's channel `inject` if any) to router `to`, leaving by `eject`; returns the
    /// routers it passed through.
    unsigned travel(plane p, unsigned from, unsigned slot, unsigned to, shared_resource* inject,
                    shared_resource& eject, const tlm_bus::gpu_extension* ext, unsigned cycles,
                    sc_core::sc_time& delay);
    /// Accurate mode: takes a slot of `b`, waiting (first come, first served) while it is full.
    void acquire(buffer& b);
    /// Accurate mode: returns a slot of `b`.
    void release(buffer& b);

    const noc_config m_cfg;
    const clock_params m_clocks;
    const path_params m_path;
    const sc_core::sc_time m_cycle, m_hop, m_rsp_hop;
    logger m_log;
    stats::group m_stats;
    std::unique_ptr<mesh_geometry> m_geo;
    std::vector<std::unique_ptr<router>> m_routers;
    std::vector<std::unique_ptr<shared_resource>> m_eject_out; ///< per output, request plane
    std::vector<std::unique_ptr<shared_resource>> m_eject_in;  ///< per input, response plane
    /// Per output, response plane: the target's port injecting its responses into its router.
    std::vector<std::unique_ptr<shared_resource>> m_inject_out;
    std::vector<std::unique_ptr<out_port>> m_out;
    std::vector<std::unique_ptr<in_port>> m_in;
    stats::counter m_requests, m_unmapped, m_injection_stalls;
    stats::average m_hops, m_latency, m_rsp_latency, m_injection_wait;
};

} // namespace vgpu::noc
