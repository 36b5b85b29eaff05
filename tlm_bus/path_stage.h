// A stage on an SM's memory path (SM -> stages -> L1): what the platform builder needs to chain
// it. The L1 TLB implements this; a block's cluster part gives one per SM
// (platforms/attach/attachment.h, cluster_part::path_stage). See docs/architecture.md.
#pragma once

#include <string>
#include <tlm>
#include <utility>
#include <vector>

namespace vgpu::tlm_bus {

/// One named initiator of a stage that reaches memory by its own way (e.g. page-table reads):
/// the builder binds it to the cluster crossbar as input `<stage>_<name>`.
struct side_port {
    std::string name;                    ///< port name, e.g. "walk"
    tlm::tlm_initiator_socket<>* socket; ///< the initiator to bind
};

/// Implemented by every module that sits between an SM and its L1.
class path_stage {
public:
    virtual ~path_stage() = default;
    /// Requests from the SM side (virtual or physical addresses, as the stage expects).
    virtual tlm::tlm_target_socket<>& path_in() = 0;
    /// Requests toward the L1.
    virtual tlm::tlm_initiator_socket<>& path_out() = 0;
    /// Further initiators that reach the memory system through the cluster crossbar.
    virtual std::vector<side_port> side_ports() { return {}; }
    /// The stage's SystemC instance name (its base name names the side ports).
    virtual const char* stage_name() const = 0;
};

} // namespace vgpu::tlm_bus
