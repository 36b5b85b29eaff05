// The platform's block seam (platforms/attach/attachment.h) with a toy block that only this test
// knows: its part of each cluster gives every SM a stage on its memory path (with a side port)
// and joins the odd SMs to their L1s itself. The cluster calls the part's hooks in order, for
// the cluster and the SMs they are meant for, and builds what it is given. See
// docs/architecture.md ("Seams", "Adding a block").
#include "platforms/attach/attachment.h"
#include "platforms/gpu_platform.h"
#include "platforms/gpu_units.h"
#include "platforms/vgpu_config.h"

#include <catch2/catch.hpp>
#include <string>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

using namespace vgpu;
using namespace vgpu::platforms;

namespace {
/// A pass-through stage with one side port.
struct toy_stage : sc_core::sc_module, tlm_bus::path_stage {
    tlm_utils::simple_target_socket<toy_stage> in{"in"};
    tlm_utils::simple_initiator_socket<toy_stage> out{"out"}, side{"side"};
    explicit toy_stage(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &toy_stage::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& t) { out->b_transport(gp, t); }
    tlm::tlm_target_socket<>& path_in() override { return in; }
    tlm::tlm_initiator_socket<>& path_out() override { return out; }
    std::vector<tlm_bus::side_port> side_ports() override { return {{"side", &side}}; }
    const char* stage_name() const override { return name(); }
};

/// What the toy block was asked, in order.
std::vector<std::string> calls;

struct toy_part : attach::cluster_part {
    unsigned l1_home_bits() const override { return 0; }
    std::unique_ptr<tlm_bus::path_stage> path_stage(unsigned i, const std::string& sm_name) override
    {
        calls.push_back("stage " + std::to_string(i) + " " + sm_name);
        return std::make_unique<toy_stage>((sm_name + "_toy").c_str());
    }
    bool join_l1(unsigned i, const std::string& sm_name, tlm::tlm_initiator_socket<>& path_end,
                 l1::l1& l1) override
    {
        calls.push_back("join " + std::to_string(i) + " " + sm_name + " -> " + l1.name());
        if (i % 2 == 0)
            return false;
        path_end.bind(l1.in);
        return true;
    }
    void end_cluster() override { calls.push_back("end"); }
};

struct toy_block : attach::block {
    std::unique_ptr<attach::cluster_part>
    begin_cluster(const std::string& cluster, const std::vector<std::unique_ptr<sm::sm>>& sms,
                  unsigned first_id) override
    {
        calls.push_back("begin " + cluster + " " + std::to_string(first_id) + " " +
                        std::to_string(sms.size()));
        return std::make_unique<toy_part>();
    }
};
} // namespace

TEST_CASE("block seam: a toy block's cluster part is asked for each cluster and SM, in order, "
          "and its stages sit on the SMs' memory paths")
{
    vgpu_config cfg;
    cfg.platform.clusters_per_module = 2;
    cfg.platform.sms_per_cluster = 2;
    block_list blocks;
    blocks.push_back(std::make_unique<toy_block>());
    module_unit mod("m1", cfg, make_clock_params(cfg.platform), 1, blocks);

    const std::vector<std::string> expected = {
        "begin m1.c0 4 0", // module 1's first SM is 2 clusters x 2 SMs in
        "stage 0 sm4",
        "join 0 sm4 -> m1.c0.sm4_l1",
        "stage 1 sm5",
        "join 1 sm5 -> m1.c0.sm5_l1",
        "end",
        "begin m1.c1 6 0",
        "stage 0 sm6",
        "join 0 sm6 -> m1.c1.sm6_l1",
        "stage 1 sm7",
        "join 1 sm7 -> m1.c1.sm7_l1",
        "end",
    };
    CHECK(calls == expected);
    for (const auto& cl : mod.clusters) {
        REQUIRE(cl->parts.size() == 1);
        REQUIRE(cl->stages.size() == 2);
        for (unsigned i = 0; i < 2; ++i) {
            REQUIRE(cl->stages[i].size() == 1);
            CHECK(std::string(cl->stages[i][0]->stage_name()) ==
                  std::string(cl->sms[i]->name()) + "_toy");
        }
    }
}
