// Crossbar with contended output ports. See models/noc/README.md.
#include "models/noc/crossbar.h"

#include <algorithm>
#include <string>

namespace vgpu::noc {

namespace {
/// The smallest transfer: a request without data still moves one header flit.
constexpr unsigned min_transfer_bytes = 8;
} // namespace

crossbar::out_port::out_port(stats::group& g, const std::string& port, const resource_params& p)
    : res(port.c_str(), p),
      requests(g, port + ".requests", "count", "requests forwarded to output " + port),
      bytes(g, port + ".bytes", "bytes", "data bytes forwarded to output " + port)
{
}

crossbar::crossbar(const sc_core::sc_module_name& name, const noc_config& cfg,
                   const clock_params& clocks, unsigned hop_latency_cycles)
    : interconnect(name), m_cfg(cfg), m_clocks(clocks),
      m_hop(sc_core::sc_time::from_value(hop_latency_cycles * clocks.noc_ps)), m_log(this->name()),
      m_stats(this->name()),
      m_unmapped(m_stats, "unmapped", "count", "requests to no output (address errors)"),
      m_latency(m_stats, "latency", "ns",
                "time a request spent in the crossbar (hop, queueing, transfer)")
{
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

void crossbar::create_ports()
{
    // Created now because only now every input and output is bound; an arbiter needs its
    // number of inputs.
    resource_params p;
    p.accurate = m_clocks.accurate;
    p.cycle = sc_core::sc_time::from_value(m_clocks.noc_ps);
    p.policy = m_cfg.arbiter;
    p.inputs = std::max(1u, m_inputs);
    for (unsigned i = 0; i < m_inputs; ++i)
        m_in_reqs.push_back(std::make_unique<stats::counter>(
            m_stats, input_name(i) + ".requests", "count", "requests from input " + input_name(i)));
    for (unsigned o = 0; o < m_outputs; ++o)
        m_out.push_back(std::make_unique<out_port>(m_stats, output_name(o), p));
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

} // namespace vgpu::noc
