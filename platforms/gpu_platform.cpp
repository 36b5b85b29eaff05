// The virtual GPU platform: builds and wires every model from the configuration.
// See docs/architecture.md.
#include "platforms/gpu_platform.h"

#include "models/common/host_resources.h"
#include "platforms/attach/blocks.h"
#include "platforms/mmio_map.h"
#include "tlm_bus/link_binder.h"

#include <string>
#include <string_view>

namespace vgpu::platforms {

namespace {
unsigned sms_per_module(const platform_config& p)
{
    return p.clusters_per_module * p.sms_per_cluster;
}

} // namespace

std::map<std::string, std::vector<std::uint8_t>> gpu_platform::files() const
{
    // The driver parts' files: shader_trace.bin (trace unit), instrumented_trace.csv (seed 002).
    std::map<std::string, std::vector<std::uint8_t>> out = host.files();
    // OUTDIR/console.txt: the firmware's console, then kernel printf's records (a firmware host
    // runs no translated kernel, so one of the two is empty; each is whole lines in order).
    if (const auto* cpu = host.cpu()) {
        std::vector<std::uint8_t>& c = out["console.txt"];
        c.insert(c.begin(), cpu->console().begin(), cpu->console().end());
    }
    return out;
}

host::platform_facts driver_facts(const vgpu_config& cfg)
{
    host::platform_facts f;
    f.modules = cfg.platform.modules;
    f.dram_bytes = cfg.dram.size.bytes;
    f.page_bytes = cfg.memory.page_bytes.bytes;
    f.alloc = cfg.memory.page_alloc;
    f.balance_ratio = cfg.memory.balance_ratio;
    f.serves_faults = true; // every gpu platform has the fault unit (platforms/attach/tlb.cpp)
    f.sms_per_module = sms_per_module(cfg.platform);
    f.cp_base = mmio_map::CP_BASE;
    f.line_bytes = cfg.l1.line_bytes;
    f.regs_per_thread = cfg.sm.regs_per_thread;
    f.instrument_bytes = cfg.host.instrument_bytes.bytes;
    f.port_bytes_per_ps =
        static_cast<double>(cfg.noc.width_bytes) / static_cast<double>(cfg.platform.clocks.noc.ps);
    return f;
}

clock_params make_clock_params(const platform_config& p)
{
    clock_params c;
    c.accurate = p.timing.mode == timing_mode::accurate;
    c.core_ps = p.clocks.core.ps;
    c.noc_ps = p.clocks.noc.ps;
    c.dram_ps = p.clocks.dram.ps;
    c.memory_quantum_ps = p.timing.memory_quantum_ns * 1000;
    return c;
}

gpu_platform::gpu_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const host::workload& wl,
                           const std::vector<attach::block_maker>& extra_blocks)
    : sc_module(name), m_link_checks(cfg.platform.check_protocol), m_workload(wl), m_cfg(cfg),
      // The blocks of the block table (platforms/attach/blocks.cpp): each adds its driver part
      // now, may add a part to every cluster as the modules are built, and joins the GPU at its
      // attach step.
      m_blocks(attach::make_blocks(m_cfg, make_clock_params(cfg.platform), extra_blocks)),
      host("host", cfg.host, m_workload, driver_facts(cfg),
           [this](host::driver& d) {
               for (auto& b : m_blocks)
                   b->add_driver_part(d);
           }),
      cp("cp", cfg.cp, make_clock_params(cfg.platform),
         cfg.platform.modules * sms_per_module(cfg.platform), cfg.sm.resources(),
         cfg.sm.regs_per_thread),
      mmio_bus("mmio_bus"), irq("irq"), m_stats(this->name()), m_figures(m_stats, modules, host)
{
    // Every link below is bound through m_link_checks (tlm_bus::bind_link).
    const tlm_bus::link_binder::scope link_scope(m_link_checks.binder());
    const clock_params clk = make_clock_params(cfg.platform);
    const auto& p = cfg.platform;
    host.set_window_marker([this] { return take_mark(); });
    for (unsigned m = 0; m < p.modules; ++m)
        modules.push_back(std::make_unique<module_unit>(("m" + std::to_string(m)).c_str(), cfg, clk,
                                                        m, m_blocks));

    // Control path: host MMIO -> CP registers; CP -> SMs (dispatch) and SMs -> CP (done).
    mmio_bus.set_address_map(mmio_windows());
    tlm_bus::bind_link(host.mmio, mmio_bus.in);
    if (host.cpu()) // host.kind riscv: the firmware's MMIO takes the same bus
        tlm_bus::bind_link(host.cpu()->mmio, mmio_bus.in);
    mmio_bus.bind("cp", cp.mmio, ::vgpu::cp::reg::WINDOW_BYTES);
    cp.irq(irq);
    host.irq(irq);
    if (!clk.accurate) {
        sm_order = std::make_unique<sm::same_time_gate>("sm_order");
        if (m_cfg.platform.host_threads > 1) {
            host_pool =
                std::make_unique<work_pool>(static_cast<unsigned>(m_cfg.platform.host_threads));
            sm_order->use_pool(host_pool.get());
        }
    }
    for (auto& mod : modules)
        for (auto& cl : mod->clusters)
            for (auto& s : cl->sms) {
                tlm_bus::bind_link(*cp.dispatch[s->sm_id()], s->ctrl);
                tlm_bus::bind_link(s->done, cp.cta_done);
                if (sm_order)
                    s->join_gate(*sm_order);
                s->set_source_profile(host.source_profile()); // OUTDIR/source_profile.csv
            }

    // The blocks join at their attach step, in block-table order (it is the order of their
    // router outputs and NoC inputs; each window's base comes from mmio_windows()).
    attach::gpu_view view{modules, mmio_bus, cp, host, m_stats, sm_order.get()};
    const auto attach_at = [this, &view](attach::attach_step step) {
        for (auto& b : m_blocks)
            if (b->step() == step)
                b->attach(view);
    };
    attach_at(attach::attach_step::modules_built);

    // Host DMA and backdoor accesses enter module 0's NoC.
    modules[0]->noc->bind_input("host", host.dma);
    attach_at(attach::attach_step::host_bound);

    // Links: for each ordered pair (a, b), a's NoC output link_<a>_<b> -> link -> b's NoC input
    // of the same name.
    for (unsigned a = 0; a < p.modules; ++a)
        for (unsigned b = 0; b < p.modules; ++b) {
            if (a == b)
                continue;
            auto n = "link_" + std::to_string(a) + "_" + std::to_string(b);
            links.push_back(std::make_unique<noc::link>(n.c_str(), cfg.noc, clk));
            modules[a]->noc->bind_output(n, links.back()->in);
            modules[b]->noc->bind_input(n, links.back()->out);
        }
    // Each module NoC's route: a line's home slice (its own module's, or the link towards the
    // line's module); a block may replace it (the LLC switcher's private organisation).
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    for (unsigned m = 0; m < p.modules; ++m)
        modules[m]->noc->set_route(noc::module_route(map, m, *modules[m]->noc));
    attach_at(attach::attach_step::links_bound);

    SC_HAS_PROCESS(gpu_platform);
    SC_METHOD(stop_after_failure);
    sensitive << host.done;
    dont_initialize();
}

void gpu_platform::stop_after_failure()
{
    // A kernel the driver gave up on (host.kernel_timeout, a fault) may still be running:
    // simulating it on to platform.max_time would only cost host time.
    if (!host.failures().empty())
        sc_core::sc_stop();
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

namespace {
/// SystemC threads (declared and spawned) among `objs` and below them.
std::uint64_t count_threads(const std::vector<sc_core::sc_object*>& objs)
{
    std::uint64_t n = 0;
    for (const sc_core::sc_object* o : objs)
        n += (std::string_view(o->kind()) == "sc_thread_process" ? 1 : 0) +
             count_threads(o->get_child_objects());
    return n;
}
} // namespace

void gpu_platform::end_of_elaboration()
{
    m_link_checks.end_of_elaboration();
}

void gpu_platform::start_of_simulation()
{
    // Every thread the platform starts with exists now, the same for a configuration on
    // every host: the default budget follows from the configuration alone.
    const std::uint64_t n = m_cfg.platform.max_host_threads;
    host_resources::set_thread_budget(n != 0 ? n
                                             : host_resources::default_budget(count_threads(
                                                   sc_core::sc_get_top_level_objects())));
}

bool gpu_platform::finished() const
{
    return host.finished();
}

std::vector<std::string> gpu_platform::failures() const
{
    return host.failures();
}

} // namespace vgpu::platforms
