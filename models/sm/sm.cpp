// SM shell: construction, CTA launch and life, the issue stage and its loop (the fetch stage is
// sm_fetch.cpp, the LSU sm_lsu.cpp, the unit seam sm_units.cpp). See models/sm/README.md.
#include "models/sm/sm.h"
#include "tlm_bus/sim_time.h"

#include "models/common/host_resources.h"
#include "models/common/run_progress.h"
#include "models/common/trace_events.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace vgpu::sm {

slot_stats::slot_stats(stats::group& g, unsigned slot)
    : instructions(g, "w" + std::to_string(slot) + ".instructions", "count",
                   "warp-instructions issued from this warp slot"),
      barrier_wait_cycles(g, "w" + std::to_string(slot) + ".barrier_wait_cycles", "cycles",
                          "cycles warps of this slot waited at a barrier"),
      stall_cycles(g, "w" + std::to_string(slot) + ".stall_cycles", "cycles",
                   "cycles warps of this slot were resident but did not issue")
{
}

namespace {
std::array<unsigned, num_unit_classes> result_latencies(const sm_config& cfg)
{
    std::array<unsigned, num_unit_classes> l{};
    const auto t = cfg.unit_timings();
    for (unsigned c = 0; c < num_unit_classes; ++c)
        l[c] = t[c].latency;
    return l;
}
} // namespace

warp_slot::warp_slot(const sm_config& cfg)
    : board(cfg.regs_per_thread, result_latencies(cfg), cfg.max_loads_per_warp,
            cfg.max_stores_per_warp)
{
}

sub_core::sub_core(stats::group& g, unsigned index, unsigned warp_slots, unsigned schedulers,
                   sched_policy policy)
    : sched(warp_slots, policy), slots(0),
      instructions(g, "core" + std::to_string(index) + ".instructions", "count",
                   "warp-instructions issued by this sub-core"),
      structural_stalls(g, "core" + std::to_string(index) + ".structural_stalls", "cycles",
                        "cycles this sub-core had a ready warp but its unit was busy")
{
    for (unsigned w = index; w < warp_slots; w += schedulers)
        slots |= 1ull << w;
}

sm::sm(const sc_core::sc_module_name& name, const sm_config& cfg, const clock_params& clk,
       unsigned sm_id, unsigned module, unsigned cluster, unsigned line_bytes, bool per_warp_stats)
    : sc_module(name), ctrl("ctrl"), mem("mem"), done("done"), events("events"), m_cfg(cfg),
      m_clk(clk), m_sm_id(sm_id), m_module(module), m_cluster(cluster), m_line_bytes(line_bytes),
      m_period_ticks(sc_core::sc_time(static_cast<double>(clk.core_ps), sc_core::SC_PS).value()),
      m_coalescer(line_bytes, 4), m_units(cfg.schedulers, cfg.unit_timings()), m_log(this->name()),
      m_unit(cfg.warp_slots, unit_class::int_alu), m_cta_slots(cfg.cta_slots),
      m_slots(cfg.cta_slots, cfg.warp_slots), m_barriers(cfg.warp_slots, cfg.cta_slots),
      m_watchdog(cfg.cta_slots, cfg.max_cta_cycles), m_progs(cfg.cta_slots),
      m_line_limit(cfg.max_line_requests), m_unit_params{this->name(),        line_bytes,
                                                         cfg.regs_per_thread, cfg.lsu_delay(),
                                                         clk.core_ps,         clk.accurate},
      m_stats(this->name()),
      m_instructions(m_stats, "instructions", "count", "warp-instructions issued"),
      m_lane_instructions(m_stats, "lane_instructions", "count",
                          "thread-instructions executed (active lanes with a true guard)"),
      m_loads(m_stats, "loads", "count", "warp LD instructions"),
      m_stores(m_stats, "stores", "count", "warp ST instructions"),
      m_mem_requests(m_stats, "mem_requests", "count",
                     "line requests of LD/ST and CDL (both forms)"),
      m_fetches(m_stats, "fetch_requests", "count",
                "line requests of instruction fetches (icache fills and prefetches, or whole "
                "programs when sm.icache_bytes is 0)"),
      m_ctas(m_stats, "ctas", "count", "CTAs ended (including faulted ones)"),
      m_faults(m_stats, "faults", "count", "CTAs ended by a fault"),
      m_active_cycles(m_stats, "active_cycles", "cycles", "cycles with at least one resident CTA"),
      m_idle_cycles(m_stats, "idle_cycles", "cycles", "cycles without a resident CTA"),
      m_stall_scoreboard(m_stats, "stall_scoreboard", "cycles",
                         "cycles no warp could issue, mostly waiting for ALU results"),
      m_stall_barrier(m_stats, "stall_barrier", "cycles",
                      "cycles no warp could issue, mostly waiting at barriers"),
      m_stall_memory(m_stats, "stall_memory", "cycles",
                     "cycles no warp could issue, mostly waiting for memory"),
      m_barrier_wait_cycles(m_stats, "barrier_wait_cycles", "cycles",
                            "warp-cycles spent waiting at barriers"),
      m_trace_events(m_stats, "trace_events", "count", "TRACE instructions executed"),
      m_issue_cycles(m_stats, "issue_cycles", "cycles", "cycles in which a sub-core issued"),
      m_stall_structural(m_stats, "stall_structural", "cycles",
                         "cycles no sub-core issued although a warp was ready: its functional "
                         "unit was busy (counted toward issue in the bound)"),
      m_icache_hits(m_stats, "icache_hits", "count",
                    "instruction-line lookups of warps that found the line present"),
      m_icache_misses(m_stats, "icache_misses", "count",
                      "instruction-line lookups that found the line absent and started its fill"),
      m_icache_pending_hits(m_stats, "icache_pending_hits", "count",
                            "instruction-line lookups that found their line being filled (another "
                            "warp's miss or a prefetch) and waited for that fill"),
      m_icache_prefetches(m_stats, "icache_prefetches", "count",
                          "prefetch fills of the instruction cache (sm.icache_prefetch_lines)"),
      m_memory_syncs(m_stats, "memory_syncs", "count",
                     "fast mode: times the SM let global time catch up before a memory "
                     "instruction (platform.timing.memory_quantum_ns)"),
      m_page_faults(m_stats, "page_faults", "count",
                    "line requests of LD/ST that page-faulted and waited for the host (each "
                    "replay that faults again counts again)"),
      m_fault_stall_cycles(m_stats, "fault_stall_cycles", "cycles",
                           "cycles from an LD/ST's first page fault to its completion, summed "
                           "over LD/ST instructions (two faulting loads of a warp in flight "
                           "both count)"),
      m_trace_stall_cycles(m_stats, "trace_stall_cycles", "cycles",
                           "cycles the issue stage waited for the shader-trace unit to take its "
                           "groups (shader_trace.full_policy stall)"),
      m_atomics(m_stats, "atomics", "count",
                "warp ATOM instructions (one request per executing lane, executed at the LLC)"),
      m_lsu_budget_waits(m_stats, "lsu_budget_waits", "count",
                         "line requests and waiting accesses that waited for an LSU thread "
                         "because platform.max_host_threads was spent (timing then differs from "
                         "the model)"),
      m_line_limit_waits(m_stats, "line_limit_waits", "count",
                         "line requests of LD/ST/ATOM that waited in the LSU because "
                         "sm.max_line_requests were in flight"),
      m_line_limit_wait_cycles(m_stats, "line_limit_wait_cycles", "cycles",
                               "cycles those line requests waited, summed over them"),
      m_local_loads(m_stats, "local_loads", "count",
                    "warp LD.LOCAL instructions (local memory and spills; also in loads)"),
      m_local_stores(m_stats, "local_stores", "count",
                     "warp ST.LOCAL instructions (local memory and spills; also in stores)"),
      m_request_barrier_count(m_stats, "request_barrier_count", "warps",
                              "warps of this SM waiting at a barrier when an LD/ST line request "
                              "left it (gpu_extension::barrier_waiting; every request is "
                              "eventually granted)"),
      m_ipc(m_stats, "ipc", "instructions/cycle", "warp-instructions per active cycle",
            [this] {
                const auto c = m_active_cycles.value();
                return c ? static_cast<double>(m_instructions.value()) / static_cast<double>(c)
                         : 0.0;
            }),
      m_shared(m_stats, cfg)
{
    if (line_bytes < 4 || (line_bytes & (line_bytes - 1)) != 0)
        SC_REPORT_ERROR("vgpu/sm", "line_bytes must be a power of two >= 4");
    if (cfg.warp_slots == 0 || cfg.warp_slots > warp_scheduler::max_slots || cfg.cta_slots == 0)
        SC_REPORT_ERROR("vgpu/sm", "warp_slots must be 1..64 and cta_slots >= 1");
    if (m_period_ticks == 0)
        SC_REPORT_ERROR("vgpu/sm", "core clock period below the time resolution");
    if (cfg.schedulers == 0 || cfg.schedulers > cfg.warp_slots)
        SC_REPORT_ERROR("vgpu/sm", "schedulers must be 1..warp_slots");
    m_warps.reserve(cfg.warp_slots);
    for (unsigned w = 0; w < cfg.warp_slots; ++w)
        m_warps.emplace_back(cfg);
    for (unsigned k = 0; k < cfg.schedulers; ++k)
        m_cores.push_back(
            std::make_unique<sub_core>(m_stats, k, cfg.warp_slots, cfg.schedulers, cfg.scheduler));
    for (unsigned w = 0; w < cfg.warp_slots; ++w) {
        m_warps[w].core = w % cfg.schedulers;
        set_unit(w, m_unit[w]); // every slot in the mask of its (default) class
    }
    for (auto& c : m_cta_slots)
        c.ctx.params.reserve(cp::max_params);
    m_line_bufs.resize(line_bytes);
    m_be_bufs.resize(line_bytes);
    m_fill_buf.resize(line_bytes);
    if (cfg.icache_bytes.bytes > 0) {
        if (cfg.icache_ways == 0 || cfg.icache_bytes.bytes / line_bytes < cfg.icache_ways)
            SC_REPORT_ERROR("vgpu/sm", "sm.icache_bytes must hold at least sm.icache_ways lines");
        else
            m_icache.emplace(cfg.icache_bytes.bytes, line_bytes, cfg.icache_ways);
    }
    for (unsigned w = 0; w < cfg.warp_slots; ++w) {
        if (per_warp_stats)
            m_slot_stats.push_back(std::make_unique<slot_stats>(m_stats, w));
        m_warp_tracks.push_back("warp " + std::to_string(w));
    }

    ctrl.register_b_transport(this, &sm::ctrl_b_transport);
    ctrl.register_transport_dbg(this, &sm::ctrl_transport_dbg);
    SC_HAS_PROCESS(sm);
    SC_THREAD(issue_loop);
    if (clk.accurate) {
        // One LSU thread from the start; more start on demand (hand_to_lsu), so an SM holds
        // only the stacks its traffic needs and sm.lsu_threads has no effect on timing.
        m_lsu_idle.push_back(spawn_lsu());
        // An idle LSU thread waits for its next job (lsu_thread) owning nothing on its stack.
        m_parked_source = host_resources::add_parked_source([this](std::vector<const void*>& out) {
            for (unsigned id : m_lsu_idle)
                out.push_back(m_lsu[id]->process);
        });
    } else {
        SC_METHOD(forward_wake);
        sensitive << m_wake;
        dont_initialize();
    }
}

void sm::join_gate(same_time_gate& gate)
{
    if (m_clk.accurate)
        return;
    gate.join(m_sm_id);
    m_gate = &gate;
    m_qk.use(gate, m_sm_id);
}

void sm::forward_wake()
{
    if (m_gate)
        m_gate->wake(m_sm_id, tlm_bus::sim_now());
}

sm::~sm()
{
    if (m_parked_source)
        host_resources::remove_parked_source(*m_parked_source);
}

void sm::trace(sc_core::sc_trace_file* tf) const
{
    sc_core::sc_trace(tf, m_resident, std::string(name()) + ".resident_ctas");
}

// ---- time ----

bool sm::advance_time()
{
    const sc_core::sc_time now = now_time();
    const sc_core::sc_time local = time_of(m_cycle);
    if (local < now) {
        m_cycle = cycle_of(now);
        m_qk.set(time_of(m_cycle) - now);
    } else {
        m_qk.set(local - now);
    }
    return m_qk.need_sync_at(now);
}

void sm::keep_time()
{
    if (advance_time()) {
        m_qk.sync();
        run_progress::get().at(tlm_bus::sim_now().value());
    }
}

void sm::block(std::uint64_t until)
{
    // A launch or a memory completion that arrives while sync() waits notifies m_wake when
    // nothing waits on it; the counter and the pending list catch it, so it is never lost.
    const std::uint64_t wakeups = m_wakeups;
    m_qk.sync();
    const sc_core::sc_time now = tlm_bus::sim_now();
    const bool woken = wakeups != m_wakeups || !m_slots.pending().empty();
    if (woken)
        VGPU_DEBUG(m_log, "woken during the sync at %s", now.to_string().c_str());
    else if (until == never && m_gate)
        m_gate->sleep_forever(m_sm_id);
    else if (until == never)
        sc_core::wait(m_wake);
    else if (time_of(until) > now && m_gate)
        m_gate->sleep(m_sm_id, time_of(until), true);
    else if (time_of(until) > now)
        sc_core::wait(time_of(until) - now, m_wake);
    m_cycle = std::max(m_cycle, cycle_of(tlm_bus::sim_now()));
    m_qk.set(time_of(m_cycle) - tlm_bus::sim_now());
}

// ---- control ----

void sm::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    settle();
    if (!gp.is_write()) {
        VGPU_WARN(m_log, "ctrl: only writes of a cta_launch are accepted");
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (gp.get_address() != 0) {
        VGPU_WARN(m_log, "ctrl: launch written to address 0x%llx instead of 0",
                  static_cast<unsigned long long>(gp.get_address()));
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (gp.get_byte_enable_ptr()) {
        VGPU_WARN(m_log, "ctrl: byte enables are not supported");
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (gp.get_data_length() != sizeof(cp::cta_launch) ||
        gp.get_streaming_width() < gp.get_data_length()) {
        VGPU_WARN(m_log, "ctrl: launch of %u bytes, expected %zu", gp.get_data_length(),
                  sizeof(cp::cta_launch));
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    cp::cta_launch l;
    std::memcpy(&l, gp.get_data_ptr(), sizeof l);
    const std::uint64_t threads = std::uint64_t{l.block_x} * l.block_y * l.block_z;
    const std::uint64_t warps = (threads + warp_size - 1) / warp_size;
    const unsigned free_warps = m_slots.free_warps();
    const char* why = nullptr;
    if (threads == 0 || l.grid_x == 0 || l.grid_y == 0 || l.grid_z == 0)
        why = "empty CTA or grid";
    else if (l.nparams > cp::max_params)
        why = "too many parameters";
    else if (l.regs_per_thread > m_cfg.regs_per_thread)
        why = "more registers per thread than sm.regs_per_thread";
    else if (l.shared_bytes > m_cfg.shared_bytes.bytes)
        why = "more shared memory than sm.shared_bytes";
    cta_slots::grant g;
    if (!why) {
        g = m_slots.allocate(warps);
        why = g.refused;
    }
    if (why) {
        VGPU_WARN(m_log,
                  "ctrl: CTA (%u,%u) of kernel %u refused: %s (%llu warps, %u free warp slots)",
                  l.cta_x, l.cta_y, l.kernel_seq, why, static_cast<unsigned long long>(warps),
                  free_warps);
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    cta_slot& c = m_cta_slots[g.cta];
    c = cta_slot{};
    c.ctx.params.reserve(cp::max_params);
    c.launch = l;
    c.arrival_ps = (tlm_bus::sim_now() + delay).value();
    m_resident = m_slots.resident();
    ++m_wakeups;
    if (m_gate)
        m_gate->wake(m_sm_id, tlm_bus::sim_now() + delay);
    else
        m_wake.notify(delay);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned sm::ctrl_transport_dbg(tlm::tlm_generic_payload&)
{
    return 0; // the launch port has no readable state
}

tlm_bus::gpu_extension sm::request_ext(int warp_slot, tlm_bus::access_kind kind,
                                       std::uint64_t vaddr, std::uint32_t pc,
                                       const cp::cta_launch& l) const
{
    tlm_bus::gpu_extension e;
    e.module = static_cast<std::int16_t>(m_module);
    e.cluster = static_cast<std::int16_t>(m_cluster);
    e.sm = static_cast<std::int16_t>(m_sm_id);
    e.warp = warp_slot;
    e.kind = kind;
    e.barrier_waiting = static_cast<std::uint16_t>(m_barriers.waiting());
    e.vaddr = vaddr;
    e.pc = pc;
    e.epoch = l.kernel_seq;
    e.ptbr = l.ptbr;
    return e;
}

// ---- CTA start ----

void sm::start_cta(int ci)
{
    cta_slot& c = m_cta_slots[ci];
    const cp::cta_launch& l = c.launch;
    const std::uint64_t arrival = cycle_of(tlm_bus::ps_time(c.arrival_ps));
    std::uint64_t start = std::max(m_cycle, arrival);
    m_slots.start(ci);
    m_barriers.start(ci, m_slots.warp_mask(ci));
    c.start = start;
    c.end = start;
    if (m_icache && m_icache_ptbr != l.ptbr) {
        // Lines are tagged by virtual address: another address space starts empty.
        if (m_icache_ptbr)
            m_icache->invalidate();
        m_icache_ptbr = l.ptbr;
    }
    std::uint64_t ready = start;
    c.prog = fetch_program(c, ready);
    m_cycle = std::max(m_cycle, cycle_of(tlm_bus::sim_now()));
    if (c.prog < 0)
        return;
    c.ctx.params.assign(l.params, l.params + l.nparams);
    c.ctx.ntid_x = l.block_x;
    c.ctx.ntid_y = l.block_y;
    c.ctx.nctaid_x = l.grid_x;
    c.ctx.nctaid_y = l.grid_y;
    c.ctx.ctaid_x = l.cta_x;
    c.ctx.ctaid_y = l.cta_y;
    c.ctx.ntid_z = l.block_z;
    c.ctx.nctaid_z = l.grid_z;
    c.ctx.ctaid_z = l.cta_z;
    c.ctx.sm_id = m_sm_id;
    c.shared.assign(l.shared_bytes, 0); // its shared-memory window (docs/isa.md)
    unsigned k = 0;
    for (std::uint64_t m = m_slots.warp_mask(ci); m != 0; m &= m - 1, ++k) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        ws.w.emplace(m_progs[c.prog].code, c.ctx, k, m_cfg.regs_per_thread,
                     std::move(ws.spare_regs), m_progs[c.prog].checked);
        ws.cta = ci;
        ws.plans = m_progs[c.prog].plans.data();
        m_ready.set(s, ready, wait_reason::memory);
        if (ws.w->next())
            set_unit(s, ws.plans[ws.w->pc()].unit);
        note_next(s, ws.w->next() ? &ws.plans[ws.w->pc()] : nullptr);
        ws.board.reset();
        for (auto& o : ws.ops) // the previous warp's accesses are complete
            o->end = 0;
        ws.start = ready;
        ws.issued = 0;
        ws.prog_va = l.prog_addr;
        ws.prof = m_profile ? m_profile->find(l.prog_addr, m_sm_id) : nullptr;
        ws.prog_end = std::uint64_t{l.prog_addr} + l.prog_bytes;
        ws.fetch_line = never;
        ws.fetch_ready = 0;
        m_cores[ws.core]->sched.launch(s);
        post_event(tlm_bus::event_kind::warp_start, s, l.kernel_seq, ready);
        m_live |= 1ull << s;
        fetch_next(s, ready, fetch_cycle());
    }
    m_watchdog.watch(static_cast<unsigned>(ci), start);
    VGPU_DEBUG(m_log, "CTA (%u,%u) of kernel %u started at cycle %llu with %u warps", l.cta_x,
               l.cta_y, l.kernel_seq, static_cast<unsigned long long>(start), m_slots.warps(ci));
}

// ---- barriers, exits, faults ----

void sm::arrive(unsigned slot, std::uint32_t pc)
{
    warp_slot& ws = m_warps[slot];
    m_ready.set(slot, never, wait_reason::barrier);
    post_event(tlm_bus::event_kind::barrier_arrive, slot, pc, m_cycle);
    const barrier_tracker::arrival a = m_barriers.arrive(slot, pc, m_cycle);
    if (a.result == barrier_tracker::outcome::released)
        release_barrier(a.released);
    else if (a.result == barrier_tracker::outcome::deadlock)
        fault_cta(ws.cta, slot, pc, 0, "barrier deadlock: " + wait_report(m_cta_slots[ws.cta]));
}

void sm::post_event(tlm_bus::event_kind e, unsigned slot, std::uint32_t arg, std::uint64_t cycle)
{
    if (m_event_source == tlm_bus::event_if::no_source)
        return;
    events->post({cycle, m_event_source, e, slot, arg});
    if (!events->blocked(m_event_source))
        return;
    // The unit holds this source's groups (full_policy stall): the issue stage waits, in
    // simulated time, until they are stored.
    m_qk.sync();
    while (events->blocked(m_event_source))
        sc_core::wait(events->unblocked());
    if (m_gate) { // resumed by the trace unit, in its order: back in SM-id order
        m_gate->sleep(m_sm_id, tlm_bus::sim_now(), false);
        m_gate->in_order(m_sm_id);
    }
    const std::uint64_t before = m_cycle;
    m_cycle = std::max(m_cycle, cycle_of(tlm_bus::sim_now()));
    m_trace_stall_cycles += m_cycle - before;
    m_qk.set(time_of(m_cycle) - tlm_bus::sim_now());
}

void sm::release_barrier(std::uint64_t released)
{
    auto& rec = trace::recorder::instance();
    for (std::uint64_t m = released; m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        const std::uint64_t since = m_barriers.since(s);
        const std::uint64_t waited = m_cycle - since;
        m_barrier_wait_cycles += waited;
        if (!m_slot_stats.empty())
            m_slot_stats[s]->barrier_wait_cycles += waited;
        if (rec.enabled())
            rec.span(name(), m_warp_tracks[s], "BAR", since * m_clk.core_ps,
                     m_cycle * m_clk.core_ps);
        post_event(tlm_bus::event_kind::barrier_release, s, m_barriers.pc(s), m_cycle);
        update_next(s);
    }
}

void sm::warp_exited(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    m_live &= ~(1ull << slot);
    post_event(tlm_bus::event_kind::warp_exit, slot, c.launch.kernel_seq, m_cycle);
    const barrier_tracker::outcome o = m_barriers.exit(slot);
    const std::uint64_t lifetime = m_cycle + 1 - ws.start;
    if (!m_slot_stats.empty())
        m_slot_stats[slot]->stall_cycles += lifetime > ws.issued ? lifetime - ws.issued : 0;
    auto& rec = trace::recorder::instance();
    if (rec.enabled())
        rec.span(name(), m_warp_tracks[slot],
                 "cta (" + std::to_string(c.launch.cta_x) + "," + std::to_string(c.launch.cta_y) +
                     ") warp " + std::to_string(ws.w->warp_in_cta()),
                 ws.start * m_clk.core_ps, (m_cycle + 1) * m_clk.core_ps);
    if (o == barrier_tracker::outcome::all_exited) {
        m_check = true;
    } else if (o == barrier_tracker::outcome::deadlock) {
        const int waiting = m_barriers.first_waiting(ws.cta);
        const unsigned first = waiting >= 0 ? static_cast<unsigned>(waiting) : slot;
        fault_cta(ws.cta, first, m_barriers.pc(first), 0, "barrier deadlock: " + wait_report(c));
    }
}

std::string sm::wait_report(const cta_slot& c) const
{
    const auto ci = static_cast<unsigned>(&c - m_cta_slots.data());
    std::string out;
    char part[96];
    for (std::uint64_t m = m_slots.warp_mask(ci); m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        const warp_slot& ws = m_warps[s];
        if (!ws.w)
            continue;
        if (!out.empty())
            out += "; ";
        if (ws.w->done() && !ws.w->faulted())
            std::snprintf(part, sizeof part, "warp %u: exited", s);
        else if (m_barriers.at_barrier(s))
            std::snprintf(part, sizeof part, "warp %u at pc %u: BAR (%u of %u warps arrived)", s,
                          m_barriers.pc(s), m_barriers.arrived(ci), m_barriers.warps(ci));
        else if (ws.board.memory_busy() || !ws.w->ready())
            std::snprintf(part, sizeof part, "warp %u at pc %u: memory", s, ws.w->pc());
        else if (m_icache && ws.fetch_ready > m_cycle)
            std::snprintf(part, sizeof part, "warp %u at pc %u: instruction fetch", s, ws.w->pc());
        else if (m_ready.next(s) > m_cycle)
            std::snprintf(part, sizeof part, "warp %u at pc %u: scoreboard", s, ws.w->pc());
        else
            std::snprintf(part, sizeof part, "warp %u at pc %u: ready", s, ws.w->pc());
        out += part;
    }
    return out;
}

void sm::fault_cta(int ci, unsigned slot, std::uint32_t pc, std::uint64_t vaddr,
                   const std::string& msg)
{
    cta_slot& c = m_cta_slots[ci];
    if (c.faulted)
        return;
    c.faulted = true;
    cp::cta_done& d = c.fault;
    d.queue = c.launch.queue;
    d.kernel_seq = c.launch.kernel_seq;
    d.sm = m_sm_id;
    d.cta_x = c.launch.cta_x;
    d.cta_y = c.launch.cta_y;
    d.cta_z = c.launch.cta_z;
    d.status = cp::cta_status::fault;
    d.warp = slot;
    d.pc = pc;
    d.vaddr = vaddr;
    std::snprintf(d.message, sizeof d.message, "%s", msg.c_str());
    m_last_fault = msg;
    VGPU_WARN(m_log, "CTA (%u,%u) of kernel %u faulted: warp %u pc %u: %s", c.launch.cta_x,
              c.launch.cta_y, c.launch.kernel_seq, slot, pc, msg.c_str());
    m_live &= ~m_slots.warp_mask(ci);
    m_barriers.cancel(ci);
    m_slots.stop(ci);
    m_watchdog.forget(ci);
    m_check = true;
}

void sm::check_ctas()
{
    m_check = false;
    for (unsigned i = 0; i < m_slots.size(); ++i) {
        const cta_state st = m_slots.state(i);
        const bool finished =
            st == cta_state::ending || (st == cta_state::running && m_barriers.all_exited(i));
        if (finished && m_cta_slots[i].outstanding == 0)
            end_cta(static_cast<int>(i));
    }
}

void sm::end_cta(int ci)
{
    cta_slot& c = m_cta_slots[ci];
    const std::uint64_t end = std::max(m_cycle, c.end);
    cp::cta_done d{};
    if (c.faulted) {
        d = c.fault;
    } else {
        d.queue = c.launch.queue;
        d.kernel_seq = c.launch.kernel_seq;
        d.sm = m_sm_id;
        d.cta_x = c.launch.cta_x;
        d.cta_y = c.launch.cta_y;
        d.cta_z = c.launch.cta_z;
        d.status = cp::cta_status::ok;
    }
    auto& rec = trace::recorder::instance();
    for (std::uint64_t m = m_slots.warp_mask(ci); m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        if (ws.w && (!ws.w->done() || ws.w->faulted())) {
            // Stopped by a fault: the warp's lifetime ends with the CTA.
            const std::uint64_t lifetime = end - ws.start;
            if (!m_slot_stats.empty())
                m_slot_stats[s]->stall_cycles += lifetime > ws.issued ? lifetime - ws.issued : 0;
            if (rec.enabled())
                rec.span(name(), m_warp_tracks[s], "warp (stopped)", ws.start * m_clk.core_ps,
                         end * m_clk.core_ps);
        }
        if (ws.w)
            ws.spare_regs = ws.w->take_registers();
        ws.w.reset();
        ws.cta = -1;
    }
    if (rec.enabled())
        rec.span(name(), "cta slot " + std::to_string(ci), // resident CTAs overlap: one track each
                 "cta (" + std::to_string(c.launch.cta_x) + "," + std::to_string(c.launch.cta_y) +
                     ") {kernel}",
                 c.start * m_clk.core_ps, end * m_clk.core_ps, c.launch.kernel_seq);
    if (c.prog >= 0)
        --m_progs[c.prog].users;
    ++m_ctas;
    if (c.faulted)
        ++m_faults;
    m_slots.release(ci);
    m_watchdog.forget(ci);
    m_watchdog.refresh();
    m_resident = m_slots.resident();

    const sc_core::sc_time now = tlm_bus::sim_now();
    const sc_core::sc_time at = time_of(end);
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    const tlm_bus::gpu_extension ext = request_ext(-1, tlm_bus::access_kind::other, 0, 0, c.launch);
    const auto st = done.access(tlm::TLM_WRITE_COMMAND, 0, &d, sizeof d, delay, &ext);
    if (st != tlm::TLM_OK_RESPONSE)
        SC_REPORT_ERROR("vgpu/sm", "the CP refused a cta_done record");
    m_cycle = std::max(m_cycle, cycle_of(tlm_bus::sim_now()));
}

} // namespace vgpu::sm
