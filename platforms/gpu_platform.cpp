// The virtual GPU platform: builds and wires every model from the configuration.
// See docs/architecture.md.
#include "platforms/gpu_platform.h"

#include "models/common/host_resources.h"
#include "models/common/trace_events.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

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

} // namespace

std::map<std::string, std::vector<std::uint8_t>> gpu_platform::files() const
{
    std::map<std::string, std::vector<std::uint8_t>> out;
    if (trace_unit)
        out["shader_trace.bin"] = host.trace_image();
    const std::string& csv = host.instrumented_csv();
    if (std::any_of(m_workload.kernels.begin(), m_workload.kernels.end(),
                    [](const host::kernel_decl& k) { return k.instrumented(); }))
        out["instrumented_trace.csv"] = std::vector<std::uint8_t>(csv.begin(), csv.end());
    if (const auto* cpu = host.cpu())
        out["console.txt"] =
            std::vector<std::uint8_t>(cpu->console().begin(), cpu->console().end());
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
    f.sms_per_module = sms_per_module(cfg.platform);
    f.cp_base = gpu_platform::cp_base;
    f.fault_base = gpu_platform::fault_base;
    f.cbv_base = gpu_platform::cbv_base;
    f.cbv_slots = cfg.cdl.cbv_slots;
    if (cfg.platform.modules > 1)
        f.llc_switch_base = gpu_platform::llc_switch_base;
    if (cfg.shader_trace.enable) {
        f.trace_base = gpu_platform::trace_base;
        f.trace_region_bytes = cfg.shader_trace.region_bytes.bytes;
        f.trace_wrap = cfg.shader_trace.mode == shader_trace::region_mode::wrap;
        f.trace_watermark = cfg.shader_trace.watermark;
    }
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

std::vector<std::unique_ptr<tlm_bus::path_stage>> memory_path_stages(const std::string& sm_name,
                                                                     const vgpu_config& cfg,
                                                                     const clock_params& clk,
                                                                     cluster_unit& cluster)
{
    std::vector<std::unique_ptr<tlm_bus::path_stage>> stages;
    // One line per stage, SM side first (a CDL controller or trace unit goes here too).
    stages.push_back(std::make_unique<tlb::tlb>((sm_name + "_tlb").c_str(), cfg.tlb, clk,
                                                cfg.memory.page_bytes.bytes, cluster.tlb));
    return stages;
}

cluster_unit::cluster_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const clock_params& clk, unsigned module, unsigned cluster)
    : sc_module(name),
      tlb(std::string(this->name()) + ".tlb", cfg.tlb, clk, cfg.memory.page_bytes.bytes),
      xbar(noc::make_interconnect("xbar", cfg.noc, clk, cfg.noc.cluster_xbar()))
{
    const auto& p = cfg.platform;
    const bool shared = cfg.l1.sharing == l1::sharing_mode::shared;
    const bool adaptive = cfg.l1.sharing == l1::sharing_mode::adaptive;
    unsigned home_bits = 0;
    while (shared && (1u << home_bits) < p.sms_per_cluster)
        ++home_bits;
    if (shared || adaptive)
        l1_route = noc::make_interconnect("l1_route", cfg.noc, clk, cfg.noc.cluster_xbar());
    const unsigned first_id = (module * p.clusters_per_module + cluster) * p.sms_per_cluster;
    if (adaptive) {
        l1_share::classify_params cp;
        cp.miss_rate = cfg.l1.miss_rate_threshold;
        cp.mem_share = cfg.l1.mem_share_threshold;
        const std::uint64_t epoch = sc_core::sc_time(static_cast<double>(cfg.l1.epoch_cycles) *
                                                         static_cast<double>(clk.core_ps),
                                                     sc_core::SC_PS)
                                        .value();
        classes = std::make_unique<l1_share::cluster_classes>(
            std::string(this->name()) + ".l1_share", p.sms_per_cluster, first_id, epoch, cp);
        classes->set_clock([] { return sc_core::sc_time_stamp().value(); });
        classes->set_totals([this](unsigned s) {
            return l1_share::instruction_totals{sms[s]->instructions(),
                                                sms[s]->loads() + sms[s]->stores()};
        });
    }
    for (unsigned i = 0; i < p.sms_per_cluster; ++i) {
        unsigned id = first_id + i;
        auto sm_name = indexed("sm", id);
        sms.push_back(std::make_unique<sm::sm>(sm_name.c_str(), cfg.sm, clk, id, module, cluster,
                                               cfg.l1.line_bytes, cfg.stats.per_warp));
        l1s.push_back(std::make_unique<l1::l1>((sm_name + "_l1").c_str(), cfg.l1, clk, home_bits));
        l1s.back()->set_owner(static_cast<int>(id));
        stages.push_back(memory_path_stages(sm_name, cfg, clk, *this));
        // SM -> stages -> L1 -> cluster crossbar; then the stages' side ports -> the crossbar.
        // l1.sharing shared: SM -> stages -> L1 index routing -> the line's home L1.
        tlm::tlm_initiator_socket<>* prev = &sms.back()->mem;
        for (auto& st : stages.back()) {
            prev->bind(st->path_in());
            prev = &st->path_out();
        }
        if (shared) {
            l1_route->bind_input(sm_name, *prev);
            l1_route->bind_output(sm_name + "_l1", l1s.back()->in);
        } else {
            prev->bind(l1s.back()->in);
        }
        // l1.sharing adaptive: each L1 reaches the others (its partner, store updates) over
        // l1_route.
        if (adaptive) {
            auto share = std::make_unique<l1_share::adaptive_policy>(
                (sm_name + "_l1_share").c_str(), *l1s.back(), *classes, i, p.sms_per_cluster,
                cfg.l1);
            l1_route->bind_input(sm_name + "_peer", share->peer);
            l1_route->bind_output(sm_name + "_l1", share->remote_in);
            l1s.back()->attach_peer(std::move(share));
        }
        xbar->bind_input(sm_name + "_l1", l1s.back()->out);
        for (auto& st : stages.back()) {
            const std::string full = st->stage_name();
            const std::string base = full.substr(full.rfind('.') + 1);
            for (const auto& side : st->side_ports())
                xbar->bind_input(base + "_" + side.name, *side.socket);
        }
    }
    xbar->set_route([](const tlm::tlm_generic_payload&) { return 0; });
    if (shared) {
        const l1_share::home_map homes(cfg.l1.share_index, p.sms_per_cluster, cfg.l1.sets,
                                       cfg.l1.line_bytes);
        l1_route->set_route([homes](const tlm::tlm_generic_payload& gp) {
            return static_cast<int>(homes.home(gp.get_address()));
        });
    }
    if (adaptive)
        l1_route->set_route([](const tlm::tlm_generic_payload& gp) {
            return l1_share::adaptive_policy::peer_target(gp.get_address());
        });
}

module_unit::module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                         const clock_params& clk, unsigned module)
    : sc_module(name), noc(noc::make_interconnect("noc", cfg.noc, clk, cfg.noc.module_noc())),
      dram("dram", cfg.dram, clk, module * cfg.dram.size.bytes, cfg.llc.line_bytes)
{
    const auto& p = cfg.platform;
    for (unsigned c = 0; c < p.clusters_per_module; ++c) {
        const std::string cname = indexed("c", c);
        clusters.push_back(std::make_unique<cluster_unit>(cname.c_str(), cfg, clk, module, c));
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

gpu_platform::gpu_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                           const host::workload& wl)
    : sc_module(name), m_workload(wl), host("host", cfg.host, m_workload, driver_facts(cfg)),
      cp("cp", cfg.cp, make_clock_params(cfg.platform),
         cfg.platform.modules * sms_per_module(cfg.platform), cfg.sm.cta_slots, cfg.sm.warp_slots),
      mmio_bus("mmio_bus"), irq("irq"),
      faults("faults", cfg.tlb.fault_buffer, cfg.memory.page_bytes.bytes,
             cfg.host.fault_timeout.ps),
      fault_irq("fault_irq"), cbvs("cbvs", cfg.cdl.cbv_slots), trace_irq("trace_irq"), m_cfg(cfg),
      m_stats(this->name()),
      m_instructions(m_stats, "instructions", "count", "warp-instructions of all SMs",
                     [this] { return sum_over_sms(&sm::sm::instructions); }),
      m_mem_requests(m_stats, "mem_requests", "count", "line requests of all SMs",
                     [this] { return sum_over_sms(&sm::sm::mem_requests); }),
      m_lsu_budget_waits(m_stats, "lsu_budget_waits", "count",
                         "line requests of all SMs that waited for an LSU thread because "
                         "platform.max_host_threads was spent (timing then differs from the model)",
                         [this] { return sum_over_sms(&sm::sm::lsu_budget_waits); }),
      m_line_limit_waits(m_stats, "line_limit_waits", "count",
                         "line requests of all SMs that waited in the LSU because "
                         "sm.max_line_requests were in flight",
                         [this] { return sum_over_sms(&sm::sm::line_limit_waits); }),
      m_tlb_hits(m_stats, "tlb_hits", "count",
                 "L1 TLB lookups that found their page, all SMs (data and instruction fetch; "
                 "0 with tlb.model ideal)",
                 [this] { return sum_over_tlbs(&tlb::tlb::hits); }),
      m_tlb_misses(m_stats, "tlb_misses", "count",
                   "L1 TLB lookups that did not, all SMs (per level: <sm>_tlb.misses, "
                   "<cluster>.tlb.l2.misses)",
                   [this] { return sum_over_tlbs(&tlb::tlb::misses); }),
      m_page_faults(m_stats, "page_faults", "count",
                    "fault records the GPU wrote (one per faulting page, however many accesses "
                    "faulted on it; gpu.faults.faults counts the accesses)",
                    [this] { return static_cast<double>(faults.records()); }),
      m_fault_services(m_stats, "fault_services", "count",
                       "pages the host serviced (mapped after a fault)",
                       [this] { return static_cast<double>(host.fault_services()); }),
      m_fault_batches(m_stats, "fault_batches", "count",
                      "service rounds of the host's shadow thread (each up to host.fault_batch "
                      "records)",
                      [this] { return static_cast<double>(host.fault_batches()); }),
      m_fault_stall_cycles(m_stats, "fault_stall_cycles", "cycles",
                           "cycles LD/ST instructions waited on page faults, all SMs (per SM: "
                           "<sm>.fault_stall_cycles)",
                           [this] { return sum_over_sms(&sm::sm::fault_stall_cycles); }),
      m_kernel_time(m_stats, "kernel_time", "ns",
                    "sum of the phase windows (first LAUNCH to last interrupt of each phase; "
                    "kernels side by side count once)",
                    [this] {
                        std::uint64_t ps = 0;
                        for (const auto& ph : host.phases())
                            if (ph.ended)
                                ps += (ph.end - ph.start).value();
                        return static_cast<double>(ps) / 1000.0;
                    }),
      m_active(m_stats, "active_cycles", "cycles", "SM cycles with a resident CTA, all SMs",
               [this] { return sum_over_sms(&sm::sm::active_cycles); }),
      m_issue_share(
          m_stats, "issue_share", "ratio",
          "share of active SM cycles that issued an instruction or had a ready warp "
          "whose functional unit was busy",
          [this] { return share(&sm::sm::issue_cycles) + share(&sm::sm::stall_structural); }),
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
    host.set_window_marker([this] { return take_mark(); });
    for (unsigned m = 0; m < p.modules; ++m)
        modules.push_back(std::make_unique<module_unit>(indexed("m", m).c_str(), cfg, clk, m));

    // Control path: host MMIO -> CP registers; CP -> SMs (dispatch) and SMs -> CP (done).
    host.mmio.bind(mmio_bus.in);
    if (host.cpu()) // host.kind riscv: the firmware's MMIO takes the same bus
        host.cpu()->mmio.bind(mmio_bus.in);
    mmio_bus.out.bind(cp.mmio);
    mmio_bus.map({cp_base, ::vgpu::cp::reg::WINDOW_BYTES, 0, 0, "cp"});
    mmio_bus.out.bind(faults.mmio);
    mmio_bus.map({fault_base, tlb::fault_reg::WINDOW_BYTES, 1, 0, "faults"});
    mmio_bus.out.bind(cbvs.mmio);
    mmio_bus.map({cbv_base, cbvs.window_bytes(), 2, 0, "cbvs"});
    cp.irq(irq);
    host.irq(irq);
    faults.irq(fault_irq);
    host.fault_irq(fault_irq);
    for (auto& mod : modules)
        for (auto& cl : mod->clusters)
            for (auto& s : cl->sms) {
                cp.dispatch[s->sm_id()]->bind(s->ctrl);
                s->done.bind(cp.cta_done);
                s->set_cdl(&cbvs, cfg.cdl);
            }

    // TLB shootdown (the CP's TLB_INVALIDATE register): every SM's L1 TLB and every cluster's.
    // The ideal model's translations are one set for the GPU (one page table per run).
    const auto ideal = std::make_shared<tlb::ideal_translations>();
    for (auto& mod : modules)
        for (auto& cl : mod->clusters)
            for (auto& per_sm : cl->stages)
                for (auto& st : per_sm)
                    if (auto* t = dynamic_cast<tlb::tlb*>(st.get())) {
                        m_tlbs.push_back(t);
                        t->set_fault_unit(&faults);
                        t->share_ideal(ideal);
                    }
    cp.tlb_invalidate = [this](std::uint64_t va, std::uint64_t bytes) {
        for (auto& mod : modules)
            for (auto& cl : mod->clusters)
                cl->tlb.invalidate(va, bytes);
        for (tlb::tlb* t : m_tlbs)
            t->invalidate(va, bytes);
    };

    // Host DMA and backdoor accesses enter module 0's NoC.
    modules[0]->noc->bind_input("host", host.dma);

    // The shader-trace unit: the CP (CE, RM) and every SM's ISU feed it; its group writes
    // enter module 0's NoC like any other memory traffic.
    if (cfg.shader_trace.enable) {
        trace_unit = std::make_unique<shader_trace::trace_unit>("trace_unit", cfg.shader_trace, clk,
                                                                p.modules * sms_per_module(p));
        cp.trace_events(trace_unit->events);
        for (auto& mod : modules)
            for (auto& cl : mod->clusters)
                for (auto& s : cl->sms)
                    s->trace_events(trace_unit->events);
        modules[0]->noc->bind_input("trace_unit", trace_unit->mem);
        mmio_bus.out.bind(trace_unit->mmio);
        mmio_bus.map({trace_base, shader_trace::trace_reg::WINDOW_BYTES, 3, 0, "trace_unit"});
        trace_unit->irq(trace_irq);
    }

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
    const noc::address_map map(p.modules, cfg.dram.size.bytes, cfg.llc.slices_per_module,
                               cfg.llc.line_bytes);
    if (p.modules > 1) {
        // The LLC organisation: one switcher for every module's slices (they switch together).
        llc::path_costs costs;
        costs.llc = cfg.llc.hit_latency;
        costs.dram = static_cast<double>(cfg.dram.latency.ps + cfg.dram.tRCD.ps + cfg.dram.tCL.ps) /
                     static_cast<double>(clk.noc_ps);
        costs.link = static_cast<double>(cfg.noc.link_latency.ps) / static_cast<double>(clk.noc_ps);
        llc_switch =
            std::make_unique<llc::llc_switcher>("llc_switch", cfg.llc, clk, map, costs, p.seed);
        for (unsigned m = 0; m < p.modules; ++m)
            for (auto& l : modules[m]->llcs)
                l->attach(*llc_switch, m, map);
        const auto target = static_cast<unsigned>(mmio_bus.out.size());
        mmio_bus.out.bind(llc_switch->mmio);
        mmio_bus.map({llc_switch_base, llc::switch_reg::WINDOW_BYTES, target, 0, "llc_switch"});
        cp.on_kernel_end([this] { return llc_switch->kernel_boundary(); });
    }
    for (unsigned m = 0; m < p.modules; ++m) {
        noc::route_fn home_route = noc::module_route(map, m, *modules[m]->noc);
        if (!llc_switch) {
            modules[m]->noc->set_route(std::move(home_route));
            continue;
        }
        // Private organisation: an SM's data, instruction and constant reads and its writes
        // go to a slice of its own module (the slice writes through to a remote home); page
        // walks and everything else go to the line's home.
        std::vector<int> local_slice;
        for (unsigned k = 0; k < map.slices(); ++k)
            local_slice.push_back(modules[m]->noc->output_index(indexed("llc", k)));
        // With llc.remote_ways, a read of a read-only page also goes to its own module's
        // slice in shared mode (its remote ways).
        const llc::llc_switcher* sw = llc_switch.get();
        const bool remote_ways = cfg.llc.remote_ways > 0;
        modules[m]->noc->set_route(
            [home_route, local_slice, map, m, sw, remote_ways](const tlm::tlm_generic_payload& gp) {
                using tlm_bus::access_kind;
                const bool priv = sw->cur() == llc::llc_org::private_org;
                if (priv || remote_ways) {
                    const auto* e = gp.get_extension<tlm_bus::gpu_extension>();
                    if (e && !e->home_access && e->sm >= 0 && e->module == static_cast<int>(m) &&
                        e->kind != access_kind::page_walk && map.home(gp.get_address()) &&
                        (priv || (e->read_only && gp.is_read())))
                        return local_slice[map.slice(gp.get_address())];
                }
                return home_route(gp);
            });
    }

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

void gpu_platform::start_of_simulation()
{
    // Every thread the platform starts with exists now, the same for a configuration on
    // every host: the default budget follows from the configuration alone.
    const std::uint64_t n = m_cfg.platform.max_host_threads;
    host_resources::set_thread_budget(n != 0 ? n
                                             : host_resources::default_budget(count_threads(
                                                   sc_core::sc_get_top_level_objects())));
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

double gpu_platform::sum_over_tlbs(std::uint64_t (tlb::tlb::*stat)() const) const
{
    double total = 0;
    for (const tlb::tlb* t : m_tlbs)
        total += static_cast<double>((t->*stat)());
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
    const auto largest = std::max_element(std::begin(shares), std::end(shares));
    // A memory-side resource saturated over the kernels' time bounds the run, however the SM
    // cycles split (the window rule, over the span from the first phase to the last).
    const auto& phases = host.phases();
    if (!phases.empty() && phases.front().start_mark >= 0 && phases.back().ended &&
        phases.back().end_mark >= 0) {
        const std::vector<bool> sms(all_sms().size(), true);
        const window_figures f =
            compute_figures(deltas(phases.front().start_mark, phases.back().end_mark, sms,
                                   phases.back().end - phases.front().start));
        if (f.busiest_busy_share >= saturated_busy_share && f.busiest_busy_share > largest->first)
            return "memory";
    }
    return largest->second;
}

bool gpu_platform::finished() const
{
    return host.finished();
}

std::vector<std::string> gpu_platform::failures() const
{
    return host.failures();
}

std::string gpu_platform::progress() const
{
    const std::string cpu = host.cpu() ? host.cpu()->state() + "; " : "";
    if (host.runs().empty())
        return cpu + "the host driver had launched no kernel yet";
    std::string out = cpu;
    for (const auto& r : host.runs()) {
        if (r.ended)
            continue;
        const int k = m_workload.kernel_index(r.name);
        const std::uint64_t ctas =
            k < 0 ? 0
                  : std::uint64_t{m_workload.kernels[static_cast<std::size_t>(k)].grid_x} *
                        m_workload.kernels[static_cast<std::size_t>(k)].grid_y;
        const auto reg = [&](std::uint64_t off) {
            return cp.regs().get(cp::reg::queue(r.queue, off));
        };
        out += std::string(out.empty() ? "" : "; ") + "kernel '" + r.name + "' (phase " +
               std::to_string(r.phase) + ") had finished " +
               std::to_string(reg(cp::reg::CTAS_DONE)) + " of " + std::to_string(ctas) + " CTAs (" +
               std::to_string(reg(cp::reg::CTAS_DISPATCHED)) + " dispatched)";
    }
    return out == cpu
               ? cpu + "every kernel launched so far had finished, but the host driver had not"
               : out;
}

std::vector<const sm::sm*> gpu_platform::all_sms() const
{
    std::vector<const sm::sm*> v;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& s : cl->sms)
                v.push_back(s.get());
    return v;
}

std::vector<const l1::l1*> gpu_platform::all_l1s() const
{
    std::vector<const l1::l1*> v;
    for (const auto& mod : modules)
        for (const auto& cl : mod->clusters)
            for (const auto& l : cl->l1s)
                v.push_back(l.get());
    return v;
}

std::vector<bool> gpu_platform::sm_set(unsigned first, unsigned count) const
{
    std::vector<bool> set(all_sms().size(), false);
    for (unsigned i = first; i < first + count && i < set.size(); ++i)
        set[i] = true;
    return set;
}

int gpu_platform::take_mark()
{
    std::vector<double> values;
    if (stats::layout_version() == m_layout_version) { // the same statistics: no names needed
        values = stats::collect_values();
    } else {
        std::vector<stats::number> numbers = stats::collect_numbers();
        m_layout.resize(numbers.size());
        values.resize(numbers.size());
        for (std::size_t k = 0; k < numbers.size(); ++k) {
            const auto [it, added] = m_mark_index.try_emplace(numbers[k].name, m_mark_names.size());
            if (added)
                m_mark_names.push_back(std::move(numbers[k].name));
            m_layout[k] = it->second;
            values[k] = numbers[k].value;
        }
        m_layout_version = stats::layout_version();
    }
    snapshot snap(m_mark_names.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t k = values.size(); k-- > 0;) // of entries with one name, the first wins
        snap[m_layout[k]] = values[k];
    m_marks.push_back(std::move(snap));
    m_mark_host_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
    return static_cast<int>(m_marks.size() - 1);
}

window_deltas gpu_platform::deltas(int start_mark, int end_mark, const std::vector<bool>& sms,
                                   sc_core::sc_time window) const
{
    const snapshot& a = m_marks.at(static_cast<std::size_t>(start_mark));
    const snapshot& b = m_marks.at(static_cast<std::size_t>(end_mark));
    // A statistic not collected at a mark counts as 0 there.
    auto at = [](const snapshot& s, std::size_t i) {
        return i < s.size() && !std::isnan(s[i]) ? s[i] : 0.0;
    };
    auto delta = [&](const std::string& name) {
        const auto it = m_mark_index.find(name);
        return it == m_mark_index.end() ? 0.0 : at(b, it->second) - at(a, it->second);
    };
    window_deltas d;
    d.window_ps = static_cast<double>(window.value());
    d.core_ps = static_cast<double>(m_cfg.platform.clocks.core.ps);
    const auto sm_list = all_sms();
    const auto l1_list = all_l1s();
    for (std::size_t i = 0; i < sm_list.size(); ++i) {
        if (!sms[i])
            continue;
        const std::string sm = sm_list[i]->name(), l1 = l1_list[i]->name();
        ++d.sms;
        const double active = delta(sm + ".active_cycles");
        d.sms_active += active > 0;
        d.active_cycles += active;
        d.instructions += delta(sm + ".instructions");
        d.stall_memory += delta(sm + ".stall_memory");
        d.stall_scoreboard += delta(sm + ".stall_scoreboard");
        d.stall_barrier += delta(sm + ".stall_barrier");
        d.issue_cycles += delta(sm + ".issue_cycles");
        d.stall_structural += delta(sm + ".stall_structural");
        d.l1_hits += delta(l1 + ".hits");
        d.l1_misses += delta(l1 + ".misses");
        d.l1_merges += delta(l1 + ".mshr_merges");
    }
    for (const auto& mod : modules) {
        for (const auto& l : mod->llcs) {
            const std::string n = l->name();
            d.llc_hits += delta(n + ".hits");
            d.llc_misses += delta(n + ".misses");
            d.llc_merges += delta(n + ".mshr_merges");
        }
        const std::string dr = mod->dram.name();
        d.dram_read_bytes += delta(dr + ".bytes_read");
        d.dram_write_bytes += delta(dr + ".bytes_written");
    }
    d.dram_peak_bytes_per_ps =
        m_cfg.dram.bandwidth_gbps / 1000.0 * m_cfg.dram.channels * m_cfg.platform.modules;
    for (const auto& l : links)
        d.link_bytes += delta(std::string(l->name()) + ".bytes");
    // Every shared resource (crossbar and NoC ports, links, LLC banks, DRAM channels) is on
    // the memory side and reports its occupied time as `<path>.busy_ps`.
    static const std::string suffix = ".busy_ps";
    for (std::size_t i = 0; i < b.size(); ++i) {
        const std::string& name = m_mark_names[i];
        if (std::isnan(b[i]) || name.size() <= suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const double busy = b[i] - at(a, i);
        if (busy > d.busiest_busy_ps || (busy == d.busiest_busy_ps && name < d.busiest)) {
            d.busiest_busy_ps = busy;
            d.busiest = name.substr(0, name.size() - suffix.size());
        }
    }
    return d;
}

nlohmann::json gpu_platform::record(const std::string& name, int start_mark, int end_mark,
                                    const std::vector<bool>& sms, sc_core::sc_time start,
                                    sc_core::sc_time end, bool ended) const
{
    nlohmann::json r;
    r["name"] = name;
    unsigned count = 0;
    for (bool b : sms)
        count += b;
    r["sms"] = count;
    r["start_ns"] = static_cast<double>(start.value()) / 1000.0;
    r["completed"] = ended;
    if (!ended || start_mark < 0 || end_mark < 0) {
        r["end_ns"] = nullptr; // cut off before its interrupt: no window to measure
        return r;
    }
    r["end_ns"] = static_cast<double>(end.value()) / 1000.0;
    to_json(r, compute_figures(deltas(start_mark, end_mark, sms, end - start)));
    return r;
}

double gpu_platform::kernel_host_seconds() const
{
    double s = 0;
    for (const auto& ph : host.phases())
        if (ph.start_mark >= 0 && ph.end_mark >= 0)
            s += m_mark_host_seconds.at(static_cast<std::size_t>(ph.end_mark)) -
                 m_mark_host_seconds.at(static_cast<std::size_t>(ph.start_mark));
    return s;
}

nlohmann::json gpu_platform::records() const
{
    nlohmann::json kernels = nlohmann::json::array(), phases = nlohmann::json::array();
    const auto& runs = host.runs();
    for (const auto& k : runs) {
        nlohmann::json r = record(k.name, k.start_mark, k.end_mark, sm_set(k.sm_first, k.sm_count),
                                  k.start, k.end, k.ended);
        r["queue"] = k.queue;
        r["phase"] = k.phase;
        r["ok"] = k.ok;
        kernels.push_back(std::move(r));
    }
    for (const auto& ph : host.phases()) {
        std::vector<bool> sms(all_sms().size(), false);
        std::string name;
        for (std::size_t i : ph.kernels) {
            const auto set = sm_set(runs[i].sm_first, runs[i].sm_count);
            for (std::size_t s = 0; s < sms.size(); ++s)
                sms[s] = sms[s] || set[s];
            name += (name.empty() ? "" : "+") + runs[i].name;
        }
        nlohmann::json r =
            record(name, ph.start_mark, ph.end_mark, sms, ph.start, ph.end, ph.ended);
        r["phase"] = ph.index;
        r["kernels"] = ph.kernels.size();
        phases.push_back(std::move(r));
    }
    return {{"kernels", kernels}, {"phases", phases}};
}

void gpu_platform::summary(std::ostream& os) const
{
    const auto& p = m_cfg.platform;
    os << "gpu: " << p.modules << " module(s) x " << p.clusters_per_module << " cluster(s) x "
       << p.sms_per_cluster << " SMs, workload '" << m_workload.name << "'\n";
    const auto flags = os.flags();
    const auto precision = os.precision();
    os << std::fixed;
    const nlohmann::json recs = records();
    for (const auto& k : recs["kernels"]) {
        os << "  kernel " << k["name"].get<std::string>() << " (phase " << k["phase"] << ", queue "
           << k["queue"] << ", " << k["sms"] << " SMs): ";
        if (k["end_ns"].is_null()) {
            os << "did not complete\n";
            continue;
        }
        os << std::setprecision(1) << k["end_ns"].get<double>() - k["start_ns"].get<double>()
           << " ns, " << k["cycles"] << " cycles, IPC " << std::setprecision(2)
           << k["ipc"].get<double>() << ", L1 hit " << std::setprecision(1)
           << 100 * k["l1_hit_rate"].get<double>() << "%, LLC hit "
           << 100 * k["llc_hit_rate"].get<double>() << "%, DRAM "
           << k["dram_read_bytes"].get<std::uint64_t>() << " B read / "
           << k["dram_write_bytes"].get<std::uint64_t>() << " B written ("
           << 100 * k["dram_bw_util"].get<double>()
           << "% of peak), bound: " << k["bound"].get<std::string>()
           << (k["ok"].get<bool>() ? "" : " FAILED") << "\n";
    }
    os << "  kernel time " << std::setprecision(1) << m_kernel_time.value() << " ns in "
       << host.phases().size() << " phase(s); set-up " << host.load_time().to_seconds() * 1e9
       << " ns (host.load " << (m_cfg.host.load == host::load_kind::dma ? "dma" : "backdoor")
       << ")\n";
    os << "  " << static_cast<std::uint64_t>(m_instructions.value()) << " warp-instructions, "
       << static_cast<std::uint64_t>(m_mem_requests.value()) << " memory line requests\n";
    os << std::setprecision(1) << "  bound by " << bound_by() << ": of the active SM cycles "
       << 100 * m_issue_share.value() << "% issued, " << 100 * m_memory_share.value()
       << "% waited for memory, " << 100 * m_alu_share.value() << "% for ALU results, "
       << 100 * m_barrier_share.value() << "% at barriers\n";
    os.flags(flags);
    os.precision(precision);
}

} // namespace vgpu::platforms
