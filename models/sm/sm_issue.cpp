// SM issue stage: the issue loop and its cycles (local ones may run on another host thread),
// instruction issue and the next-instruction bookkeeping. See models/sm/README.md ("Issue and
// timing") and docs/architecture.md ("Parallel simulation").
#include "models/common/run_progress.h"
#include "models/sm/sm.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <string>

namespace vgpu::sm {

// ---- issue ----

void sm::update_next(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    // The scoreboard alone decides, in both timing modes (a pending load's register is
    // `never` until its completion is known); the core's ready() is the functional guard.
    const issue_plan* next = ws.w->next() ? &ws.plans[ws.w->pc()] : nullptr;
    const issue_time t =
        ws.board.next_issue_planned(next, !ws.w->done(), m_barriers.at_barrier(slot));
    m_ready.set(slot, t.cycle, t.reason);
    note_next(slot, next);
    if (!next)
        return; // fetch_next() would do nothing
    set_unit(slot, next->unit);
    if (!m_icache || !(m_live >> slot & 1))
        return;
    // fetch_next() of a warp whose next instruction is in the line it looked up last (most
    // issues): its issue waits for that line.
    const std::uint64_t addr = ws.prog_va + std::uint64_t{ws.w->pc()} * instruction_bytes;
    if (m_icache->line_of(addr) != ws.fetch_line) {
        const std::uint64_t now = fetch_cycle();
        // A local cycle requests nothing: a lookup that would (a fill) waits for the cycle's
        // end, and so do the cycle's later ones, in order (end_cycle()).
        if (m_local && (!m_deferred.empty() || !m_icache->quiet(addr, now)))
            m_deferred.emplace_back(slot, now);
        else
            fetch_next(slot, now, now);
    } else if (ws.fetch_ready > t.cycle)
        m_ready.set(slot, ws.fetch_ready, wait_reason::memory);
}

void sm::set_unit(unsigned slot, unit_class u)
{
    unit_class& now = m_unit[slot];
    m_unit_warps[static_cast<unsigned>(now)] &= ~(1ull << slot);
    m_unit_warps[static_cast<unsigned>(u)] |= 1ull << slot;
    now = u;
}

// Inlined into run_cycle(), its only caller: the call cost 2 % of the FFMA chain's host
// instructions when it stayed out of line.
[[gnu::always_inline]] inline void sm::issue(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    m_nonlocal |= 1ull << slot; // until update_next() knows the next instruction
    if (!ws.w->ready())
        SC_REPORT_ERROR("vgpu/sm", "a warp issued with a pending register in its way (the "
                                   "scoreboard and the warp disagree)");
    const step_result r = ws.w->step();
    ++m_instructions;
    m_lane_instructions += r.lanes;
    ++ws.issued;
    if (ws.prof && r.inst)
        ++ws.prof[r.pc].issued;
    if (!m_slot_stats.empty())
        ++m_slot_stats[slot]->instructions;
    switch (r.kind) {
    case step_kind::alu:
        if (r.inst)
            ws.board.write_alu(ws.plans[r.pc], m_cycle);
        break;
    case step_kind::branch:
        ws.board.hold_until(m_cycle + m_units.latency(unit_class::branch));
        break;
    case step_kind::load:
    case step_kind::store:
        if (r.kind == step_kind::load)
            ws.board.load_issued(r.access->reg);
        issue_mem(slot, r, *r.access);
        break;
    case step_kind::atomic: // ATOM/CAS.B64: the old value comes back in a pair
        ws.board.load_issued(r.access->reg, r.access->width == mem_width::b64 ? 2 : 1);
        issue_mem(slot, r, *r.access, tlm_bus::access_kind::atomic);
        break;
    case step_kind::barrier:
        arrive(slot, r.pc);
        return;
    case step_kind::exit:
        if (ws.w->done()) {
            warp_exited(slot);
            return;
        }
        break;
    case step_kind::trace:
        ++m_trace_events;
        post_event(tlm_bus::event_kind::user, slot, r.trace_code, m_cycle);
        break;
    case step_kind::cdl: // handed off to the attached unit
        if (!m_attached) {
            fault_cta(ws.cta, slot, r.pc, 0,
                      "CDL requires the CDL access controller, not present in this platform");
            return;
        }
        ws.board.load_issued(r.access->reg, r.access->count ? (r.access->count + 31) / 32 : 1);
        m_attached->issue(slot, r);
        if (!(m_live & (1ull << slot)))
            return; // the unit ended the CTA (an illegal instruction)
        break;
    case step_kind::error:
        fault_cta(ws.cta, slot, r.pc, 0, std::string(r.message));
        return;
    }
    if (m_live & (1ull << slot))
        update_next(slot);
}

// ---- the issue loop ----

void sm::issue_loop()
{
    m_qk.reset();
    if (events.size() != 0)
        m_event_source = events->source_id(tlm_bus::event_source::isu, m_sm_id);
    if (m_gate) // the threads' first run is in SystemC's order: start in SM-id order
        m_gate->sleep(m_sm_id, tlm_bus::sim_now(), false);
    m_cycle = cycle_of(tlm_bus::sim_now());
    for (;;) {
        if (m_gate && m_gate->shares() && local_next()) {
            // Cycles on this SM's state alone: run beside the other SMs' of this time.
            m_round_now = tlm_bus::sim_now();
            m_gate->run_private(m_sm_id, *this);
            end_cycle(m_left);
            continue;
        }
        if (m_gate && m_gate->in_order(m_sm_id))
            continue; // lower SMs' turns went first: this SM's state may have changed
        if (!m_slots.pending().empty()) {
            // start_cta may wait (accurate-mode fetch); launches arriving meanwhile queue up.
            for (std::size_t i = 0; i < m_slots.pending().size(); ++i)
                start_cta(m_slots.pending()[i]);
            m_slots.clear_pending();
        }
        if (m_cycle >= m_watchdog.next_limit()) {
            for (unsigned i = 0; i < m_slots.size(); ++i) {
                if (m_watchdog.expired(i, m_cycle)) {
                    const std::uint64_t mask = m_slots.warp_mask(i);
                    const std::uint64_t live = mask & m_live;
                    const unsigned first = ctz64(live ? live : mask);
                    const std::uint32_t pc = m_warps[first].w ? m_warps[first].w->pc() : 0;
                    fault_cta(static_cast<int>(i), first, pc, 0,
                              "CTA ran more than " + std::to_string(m_cfg.max_cta_cycles) +
                                  " cycles (sm.max_cta_cycles): " + wait_report(m_cta_slots[i]));
                }
            }
            m_watchdog.refresh();
        }
        // Fast mode: the line requests whose place has freed by now go first; the last one of a
        // CTA whose warps have all exited may end it (check_ctas).
        if (!m_line_queue.empty() && !m_clk.accurate)
            send_queued_lines();
        if (m_check)
            check_ctas();
        if (m_live == 0 && m_slots.pending().empty()) {
            if (!m_slots.active()) {
                const std::uint64_t before = m_cycle;
                block(never);
                m_idle_cycles += m_cycle - before;
                continue;
            }
        }

        if (const cycle_end e = run_cycle(); e != cycle_end::next || !m_deferred.empty())
            end_cycle(e);
    }
}

sm::cycle_end sm::run_cycle(bool updated)
{
    if (!updated)
        m_ready.update(m_live, m_cycle);
    std::uint64_t ready = m_ready.ready();
    std::uint64_t earliest =
        std::min(m_ready.earliest(),
                 m_line_queue.empty() || m_clk.accurate || !m_line_queue.front().counted
                     ? never // no place yet: a walk wait's replay frees one (release_line)
                     : m_line_queue.front().not_before);
    bool issued = false, structural = false;
    for (std::size_t k = 0; ready != 0 && k < m_cores.size(); ++k) {
        sub_core& core = *m_cores[k];
        // A warp another sub-core's issue ended (fault) or stopped is no longer live.
        std::uint64_t can = ready & core.slots & m_live;
        if (can == 0)
            continue;
        // The warps whose unit is busy, a class at a time (the classes of these warps).
        for (std::uint64_t rest = can; rest != 0;) {
            const unit_class c = m_unit[ctz64(rest)];
            const std::uint64_t on = can & m_unit_warps[static_cast<unsigned>(c)];
            rest &= ~on;
            const std::uint64_t free = m_units.free_at(static_cast<unsigned>(k), c);
            if (free > m_cycle) {
                can &= ~on;
                earliest = std::min(earliest, free);
            }
        }
        if (can == 0) {
            ++core.structural_stalls;
            structural = true;
            continue;
        }
        const auto s = static_cast<unsigned>(core.sched.pick(can));
        m_units.issue(static_cast<unsigned>(k), m_unit[s], m_cycle);
        ++core.instructions;
        issue(s);
        issued = true;
    }
    if (issued) {
        ++m_cycle;
        ++m_active_cycles;
        ++m_issue_cycles;
        return advance_time() ? cycle_end::sync : cycle_end::next;
    }

    const wait_reason why = m_ready.waiting().classify();
    stats::counter& stall = structural                    ? m_stall_structural
                            : why == wait_reason::memory  ? m_stall_memory
                            : why == wait_reason::barrier ? m_stall_barrier
                                                          : m_stall_scoreboard;
    const std::uint64_t target = std::min(earliest, m_watchdog.next_limit());
    const std::uint64_t before = m_cycle;
    // Fast mode: an SM whose warps all wait for memory has nothing to do until a load
    // returns, so it waits in simulated time (as in accurate mode) instead of running its
    // clock ahead of the other SMs: SMs that share a memory path then book it close to
    // time order, each at its share, as round-robin arbitration gives them in accurate
    // mode, and a CTA launched meanwhile starts at its time. Other stalls (ALU latency, a
    // barrier) are short and jump, as does a cycle in which a ready warp's unit is busy:
    // the SM has work as soon as the unit frees (a wait of a cycle or two in simulated
    // time cost the FFMA chain on the V100 platform a third of its host time).
    // An access waiting for a page fault completes in an LSU thread, which wakes the SM;
    // one waiting for a place (sm.max_line_requests) is made when target comes. Whatever
    // the warps wait for, an SM that has no earlier time to go to than the watchdog's
    // limit while such accesses are in flight waits for them too: jumping to that limit
    // left a warp whose faulted load completed meanwhile behind it, and the CTA's other
    // warps at its barrier, beyond platform.max_time (a hang).
    const bool busy_only = m_busy_ops != 0 && earliest == never;
    const bool wait_memory =
        !structural &&
        ((why == wait_reason::memory && (target != never || m_busy_ops != 0)) || busy_only);
    if (!m_clk.accurate && !wait_memory && target == never && m_slots.pending().empty())
        return cycle_end::stuck;
    if (m_clk.accurate || wait_memory || target == never) {
        m_stall = {&stall, target, before, structural ? ready : 0};
        return cycle_end::block;
    }
    m_cycle = target; // nothing can change before target: jump (idle costs nothing)
    count_stall(stall, before, structural ? ready : 0);
    return advance_time() ? cycle_end::sync : cycle_end::next;
}

void sm::count_stall(stats::counter& stall, std::uint64_t before, std::uint64_t ready)
{
    stall += m_cycle - before;
    if (m_profile)
        profile_stall(m_cycle - before, ready);
    m_active_cycles += m_cycle - before;
}

void sm::end_cycle(cycle_end e)
{
    if (!m_deferred.empty() && m_gate) // fills: after the turns of lower SMs handed on
        m_gate->in_order(m_sm_id);
    for (const auto& [slot, at] : m_deferred)
        fetch_next(slot, at, at);
    m_deferred.clear();
    switch (e) {
    case cycle_end::next:
        return;
    case cycle_end::sync:
        m_qk.sync();
        run_progress::get().at(tlm_bus::sim_now().value());
        return;
    case cycle_end::block:
        block(m_stall.target);
        count_stall(*m_stall.stall, m_stall.before, m_stall.ready);
        keep_time();
        return;
    case cycle_end::stuck:
        SC_REPORT_ERROR("vgpu/sm", "issue loop blocked with nothing that could wake it");
        return;
    }
}

bool sm::local_next()
{
    if (m_live == 0 || m_check || m_busy_ops != 0 || !m_slots.pending().empty() ||
        !m_line_queue.empty() || m_cycle >= m_watchdog.next_limit())
        return false;
    m_ready.update(m_live, m_cycle);
    return (m_ready.ready() & m_live & m_nonlocal) == 0;
}

void sm::run_private()
{
    m_local = true;
    m_left = cycle_end::next;
    while (m_deferred.empty() && local_next()) {
        ++m_local_cycles;
        m_left = run_cycle(true);
        if (m_left != cycle_end::next)
            break;
    }
    m_local = false;
}

} // namespace vgpu::sm
