// The LLC switcher of a multi-module GPU (seed 004, "MCM-GPU adaptive last-level cache"): the
// organisation flag registers (ARCH target, CHANGE pending, CUR in effect), the switch engine,
// the per-epoch monitor of llc.mode adaptive and the kernel-boundary invalidation of private
// copies. One per GPU, with one set of flags per module: each module's slices switch on their
// own. See models/llc/README.md ("LLC switcher").
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/llc/core/llc_org.h"
#include "models/llc/llc_config.h"
#include "models/llc/switch_regs.h"
#include "models/noc/core/address_map.h"
#include "models/noc/link.h"
#include "tlm_bus/reg_bank.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace vgpu::llc {

/// What the switcher does to one slice (implemented by llc::llc).
class slice_if {
public:
    virtual ~slice_if() = default;
    /// Removes every line homed on another module that no miss is filling (private copies and
    /// the remote ways' lines are clean: writes to such lines went through to their home);
    /// returns how many.
    virtual unsigned drop_remote_lines() = 0;
    /// NoC cycles to walk the slice's tags (one set per cycle per bank).
    virtual unsigned tag_walk_cycles() const = 0;
    /// Removes the lines of [pa, pa + bytes) homed on another module (private copies and remote
    /// ways' lines; a fill in flight is not installed); returns how many. The host reuses a
    /// frame after an eviction (the CP's L1_INVALIDATE).
    virtual unsigned drop_remote_range(std::uint64_t pa, std::uint64_t bytes) = 0;
};

/// The organisation flags of every module, the switch engine and the adaptive monitor.
class llc_switcher : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<llc_switcher> mmio; ///< register window

    /// `costs` (NoC cycles) weigh the adaptive monitor's estimate; `seed` drives the forced
    /// switches of llc.forced_switch_ns.
    llc_switcher(const sc_core::sc_module_name& name, const llc_config& cfg,
                 const clock_params& clk, const noc::address_map& map, const path_costs& costs,
                 std::uint64_t seed);

    /// Registers a slice of module `module` (before simulation).
    void add_slice(slice_if& s, unsigned module) { m_mod.at(module)->slices.push_back(&s); }

    const tlm_bus::reg_bank& regs() const { return m_regs; } ///< the register file
    /// The organisation in effect in module `module` (its CUR).
    llc_org cur(unsigned module) const { return m_mod[module]->flags.cur(); }
    /// Until when requests to module `module`'s slices wait for its switch in progress (ps; 0
    /// if none).
    std::uint64_t busy_until(unsigned module) const { return m_mod[module]->busy_until; }
    /// The CP's L1_INVALIDATE (a frame about to be reused): every slice drops the range's lines
    /// homed on other modules.
    void invalidate_range(std::uint64_t pa, std::uint64_t bytes);
    /// One lookup of an SM's request at a slice (the monitor's access stream).
    void note_access(unsigned from, std::uint64_t addr, bool write);
    /// Adaptive: an inter-module link whose crossings the monitor measures (before simulation).
    void add_link(const noc::link& l) { m_links.push_back(&l); }
    /// Adaptive: an SM request's lookup took `ps` from its arrival at a slice to its tag check
    /// (bank queueing, occupancy, hit latency).
    void note_lookup(std::uint64_t ps)
    {
        ++m_epoch_lookups;
        m_epoch_lookup_ps += ps;
    }
    /// Adaptive: a fill of a line homed on the slice's module took `ps` from DRAM (queueing
    /// included).
    void note_dram(std::uint64_t ps)
    {
        ++m_epoch_drams;
        m_epoch_dram_ps += ps;
    }
    /// A kernel ended: in private mode the copies of lines homed elsewhere, and with
    /// llc.remote_ways the remote ways' lines, are dropped, so the next kernel reads what other
    /// modules (or the host) wrote. Returns the time that takes (the kernel's completion waits
    /// for it).
    sc_core::sc_time kernel_boundary();

    std::uint64_t switches() const { return m_switches.value(); } ///< module switches completed

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    /// Carries out a pending switch now: drops what the new organisation may not hold, flips
    /// CUR, clears CHANGE, and makes the slices busy for the switch's cost.
    void engine();
    /// Adaptive: one decision per epoch while the slices see traffic.
    void monitor();
    /// llc.forced_switch_ns: random switch requests while the slices see traffic.
    void forcer();
    /// Waits until the slices have seen traffic since `who`'s last period, then one `period`.
    void wait_busy_period(unsigned who, const sc_core::sc_time& period);
    void refresh_regs();
    /// Drops the private copies of module `module`'s slices; returns the cost in NoC cycles.
    std::uint64_t drop_private_copies(unsigned module);
    /// Adaptive: hands the figures measured over the epoch to the estimator, and restarts them.
    void measure_epoch();
    /// Requests `target` for module `module` (its MOD_ARCH register follows).
    void request(unsigned module, llc_org target, const char* why);
    /// Requests `target` for every module (their MOD_ARCH registers follow); true if a switch
    /// is pending.
    bool request_all(llc_org target);
    /// Per module: its flags, switch state and statistics.
    struct module_state {
        module_state(const std::string& path, llc_org initial);
        switch_flags flags;
        std::vector<slice_if*> slices;
        std::uint64_t busy_until = 0;
        stats::group stats;
        stats::counter switches, switch_cycles, epochs_shared, epochs_private, dropped_lines;
        stats::average cost_shared, cost_private;
    };

    const llc_config m_cfg;
    const sc_core::sc_time m_cycle;
    noc::address_map m_map;
    std::vector<std::unique_ptr<module_state>> m_mod;
    org_estimator m_estimator;
    std::mt19937_64 m_rng;
    std::vector<const noc::link*> m_links;
    std::uint64_t m_epoch_lookups = 0, m_epoch_lookup_ps = 0, m_epoch_drams = 0,
                  m_epoch_dram_ps = 0;
    std::uint64_t m_link_crossings = 0, m_link_ps = 0; ///< the links' totals at the epoch's start
    bool m_seen[2] = {false, false}; ///< traffic since the monitor's / forcer's last period
    sc_core::sc_event m_change_ev, m_activity_ev;
    tlm_bus::reg_bank m_regs;
    logger m_log;
    stats::group m_stats;
    stats::average m_measured_llc, m_measured_dram, m_measured_link;
    stats::counter m_switches, m_switch_cycles, m_epochs_shared, m_epochs_private, m_requests,
        m_dropped_lines, m_boundary_cycles, m_range_drops, m_range_dropped_lines;
};

} // namespace vgpu::llc
