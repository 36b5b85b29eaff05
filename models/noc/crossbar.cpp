// Crossbar with contended output ports. See models/noc/README.md.
#include "models/noc/crossbar.h"

#include <algorithm>
#include <string>

namespace vgpu::noc {

namespace {
constexpr const char* msg_type = "vgpu/noc/crossbar";
/// The smallest transfer: a request without data still moves one header flit.
constexpr unsigned min_transfer_bytes = 8;
} // namespace

crossbar::out_port::out_port(stats::group& g, unsigned index, const resource_params& p)
    : res(("out" + std::to_string(index)).c_str(), p),
      requests(g, "out" + std::to_string(index) + ".requests", "count",
               "requests forwarded to output " + std::to_string(index)),
      bytes(g, "out" + std::to_string(index) + ".bytes", "bytes",
            "data bytes forwarded to output " + std::to_string(index))
{
}

crossbar::crossbar(const sc_core::sc_module_name& name, const noc_config& cfg,
                   const clock_params& clocks, unsigned hop_latency_cycles)
    : sc_module(name), in("in"), out("out"), m_cfg(cfg), m_clocks(clocks),
      m_hop(sc_core::sc_time::from_value(hop_latency_cycles * clocks.noc_ps)), m_log(this->name()),
      m_stats(this->name()),
      m_unmapped(m_stats, "unmapped", "count", "requests to no output (address errors)"),
      m_latency(m_stats, "latency", "ns",
                "time a request spent in the crossbar (hop, queueing, transfer)")
{
    in.register_b_transport(this, &crossbar::b_transport);
    in.register_transport_dbg(this, &crossbar::transport_dbg);
    in.register_get_direct_mem_ptr(this, &crossbar::get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &crossbar::invalidate_direct_mem_ptr);
}

void crossbar::set_route(route_fn route)
{
    m_route = std::move(route);
}

unsigned crossbar::occupancy_cycles(unsigned bytes) const
{
    const unsigned moved = std::max(bytes, min_transfer_bytes);
    return (moved + m_cfg.width_bytes - 1) / m_cfg.width_bytes;
}

std::uint64_t crossbar::requests(unsigned output) const
{
    return output < m_out.size() ? m_out[output]->requests.value() : 0;
}

void crossbar::before_end_of_elaboration()
{
    // The ports are created here because only now every input and output is bound; an
    // arbiter needs its number of inputs.
    m_inputs = in.size();
    m_outputs = out.size();
    resource_params p;
    p.accurate = m_clocks.accurate;
    p.cycle = sc_core::sc_time::from_value(m_clocks.noc_ps);
    p.policy = m_cfg.arbiter;
    p.inputs = std::max(1u, m_inputs);
    for (unsigned i = 0; i < m_inputs; ++i)
        m_in_reqs.push_back(
            std::make_unique<stats::counter>(m_stats, "in" + std::to_string(i) + ".requests",
                                             "count", "requests from input " + std::to_string(i)));
    for (unsigned o = 0; o < m_outputs; ++o)
        m_out.push_back(std::make_unique<out_port>(m_stats, o, p));
}

void crossbar::end_of_elaboration()
{
    if (!m_route)
        SC_REPORT_ERROR(msg_type, (std::string(name()) + ": no route function set").c_str());
}

int crossbar::route(const tlm::tlm_generic_payload& gp)
{
    const int o = m_route(gp);
    if (o >= static_cast<int>(m_outputs)) {
        // A builder bug, not a guest mistake: fail the run (the request is not forwarded).
        SC_REPORT_ERROR(msg_type, (std::string(name()) + ": route function returned output " +
                                   std::to_string(o) + " of " + std::to_string(m_outputs))
                                      .c_str());
        return -1;
    }
    return o < 0 ? -1 : o;
}

void crossbar::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    ++*m_in_reqs[id];
    const int o = route(gp);
    if (o < 0) {
        ++m_unmapped;
        VGPU_WARN(m_log, "unmapped address 0x%llx (%u bytes) from input %d",
                  static_cast<unsigned long long>(gp.get_address()), gp.get_data_length(), id);
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    out_port& port = *m_out[o];
    const unsigned len = gp.get_data_length();
    ++port.requests;
    port.bytes += len;
    const sc_core::sc_time entry = sc_core::sc_time_stamp() + delay;
    delay += m_hop;
    port.res.use(static_cast<unsigned>(id), gp.get_extension<tlm_bus::gpu_extension>(),
                 occupancy_cycles(len), delay);
    m_latency.sample((sc_core::sc_time_stamp() + delay - entry).to_seconds() * 1e9);
    out[o]->b_transport(gp, delay);
}

unsigned crossbar::transport_dbg(int, tlm::tlm_generic_payload& gp)
{
    const int o = route(gp);
    return o < 0 ? 0 : out[o]->transport_dbg(gp);
}

bool crossbar::get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
{
    const int o = route(gp);
    if (o < 0) {
        // Deny for this address only: the route function does not tell how far the hole spans.
        dmi.set_start_address(gp.get_address());
        dmi.set_end_address(gp.get_address());
        return false;
    }
    const bool ok = out[o]->get_direct_mem_ptr(gp, dmi);
    if (ok) {
        dmi.set_read_latency(dmi.get_read_latency() + m_hop);
        dmi.set_write_latency(dmi.get_write_latency() + m_hop);
    }
    return ok;
}

void crossbar::invalidate_direct_mem_ptr(int, sc_dt::uint64 start, sc_dt::uint64 end)
{
    for (unsigned i = 0; i < in.size(); ++i)
        in[i]->invalidate_direct_mem_ptr(start, end);
}

} // namespace vgpu::noc
