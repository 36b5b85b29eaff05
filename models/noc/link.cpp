// One direction of an inter-module link. See models/noc/README.md.
#include "models/noc/link.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <cmath>

namespace vgpu::noc {

namespace {

/// Simulated time so far in NoC cycles (for the dump-time formulas).
double elapsed(const sc_core::sc_time& unit)
{
    return tlm_bus::sim_now() / unit;
}
} // namespace

resource_params link::channel_params(const noc_config& cfg, const clock_params& clocks)
{
    resource_params p;
    p.accurate = clocks.accurate;
    p.cycle = tlm_bus::ps_time(clocks.noc_ps);
    p.policy = cfg.arbiter;
    p.max_wait_cycles = cfg.max_wait_cycles;
    p.impl = cfg.arbiter_impl;
    p.inputs = 1;
    return p;
}

link::link(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks)
    : sc_module(name), in("in"), out("out"), channel("channel", channel_params(cfg, clocks)),
      response("response", channel_params(cfg, clocks)),
      m_latency(tlm_bus::ps_time(cfg.link_latency.ps)), m_cycle(tlm_bus::ps_time(clocks.noc_ps)),
      m_bytes_per_cycle(cfg.link_bytes_per_cycle(clocks.noc_ps)),
      m_header_bytes(cfg.link_header_bytes), m_stats(this->name()),
      m_requests(m_stats, "requests", "count", "requests carried"),
      m_bytes(m_stats, "bytes", "bytes", "data bytes carried (writes out, reads back)"),
      m_busy_cycles(m_stats, "busy_cycles", "cycles",
                    "NoC cycles the request channel was occupied"),
      m_rsp_busy_cycles(m_stats, "response_busy_cycles", "cycles",
                        "NoC cycles the response channel was occupied"),
      m_utilisation(m_stats, "utilisation", "ratio",
                    "share of NoC cycles the busier of the two channels was occupied",
                    [this] {
                        const double t = elapsed(m_cycle);
                        const auto busy =
                            std::max(m_busy_cycles.value(), m_rsp_busy_cycles.value());
                        return t > 0 ? static_cast<double>(busy) / t : 0.0;
                    }),
      m_bandwidth(m_stats, "bandwidth", "GB/s", "data bytes carried per ns of simulated time",
                  [this] {
                      const double ns = tlm_bus::sim_now().to_seconds() * 1e9;
                      return ns > 0 ? static_cast<double>(m_bytes.value()) / ns : 0.0;
                  })
{
    in.register_b_transport(this, &link::b_transport);
    in.register_transport_dbg(this, &link::transport_dbg);
    in.register_get_direct_mem_ptr(this, &link::get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &link::invalidate_direct_mem_ptr);
}

unsigned link::occupancy_cycles(unsigned bytes) const
{
    // The tolerance keeps exact quotients (64 B at 12.8 B/cycle) from rounding up a cycle.
    return static_cast<unsigned>(std::ceil(bytes / m_bytes_per_cycle - 1e-9));
}

void link::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    const unsigned len = gp.get_data_length();
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    // A read sends a header and gets its data back; a write sends its data and gets an ack.
    const unsigned req_cycles = occupancy_cycles(gp.is_write() ? len : m_header_bytes);
    const unsigned rsp_cycles = occupancy_cycles(gp.is_read() ? len : m_header_bytes);
    ++m_requests;
    m_bytes += len;
    m_busy_cycles += req_cycles;
    m_rsp_busy_cycles += rsp_cycles;
    // A header or an acknowledgement on the command sideband (link_header_bytes = 0) takes no
    // data-channel time: only the flight.
    const auto at = [&delay] { return (tlm_bus::sim_now() + delay).value(); };
    const std::uint64_t entered = at();
    if (req_cycles > 0)
        channel.use(0, ext, req_cycles, delay);
    delay += m_latency;
    const std::uint64_t landed = at();
    out->b_transport(gp, delay);
    const std::uint64_t answered = at();
    if (rsp_cycles > 0)
        response.use(0, nullptr, rsp_cycles, delay); // responses carry no barrier count
    delay += m_latency;
    m_crossings += 2;
    m_crossing_ps += (landed - entered) + (at() - answered);
}

unsigned link::transport_dbg(tlm::tlm_generic_payload& gp)
{
    return out->transport_dbg(gp);
}

bool link::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
{
    const bool ok = out->get_direct_mem_ptr(gp, dmi);
    if (ok) {
        dmi.set_read_latency(dmi.get_read_latency() + 2 * m_latency);
        dmi.set_write_latency(dmi.get_write_latency() + 2 * m_latency);
    }
    return ok;
}

void link::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end)
{
    in->invalidate_direct_mem_ptr(start, end);
}

} // namespace vgpu::noc
