// Where an LLC slice's fills and write-backs go on a multi-module GPU: lines homed on the
// slice's module to its DRAM controller, lines homed elsewhere (the private organisation's
// copies) into the module NoC, which carries them to their home over the links. No time of its
// own: a wire with a fork. See models/llc/README.md ("LLC switcher").
#pragma once

#include "models/noc/core/address_map.h"

#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::llc {

class home_router : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<home_router> in;        ///< from the slice's `out`
    tlm_utils::simple_initiator_socket<home_router> local;  ///< to the module's DRAM controller
    tlm_utils::simple_initiator_socket<home_router> remote; ///< into the module NoC

    home_router(const sc_core::sc_module_name& name, const noc::address_map& map, unsigned module)
        : sc_module(name), in("in"), local("local"), remote("remote"), m_map(map), m_module(module)
    {
        in.register_b_transport(this, &home_router::b_transport);
        in.register_transport_dbg(this, &home_router::transport_dbg);
    }

private:
    tlm_utils::simple_initiator_socket<home_router>& route(const tlm::tlm_generic_payload& gp)
    {
        const auto home = m_map.home(gp.get_address());
        return home && *home != m_module ? remote : local;
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
    {
        route(gp)->b_transport(gp, delay);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return route(gp)->transport_dbg(gp); }

    noc::address_map m_map;
    unsigned m_module;
};

} // namespace vgpu::llc
