// The L1 sharing block joined to each cluster: the sharing counters of every L1 (all modes, zero
// under l1.sharing private), and under shared | adaptive the cluster's L1 index routing or
// crossbar between the L1s, and the SMs' classes. See models/l1_share/README.md.
#include "models/l1/l1.h"
#include "models/l1_share/adaptive_policy.h"
#include "models/l1_share/cluster_classes.h"
#include "models/noc/interconnect.h"
#include "models/sm/sm.h"
#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"
#include "tlm_bus/link_binder.h"

namespace vgpu::platforms::attach {

namespace {
/// One cluster's L1 sharing, made before the cluster's SMs and joined SM by SM.
class l1_sharing : public cluster_part {
public:
    /// Builds the l1_route (shared, adaptive) and classes (adaptive) of the cluster under
    /// construction, named `cluster` (its path), whose SMs `sms` will hold; `first_id` is the
    /// id of its first SM.
    l1_sharing(const std::string& cluster, const std::vector<std::unique_ptr<sm::sm>>& sms,
               const vgpu_config& cfg, const clock_params& clk, unsigned first_id)
        : m_cluster(cluster), m_l1(cfg.l1), m_sms_per_cluster(cfg.platform.sms_per_cluster),
          m_shared(cfg.l1.sharing == l1::sharing_mode::shared),
          m_adaptive(cfg.l1.sharing == l1::sharing_mode::adaptive)
    {
        if (!m_shared && !m_adaptive)
            return;
        while (m_shared && (1u << m_home_bits) < m_sms_per_cluster)
            ++m_home_bits;
        // The home L1s' ports are not booked for responses (yet): with them, strided_sum under
        // l1.sharing shared was +5.8 % in fast mode against accurate (models/noc/README.md).
        noc::path_params path = cfg.noc.cluster_xbar();
        path.target_ports = false;
        l1_route = noc::make_interconnect("l1_route", cfg.noc, clk, path);
        if (!m_adaptive)
            return;
        l1_share::classify_params cp;
        cp.miss_rate = cfg.l1.miss_rate_threshold;
        cp.mem_share = cfg.l1.mem_share_threshold;
        const std::uint64_t epoch = sc_core::sc_time(static_cast<double>(cfg.l1.epoch_cycles) *
                                                         static_cast<double>(clk.core_ps),
                                                     sc_core::SC_PS)
                                        .value();
        classes = std::make_unique<l1_share::cluster_classes>(
            cluster + ".l1_share", m_sms_per_cluster, first_id, epoch, cp);
        classes->set_clock([] { return sc_core::sc_time_stamp().value(); });
        classes->set_totals([&sms](unsigned s) {
            return l1_share::instruction_totals{sms[s]->instructions(),
                                                sms[s]->loads() + sms[s]->stores()};
        });
    }

    /// Index bits of the home L1 in an L1's set index (shared), else 0.
    unsigned l1_home_bits() const override { return m_home_bits; }

    /// Adds the sharing counters to the statistics of SM `i`'s L1 and joins the SM to it:
    /// through l1_route to the line's home L1 (shared), or directly with an adaptive policy
    /// attached to `l1`, its peer ports on l1_route (adaptive). Private: false (the platform
    /// binds the path to the L1).
    bool join_l1(unsigned i, const std::string& sm_name, tlm::tlm_initiator_socket<>& path_end,
                 l1::l1& l1) override
    {
        m_counts.push_back(std::make_unique<l1_share::share_stats>(l1.stats()));
        if (!m_shared && !m_adaptive)
            return false;
        m_sm_names.push_back(sm_name);
        if (m_shared) {
            l1_route->bind_input(sm_name, path_end);
            l1_route->bind_output(sm_name + "_l1", l1.in);
        } else {
            tlm_bus::bind_link(path_end, l1.in);
        }
        // adaptive: each L1 reaches the others (its partner, store updates) over l1_route.
        if (m_adaptive) {
            auto share = std::make_unique<l1_share::adaptive_policy>(
                (sm_name + "_l1_share").c_str(), l1, *classes, i, m_sms_per_cluster, m_l1,
                *m_counts.back());
            l1_route->bind_input(sm_name + "_peer", share->peer);
            l1_route->bind_output(sm_name + "_l1", share->remote_in);
            l1.attach_peer(std::move(share));
        }
        return true;
    }

    /// Sets l1_route's route once every SM is joined, and makes each SM's input of l1_route
    /// (shared: `sm<i>`; adaptive: its L1's `sm<i>_peer`) and its L1's input of the cluster
    /// crossbar one port.
    void end_cluster() override
    {
        if (!m_shared && !m_adaptive)
            return;
        // The patent's cluster has one crossbar, with one port per SM: the responses to the
        // SM's L1 or SM (shared: from its lines' home L1s; adaptive: from its partner's L1) and
        // the fills of its L1 (from the NoC) arrive through that port. l1_route and the cluster
        // crossbar are two switches here, so the SM's input of l1_route takes the channels of
        // its L1's input of the cluster crossbar (`xbar.sm<i>_l1`): one port's bandwidth per
        // SM, not two.
        auto* xbar = dynamic_cast<noc::interconnect*>(
            sc_core::sc_find_object((m_cluster + ".xbar").c_str()));
        if (!xbar)
            SC_REPORT_ERROR("vgpu/l1_share",
                            (m_cluster + ": no cluster crossbar to share ports with").c_str());
        for (const std::string& sm : m_sm_names)
            l1_route->share_input(m_shared ? sm : sm + "_peer", *xbar, sm + "_l1");
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

private:
    /// shared: the L1 index routing crossbar, inputs `sm<i>` (each SM's memory path), outputs
    /// `sm<i>_l1` (the home L1s). adaptive: the crossbar between the L1s, inputs `sm<i>_peer`
    /// (each L1's `peer`), outputs `sm<i>_l1` (each L1's `remote_in`), routed by the L1 address
    /// window.
    std::unique_ptr<noc::interconnect> l1_route;
    /// adaptive: the SMs' classes and partners (stats `<cluster>.l1_share.*`), else null.
    std::unique_ptr<l1_share::cluster_classes> classes;
    /// Every L1's sharing counters, in the L1's group (every L1 reports the same names whatever
    /// l1.sharing is; an adaptive policy counts into its L1's).
    std::vector<std::unique_ptr<l1_share::share_stats>> m_counts;
    const std::string m_cluster;         ///< the cluster's path
    std::vector<std::string> m_sm_names; ///< shared, adaptive: the SMs joined, in order
    const l1::l1_config m_l1;
    unsigned m_sms_per_cluster, m_home_bits = 0;
    bool m_shared, m_adaptive;
};

/// A part of every cluster, whatever l1.sharing is.
class l1_share_attach : public block {
public:
    l1_share_attach(const vgpu_config& cfg, const clock_params& clk) : m_cfg(cfg), m_clk(clk) {}
    std::unique_ptr<cluster_part> begin_cluster(const std::string& cluster,
                                                const std::vector<std::unique_ptr<sm::sm>>& sms,
                                                unsigned first_id) override
    {
        return std::make_unique<l1_sharing>(cluster, sms, m_cfg, m_clk, first_id);
    }
    /// Active when the L1s share (private is the baseline).
    std::string active() const override
    {
        if (m_cfg.l1.sharing == l1::sharing_mode::private_)
            return {};
        return "l1_share (" + std::string(name_of(m_cfg.l1.sharing)) + ")";
    }

private:
    const vgpu_config& m_cfg;
    const clock_params m_clk;
};
} // namespace

std::unique_ptr<block> l1_share_block(const vgpu_config& cfg, const clock_params& clk)
{
    return std::make_unique<l1_share_attach>(cfg, clk);
}

} // namespace vgpu::platforms::attach
