// A vgpu-sim whose gpu platform holds one more block, known only to this test: it breaks the
// TLM-2.0 base protocol on one link of SM 0's memory path, so that the protocol checks of
// platform.check_protocol can be seen to catch it (test/platform/test_protocol_checks.cpp).
// VGPU_BROKEN_LINK=address (default): a stage after SM 0's L1 TLB changes the address of every
// access it forwards and leaves it changed on return (the TLB, its initiator, restores its own
// address, so nothing else notices). VGPU_BROKEN_LINK=bypass: the same stage, correct, joined to
// the L1 by a bare bind() around the link seam (tlm_bus::bind_link).
#include "models/l1/l1.h"
#include "platforms/attach/attachment.h"
#include "platforms/cli.h"
#include "platforms/vgpu_sim.h"

#include <cstdlib>
#include <string>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

using namespace vgpu;
using namespace vgpu::platforms;

namespace {
/// A pass-through stage; `break_address`: it adds 4 to the address of every b_transport it
/// forwards, after the call (a target may not change the address: IEEE 1666-2011 14.7).
struct bad_stage : sc_core::sc_module, tlm_bus::path_stage {
    tlm_utils::simple_target_socket<bad_stage> in{"in"};
    tlm_utils::simple_initiator_socket<bad_stage> out{"out"};
    bad_stage(const sc_core::sc_module_name& n, bool break_address)
        : sc_module(n), m_break(break_address)
    {
        in.register_b_transport(this, &bad_stage::b_transport);
        in.register_transport_dbg(this, &bad_stage::transport_dbg);
        in.register_get_direct_mem_ptr(this, &bad_stage::get_direct_mem_ptr);
        out.register_invalidate_direct_mem_ptr(this, &bad_stage::invalidate);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& t)
    {
        out->b_transport(gp, t);
        if (m_break)
            gp.set_address(gp.get_address() + 4);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
    {
        return out->get_direct_mem_ptr(gp, dmi);
    }
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end)
    {
        in->invalidate_direct_mem_ptr(start, end);
    }
    tlm::tlm_target_socket<>& path_in() override { return in; }
    tlm::tlm_initiator_socket<>& path_out() override { return out; }
    const char* stage_name() const override { return name(); }

private:
    const bool m_break;
};

/// The first cluster's part: the bad stage on SM 0's path (`bypass`: also joined to its L1
/// around the seam).
struct bad_part : attach::cluster_part {
    explicit bad_part(bool bypass) : m_bypass(bypass) {}
    std::unique_ptr<tlm_bus::path_stage> path_stage(unsigned i, const std::string& sm_name) override
    {
        if (i != 0)
            return nullptr;
        return std::make_unique<bad_stage>((sm_name + "_bad").c_str(), !m_bypass);
    }
    bool join_l1(unsigned i, const std::string&, tlm::tlm_initiator_socket<>& path_end,
                 l1::l1& l1) override
    {
        if (!m_bypass || i != 0)
            return false;
        path_end.bind(l1.in); // around tlm_bus::bind_link: a link without a checker
        return true;
    }

private:
    const bool m_bypass;
};

struct bad_block : attach::block {
    std::unique_ptr<attach::cluster_part> begin_cluster(const std::string&,
                                                        const std::vector<std::unique_ptr<sm::sm>>&,
                                                        unsigned first_id) override
    {
        if (first_id != 0)
            return nullptr;
        const char* mode = std::getenv("VGPU_BROKEN_LINK");
        return std::make_unique<bad_part>(mode != nullptr && std::string(mode) == "bypass");
    }
};

std::unique_ptr<attach::block> make_bad_block(const vgpu_config&, const clock_params&)
{
    return std::make_unique<bad_block>();
}
} // namespace

int main(int argc, char** argv)
{
    return vgpu_sim_main(argc, argv, {make_bad_block});
}

/// libsystemc refers to sc_main; this front end has its own main().
int sc_main(int, char**)
{
    return exit_usage;
}
