// The virtual GPU platform: builds and wires every model from the configuration.
// See docs/architecture.md.
#include "platforms/gpu_platform.h"
#include "models/common/trace_events.h"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <string>

namespace vgpu::platforms {

namespace {
std::string indexed(const char* prefix, unsigned i)
{
    return prefix + std::to_string(i);
}

unsigned sms_per_module(const platform_config& p)
{
    return p.clusters_per_module * p.sms_per_cluster;
}

host::platform_facts driver_facts(const vgpu_config& cfg, std::uint64_t cp_base)
{
    host::platform_facts f;
    f.modules = cfg.platform.modules;
    f.dram_bytes = cfg.dram.size.bytes;
    f.page_bytes = cfg.memory.page_bytes.bytes;
    f.alloc = cfg.memory.page_alloc == page_alloc_policy::round_robin
                  ? host::page_alloc::round_robin
                  : host::page_alloc::first_touch;
    f.sms_per_module = sms_per_module(cfg.platform);
    f.cp_base = cp_base;
    f.line_bytes = cfg.l1.line_bytes;
    return f;
}
} // namespace

clock_params make_clock_params(const platform_config& p)
{
    clock_params c;
    c.accurate = p.timing.mode == timing_mode::accurate;
    c.core_ps = p.clocks.core.ps;
    c.noc_ps = p.clocks.noc.ps;
    c.dram_ps = p.clocks.dram.ps;
    return c;
}

cluster_unit::cluster_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const clock_params& clk, unsigned module, unsigned cluster)
    : sc_module(name), xbar("xbar", cfg.noc, clk, cfg.noc.xbar_hop_latency)
{
    const auto& p = cfg.platform;
    for (unsigned i = 0; i < p.sms_per_cluster; ++i) {
        unsigned id = (module * p.clusters_per_module + cluster) * p.sms_per_cluster + i;
        auto sm_name = indexed("sm", id);
        sms.push_back(std::make_unique<sm::sm>(sm_name.c_str(), cfg.sm, clk, id, module, cluster,
                                               cfg.l1.line_bytes));
        xlates.push_back(
            std::make_unique<sm::xlate>((sm_name + "_xlate").c_str(), cfg.memory.page_bytes.bytes));
        l1s.push_back(std::make_unique<l1::l1>((sm_name + "_l1").c_str(), cfg.l1, clk));
        sms.back()->mem.bind(xlates.back()->in);
        xlates.back()->out.bind(l1s.back()->in);
        // Inputs of the cluster crossbar: each SM's L1, then its page-table reads.
        l1s.back()->out.bind(xbar.in);
        xlates.back()->walk.bind(xbar.in);
    }
    xbar.set_route([](const tlm::tlm_generic_payload&) { return 0; });
}

module_unit::module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                         const clock_params& clk, unsigned module)
    : sc_module(name), noc("noc", cfg.noc, clk, cfg.noc.hop_latency),
      dram("dram", cfg.dram, clk, module * cfg.dram.size.bytes, cfg.llc.line_bytes)
{
    const auto& p = cfg.platform;
    for (unsigned c = 0; c < p.clusters_per_module; ++c) {
        clusters.push_back(
            std::make_unique<cluster_unit>(indexed("c", c).c_str(), cfg, clk, module, c));
        clusters.back()->xbar.out.bind(noc.in);
    }
    for (unsigned k = 0; k < cfg.llc.slices_per_module; ++k) {
        llcs.push_back(std::make_unique<llc::llc>(indexed("llc", k).c_str(), cfg.llc, clk));
        noc.out.bind(llcs.back()->in);
        llcs.back()->out.bind(dram.in);
    }
    // Outputs of the NoC: LLC slices 0..K-1, then the links to the other modules in order.
    const std::uint64_t size = cfg.dram.size.bytes;
    const unsigned slices = cfg.llc.slices_per_module, line = cfg.llc.line_bytes;
    const unsigned modules = p.modules;
    noc.set_route([=](const tlm::tlm_generic_payload& gp) {
        std::uint64_t pa = gp.get_address();
        std::uint64_t home = pa / size;
        if (home >= modules)
            return -1;
        if (home == module)
            return static_cast<int>((pa / line) % slices);
        return static_cast<int>(slices + (home < module ? home : home - 1));
    });
}

gpu_platform::gpu_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const host::workload& wl)
    : sc_module(name), m_workload(wl),
      host("host", cfg.host, m_workload, driver_facts(cfg, cp_base)),
      cp("cp", cfg.cp, make_clock_params(cfg.platform),
         cfg.platform.modules * sms_per_module(cfg.platform), cfg.sm.cta_slots, cfg.sm.warp_slots),
      mmio_bus("mmio_bus"), irq("irq"), m_cfg(cfg), m_stats(this->name()),
      m_instructions(m_stats, "instructions", "count", "warp-instructions of all SMs",
                     [this] { return sum_over_sms(&sm::sm::instructions); }),
      m_mem_requests(m_stats, "mem_requests", "count", "line requests of all SMs",
                     [this] { return sum_over_sms(&sm::sm::mem_requests); }),
      m_kernel_time(m_stats, "kernel_time", "ns",
                    "simulated time of all kernel phases (launch to interrupt)",
                    [this] {
                        std::uint64_t ps = 0;
                        for (const auto& r : host.runs())
                            ps += (r.end - r.start).value();
                        return static_cast<double>(ps) / 1000.0;
                    }),
      m_active(m_stats, "active_cycles", "cycles", "SM cycles with a resident CTA, all SMs",
               [this] { return sum_over_sms(&sm::sm::active_cycles); }),
      m_issue_share(m_stats, "issue_share", "ratio",
                    "share of active SM cycles that issued an instruction",
                    [this] { return share(&sm::sm::instructions); }),
      m_memory_share(m_stats, "memory_stall_share", "ratio",
                     "share of active SM cycles with no warp ready, mostly waiting for memory",
                     [this] { return share(&sm::sm::stall_memory); }),
      m_alu_share(m_stats, "alu_stall_share", "ratio",
                  "share of active SM cycles with no warp ready, mostly waiting for ALU results",
                  [this] { return share(&sm::sm::stall_scoreboard); }),
      m_barrier_share(m_stats, "barrier_stall_share", "ratio",
                      "share of active SM cycles with no warp ready, mostly waiting at barriers",
                      [this] { return share(&sm::sm::stall_barrier); })
{
    const clock_params clk = make_clock_params(cfg.platform);
    const auto& p = cfg.platform;
    for (unsigned m = 0; m < p.modules; ++m)
        modules.push_back(std::make_unique<module_unit>(indexed("m", m).c_str(), cfg, clk, m));

    // Control path: host MMIO -> CP registers; CP -> SMs (dispatch) and SMs -> CP (done).
    host.mmio.bind(mmio_bus.in);
    mmio_bus.out.bind(cp.mmio);
    mmio_bus.map({cp_base, ::vgpu::cp::reg::WINDOW_BYTES, 0, 0, "cp"});
    cp.irq(irq);
    host.irq(irq);
    for (auto& mod : modules)
        for (auto& cl : mod->clusters)
            for (auto& s : cl->sms) {
                cp.dispatch[s->sm_id()]->bind(s->ctrl);
                s->done.bind(cp.cta_done);
            }

    // Host DMA enters module 0's NoC after its clusters.
    host.dma.bind(modules[0]->noc.in);

    // Links: for each ordered pair (a, b), a's NoC output -> link -> b's NoC input. Binding
    // order per NoC: outputs after the LLC slices, inputs after the clusters (and the host).
    for (unsigned a = 0; a < p.modules; ++a)
        for (unsigned b = 0; b < p.modules; ++b) {
            if (a == b)
                continue;
            auto n = "link_" + std::to_string(a) + "_" + std::to_string(b);
            links.push_back(std::make_unique<noc::link>(n.c_str(), cfg.noc, clk));
            modules[a]->noc.out.bind(links.back()->in);
        }
    for (unsigned b = 0; b < p.modules; ++b)
        for (unsigned a = 0; a < p.modules; ++a) {
            if (a == b)
                continue;
            unsigned index = a * (p.modules - 1) + (b < a ? b : b - 1);
            links[index]->out.bind(modules[b]->noc.in);
        }

    // Kernel names of trace.json: the driver launches the schedule in order (docs/workloads.md)
    // and the CP numbers accepted launches from 1.
    std::uint32_t seq = 0;
    for (const auto& phase : m_workload.schedule)
        for (std::size_t k : phase)
            trace::recorder::instance().name_kernel(++seq, m_workload.kernels[k].name);
}

void gpu_platform::trace(sc_core::sc_trace_file* tf) const
{
    sc_core::sc_trace(tf, irq, irq.name());
    cp.trace(tf);
    for (const auto& mod : modules) {
        for (const auto& cl : mod->clusters)
            for (const auto& s : cl->sms)
                s->trace(tf);
        for (const auto& l : mod->llcs)
            l->trace(tf);
        mod->dram.trace(tf);
    }
}

double gpu_platform::sum_over_sms(std::uint64_t (sm::sm::*stat)() const) const
{
    double total = 0;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& s : cl->sms)
                total += static_cast<double>(((*s).*stat)());
    return total;
}

double gpu_platform::share(std::uint64_t (sm::sm::*stat)() const) const
{
    const double active = sum_over_sms(&sm::sm::active_cycles);
    return active > 0 ? sum_over_sms(stat) / active : 0.0;
}

std::string gpu_platform::bound_by() const
{
    const std::pair<double, const char*> shares[] = {
        {m_issue_share.value(), "issue"},
        {m_memory_share.value(), "memory"},
        {m_alu_share.value(), "alu latency"},
        {m_barrier_share.value(), "barriers"},
    };
    return std::max_element(std::begin(shares), std::end(shares))->second;
}

bool gpu_platform::finished() const
{
    return host.finished();
}

std::vector<std::string> gpu_platform::failures() const
{
    return host.failures();
}

void gpu_platform::summary(std::ostream& os) const
{
    const auto& p = m_cfg.platform;
    os << "gpu: " << p.modules << " module(s) x " << p.clusters_per_module << " cluster(s) x "
       << p.sms_per_cluster << " SMs, workload '" << m_workload.name << "'\n";
    for (const auto& r : host.runs())
        os << "  kernel " << r.name << " (phase " << r.phase << ", queue " << r.queue
           << "): " << (r.end - r.start).to_seconds() * 1e9 << " ns" << (r.ok ? "" : " FAILED")
           << "\n";
    os << "  " << static_cast<std::uint64_t>(m_instructions.value()) << " warp-instructions, "
       << static_cast<std::uint64_t>(m_mem_requests.value()) << " memory line requests\n";
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::fixed << std::setprecision(1) << "  bound by " << bound_by()
       << ": of the active SM cycles " << 100 * m_issue_share.value() << "% issued, "
       << 100 * m_memory_share.value() << "% waited for memory, " << 100 * m_alu_share.value()
       << "% for ALU results, " << 100 * m_barrier_share.value() << "% at barriers\n";
    os.flags(flags);
    os.precision(precision);
}

} // namespace vgpu::platforms
