// Crossbar with contended output ports. See models/noc/README.md.
#include "models/noc/crossbar.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <string>

namespace vgpu::noc {

namespace {
/// The command channel of `port`, or nothing when headers travel on the data channel.
std::unique_ptr<shared_resource> command_channel(const std::string& port, const resource_params& p,
                                                 bool command)
{
    return command ? std::make_unique<shared_resource>((port + "_cmd").c_str(), p) : nullptr;
}
} // namespace

crossbar::out_port::out_port(stats::group& g, const std::string& port, const resource_params& p,
                             const resource_params& rp, bool command)
    : res(port.c_str(), p), rsp((port + "_rsp").c_str(), rp),
      cmd(command_channel(port, p, command)),
      requests(g, port + ".requests", "count", "requests forwarded to output " + port),
      bytes(g, port + ".bytes", "bytes", "write data bytes carried to output " + port)
{
}

crossbar::in_port::in_port(stats::group& g, const std::string& port, const resource_params* p,
                           bool command)
    : own_res(p ? std::make_unique<shared_resource>(port.c_str(), *p) : nullptr),
      own_cmd(p ? command_channel(port, *p, command) : nullptr), res(own_res.get()),
      cmd(own_cmd.get()), requests(g, port + ".requests", "count", "requests from input " + port),
      bytes(g, port + ".response_bytes", "bytes", "data bytes returned to input " + port)
{
}

void crossbar::share_input(const std::string& port, interconnect& owner,
                           const std::string& owner_port)
{
    auto* x = dynamic_cast<crossbar*>(&owner);
    if (!x || x == this)
        SC_REPORT_ERROR("vgpu/noc/crossbar", (std::string(name()) + ": input '" + port +
                                              "' can share only another crossbar's port")
                                                 .c_str());
    unsigned& lent = x->m_lent[owner_port];
    m_borrowed.push_back({port, x, owner_port, lent});
    lent += named_outputs();
}

crossbar::crossbar(const sc_core::sc_module_name& name, const noc_config& cfg,
                   const clock_params& clocks, const path_params& path)
    : interconnect(name), m_cfg(cfg), m_clocks(clocks), m_path(path),
      m_hop(tlm_bus::ps_time(path.request_hop * clocks.noc_ps)),
      m_rsp_hop(tlm_bus::ps_time(path.response_hop * clocks.noc_ps)), m_log(this->name()),
      m_stats(this->name()),
      m_unmapped(m_stats, "unmapped", "count", "requests to no output (address errors)"),
      m_latency(m_stats, "latency", "ns",
                "time a request spent in the crossbar (hop, queueing, transfer)"),
      m_rsp_latency(m_stats, "response_latency", "ns",
                    "time a response spent in the crossbar (hop, queueing, transfer)")
{
    if (path.request_width == 0 || path.response_width == 0)
        SC_REPORT_ERROR("vgpu/noc/crossbar",
                        (std::string(this->name()) + ": channel widths must be positive").c_str());
}

unsigned crossbar::occupancy_cycles(unsigned bytes) const
{
    return transfer_cycles(bytes, m_path.request_width);
}

unsigned crossbar::response_cycles(unsigned bytes) const
{
    return transfer_cycles(bytes, m_path.response_width);
}

unsigned crossbar::request_bytes(const tlm::tlm_generic_payload& gp) const
{
    return noc::request_bytes(gp, m_path);
}

unsigned crossbar::response_bytes(const tlm::tlm_generic_payload& gp) const
{
    return noc::response_bytes(gp, m_path);
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
    p.cycle = tlm_bus::ps_time(m_clocks.noc_ps);
    p.policy = m_cfg.arbiter;
    p.max_wait_cycles = m_cfg.max_wait_cycles;
    p.impl = m_cfg.arbiter_impl;
    p.inputs = std::max(1u, m_inputs);
    const bool command = m_path.header_bytes == 0;
    // A target's port injects its responses one after the other, in the order they are ready
    // (one queue: the target's own), whichever input they return to.
    resource_params tp = p;
    tp.inputs = 1;
    for (unsigned o = 0; o < m_outputs; ++o)
        m_out.push_back(std::make_unique<out_port>(m_stats, output_name(o), p, tp, command));
    // A response channel serves the one input it returns to; its contenders are the outputs
    // (and those of the crossbars that share the port, after them).
    for (unsigned i = 0; i < m_inputs; ++i) {
        const std::string port = input_name(i);
        const bool borrowed = std::any_of(m_borrowed.begin(), m_borrowed.end(),
                                          [&](const borrowed_port& b) { return b.port == port; });
        resource_params rp = p;
        const auto lent = m_lent.find(port);
        rp.inputs = std::max(1u, m_outputs + (lent == m_lent.end() ? 0 : lent->second));
        m_in.push_back(std::make_unique<in_port>(m_stats, port, borrowed ? nullptr : &rp, command));
    }
}

void crossbar::end_of_elaboration()
{
    interconnect::end_of_elaboration();
    for (const borrowed_port& b : m_borrowed) {
        const int mine = input_index(b.port), theirs = b.owner->input_index(b.owner_port);
        if (mine < 0 || theirs < 0 || b.owner->m_path.response_width != m_path.response_width ||
            b.owner->m_path.header_bytes != m_path.header_bytes)
            SC_REPORT_ERROR("vgpu/noc/crossbar",
                            (std::string(name()) + ": input '" + b.port + "' cannot share " +
                             b.owner->name() + "'s input '" + b.owner_port +
                             "' (unknown port, or different response widths or headers)")
                                .c_str());
        in_port& in = *m_in[static_cast<unsigned>(mine)];
        const in_port& of = *b.owner->m_in[static_cast<unsigned>(theirs)];
        in.res = of.res;
        in.cmd = of.cmd;
        in.first = b.owner->m_outputs + b.first;
    }
}

void crossbar::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    in_port& src = *m_in[static_cast<unsigned>(id)];
    ++src.requests;
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
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    ++port.requests;
    port.bytes += gp.is_write() ? len : 0;
    const sc_core::sc_time entry = tlm_bus::sim_now() + delay;
    delay += m_hop;
    // A read's header on the command channel leaves the data channel to writes' data.
    if (port.cmd && !gp.is_write())
        port.cmd->use(static_cast<unsigned>(id), ext, 1, delay);
    else
        port.res.use(static_cast<unsigned>(id), ext, occupancy_cycles(request_bytes(gp)), delay);
    m_latency.sample(tlm_bus::seconds(tlm_bus::sim_now() + delay - entry) * 1e9);
    out[o]->b_transport(gp, delay);
    // The response returns on the input's own channel; a read's data occupies it.
    const sc_core::sc_time back = tlm_bus::sim_now() + delay;
    src.bytes += gp.is_read() ? len : 0;
    delay += m_rsp_hop;
    // Responses carry no barrier count: the arbiter favours the requests that unblock work.
    // Of the responses from one output that are ready together, the oldest request's goes first.
    // A write's acknowledgement on the command channel takes only its input's: the target's
    // command channel would carry one per write, each of which held the target's request
    // channel for at least a cycle, so it can never bound the target.
    if (src.cmd && !gp.is_read()) {
        src.cmd->use(src.first + static_cast<unsigned>(o), nullptr, 1, delay, entry.value());
    } else {
        // The data leaves through the target's port (its response channel: a hot target
        // delivers one port's bandwidth, however many inputs it answers) and enters the input's
        // channel as it leaves (cut through: an unloaded response pays its transfer once).
        const unsigned cycles = response_cycles(response_bytes(gp));
        if (m_path.target_ports) {
            port.rsp.use(0, nullptr, cycles, delay, entry.value());
            delay -= tlm_bus::ps_time(cycles * m_clocks.noc_ps);
        }
        src.res->use(src.first + static_cast<unsigned>(o), nullptr, cycles, delay, entry.value());
    }
    m_rsp_latency.sample(tlm_bus::seconds(tlm_bus::sim_now() + delay - back) * 1e9);
}

sc_core::sc_time crossbar::unloaded_round_trip(unsigned, unsigned) const
{
    return m_hop + m_rsp_hop;
}

} // namespace vgpu::noc
