// The GPU's structure below the platform: modules and clusters, built and wired from the
// configuration. See docs/architecture.md.
#include "platforms/gpu_units.h"

#include "tlm_bus/link_binder.h"

#include <algorithm>

namespace vgpu::platforms {

namespace {
std::string indexed(const char* prefix, unsigned i)
{
    return prefix + std::to_string(i);
}

/// Id of the first SM of cluster `cluster` of module `module`.
unsigned first_sm_id(const platform_config& p, unsigned module, unsigned cluster)
{
    return (module * p.clusters_per_module + cluster) * p.sms_per_cluster;
}
} // namespace

cluster_unit::cluster_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const clock_params& clk, unsigned module, unsigned cluster,
                           const block_list& blocks)
    : sc_module(name), xbar(noc::make_interconnect("xbar", cfg.noc, clk, cfg.noc.cluster_xbar()))
{
    const auto& p = cfg.platform;
    const unsigned first_id = first_sm_id(p, module, cluster);
    unsigned home_bits = 0;
    for (const auto& b : blocks)
        if (auto part = b->begin_cluster(this->name(), sms, first_id)) {
            home_bits = std::max(home_bits, part->l1_home_bits());
            parts.push_back(std::move(part));
        }
    for (unsigned i = 0; i < p.sms_per_cluster; ++i) {
        unsigned id = first_id + i;
        auto sm_name = indexed("sm", id);
        sms.push_back(std::make_unique<sm::sm>(sm_name.c_str(), cfg.sm, clk, id, module, cluster,
                                               cfg.l1.line_bytes, cfg.stats.per_warp));
        l1s.push_back(std::make_unique<l1::l1>((sm_name + "_l1").c_str(), cfg.l1, clk, home_bits));
        l1s.back()->set_owner(static_cast<int>(id));
        stages.emplace_back();
        for (auto& part : parts)
            if (auto st = part->path_stage(i, sm_name))
                stages.back().push_back(std::move(st));
        // SM -> stages -> L1 (directly, or as a part joins them) -> cluster crossbar; then the
        // stages' side ports -> the crossbar.
        tlm::tlm_initiator_socket<>* prev = &sms.back()->mem;
        for (auto& st : stages.back()) {
            tlm_bus::bind_link(*prev, st->path_in());
            prev = &st->path_out();
        }
        bool joined = false;
        for (auto& part : parts) // every part is asked; at most one binds the path's end
            joined = part->join_l1(i, sm_name, *prev, *l1s.back()) || joined;
        if (!joined)
            tlm_bus::bind_link(*prev, l1s.back()->in);
        xbar->bind_input(sm_name + "_l1", l1s.back()->out);
        for (auto& st : stages.back()) {
            const std::string full = st->stage_name();
            const std::string base = full.substr(full.rfind('.') + 1);
            for (const auto& side : st->side_ports())
                xbar->bind_input(base + "_" + side.name, *side.socket);
        }
    }
    xbar->set_route([](const tlm::tlm_generic_payload&) { return 0; });
    for (auto& part : parts)
        part->end_cluster();
}

module_unit::module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                         const clock_params& clk, unsigned module, const block_list& blocks)
    : sc_module(name), noc(noc::make_interconnect("noc", cfg.noc, clk, cfg.noc.module_noc())),
      dram("dram", cfg.dram, clk, module * cfg.dram.size.bytes, cfg.llc.line_bytes)
{
    const auto& p = cfg.platform;
    for (unsigned c = 0; c < p.clusters_per_module; ++c) {
        const std::string cname = indexed("c", c);
        clusters.push_back(
            std::make_unique<cluster_unit>(cname.c_str(), cfg, clk, module, c, blocks));
        clusters.back()->xbar->connect("noc", *noc, cname);
    }
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    for (unsigned k = 0; k < cfg.llc.slices_per_module; ++k) {
        const std::string lname = indexed("llc", k);
        llcs.push_back(std::make_unique<llc::llc>(lname.c_str(), cfg.llc, clk));
        noc->bind_output(lname, llcs.back()->in);
        if (p.modules == 1) {
            tlm_bus::bind_link(llcs.back()->out, dram.in);
            continue;
        }
        // Private copies are filled through (and written through to) their line's home.
        homes.push_back(std::make_unique<llc::home_router>((lname + "_home").c_str(), map, module));
        tlm_bus::bind_link(llcs.back()->out, homes.back()->in);
        tlm_bus::bind_link(homes.back()->local, dram.in);
        noc->bind_input(lname + "_home", homes.back()->remote);
    }
}

double sum_over_sms(const std::vector<std::unique_ptr<module_unit>>& modules,
                    std::uint64_t (sm::sm::*stat)() const)
{
    double total = 0;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& s : cl->sms)
                total += static_cast<double>(((*s).*stat)());
    return total;
}

} // namespace vgpu::platforms
