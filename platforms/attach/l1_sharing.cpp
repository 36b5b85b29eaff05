// The L1 sharing block joined to one cluster. See models/l1_share/README.md.
#include "platforms/attach/l1_sharing.h"

#include "models/l1_share/adaptive_policy.h"

namespace vgpu::platforms::attach {

l1_sharing::l1_sharing(const std::string& cluster, const std::vector<std::unique_ptr<sm::sm>>& sms,
                       const vgpu_config& cfg, const clock_params& clk, unsigned first_id)
    : m_l1(cfg.l1), m_sms_per_cluster(cfg.platform.sms_per_cluster),
      m_shared(cfg.l1.sharing == l1::sharing_mode::shared),
      m_adaptive(cfg.l1.sharing == l1::sharing_mode::adaptive)
{
    while (m_shared && (1u << m_home_bits) < m_sms_per_cluster)
        ++m_home_bits;
    if (m_shared || m_adaptive) {
        // The home L1s' ports are not booked for responses (yet): with them, strided_sum under
        // l1.sharing shared was +5.8 % in fast mode against accurate (models/noc/README.md).
        noc::path_params path = cfg.noc.cluster_xbar();
        path.target_ports = false;
        l1_route = noc::make_interconnect("l1_route", cfg.noc, clk, path);
    }
    if (!m_adaptive)
        return;
    l1_share::classify_params cp;
    cp.miss_rate = cfg.l1.miss_rate_threshold;
    cp.mem_share = cfg.l1.mem_share_threshold;
    const std::uint64_t epoch = sc_core::sc_time(static_cast<double>(cfg.l1.epoch_cycles) *
                                                     static_cast<double>(clk.core_ps),
                                                 sc_core::SC_PS)
                                    .value();
    classes = std::make_unique<l1_share::cluster_classes>(cluster + ".l1_share", m_sms_per_cluster,
                                                          first_id, epoch, cp);
    classes->set_clock([] { return sc_core::sc_time_stamp().value(); });
    classes->set_totals([&sms](unsigned s) {
        return l1_share::instruction_totals{sms[s]->instructions(),
                                            sms[s]->loads() + sms[s]->stores()};
    });
}

void l1_sharing::join(unsigned i, const std::string& sm_name, tlm::tlm_initiator_socket<>& path_end,
                      l1::l1& l1)
{
    if (m_shared) {
        l1_route->bind_input(sm_name, path_end);
        l1_route->bind_output(sm_name + "_l1", l1.in);
    } else {
        path_end.bind(l1.in);
    }
    // adaptive: each L1 reaches the others (its partner, store updates) over l1_route.
    if (m_adaptive) {
        auto share = std::make_unique<l1_share::adaptive_policy>(
            (sm_name + "_l1_share").c_str(), l1, *classes, i, m_sms_per_cluster, m_l1);
        l1_route->bind_input(sm_name + "_peer", share->peer);
        l1_route->bind_output(sm_name + "_l1", share->remote_in);
        l1.attach_peer(std::move(share));
    }
}

void l1_sharing::set_routes()
{
    if (m_shared) {
        const l1_share::home_map homes(m_l1.share_index, m_sms_per_cluster, m_l1.sets,
                                       m_l1.line_bytes);
        l1_route->set_route([homes](const tlm::tlm_generic_payload& gp) {
            return static_cast<int>(homes.home(gp.get_address()));
        });
    }
    if (m_adaptive)
        l1_route->set_route([](const tlm::tlm_generic_payload& gp) {
            return l1_share::adaptive_policy::peer_target(gp.get_address());
        });
}

} // namespace vgpu::platforms::attach
