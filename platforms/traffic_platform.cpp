// The traffic platform. See docs/architecture.md.
#include "platforms/traffic_platform.h"

#include <string>

namespace vgpu::platforms {

traffic_platform::traffic_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg)
    : sc_module(name), m_link_checks(cfg.platform.check_protocol), m_cfg(cfg), m_bus("bus")
{
    // Every link below is bound through m_link_checks (tlm_bus::bind_link).
    const tlm_bus::link_binder::scope link_scope(m_link_checks.binder());
    const auto& t = cfg.traffic;
    for (unsigned i = 0; i < t.generators; ++i) {
        traffic::pattern_params p;
        p.kind = t.pattern;
        p.base = t.base + i * t.footprint.bytes;
        p.footprint = t.footprint.bytes;
        p.stride = t.stride.bytes;
        p.access_bytes = t.access_bytes;
        p.write_ratio = t.write_ratio;
        p.seed = cfg.platform.seed + i;
        auto name = "tg" + std::to_string(i);
        m_gens.push_back(
            std::make_unique<traffic::traffic_gen>(name.c_str(), p, t.transactions, t.check));
        tlm_bus::bind_link(m_gens.back()->mem, m_bus.in);
        m_gens.back()->mem.set_dmi_enabled(cfg.dram.dmi &&
                                           cfg.platform.timing.mode == timing_mode::fast);
    }
    // The traffic platform gives each module one memory port whose bandwidth is the sum of its
    // channels (channel interleaving, banks and rows are modelled by the GPU's DRAM
    // controller); its latency is that of a read that finds its bank closed (dram.latency is
    // the controller's pipeline latency on top of the bank timings).
    for (unsigned m = 0; m < cfg.platform.modules; ++m) {
        tlm_bus::memory_params mp;
        mp.size = cfg.dram.size.bytes;
        mp.latency =
            sc_core::sc_time::from_value(cfg.dram.latency.ps + cfg.dram.tRCD.ps + cfg.dram.tCL.ps);
        mp.bytes_per_ns = cfg.dram.bandwidth_gbps * cfg.dram.channels;
        mp.dmi = cfg.dram.dmi && cfg.platform.timing.mode == timing_mode::fast;
        auto name = "mem" + std::to_string(m);
        m_mems.push_back(std::make_unique<tlm_bus::memory>(name.c_str(), mp));
        m_bus.bind_output(name, m_mems.back()->in);
        m_bus.map({m * mp.size, mp.size, m, 0, name});

        const tlm_bus::memory* mem = m_mems.back().get();
        m_mem_stats.push_back(std::make_unique<stats::group>(mem->name()));
        auto& g = *m_mem_stats.back();
        auto add = [&](const char* n, const char* unit, const char* desc,
                       std::function<double()> f) {
            m_mem_formulas.push_back(
                std::make_unique<stats::formula>(g, n, unit, desc, std::move(f)));
        };
        add("reads", "count", "read transactions served by b_transport",
            [mem] { return double(mem->reads()); });
        add("writes", "count", "write transactions served by b_transport",
            [mem] { return double(mem->writes()); });
        add("bytes", "bytes", "bytes moved by b_transport", [mem] { return double(mem->bytes()); });
        add("errors", "count", "error responses", [mem] { return double(mem->errors()); });
        add("dmi_grants", "count", "DMI pointers granted",
            [mem] { return double(mem->dmi_grants()); });
        add("queue_time", "ns", "total time requests waited for the memory port",
            [mem] { return mem->queue_time().to_seconds() * 1e9; });
    }
}

bool traffic_platform::finished() const
{
    for (const auto& g : m_gens)
        if (!g->finished())
            return false;
    return true;
}

std::vector<std::string> traffic_platform::failures() const
{
    std::vector<std::string> out;
    for (const auto& g : m_gens) {
        if (g->mismatches())
            out.push_back(std::string(g->name()) + ": " + std::to_string(g->mismatches()) +
                          " reads returned wrong data");
        if (g->failures())
            out.push_back(std::string(g->name()) + ": " + std::to_string(g->failures()) +
                          " transactions failed");
    }
    return out;
}

std::string traffic_platform::progress() const
{
    std::string out;
    for (const auto& g : m_gens)
        if (!g->finished())
            out += std::string(out.empty() ? "" : "; ") + g->name() + " had done " +
                   std::to_string(g->done_transactions()) + " of " +
                   std::to_string(m_cfg.traffic.transactions) + " transactions";
    return out;
}

void traffic_platform::summary(std::ostream& os) const
{
    std::uint64_t txns = 0, dmi = 0;
    for (const auto& g : m_gens) {
        txns += g->mem.transactions() + g->mem.dmi_accesses();
        dmi += g->mem.dmi_accesses();
    }
    os << "traffic: " << m_gens.size() << " generator(s), " << txns << " transactions (" << dmi
       << " by DMI), " << m_mems.size() << " memory module(s)\n";
    m_link_checks.summary(os);
}

} // namespace vgpu::platforms
