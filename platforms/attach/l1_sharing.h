// The L1 sharing block joined to one cluster (l1.sharing shared | adaptive): the cluster's L1
// index routing or crossbar between the L1s, and the SMs' classes. See
// models/l1_share/README.md.
#pragma once

#include "models/common/timing.h"
#include "models/l1/l1.h"
#include "models/l1_share/cluster_classes.h"
#include "models/noc/interconnect.h"
#include "models/sm/sm.h"
#include "platforms/vgpu_config.h"

#include <memory>
#include <string>
#include <tlm>
#include <vector>

namespace vgpu::platforms::attach {

/// One cluster's L1 sharing, built before the cluster's SMs and joined SM by SM.
class l1_sharing {
public:
    /// Builds the l1_route (shared, adaptive) and classes (adaptive) of the cluster under
    /// construction, named `cluster` (its path), whose SMs `sms` will hold; `first_id` is the
    /// id of its first SM.
    l1_sharing(const std::string& cluster, const std::vector<std::unique_ptr<sm::sm>>& sms,
               const vgpu_config& cfg, const clock_params& clk, unsigned first_id);
    /// Index bits of the home L1 in an L1's set index (shared), else 0: the L1's `home_bits`.
    unsigned home_bits() const { return m_home_bits; }
    /// Joins the cluster's SM `i`, named `sm_name`, whose memory path ends at `path_end`, to its
    /// L1 `l1`: directly (private), through l1_route to the line's home L1 (shared), or
    /// directly with an adaptive policy attached to `l1`, its peer ports on l1_route (adaptive).
    void join(unsigned i, const std::string& sm_name, tlm::tlm_initiator_socket<>& path_end,
              l1::l1& l1);
    /// Sets l1_route's route once every SM is joined.
    void set_routes();

    /// shared: the L1 index routing crossbar, inputs `sm<i>` (each SM's memory path), outputs
    /// `sm<i>_l1` (the home L1s). adaptive: the crossbar between the L1s, inputs `sm<i>_peer`
    /// (each L1's `peer`), outputs `sm<i>_l1` (each L1's `remote_in`), routed by the L1 address
    /// window. Null when private.
    std::unique_ptr<noc::interconnect> l1_route;
    /// adaptive: the SMs' classes and partners (stats `<cluster>.l1_share.*`), else null.
    std::unique_ptr<l1_share::cluster_classes> classes;

private:
    const l1::l1_config m_l1;
    unsigned m_sms_per_cluster, m_home_bits = 0;
    bool m_shared, m_adaptive;
};

} // namespace vgpu::platforms::attach
