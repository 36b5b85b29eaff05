// The module NoC as a 2D mesh of routers. See models/noc/README.md ("Mesh topology").
#include "models/noc/mesh.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <string>

namespace vgpu::noc {

namespace {
constexpr const char* msg_type = "vgpu/noc/mesh";
/// Both planes, in the order of mesh::plane.
constexpr unsigned planes = 2;
} // namespace

/// One router: per plane, a link toward each existing neighbour (a shared_resource whose
/// credits are the slots of the neighbour's input buffer it feeds) and an injection buffer
/// per local endpoint. Its input buffers toward the neighbours are the credits of the
/// neighbours' links, so they need no object of their own.
struct mesh::router : sc_core::sc_module {
    /// link[plane][direction]; nullptr at the edge of the grid.
    std::array<std::array<std::unique_ptr<shared_resource>, mesh_directions>, planes> link;
    /// inject[plane][local slot]: buffers of the local input ports (accurate mode).
    std::array<std::deque<buffer>, planes> inject;

    router(const sc_core::sc_module_name& name, const mesh_geometry& g, unsigned r,
           resource_params p, unsigned depth)
        : sc_module(name)
    {
        p.credits = depth;
        for (unsigned pl = 0; pl < planes; ++pl) {
            const unsigned locals = pl == request_plane ? g.inputs_at(r) : g.outputs_at(r);
            p.inputs = mesh_directions + locals;
            for (unsigned d = 0; d < mesh_directions; ++d) {
                const auto dir = static_cast<direction>(d);
                if (!g.neighbour(r, dir))
                    continue;
                const std::string n =
                    std::string(pl == request_plane ? "" : "rsp_") + to_string(dir);
                link[pl][d] = std::make_unique<shared_resource>(n.c_str(), p);
            }
            for (unsigned l = 0; l < locals; ++l)
                inject[pl].emplace_back().free = depth;
        }
    }
};

mesh::out_port::out_port(stats::group& g, const std::string& port)
    : requests(g, port + ".requests", "count", "requests delivered to output " + port),
      bytes(g, port + ".bytes", "bytes", "write data bytes carried to output " + port)
{
}

mesh::in_port::in_port(stats::group& g, const std::string& port)
    : requests(g, port + ".requests", "count", "requests from input " + port),
      bytes(g, port + ".response_bytes", "bytes", "data bytes returned to input " + port)
{
}

mesh::mesh(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks,
           const path_params& path)
    : interconnect(name), m_cfg(cfg), m_clocks(clocks), m_path(path),
      m_cycle(sc_core::sc_time::from_value(clocks.noc_ps)),
      m_hop(sc_core::sc_time::from_value(path.request_hop * clocks.noc_ps)),
      m_rsp_hop(sc_core::sc_time::from_value(path.response_hop * clocks.noc_ps)),
      m_log(this->name()), m_stats(this->name()),
      m_requests(m_stats, "requests", "count", "requests carried (address errors excluded)"),
      m_unmapped(m_stats, "unmapped", "count", "requests to no output (address errors)"),
      m_injection_stalls(m_stats, "injection_stalls", "count",
                         "accurate mode: packets that found their injection buffer full"),
      m_hops(m_stats, "hops", "routers", "routers a request passed through (links crossed + 1)"),
      m_latency(m_stats, "latency", "ns",
                "time a request spent in the mesh (hops, queueing, credits, transfers)"),
      m_rsp_latency(m_stats, "response_latency", "ns",
                    "time a response spent in the mesh (hops, queueing, credits, transfers)"),
      m_injection_wait(m_stats, "injection_wait", "ns",
                       "accurate mode: time a packet waited for a slot of its injection buffer")
{
    if (path.request_width == 0 || path.response_width == 0 || path.mesh_buffer_depth == 0)
        SC_REPORT_ERROR(msg_type, (std::string(this->name()) +
                                   ": channel widths and the buffer depth must be positive")
                                      .c_str());
}

mesh::~mesh() = default;

sc_core::sc_time mesh::request_time(unsigned i, unsigned o, unsigned bytes) const
{
    const unsigned routers = m_geo->distance(m_geo->input_router(i), m_geo->output_router(o)) + 1;
    return routers * (m_hop + transfer_cycles(bytes, m_path.request_width) * m_cycle);
}

sc_core::sc_time mesh::response_time(unsigned o, unsigned i, unsigned bytes) const
{
    const unsigned routers = m_geo->distance(m_geo->output_router(o), m_geo->input_router(i)) + 1;
    return routers * (m_rsp_hop + transfer_cycles(bytes, m_path.response_width) * m_cycle);
}

std::uint64_t mesh::credit_stalls() const
{
    std::uint64_t n = 0;
    for (const auto& r : m_routers)
        for (const auto& plane_links : r->link)
            for (const auto& l : plane_links)
                n += l ? l->credit_stalls() : 0;
    return n;
}

std::uint64_t mesh::requests(unsigned output) const
{
    return output < m_out.size() ? m_out[output]->requests.value() : 0;
}

void mesh::create_ports()
{
    // Only now are the endpoints counted, and the arbiters need their number of inputs.
    m_geo =
        std::make_unique<mesh_geometry>(m_inputs, m_outputs, m_path.mesh_columns, m_path.mesh_rows);
    resource_params p;
    p.accurate = m_clocks.accurate;
    p.cycle = m_cycle;
    p.policy = m_cfg.arbiter;
    p.max_wait_cycles = m_cfg.max_wait_cycles;
    p.impl = m_cfg.arbiter_impl;
    for (unsigned r = 0; r < m_geo->routers(); ++r)
        m_routers.push_back(std::make_unique<router>(m_geo->router_name(r).c_str(), *m_geo, r, p,
                                                     m_path.mesh_buffer_depth));
    // Ejection ports: the router's input ports compete for the endpoint, as for a link.
    for (unsigned o = 0; o < m_outputs; ++o) {
        p.inputs = mesh_directions + m_geo->inputs_at(m_geo->output_router(o));
        m_eject_out.push_back(std::make_unique<shared_resource>(output_name(o).c_str(), p));
        m_out.push_back(std::make_unique<out_port>(m_stats, output_name(o)));
    }
    // A target's port injects its responses one after the other, in the order they are ready.
    p.inputs = 1;
    for (unsigned o = 0; o < m_outputs; ++o)
        m_inject_out.push_back(
            std::make_unique<shared_resource>((output_name(o) + "_rsp").c_str(), p));
    for (unsigned i = 0; i < m_inputs; ++i) {
        p.inputs = mesh_directions + m_geo->outputs_at(m_geo->input_router(i));
        m_eject_in.push_back(std::make_unique<shared_resource>(input_name(i).c_str(), p));
        m_in.push_back(std::make_unique<in_port>(m_stats, input_name(i)));
    }
    VGPU_INFO(m_log, "mesh of %u x %u routers for %u inputs and %u outputs", m_geo->columns(),
              m_geo->rows(), m_inputs, m_outputs);
}

void mesh::acquire(buffer& b)
{
    if (b.free > 0 && b.waiting.empty()) {
        --b.free;
        return;
    }
    // Queue: release() hands the slot to the oldest waiter, so no packet starves behind
    // later ones (a wake-up race would let the most recent caller win).
    ++m_injection_stalls;
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    sc_core::sc_event mine;
    b.waiting.push_back(&mine);
    sc_core::wait(mine);
    m_injection_wait.sample((sc_core::sc_time_stamp() - start).to_seconds() * 1e9);
}

void mesh::release(buffer& b)
{
    if (b.waiting.empty()) {
        ++b.free;
        return;
    }
    sc_core::sc_event* next = b.waiting.front();
    b.waiting.pop_front();
    next->notify(sc_core::SC_ZERO_TIME);
}

unsigned mesh::travel(plane p, unsigned from, unsigned slot, unsigned to, shared_resource* inject,
                      shared_resource& eject, const tlm_bus::gpu_extension* ext, unsigned cycles,
                      sc_core::sc_time& delay)
{
    const sc_core::sc_time hop = p == request_plane ? m_hop : m_rsp_hop;
    const bool accurate = m_clocks.accurate;
    unsigned at = from, port = mesh_directions + slot, routers = 0;
    // Accurate mode: the slot the packet holds, either its injection buffer or the input
    // buffer of the router it is in (the credit of the link that brought it there).
    buffer* injected = nullptr;
    shared_resource* came_by = nullptr;
    if (accurate) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
        injected = &m_routers[at]->inject[p][slot];
        acquire(*injected);
    }
    // The endpoint's port: the packet enters the router as it leaves the port (cut through, so
    // an unloaded packet pays its transfer once per router).
    if (inject) {
        inject->use(0, ext, cycles, delay);
        delay -= static_cast<double>(cycles) * m_cycle;
    }
    for (;;) {
        ++routers;
        const direction d = m_geo->step(at, to);
        shared_resource& out =
            d == direction::local ? eject : *m_routers[at]->link[p][static_cast<unsigned>(d)];
        if (!accurate) {
            delay += hop;
            out.use(port, ext, cycles, delay);
        } else {
            if (hop != sc_core::SC_ZERO_TIME)
                sc_core::wait(hop);
            // A link grants only with a free slot at the next router (its credits).
            sc_core::sc_time t = sc_core::SC_ZERO_TIME;
            out.use(port, ext, cycles, t);
            sc_core::wait(t);
            // The tail has left this router: its slot here is free again.
            if (injected)
                release(*injected);
            else
                came_by->return_credit();
            injected = nullptr;
            came_by = &out;
        }
        if (d == direction::local)
            return routers;
        at = *m_geo->neighbour(at, d);
        port = static_cast<unsigned>(opposite(d));
    }
}

void mesh::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    const auto i = static_cast<unsigned>(id);
    in_port& src = *m_in[i];
    ++src.requests;
    const int o = route(gp);
    if (o < 0) {
        ++m_unmapped;
        VGPU_WARN(m_log, "unmapped address 0x%llx (%u bytes) from input %d",
                  static_cast<unsigned long long>(gp.get_address()), gp.get_data_length(), id);
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    const auto ou = static_cast<unsigned>(o);
    out_port& dst = *m_out[ou];
    const unsigned len = gp.get_data_length();
    ++m_requests;
    ++dst.requests;
    dst.bytes += gp.is_write() ? len : 0;
    const sc_core::sc_time entry = tlm_bus::sim_now() + delay;
    const unsigned src_router = m_geo->input_router(i), dst_router = m_geo->output_router(ou);
    const unsigned routers =
        travel(request_plane, src_router, m_geo->input_slot(i), dst_router, nullptr,
               *m_eject_out[ou], gp.get_extension<tlm_bus::gpu_extension>(),
               transfer_cycles(request_bytes(gp, m_path), m_path.request_width), delay);
    m_hops.sample(routers);
    m_latency.sample(tlm_bus::seconds(tlm_bus::sim_now() + delay - entry) * 1e9);
    out[o]->b_transport(gp, delay);
    const sc_core::sc_time back = tlm_bus::sim_now() + delay;
    src.bytes += gp.is_read() ? len : 0;
    // Responses carry no barrier count: the arbiter favours the requests that unblock work.
    travel(response_plane, dst_router, m_geo->output_slot(ou), src_router, m_inject_out[ou].get(),
           *m_eject_in[i], nullptr,
           transfer_cycles(response_bytes(gp, m_path), m_path.response_width), delay);
    m_rsp_latency.sample(tlm_bus::seconds(tlm_bus::sim_now() + delay - back) * 1e9);
}

sc_core::sc_time mesh::unloaded_round_trip(unsigned in, unsigned out) const
{
    // The unloaded path of a one-flit request and a one-flit response.
    return request_time(in, out, 0) + response_time(out, in, 0);
}

} // namespace vgpu::noc
