// Crossbar with contended output ports: the cluster crossbar and the module NoC.
// See models/noc/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/noc/interconnect.h"
#include "models/noc/noc_config.h"
#include "models/noc/shared_resource.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace vgpu::noc {

/// N inputs x M outputs in one hop, with a request path and a response path. The route
/// function picks the output. Every port is a channel (a shared_resource named after the
/// port): an output's channel carries requests toward it, an input's channel carries the
/// responses back to it. A request pays the request hop, then occupies its output for its
/// request bytes; after the target, the response pays the response hop and occupies its output's
/// response channel (the target's port injecting it) and its input's channel for its response
/// bytes, cut through (the data enters the input's channel as it leaves the output's). A read moves
/// a header one way and its data back; a write its data one way and an acknowledgement back. With
/// path_params::header_bytes = 0 every port also has a command channel (`<port>_cmd`) beside its
/// data channel: a read's header takes one cycle of its output's command channel and a write's
/// acknowledgement one cycle of its input's, so neither takes data-channel cycles; otherwise they
/// occupy the data channel for header_bytes (one 8-byte flit at least).
class crossbar : public interconnect {
public:
    /// Widths and hops per direction (noc_config::module_noc() or cluster_xbar()).
    crossbar(const sc_core::sc_module_name& name, const noc_config& cfg, const clock_params& clocks,
             const path_params& path);

    /// NoC cycles a request channel is occupied by a transfer of `bytes` (at least one flit).
    unsigned occupancy_cycles(unsigned bytes) const;
    /// NoC cycles a response channel is occupied by a transfer of `bytes`.
    unsigned response_cycles(unsigned bytes) const;
    /// Bytes a request of `gp` moves on the request data channel: write data, or a read's
    /// header of path_params::header_bytes (0: the header takes the command channel).
    unsigned request_bytes(const tlm::tlm_generic_payload& gp) const;
    /// Bytes its response moves on the response data channel: read data, or a write's
    /// acknowledgement of path_params::header_bytes (0: the command channel).
    unsigned response_bytes(const tlm::tlm_generic_payload& gp) const;

    /// See interconnect::share_input; `owner` must be a crossbar.
    void share_input(const std::string& port, interconnect& owner,
                     const std::string& owner_port) override;

    std::uint64_t requests(unsigned output) const; ///< requests forwarded to an output
    std::uint64_t unmapped() const { return m_unmapped.value(); } ///< address errors returned

private:
    /// Statistics and channels of one output port.
    struct out_port {
        out_port(stats::group& g, const std::string& port, const resource_params& p,
                 const resource_params& rp, bool command);
        shared_resource res;                  ///< request data channel
        shared_resource rsp;                  ///< response data channel (`<port>_rsp`)
        std::unique_ptr<shared_resource> cmd; ///< command channel (read headers), if any
        stats::counter requests, bytes;
    };
    /// Statistics and response channels of one input port.
    struct in_port {
        /// p: its channels' parameters, or null when it shares another crossbar's (share_input).
        in_port(stats::group& g, const std::string& port, const resource_params* p, bool command);
        std::unique_ptr<shared_resource> own_res, own_cmd; ///< its channels, unless shared
        shared_resource* res = nullptr; ///< data channel (its own or the owner's)
        shared_resource* cmd = nullptr; ///< command channel (write acks), if any
        unsigned first = 0;             ///< arbiter input of this crossbar's output 0 there
        stats::counter requests, bytes;
    };
    /// An input that shares another crossbar's port (share_input).
    struct borrowed_port {
        std::string port;       ///< this crossbar's input
        crossbar* owner;        ///< the crossbar whose channels it takes
        std::string owner_port; ///< owner's input
        unsigned first;         ///< its outputs' first contender index after owner's outputs
    };

    void create_ports() override;
    void end_of_elaboration() override;
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;
    sc_core::sc_time unloaded_round_trip(unsigned in, unsigned out) const override;

    const noc_config m_cfg;
    const clock_params m_clocks;
    const path_params m_path;
    const sc_core::sc_time m_hop, m_rsp_hop;
    logger m_log;
    stats::group m_stats;
    std::vector<std::unique_ptr<out_port>> m_out; ///< one per output
    std::vector<std::unique_ptr<in_port>> m_in;   ///< one per input
    std::vector<borrowed_port> m_borrowed;        ///< inputs on other crossbars' channels
    std::map<std::string, unsigned> m_lent;       ///< per own input: contenders other crossbars add
    stats::counter m_unmapped;
    stats::average m_latency, m_rsp_latency;
};

} // namespace vgpu::noc
