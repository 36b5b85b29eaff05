// Named ports and routes of every interconnect. See models/noc/README.md.
#include "models/noc/interconnect.h"

#include <algorithm>

namespace vgpu::noc {

namespace {
constexpr const char* msg_type = "vgpu/noc/interconnect";
}

unsigned transfer_cycles(unsigned bytes, unsigned width)
{
    const unsigned moved = std::max(bytes, min_transfer_bytes);
    return (moved + width - 1) / width;
}

unsigned request_bytes(const tlm::tlm_generic_payload& gp, const path_params& path)
{
    return gp.is_write() ? std::max(gp.get_data_length(), min_transfer_bytes) : path.header_bytes;
}

unsigned response_bytes(const tlm::tlm_generic_payload& gp, const path_params& path)
{
    return gp.is_read() ? std::max(gp.get_data_length(), min_transfer_bytes) : path.header_bytes;
}

interconnect::interconnect(const sc_core::sc_module_name& name)
    : sc_module(name), in("in"), out("out")
{
    in.register_b_transport(this, &interconnect::fw_b_transport);
    in.register_transport_dbg(this, &interconnect::fw_transport_dbg);
    in.register_get_direct_mem_ptr(this, &interconnect::fw_get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &interconnect::invalidate_direct_mem_ptr);
}

void interconnect::add_port(std::vector<std::string>& names, const std::string& port)
{
    const bool taken = std::find(m_in_names.begin(), m_in_names.end(), port) != m_in_names.end() ||
                       std::find(m_out_names.begin(), m_out_names.end(), port) != m_out_names.end();
    if (port.empty() || taken || port.find('.') != std::string::npos)
        SC_REPORT_ERROR(msg_type, (std::string(name()) + ": port name '" + port +
                                   "' is empty, contains '.', or is already taken")
                                      .c_str());
    names.push_back(port);
}

int interconnect::output_index(const std::string& port) const
{
    const auto it = std::find(m_out_names.begin(), m_out_names.end(), port);
    return it == m_out_names.end() ? -1 : static_cast<int>(it - m_out_names.begin());
}

int interconnect::input_index(const std::string& port) const
{
    const auto it = std::find(m_in_names.begin(), m_in_names.end(), port);
    return it == m_in_names.end() ? -1 : static_cast<int>(it - m_in_names.begin());
}

void interconnect::share_input(const std::string& port, interconnect&, const std::string&)
{
    SC_REPORT_ERROR(msg_type, (std::string(name()) + ": input '" + port +
                               "' cannot share a port: only crossbars share ports")
                                  .c_str());
}

std::string interconnect::input_name(unsigned i) const
{
    return i < m_in_names.size() ? m_in_names[i] : "in" + std::to_string(i);
}

std::string interconnect::output_name(unsigned o) const
{
    return o < m_out_names.size() ? m_out_names[o] : "out" + std::to_string(o);
}

void interconnect::before_end_of_elaboration()
{
    m_inputs = in.size();
    m_outputs = out.size();
    // Either every port of a side is named (bind_input/bind_output) or none is.
    if ((!m_in_names.empty() && m_in_names.size() != m_inputs) ||
        (!m_out_names.empty() && m_out_names.size() != m_outputs))
        SC_REPORT_ERROR(
            msg_type,
            (std::string(name()) + ": some ports were bound by name and others directly").c_str());
    create_ports();
}

void interconnect::end_of_elaboration()
{
    if (!m_route)
        SC_REPORT_ERROR(msg_type, (std::string(name()) + ": no route function set").c_str());
}

int interconnect::route(const tlm::tlm_generic_payload& gp)
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

unsigned interconnect::fw_transport_dbg(int, tlm::tlm_generic_payload& gp)
{
    const int o = route(gp);
    return o < 0 ? 0 : out[o]->transport_dbg(gp);
}

bool interconnect::fw_get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
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
        const sc_core::sc_time path =
            unloaded_round_trip(static_cast<unsigned>(id), static_cast<unsigned>(o));
        dmi.set_read_latency(dmi.get_read_latency() + path);
        dmi.set_write_latency(dmi.get_write_latency() + path);
    }
    return ok;
}

void interconnect::invalidate_direct_mem_ptr(int, sc_dt::uint64 start, sc_dt::uint64 end)
{
    for (unsigned i = 0; i < in.size(); ++i)
        in[i]->invalidate_direct_mem_ptr(start, end);
}

route_fn module_route(const address_map& map, unsigned module, const interconnect& noc)
{
    // Resolve names once; per request the route is two divisions and a table lookup.
    auto port = [&](const std::string& name) {
        const int o = noc.output_index(name);
        if (o < 0)
            SC_REPORT_ERROR(msg_type, (std::string(noc.name()) + ": no output named '" + name +
                                       "' for the module route")
                                          .c_str());
        return o;
    };
    std::vector<int> slice_port(map.slices()), module_port(map.modules(), -1);
    for (unsigned k = 0; k < map.slices(); ++k)
        slice_port[k] = port("llc" + std::to_string(k));
    for (unsigned b = 0; b < map.modules(); ++b)
        if (b != module)
            module_port[b] = port("link_" + std::to_string(module) + "_" + std::to_string(b));
    return [map, module, slice_port, module_port](const tlm::tlm_generic_payload& gp) {
        const auto home = map.home(gp.get_address());
        if (!home)
            return -1;
        return *home == module ? slice_port[map.slice(gp.get_address())] : module_port[*home];
    };
}

} // namespace vgpu::noc
