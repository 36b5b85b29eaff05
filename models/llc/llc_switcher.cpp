// The LLC switcher: flags, switch engine, adaptive monitor. See models/llc/README.md.
#include "models/llc/llc_switcher.h"

#include "models/common/trace_events.h"

#include <algorithm>
#include <string>

namespace vgpu::llc {

namespace {
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
    p.min_samples = 64;
    p.costs = costs;
    return p;
}
} // namespace

llc_switcher::llc_switcher(const sc_core::sc_module_name& name, const llc_config& cfg,
                           const clock_params& clk, const noc::address_map& map,
                           const path_costs& costs, std::uint64_t seed)
    : sc_module(name), mmio("mmio"), m_cfg(cfg), m_cycle(sc_core::sc_time::from_value(clk.noc_ps)),
      m_map(map), m_flags(initial_org(cfg.mode)), m_estimator(estimator_of(cfg, map, costs)),
      m_rng(seed), m_regs(this->name()), m_log(this->name()), m_stats(this->name()),
      m_switches(m_stats, "switches", "count", "organisation switches completed"),
      m_switch_cycles(m_stats, "switch_cycles", "cycles",
                      "NoC cycles the slices spent switching (drain plus tag walk), during which "
                      "requests to them waited"),
      m_epochs_shared(m_stats, "epochs_shared", "count",
                      "adaptive: epochs that ran under the shared organisation"),
      m_epochs_private(m_stats, "epochs_private", "count",
                       "adaptive: epochs that ran under the private organisation"),
      m_requests(m_stats, "requests", "count",
                 "switch requests (register writes, the adaptive monitor, forced switches)"),
      m_dropped_lines(m_stats, "dropped_lines", "count",
                      "private copies of lines homed elsewhere dropped (at switches to shared "
                      "and at kernel ends in private mode)"),
      m_boundary_cycles(m_stats, "boundary_cycles", "cycles",
                        "private mode: NoC cycles kernel ends waited for the copies of other "
                        "modules' lines to be dropped")
{
    using tlm_bus::reg_access;
    m_regs.add("ARCH", switch_reg::ARCH, reg_access::rw, org_bits(m_flags.arch()), 1u);
    m_regs.add(
        "CHANGE", switch_reg::CHANGE, reg_access::rw, 0, 1u, [this](const tlm_bus::reg_write& w) {
            if (w.new_value & 1u) {
                const auto target = (m_regs.get(switch_reg::ARCH) & 1u) != 0 ? llc_org::private_org
                                                                             : llc_org::shared;
                ++m_requests;
                if (m_flags.request(target))
                    m_change_ev.notify(w.delay);
            }
            return true;
        });
    m_regs.add("CUR", switch_reg::CUR, reg_access::ro, org_bits(m_flags.cur()), 0);
    m_regs.add("MODE", switch_reg::MODE, reg_access::ro, static_cast<std::uint32_t>(cfg.mode), 0);
    m_regs.add("SWITCHES", switch_reg::SWITCHES, reg_access::ro, 0, 0);
    m_regs.add("SWITCH_CYCLES", switch_reg::SWITCH_CYCLES, reg_access::ro, 0, 0);
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
    m_regs.set(switch_reg::CHANGE, m_flags.change() ? 1u : 0u);
    m_regs.set(switch_reg::CUR, org_bits(m_flags.cur()));
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

std::uint64_t llc_switcher::drop_private_copies()
{
    std::uint64_t walk = 0;
    for (slice_if* s : m_slices) {
        m_dropped_lines += s->drop_remote_lines();
        walk = std::max<std::uint64_t>(walk, s->tag_walk_cycles()); // the slices walk at once
    }
    return walk;
}

sc_core::sc_time llc_switcher::kernel_boundary()
{
    // Private copies, and the remote ways' read-only lines (their pages may be rewritten
    // between kernels), last one kernel.
    if (m_flags.cur() != llc_org::private_org && m_cfg.remote_ways == 0)
        return sc_core::SC_ZERO_TIME;
    const std::uint64_t cycles = drop_private_copies();
    m_boundary_cycles += cycles;
    return cycles * m_cycle;
}

void llc_switcher::request(llc_org target, const char* why)
{
    ++m_requests;
    VGPU_DEBUG(m_log, "%s requests %s", why, name_of(target).data());
    if (m_flags.request(target))
        m_change_ev.notify(sc_core::SC_ZERO_TIME);
}

void llc_switcher::engine()
{
    for (;;) {
        sc_core::wait(m_change_ev);
        if (!m_flags.change())
            continue; // retargeted back before the engine ran
        const llc_org from = m_flags.cur();
        // Drain (the fixed part), then what the new organisation may not hold: private copies
        // of lines homed elsewhere (clean: writes to them went through to their home).
        std::uint64_t cycles = m_cfg.switch_cycles;
        if (from == llc_org::private_org)
            cycles += drop_private_copies();
        m_flags.complete();
        const std::uint64_t now = sc_core::sc_time_stamp().value();
        const std::uint64_t end = now + cycles * m_cycle.value();
        m_busy_until = std::max(m_busy_until, end);
        ++m_switches;
        m_switch_cycles += cycles;
        refresh_regs();
        auto& tr = trace::recorder::instance();
        if (tr.enabled())
            tr.span(name(), "organisation",
                    std::string("switch to ") + name_of(m_flags.cur()).data(), now, end);
        VGPU_DEBUG(m_log, "switched to %s (%llu cycles)", name_of(m_flags.cur()).data(),
                   static_cast<unsigned long long>(cycles));
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

void llc_switcher::monitor()
{
    for (;;) {
        wait_busy_period(0, m_cfg.epoch_cycles * m_cycle);
        ++(m_flags.cur() == llc_org::shared ? m_epochs_shared : m_epochs_private);
        if (!m_flags.change())
            if (const auto target = m_estimator.decide(m_flags.cur(), m_cfg.switch_margin))
                request(*target, "the adaptive monitor");
        m_estimator.new_epoch();
    }
}

void llc_switcher::forcer()
{
    const sc_core::sc_time period(static_cast<double>(m_cfg.forced_switch_ns), sc_core::SC_NS);
    for (;;) {
        wait_busy_period(1, period);
        request(m_rng() % 2 ? llc_org::private_org : llc_org::shared, "a forced switch");
    }
}

} // namespace vgpu::llc
