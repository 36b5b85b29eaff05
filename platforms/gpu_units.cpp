// The GPU's structure below the platform: modules and clusters, built and wired from the
// configuration. See docs/architecture.md.
#include "platforms/gpu_units.h"

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
                           const path_factory& path)
    : sc_module(name),
      tlb(std::string(this->name()) + ".tlb", cfg.tlb, clk, cfg.memory.page_bytes.bytes),
      xbar(noc::make_interconnect("xbar", cfg.noc, clk, cfg.noc.cluster_xbar())),
      sharing(this->name(), sms, cfg, clk, first_sm_id(cfg.platform, module, cluster))
{
    const auto& p = cfg.platform;
    const unsigned first_id = first_sm_id(p, module, cluster);
    // A store and a later access of its warp to the line take one in-order path unless the
    // LLC's organisation can switch while they are in flight (models/sm/README.md).
    sm::sm_config sm_cfg = cfg.sm;
    sm_cfg.stores_follow = p.modules == 1 || (cfg.llc.mode != llc::llc_mode::adaptive &&
                                              cfg.llc.forced_switch_ns == 0);
    for (unsigned i = 0; i < p.sms_per_cluster; ++i) {
        unsigned id = first_id + i;
        auto sm_name = indexed("sm", id);
        sms.push_back(std::make_unique<sm::sm>(sm_name.c_str(), sm_cfg, clk, id, module, cluster,
                                               cfg.l1.line_bytes, cfg.stats.per_warp));
        l1s.push_back(
            std::make_unique<l1::l1>((sm_name + "_l1").c_str(), cfg.l1, clk, sharing.home_bits()));
        l1s.back()->set_owner(static_cast<int>(id));
        stages.push_back(path(sm_name, *this));
        // SM -> stages -> L1 -> cluster crossbar; then the stages' side ports -> the crossbar.
        // l1.sharing shared: SM -> stages -> L1 index routing -> the line's home L1.
        tlm::tlm_initiator_socket<>* prev = &sms.back()->mem;
        for (auto& st : stages.back()) {
            prev->bind(st->path_in());
            prev = &st->path_out();
        }
        sharing.join(i, sm_name, *prev, *l1s.back()); // l1.sharing
        xbar->bind_input(sm_name + "_l1", l1s.back()->out);
        for (auto& st : stages.back()) {
            const std::string full = st->stage_name();
            const std::string base = full.substr(full.rfind('.') + 1);
            for (const auto& side : st->side_ports())
                xbar->bind_input(base + "_" + side.name, *side.socket);
        }
    }
    xbar->set_route([](const tlm::tlm_generic_payload&) { return 0; });
    sharing.set_routes();
}

module_unit::module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                         const clock_params& clk, unsigned module, const path_factory& stages)
    : sc_module(name), noc(noc::make_interconnect("noc", cfg.noc, clk, cfg.noc.module_noc())),
      dram("dram", cfg.dram, clk, module * cfg.dram.size.bytes, cfg.llc.line_bytes)
{
    const auto& p = cfg.platform;
    for (unsigned c = 0; c < p.clusters_per_module; ++c) {
        const std::string cname = indexed("c", c);
        clusters.push_back(
            std::make_unique<cluster_unit>(cname.c_str(), cfg, clk, module, c, stages));
        clusters.back()->xbar->connect("noc", *noc, cname);
    }
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    for (unsigned k = 0; k < cfg.llc.slices_per_module; ++k) {
        const std::string lname = indexed("llc", k);
        llcs.push_back(std::make_unique<llc::llc>(lname.c_str(), cfg.llc, clk));
        noc->bind_output(lname, llcs.back()->in);
        if (p.modules == 1) {
            llcs.back()->out.bind(dram.in);
            continue;
        }
        // Private copies are filled through (and written through to) their line's home.
        homes.push_back(std::make_unique<llc::home_router>((lname + "_home").c_str(), map, module));
        llcs.back()->out.bind(homes.back()->in);
        homes.back()->local.bind(dram.in);
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
