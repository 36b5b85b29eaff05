// What every interconnect of the GPU offers the builder (cluster crossbar, module NoC): named
// inputs and outputs and a route from address to output; `noc.topology` picks the class that
// implements it. See models/noc/README.md.
#pragma once

#include "models/common/timing.h"
#include "models/noc/core/address_map.h"
#include "models/noc/noc_config.h"
#include "tlm_bus/link_binder.h"

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

namespace vgpu::noc {

/// The smallest data-channel transfer: one 8-byte flit.
constexpr unsigned min_transfer_bytes = 8;
/// NoC cycles a channel moving `width` bytes per cycle is held by `bytes` (at least a flit).
unsigned transfer_cycles(unsigned bytes, unsigned width);
/// Bytes a request of `gp` moves on its way out: write data, or a read's header of
/// path_params::header_bytes (0: none on the data channel).
unsigned request_bytes(const tlm::tlm_generic_payload& gp, const path_params& path);
/// Bytes its response moves back: read data, or a write's acknowledgement of header_bytes.
unsigned response_bytes(const tlm::tlm_generic_payload& gp, const path_params& path);

/// Output index of a request, or -1 when no output serves its address.
using route_fn = std::function<int(const tlm::tlm_generic_payload&)>;

/// N named inputs x M named outputs. Ports are addressed by name, never by bind order: stats
/// are `<path>.<port>.<stat>`, and inserting a requester or target changes no other port's
/// name. Global physical addresses pass unchanged.
class interconnect : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<interconnect> in;     ///< requesters
    tlm_utils::multi_passthrough_initiator_socket<interconnect> out; ///< targets

    /// Binds `initiator` (any TLM initiator socket) to a new input named `port` (a link of the
    /// platform: tlm_bus::bind_link, whose checker names the input `<path>.<port>`).
    template <typename Socket> void bind_input(const std::string& port, Socket& initiator)
    {
        add_port(m_in_names, port);
        tlm_bus::bind_link(initiator, in, {}, port_path(port));
    }
    /// Binds a new output named `port` to `target` (any TLM target socket), as a link.
    template <typename Socket> void bind_output(const std::string& port, Socket& target)
    {
        add_port(m_out_names, port);
        tlm_bus::bind_link(out, target, port_path(port));
    }
    /// Binds this interconnect's new output `out_port` to `next`'s new input `in_port`, as a
    /// link.
    void connect(const std::string& out_port, interconnect& next, const std::string& in_port)
    {
        add_port(m_out_names, out_port);
        next.add_port(next.m_in_names, in_port);
        tlm_bus::bind_link(out, next.in, port_path(out_port), next.port_path(in_port));
    }
    /// Makes input `port` of this interconnect the same physical port as input `owner_port` of
    /// `owner`: the responses returning through `port` take the channels of `owner_port` (its
    /// response data and command channels), where this interconnect's outputs contend after
    /// owner's. For a requester reached through two switches that is one port of one switch
    /// in the hardware (l1.sharing shared: an SM's port on the cluster crossbar). Both must be
    /// crossbars with the same widths; call after this interconnect's outputs are bound and
    /// before elaboration ends. Unsupported (an error) by the other topologies.
    virtual void share_input(const std::string& port, interconnect& owner,
                             const std::string& owner_port);
    /// Index of the output named `port` (what a route function returns), or -1.
    int output_index(const std::string& port) const;
    /// Sets the route function; call before the simulation starts.
    void set_route(route_fn route) { m_route = std::move(route); }

    unsigned inputs() const { return m_inputs; }   ///< bound inputs (after elaboration)
    unsigned outputs() const { return m_outputs; } ///< bound outputs (after elaboration)
    /// Name of input i: its bind_input name, or "in<i>" when the inputs were bound unnamed.
    std::string input_name(unsigned i) const;
    /// Name of output o: its bind_output name, or "out<o>" when bound unnamed.
    std::string output_name(unsigned o) const;

protected:
    explicit interconnect(const sc_core::sc_module_name& name);
    /// Checks the names and counts the ports, then calls create_ports().
    void before_end_of_elaboration() override;
    void end_of_elaboration() override;
    /// The output of `gp`, or -1 when it is unmapped (a route past the outputs is an error).
    int route(const tlm::tlm_generic_payload& gp);
    /// Creates the per-port state once every port is bound.
    virtual void create_ports() = 0;
    virtual void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) = 0;
    /// The unloaded time from input `in` to output `out` and back (added to a DMI region's
    /// latencies).
    virtual sc_core::sc_time unloaded_round_trip(unsigned in, unsigned out) const = 0;

    unsigned m_inputs = 0, m_outputs = 0;
    /// Outputs bound by name so far (before elaboration ends, when m_outputs is not known).
    unsigned named_outputs() const { return static_cast<unsigned>(m_out_names.size()); }
    /// Index of the input named `port`, or -1.
    int input_index(const std::string& port) const;

private:
    void add_port(std::vector<std::string>& names, const std::string& port);
    /// `<path>.<port>`: one end of a link as its checker's name gives it.
    std::string port_path(const std::string& port) const
    {
        return std::string(name()) + "." + port;
    }
    void fw_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
    {
        b_transport(id, gp, delay);
    }
    /// Debug transport to the routed output (0 bytes where no output serves the address).
    unsigned fw_transport_dbg(int id, tlm::tlm_generic_payload& gp);
    /// DMI from the routed output, its latencies plus unloaded_round_trip().
    bool fw_get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);

    route_fn m_route;
    std::vector<std::string> m_in_names, m_out_names;
};

/// The module NoC's route: a line homed on `module` goes to output `llc<slice>`, a line homed
/// on module b to output `link_<module>_<b>`, anything beyond the map is unmapped. Call after
/// the outputs are bound.
route_fn module_route(const address_map& map, unsigned module, const interconnect& noc);

/// Builds the interconnect `path.topology` names (crossbar or mesh) with the widths, hops and
/// grid of `path` (noc_config::module_noc(), which follows `noc.topology`, or cluster_xbar(),
/// always a crossbar).
std::unique_ptr<interconnect> make_interconnect(const sc_core::sc_module_name& name,
                                                const noc_config& cfg, const clock_params& clocks,
                                                const path_params& path);

} // namespace vgpu::noc
