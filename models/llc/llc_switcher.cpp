// The LLC switcher: flags, switch engine, adaptive monitor. See models/llc/README.md.
#include "models/llc/llc_switcher.h"

#include "models/common/trace_events.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vgpu::llc {

namespace {
/// Modules with flags in the register window (MOD_ARCH0..MOD_ARCH15).
constexpr unsigned max_modules = (switch_reg::MOD_CHANGE0 - switch_reg::MOD_ARCH0) / 4;

constexpr std::uint32_t org_bits(llc_org o)
{
    return o == llc_org::shared ? 0u : 1u;
}

llc_org initial_org(llc_mode m)
{
    return m == llc_mode::private_ ? llc_org::private_org : llc_org::shared;
}

/// The estimator's model of one module's LLC: every slice's sets together (rounded down to a
/// power of two), the slices' ways, sampled one set in llc.sample_every.
estimator_params estimator_of(const llc_config& cfg, const noc::address_map& map,
                              const path_costs& costs)
{
    estimator_params p;
    p.modules = map.modules();
    unsigned sets = 1;
    while (2 * sets <= cfg.sets * cfg.slices_per_module)
        sets *= 2;
    p.sets = sets;
    p.ways = cfg.ways;
    p.line_bytes = cfg.line_bytes;
    p.sample_every = std::min(cfg.sample_every, sets);
    p.min_samples = 16; // of one module's SMs' accesses
    p.costs = costs;
    return p;
}
} // namespace

llc_switcher::module_state::module_state(const std::string& path, llc_org initial)
    : flags(initial), stats(path),
      switches(stats, "switches", "count", "organisation switches of this module's slices"),
      switch_cycles(stats, "switch_cycles", "cycles",
                    "NoC cycles this module's slices spent switching (drain plus tag walk)"),
      epochs_shared(stats, "epochs_shared", "count",
                    "adaptive: epochs this module ran under the shared organisation"),
      epochs_private(stats, "epochs_private", "count",
                     "adaptive: epochs this module ran under the private organisation"),
      dropped_lines(stats, "dropped_lines", "count",
                    "private copies of lines homed elsewhere this module's slices dropped"),
      cost_shared(stats, "cost_shared", "cycles",
                  "adaptive: per epoch with samples, the estimated mean cost of this module's "
                  "SMs' accesses under the shared organisation"),
      cost_private(stats, "cost_private", "cycles",
                   "adaptive: the same under the private organisation")
{
}

llc_switcher::llc_switcher(const sc_core::sc_module_name& name, const llc_config& cfg,
                           const clock_params& clk, const noc::address_map& map,
                           const path_costs& costs, std::uint64_t seed)
    : sc_module(name), mmio("mmio"), m_cfg(cfg), m_cycle(sc_core::sc_time::from_value(clk.noc_ps)),
      m_map(map), m_estimator(estimator_of(cfg, map, costs)), m_rng(seed), m_regs(this->name()),
      m_log(this->name()), m_stats(this->name()),
      m_measured_llc(m_stats, "measured_llc", "cycles",
                     "adaptive: per epoch, the mean NoC cycles of an SM request's slice lookup "
                     "(bank queueing and occupancy, hit latency), as the estimator charged it"),
      m_measured_dram(m_stats, "measured_dram", "cycles",
                      "adaptive: per epoch, the mean NoC cycles of a fill from the slice's own "
                      "DRAM (queueing included), as the estimator charged it"),
      m_measured_link(m_stats, "measured_link", "cycles",
                      "adaptive: per epoch, the mean NoC cycles of one inter-module link "
                      "crossing (channel queueing, occupancy, flight), as the estimator "
                      "charged it"),
      m_switches(m_stats, "switches", "count",
                 "organisation switches completed, summed over the modules"),
      m_switch_cycles(m_stats, "switch_cycles", "cycles",
                      "NoC cycles the modules' slices spent switching (drain plus tag walk), "
                      "summed over the modules; requests to a switching module's slices waited"),
      m_epochs_shared(m_stats, "epochs_shared", "count",
                      "adaptive: module-epochs that ran under the shared organisation"),
      m_epochs_private(m_stats, "epochs_private", "count",
                       "adaptive: module-epochs that ran under the private organisation"),
      m_requests(m_stats, "requests", "count",
                 "switch requests (register writes, the adaptive monitor, forced switches; a "
                 "GPU-wide one counts once)"),
      m_dropped_lines(m_stats, "dropped_lines", "count",
                      "private copies of lines homed elsewhere dropped (at switches to shared "
                      "and at kernel ends in private mode)"),
      m_boundary_cycles(m_stats, "boundary_cycles", "cycles",
                        "private mode: NoC cycles kernel ends waited for the copies of other "
                        "modules' lines to be dropped"),
      m_range_drops(m_stats, "range_drops", "count",
                    "L1_INVALIDATE ranges (frames about to be reused) every slice looked up"),
      m_range_dropped_lines(m_stats, "range_dropped_lines", "count",
                            "lines homed elsewhere (private copies, remote ways) dropped by "
                            "L1_INVALIDATE ranges")
{
    const llc_org initial = initial_org(cfg.mode);
    const unsigned modules = map.modules();
    if (modules > max_modules)
        throw std::invalid_argument(std::string(this->name()) + ": " + std::to_string(modules) +
                                    " modules; the register window has flags for " +
                                    std::to_string(max_modules));
    for (unsigned m = 0; m < modules; ++m)
        m_mod.push_back(std::make_unique<module_state>(
            std::string(this->name()) + ".m" + std::to_string(m), initial));
    using tlm_bus::reg_access;
    // GPU-wide broadcast: ARCH and CHANGE reach every module's flags.
    m_regs.add("ARCH", switch_reg::ARCH, reg_access::rw, org_bits(initial), 1u);
    m_regs.add(
        "CHANGE", switch_reg::CHANGE, reg_access::rw, 0, 1u, [this](const tlm_bus::reg_write& w) {
            if (w.new_value & 1u) {
                const auto target = (m_regs.get(switch_reg::ARCH) & 1u) != 0 ? llc_org::private_org
                                                                             : llc_org::shared;
                ++m_requests;
                if (request_all(target))
                    m_change_ev.notify(w.delay);
            }
            return true;
        });
    m_regs.add("CUR", switch_reg::CUR, reg_access::ro, org_bits(initial), 0);
    m_regs.add("MODE", switch_reg::MODE, reg_access::ro, static_cast<std::uint32_t>(cfg.mode), 0);
    m_regs.add("SWITCHES", switch_reg::SWITCHES, reg_access::ro, 0, 0);
    m_regs.add("SWITCH_CYCLES", switch_reg::SWITCH_CYCLES, reg_access::ro, 0, 0);
    m_regs.add("MODULES", switch_reg::MODULES, reg_access::ro, modules, 0);
    // Every module's flags; those of modules beyond MODULES read 0 and ignore writes.
    for (unsigned m = 0; m < max_modules; ++m) {
        const std::string i = std::to_string(m);
        m_regs.add("MOD_ARCH" + i, switch_reg::MOD_ARCH0 + 4 * m, reg_access::rw, org_bits(initial),
                   1u);
        m_regs.add("MOD_CHANGE" + i, switch_reg::MOD_CHANGE0 + 4 * m, reg_access::rw, 0, 1u,
                   [this, m](const tlm_bus::reg_write& w) {
                       if ((w.new_value & 1u) && m < m_mod.size()) {
                           const auto target = (m_regs.get(switch_reg::MOD_ARCH0 + 4 * m) & 1u) != 0
                                                   ? llc_org::private_org
                                                   : llc_org::shared;
                           ++m_requests;
                           if (m_mod[m]->flags.request(target))
                               m_change_ev.notify(w.delay);
                       }
                       return true;
                   });
        m_regs.add("MOD_CUR" + i, switch_reg::MOD_CUR0 + 4 * m, reg_access::ro, org_bits(initial),
                   0);
    }
    mmio.register_b_transport(this, &llc_switcher::b_transport);
    mmio.register_transport_dbg(this, &llc_switcher::transport_dbg);
    SC_HAS_PROCESS(llc_switcher);
    SC_THREAD(engine);
    if (cfg.mode == llc_mode::adaptive)
        SC_THREAD(monitor);
    if (cfg.forced_switch_ns > 0)
        SC_THREAD(forcer);
}

void llc_switcher::refresh_regs()
{
    bool change = false, all_shared = true, all_private = true;
    for (unsigned m = 0; m < m_mod.size(); ++m) {
        const switch_flags& f = m_mod[m]->flags;
        change = change || f.change();
        all_shared = all_shared && f.cur() == llc_org::shared;
        all_private = all_private && f.cur() == llc_org::private_org;
        m_regs.set(switch_reg::MOD_CHANGE0 + 4 * m, f.change() ? 1u : 0u);
        m_regs.set(switch_reg::MOD_CUR0 + 4 * m, org_bits(f.cur()));
    }
    for (auto m = static_cast<unsigned>(m_mod.size()); m < max_modules; ++m)
        for (std::uint64_t r :
             {switch_reg::MOD_ARCH0, switch_reg::MOD_CHANGE0, switch_reg::MOD_CUR0})
            m_regs.set(r + 4 * m, 0);
    m_regs.set(switch_reg::CHANGE, change ? 1u : 0u);
    m_regs.set(switch_reg::CUR, all_shared ? 0u : all_private ? 1u : 2u);
    m_regs.set(switch_reg::SWITCHES, static_cast<std::uint32_t>(m_switches.value()));
    m_regs.set(switch_reg::SWITCH_CYCLES, static_cast<std::uint32_t>(m_switch_cycles.value()));
}

void llc_switcher::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    refresh_regs();
    m_regs.transport(gp, delay);
    refresh_regs();
}

unsigned llc_switcher::transport_dbg(tlm::tlm_generic_payload& gp)
{
    refresh_regs();
    return m_regs.transport_dbg(gp);
}

void llc_switcher::note_access(unsigned from, std::uint64_t addr, bool write)
{
    if (!m_seen[0] || !m_seen[1]) {
        m_seen[0] = m_seen[1] = true;
        m_activity_ev.notify(sc_core::SC_ZERO_TIME);
    }
    if (m_cfg.mode != llc_mode::adaptive)
        return;
    if (const auto home = m_map.home(addr); home && from < m_map.modules())
        m_estimator.access(from, *home, addr, write);
}

std::uint64_t llc_switcher::drop_private_copies(unsigned module)
{
    module_state& ms = *m_mod[module];
    std::uint64_t walk = 0;
    for (slice_if* s : ms.slices) {
        const unsigned n = s->drop_remote_lines();
        m_dropped_lines += n;
        ms.dropped_lines += n;
        walk = std::max<std::uint64_t>(walk, s->tag_walk_cycles()); // the slices walk at once
    }
    return walk;
}

sc_core::sc_time llc_switcher::kernel_boundary()
{
    // Private copies, and the remote ways' read-only lines (their pages may be rewritten
    // between kernels), last one kernel. The modules' slices walk at once.
    std::uint64_t cycles = 0;
    for (unsigned m = 0; m < m_mod.size(); ++m)
        if (m_mod[m]->flags.cur() == llc_org::private_org || m_cfg.remote_ways > 0)
            cycles = std::max(cycles, drop_private_copies(m));
    m_boundary_cycles += cycles;
    return cycles * m_cycle;
}

void llc_switcher::invalidate_range(std::uint64_t pa, std::uint64_t bytes)
{
    ++m_range_drops;
    for (auto& mod : m_mod)
        for (slice_if* s : mod->slices)
            m_range_dropped_lines += s->drop_remote_range(pa, bytes);
}

void llc_switcher::request(unsigned module, llc_org target, const char* why)
{
    ++m_requests;
    VGPU_DEBUG(m_log, "%s requests %s for module %u", why, name_of(target).data(), module);
    m_regs.set(switch_reg::MOD_ARCH0 + 4 * module, org_bits(target));
    if (m_mod[module]->flags.request(target))
        m_change_ev.notify(sc_core::SC_ZERO_TIME);
}

bool llc_switcher::request_all(llc_org target)
{
    bool any = false;
    for (unsigned m = 0; m < m_mod.size(); ++m) {
        m_regs.set(switch_reg::MOD_ARCH0 + 4 * m, org_bits(target));
        any = m_mod[m]->flags.request(target) || any;
    }
    return any;
}

void llc_switcher::engine()
{
    for (;;) {
        sc_core::wait(m_change_ev);
        // Each module with a pending switch switches its own slices.
        for (unsigned m = 0; m < m_mod.size(); ++m) {
            module_state& ms = *m_mod[m];
            if (!ms.flags.change())
                continue; // nothing pending, or retargeted back before the engine ran
            const llc_org from = ms.flags.cur();
            // Drain (the fixed part), then what the new organisation may not hold: private
            // copies of lines homed elsewhere (clean: writes to them went through to their
            // home).
            std::uint64_t cycles = m_cfg.switch_cycles;
            if (from == llc_org::private_org)
                cycles += drop_private_copies(m);
            ms.flags.complete();
            const std::uint64_t now = sc_core::sc_time_stamp().value();
            const std::uint64_t end = now + cycles * m_cycle.value();
            ms.busy_until = std::max(ms.busy_until, end);
            ++ms.switches;
            ++m_switches;
            ms.switch_cycles += cycles;
            m_switch_cycles += cycles;
            auto& tr = trace::recorder::instance();
            if (tr.enabled())
                tr.span(name(), "organisation",
                        "module " + std::to_string(m) + " to " + name_of(ms.flags.cur()).data(),
                        now, end);
            VGPU_DEBUG(m_log, "module %u switched to %s (%llu cycles)", m,
                       name_of(ms.flags.cur()).data(), static_cast<unsigned long long>(cycles));
        }
        refresh_regs();
    }
}

void llc_switcher::wait_busy_period(unsigned who, const sc_core::sc_time& period)
{
    // No timer runs while the slices are idle, so an idle platform can end its run.
    if (!m_seen[who])
        sc_core::wait(m_activity_ev);
    m_seen[who] = false;
    sc_core::wait(period);
}

void llc_switcher::measure_epoch()
{
    // The epoch's means; a part of the path nothing crossed keeps its unloaded figure.
    const path_costs& unloaded = m_estimator.costs();
    path_costs m = unloaded;
    const auto cycle = static_cast<double>(m_cycle.value());
    auto mean = [cycle](std::uint64_t ps, std::uint64_t n) {
        return static_cast<double>(ps) / static_cast<double>(n) / cycle;
    };
    if (m_epoch_lookups > 0)
        m.llc = mean(m_epoch_lookup_ps, m_epoch_lookups);
    if (m_epoch_drams > 0)
        m.dram = mean(m_epoch_dram_ps, m_epoch_drams);
    std::uint64_t crossings = 0, ps = 0;
    for (const noc::link* l : m_links) {
        crossings += l->crossings();
        ps += l->crossing_ps();
    }
    if (crossings > m_link_crossings)
        m.link = mean(ps - m_link_ps, crossings - m_link_crossings);
    m_link_crossings = crossings;
    m_link_ps = ps;
    m_epoch_lookups = m_epoch_lookup_ps = m_epoch_drams = m_epoch_dram_ps = 0;
    m_measured_llc.sample(m.llc);
    m_measured_dram.sample(m.dram);
    m_measured_link.sample(m.link);
    m_estimator.set_measured(m);
}

void llc_switcher::monitor()
{
    for (;;) {
        wait_busy_period(0, m_cfg.epoch_cycles * m_cycle);
        measure_epoch();
        // Each module decides from its own SMs' accesses.
        for (unsigned m = 0; m < m_mod.size(); ++m) {
            module_state& ms = *m_mod[m];
            const bool sh = ms.flags.cur() == llc_org::shared;
            ++(sh ? ms.epochs_shared : ms.epochs_private);
            if (m_estimator.samples(m) > 0) {
                ms.cost_shared.sample(m_estimator.cost(llc_org::shared, m, ms.flags.cur()));
                ms.cost_private.sample(m_estimator.cost(llc_org::private_org, m, ms.flags.cur()));
            }
            ++(sh ? m_epochs_shared : m_epochs_private);
            if (!ms.flags.change())
                if (const auto target = m_estimator.decide(m, ms.flags.cur(), m_cfg.switch_margin))
                    request(m, *target, "the adaptive monitor");
        }
        m_estimator.new_epoch();
    }
}

void llc_switcher::forcer()
{
    // Random targets for a random module, or (one time in modules + 1) for every module.
    const sc_core::sc_time period(static_cast<double>(m_cfg.forced_switch_ns), sc_core::SC_NS);
    const auto modules = static_cast<unsigned>(m_mod.size());
    for (;;) {
        wait_busy_period(1, period);
        const llc_org target = m_rng() % 2 ? llc_org::private_org : llc_org::shared;
        const auto who = static_cast<unsigned>(m_rng() % (modules + 1));
        if (who < modules) {
            request(who, target, "a forced switch");
            continue;
        }
        ++m_requests;
        if (request_all(target))
            m_change_ev.notify(sc_core::SC_ZERO_TIME);
    }
}

} // namespace vgpu::llc
