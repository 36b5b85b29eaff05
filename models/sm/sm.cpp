// SM shell: CTA launch, warp issue loop, coalesced memory, completion records.
// See models/sm/README.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/sm/sm.h"
#include "tlm_bus/byte_enables.h"

#include "models/common/host_resources.h"
#include "models/common/trace_events.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace vgpu::sm {

namespace {
unsigned ctz64(std::uint64_t v)
{
    return static_cast<unsigned>(__builtin_ctzll(v));
}
} // namespace

sm::slot_stats::slot_stats(stats::group& g, unsigned slot)
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

sm::warp_slot::warp_slot(const sm_config& cfg)
    : board(cfg.regs_per_thread, result_latencies(cfg), cfg.max_loads_per_warp,
            cfg.max_stores_per_warp)
{
}

sm::sub_core::sub_core(stats::group& g, unsigned index, unsigned warp_slots, unsigned schedulers,
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
    : sc_module(name), ctrl("ctrl"), mem("mem"), done("done"), trace_events("trace_events"),
      m_cfg(cfg), m_clk(clk), m_sm_id(sm_id), m_module(module), m_cluster(cluster),
      m_line_bytes(line_bytes),
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
      m_request_barrier_count(m_stats, "request_barrier_count", "warps",
                              "warps of this SM waiting at a barrier when an LD/ST line request "
                              "left it (gpu_extension::barrier_waiting; every request is "
                              "eventually granted)"),
      m_ipc(m_stats, "ipc", "instructions/cycle", "warp-instructions per active cycle", [this] {
          const auto c = m_active_cycles.value();
          return c ? static_cast<double>(m_instructions.value()) / static_cast<double>(c) : 0.0;
      })
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
    }
}

sm::~sm() = default;

void sm::trace(sc_core::sc_trace_file* tf) const
{
    sc_core::sc_trace(tf, m_resident, std::string(name()) + ".resident_ctas");
}

// ---- time ----

sc_core::sc_time sm::time_of(std::uint64_t cycle) const
{
    return sc_core::sc_time::from_value(cycle * m_period_ticks);
}

std::uint64_t sm::cycle_of(const sc_core::sc_time& t) const
{
    return (t.value() + m_period_ticks - 1) / m_period_ticks;
}

void sm::keep_time()
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time local = time_of(m_cycle);
    if (local < now) {
        m_cycle = cycle_of(now);
        m_qk.set(time_of(m_cycle) - now);
    } else {
        m_qk.set(local - now);
    }
    if (m_qk.need_sync())
        m_qk.sync();
}

void sm::block(std::uint64_t until)
{
    // A launch or a memory completion that arrives while sync() waits notifies m_wake when
    // nothing waits on it; the counter and the pending list catch it, so it is never lost.
    const std::uint64_t wakeups = m_wakeups;
    m_qk.sync();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const bool woken = wakeups != m_wakeups || !m_slots.pending().empty();
    if (woken)
        VGPU_DEBUG(m_log, "woken during the sync at %s", now.to_string().c_str());
    else if (until == never)
        sc_core::wait(m_wake);
    else if (time_of(until) > now)
        sc_core::wait(time_of(until) - now, m_wake);
    m_cycle = std::max(m_cycle, cycle_of(sc_core::sc_time_stamp()));
    m_qk.set(time_of(m_cycle) - sc_core::sc_time_stamp());
}

// ---- control ----

void sm::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
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
    const std::uint64_t threads = std::uint64_t{l.block_x} * l.block_y;
    const std::uint64_t warps = (threads + warp_size - 1) / warp_size;
    const unsigned free_warps = m_slots.free_warps();
    const char* why = nullptr;
    if (threads == 0 || l.grid_x == 0 || l.grid_y == 0)
        why = "empty CTA or grid";
    else if (l.nparams > cp::max_params)
        why = "too many parameters";
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
    c.arrival_ps = (sc_core::sc_time_stamp() + delay).value();
    m_resident = m_slots.resident();
    ++m_wakeups;
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

int sm::fetch_program(cta_slot& c, std::uint64_t& ready)
{
    const cp::cta_launch& l = c.launch;
    for (std::size_t i = 0; i < m_progs.size(); ++i) {
        prog_entry& p = m_progs[i];
        if (p.valid && p.kernel_seq == l.kernel_seq && p.addr == l.prog_addr &&
            p.bytes == l.prog_bytes) {
            ++p.users;
            // Fast mode: a CTA started (at its launch time) right after the one whose fetch
            // brought the program still waits for the fetch to end.
            ready = std::max(ready, p.ready);
            return static_cast<int>(i);
        }
    }
    const int ci = static_cast<int>(&c - m_cta_slots.data());
    const int first_warp = static_cast<int>(ctz64(m_slots.warp_mask(ci)));
    auto fail = [&](std::uint64_t va, const std::string& msg) {
        fault_cta(ci, static_cast<unsigned>(first_warp), 0, va, msg);
        return -1;
    };
    if (l.prog_bytes == 0 || l.prog_bytes > max_program_bytes)
        return fail(l.prog_addr, "program size " + std::to_string(l.prog_bytes) +
                                     " bytes outside 1.." + std::to_string(max_program_bytes));
    auto victim = std::find_if(m_progs.begin(), m_progs.end(),
                               [](const prog_entry& p) { return p.users == 0; });
    if (victim == m_progs.end()) {
        SC_REPORT_ERROR("vgpu/sm", "no free program cache entry");
        return -1;
    }
    victim->valid = false;
    const std::uint64_t line = m_line_bytes;
    const std::uint64_t first = l.prog_addr & ~(line - 1);
    const std::uint64_t last = (std::uint64_t{l.prog_addr} + l.prog_bytes + line - 1) & ~(line - 1);
    m_fetch_buf.resize(last - first);
    std::uint64_t end = ready; // the warps start when the program arrived
    if (m_icache) {
        // The program is decoded from a debug read (no time): the warps' instruction fetches
        // are timed by the instruction cache (fetch_next).
        if (const auto bad = read_program(l, &m_fetch_buf[l.prog_addr - first])) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (not readable)",
                          static_cast<unsigned long long>(*bad));
            return fail(*bad, msg);
        }
    } else {
        m_fetch = fetch_state{};
        m_fetch.launch = &l;
        m_fetch.first = first;
        m_fetch.lines = static_cast<unsigned>((last - first) / line);
        m_fetch.ready = ready;
        m_fetch.end = ready;
        if (m_clk.accurate) {
            // The lines are requested one per cycle, as in fast mode, by LSU threads (a blocking
            // fetch by this thread would serialise them); this thread waits for all of them.
            const unsigned threads = std::min(m_fetch.lines, fetch_threads);
            m_fetch.left = threads;
            for (unsigned k = 0; k < threads; ++k)
                hand_to_lsu({0, static_cast<std::uint16_t>(k), 0, true});
            while (m_fetch.left > 0)
                sc_core::wait(m_fetch_done);
        } else {
            for (unsigned i = 0; i < m_fetch.lines && fetch_line(i); ++i) {
            }
        }
        if (m_fetch.failed) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (%s)",
                          static_cast<unsigned long long>(m_fetch.fail_va),
                          tlm_bus::response_name(m_fetch.fail_status));
            return fail(m_fetch.fail_va, msg);
        }
        end = m_fetch.end;
    }
    victim->code = decode_program(&m_fetch_buf[l.prog_addr - first], l.prog_bytes);
    for (std::size_t pc = 0; pc < victim->code.size(); ++pc)
        if (victim->code[pc].op == opcode::INVALID)
            return fail(l.prog_addr + pc * instruction_bytes,
                        "instruction at pc " + std::to_string(pc) + " does not decode");
    // Checked once here for every warp that runs it (a warp checks an instruction otherwise
    // at each step).
    victim->checked =
        std::none_of(victim->code.begin(), victim->code.end(), [this](const instruction& i) {
            return check(i, m_cfg.regs_per_thread).has_value();
        });
    victim->valid = true;
    victim->kernel_seq = l.kernel_seq;
    victim->addr = l.prog_addr;
    victim->bytes = l.prog_bytes;
    victim->users = 1;
    victim->ready = end;
    ready = end;
    return static_cast<int>(victim - m_progs.begin());
}

bool sm::fetch_line(unsigned i)
{
    const std::uint64_t va = m_fetch.first + std::uint64_t{i} * m_line_bytes;
    const sc_core::sc_time at = time_of(m_fetch.ready + i);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    const tlm_bus::gpu_extension ext =
        request_ext(-1, tlm_bus::access_kind::instruction, va, 0, *m_fetch.launch);
    const auto st = mem.access(tlm::TLM_READ_COMMAND, va, &m_fetch_buf[va - m_fetch.first],
                               m_line_bytes, delay, &ext);
    ++m_fetches;
    if (st != tlm::TLM_OK_RESPONSE) {
        if (!m_fetch.failed || va < m_fetch.fail_va) {
            m_fetch.fail_va = va;
            m_fetch.fail_status = st;
        }
        m_fetch.failed = true;
        return false;
    }
    m_fetch.end = std::max(m_fetch.end, cycle_of(sc_core::sc_time_stamp() + delay));
    return true;
}

std::optional<std::uint64_t> sm::read_program(const cp::cta_launch& l, std::uint8_t* buf)
{
    std::uint64_t va = l.prog_addr;
    const std::uint64_t end = va + l.prog_bytes;
    while (va < end) {
        // One line at a time: the caches below hold (and interleave) data by line, and a
        // debug read is served whole by the target its first address decodes to.
        const std::uint64_t line_end = (va | (m_line_bytes - 1)) + 1;
        const auto len = static_cast<unsigned>(std::min(end, line_end) - va);
        const tlm_bus::gpu_extension ext =
            request_ext(-1, tlm_bus::access_kind::instruction, va, 0, l);
        const unsigned n =
            mem.debug(tlm::TLM_READ_COMMAND, va, buf + (va - l.prog_addr), len, &ext);
        if (n == 0)
            return va;
        va += n;
    }
    return std::nullopt;
}

void sm::start_cta(int ci)
{
    cta_slot& c = m_cta_slots[ci];
    const cp::cta_launch& l = c.launch;
    const std::uint64_t arrival = cycle_of(sc_core::sc_time::from_value(c.arrival_ps));
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
    m_cycle = std::max(m_cycle, cycle_of(sc_core::sc_time_stamp()));
    if (c.prog < 0)
        return;
    c.ctx.params.assign(l.params, l.params + l.nparams);
    c.ctx.ntid_x = l.block_x;
    c.ctx.ntid_y = l.block_y;
    c.ctx.nctaid_x = l.grid_x;
    c.ctx.nctaid_y = l.grid_y;
    c.ctx.ctaid_x = l.cta_x;
    c.ctx.ctaid_y = l.cta_y;
    c.ctx.sm_id = m_sm_id;
    unsigned k = 0;
    for (std::uint64_t m = m_slots.warp_mask(ci); m != 0; m &= m - 1, ++k) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        ws.w.emplace(m_progs[c.prog].code, c.ctx, k, m_cfg.regs_per_thread,
                     std::move(ws.spare_regs), m_progs[c.prog].checked);
        ws.cta = ci;
        m_ready.set(s, ready, wait_reason::memory);
        if (const instruction* first = ws.w->next())
            set_unit(s, unit_of(first->op));
        ws.board.reset();
        for (auto& o : ws.ops) // the previous warp's accesses are complete
            o->end = 0;
        ws.start = ready;
        ws.issued = 0;
        ws.prog_va = l.prog_addr;
        ws.prog_end = std::uint64_t{l.prog_addr} + l.prog_bytes;
        ws.fetch_line = never;
        ws.fetch_ready = 0;
        m_cores[ws.core]->sched.launch(s);
        trace_event(shader_trace::event::warp_start, s, l.kernel_seq, ready);
        m_live |= 1ull << s;
        fetch_next(s, ready);
    }
    m_watchdog.watch(static_cast<unsigned>(ci), start);
    VGPU_DEBUG(m_log, "CTA (%u,%u) of kernel %u started at cycle %llu with %u warps", l.cta_x,
               l.cta_y, l.kernel_seq, static_cast<unsigned long long>(start), m_slots.warps(ci));
}

// ---- issue ----

void sm::update_next(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    const issue_time t =
        ws.board.next_issue(ws.w->next(), ws.w->ready(), m_barriers.at_barrier(slot));
    m_ready.set(slot, t.cycle, t.reason);
    if (const instruction* next = ws.w->next())
        set_unit(slot, unit_of(next->op));
    fetch_next(slot, fetch_cycle());
}

void sm::set_unit(unsigned slot, unit_class u)
{
    unit_class& now = m_unit[slot];
    m_unit_warps[static_cast<unsigned>(now)] &= ~(1ull << slot);
    m_unit_warps[static_cast<unsigned>(u)] |= 1ull << slot;
    now = u;
}

std::uint64_t sm::fetch_cycle() const
{
    return std::max(m_cycle, cycle_of(sc_core::sc_time_stamp()));
}

void sm::fetch_next(unsigned slot, std::uint64_t at)
{
    warp_slot& ws = m_warps[slot];
    if (!m_icache || !(m_live >> slot & 1) || !ws.w->next())
        return;
    const std::uint64_t line =
        m_icache->line_of(ws.prog_va + std::uint64_t{ws.w->pc()} * instruction_bytes);
    if (line != ws.fetch_line) {
        // The warp holds the instructions of the line it looked up last (its fetch buffer);
        // another line is looked up in the instruction cache.
        const cp::cta_launch& l = m_cta_slots[ws.cta].launch;
        const std::uint64_t now = fetch_cycle();
        const icache::result r = m_icache->access(line, now);
        ws.fetch_line = line;
        ws.fetch_ready = r.ready;
        switch (r.kind) {
        case icache::outcome::hit:
            ++m_icache_hits;
            break;
        case icache::outcome::in_flight:
            ++m_icache_pending_hits;
            break;
        case icache::outcome::miss:
            ++m_icache_misses;
            // Fast mode: fill_done() sets fetch_ready (or faults the CTA) before this returns.
            request_fill(line, std::max(at, now), l);
            break;
        }
        if (!(m_live >> slot & 1))
            return; // the fill failed: the CTA faulted
        // The window of sm.icache_prefetch_lines lines after this one, those not yet present
        // or requested (in steady state one new line per line used).
        for (unsigned k = 1; r.prefetch_next && k <= m_cfg.icache_prefetch_lines; ++k) {
            const std::uint64_t next = line + std::uint64_t{k} * m_line_bytes;
            if (next >= ws.prog_end)
                break;
            if (m_icache->prefetch(next, now)) {
                ++m_icache_prefetches;
                request_fill(next, std::max(at, now), l);
            }
        }
    }
    if (ws.fetch_ready > m_ready.next(slot))
        m_ready.set(slot, ws.fetch_ready, wait_reason::memory);
}

void sm::request_fill(std::uint64_t va, std::uint64_t at, const cp::cta_launch& l)
{
    at = std::max(at, m_fill_port);
    m_fill_port = at + 1;
    VGPU_DEBUG(m_log, "instruction line 0x%llx requested at cycle %llu",
               static_cast<unsigned long long>(va), static_cast<unsigned long long>(at));
    ++m_fetches;
    const tlm_bus::gpu_extension ext = request_ext(-1, tlm_bus::access_kind::instruction, va, 0, l);
    if (m_clk.accurate) {
        auto f = std::find_if(m_fills.begin(), m_fills.end(),
                              [](const fill_request& r) { return !r.busy; });
        if (f == m_fills.end())
            f = m_fills.insert(m_fills.end(), fill_request{});
        const auto index = static_cast<std::size_t>(f - m_fills.begin());
        if (index > 0xffff)
            SC_REPORT_ERROR("vgpu/sm", "too many instruction fills in flight");
        *f = {true, va, at, ext};
        hand_to_lsu({0, static_cast<std::uint16_t>(index), 0, false, true});
        return;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time t = time_of(at);
    sc_core::sc_time delay = t > now ? t - now : sc_core::SC_ZERO_TIME;
    const auto st =
        mem.access(tlm::TLM_READ_COMMAND, va, m_fill_buf.data(), m_line_bytes, delay, &ext);
    fill_done(va, cycle_of(sc_core::sc_time_stamp() + delay), st);
}

void sm::fill_done(std::uint64_t va, std::uint64_t ready, tlm::tlm_response_status st)
{
    VGPU_DEBUG(m_log, "instruction line 0x%llx arrives at cycle %llu (%s)",
               static_cast<unsigned long long>(va), static_cast<unsigned long long>(ready),
               tlm_bus::response_name(st));
    if (st == tlm::TLM_OK_RESPONSE)
        m_icache->filled(va, ready);
    else
        m_icache->fill_failed(va);
    for (std::uint64_t m = m_live; m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        if (ws.fetch_line != va || ws.fetch_ready != never || !(m_live >> s & 1))
            continue;
        if (st != tlm::TLM_OK_RESPONSE) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (%s)",
                          static_cast<unsigned long long>(va), tlm_bus::response_name(st));
            fault_cta(ws.cta, s, ws.w->pc(), va, msg);
            continue;
        }
        ws.fetch_ready = ready;
        if (m_clk.accurate)
            update_next(s); // fast mode: the warp that missed is the only one waiting
    }
}

void sm::issue(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    const step_result r = ws.w->step();
    ++m_instructions;
    m_lane_instructions += static_cast<unsigned>(__builtin_popcount(r.lane_mask));
    ++ws.issued;
    if (!m_slot_stats.empty())
        ++m_slot_stats[slot]->instructions;
    switch (r.kind) {
    case step_kind::alu:
        if (r.inst)
            ws.board.write_alu(*r.inst, m_cycle);
        break;
    case step_kind::branch:
        ws.board.hold_until(m_cycle + m_units.latency(unit_class::branch));
        break;
    case step_kind::load:
    case step_kind::store:
        issue_mem(slot, r, *r.access);
        break;
    case step_kind::atomic:
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
        trace_event(shader_trace::event::user, slot, r.trace_code, m_cycle);
        break;
    case step_kind::cdl: // handed off to the attached unit
        if (!m_attached) {
            fault_cta(ws.cta, slot, r.pc, 0,
                      "CDL requires the CDL access controller, not present in this platform");
            return;
        }
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

bool sm::ordered(const mem_op& a, const mem_op& b)
{
    // An atomic writes as a store does.
    const bool a_writes = a.store || a.kind == tlm_bus::access_kind::atomic;
    const bool b_writes = b.store || b.kind == tlm_bus::access_kind::atomic;
    if ((!a_writes && !b_writes) || (a.lines_sig & b.lines_sig) == 0)
        return false;
    for (unsigned i = 0; i < a.lines.count; ++i)
        for (unsigned j = 0; j < b.lines.count; ++j)
            if (a.lines.requests[i].line_addr == b.lines.requests[j].line_addr)
                return true;
    return false;
}

void sm::issue_mem(unsigned slot, const step_result& r, const mem_access& a,
                   tlm_bus::access_kind kind, std::uint32_t zero_lanes)
{
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    // An entry not in flight; the scoreboard's limits leave one (loads + stores < entries).
    unsigned k = 0;
    while (k < ws.ops.size() && (ws.ops[k]->busy || ws.ops[k]->end > m_cycle))
        ++k;
    if (k == ws.ops.size()) {
        if (k == m_cfg.max_loads_per_warp + m_cfg.max_stores_per_warp) {
            SC_REPORT_ERROR("vgpu/sm",
                            "no free memory-instruction entry (scoreboard limits broken)");
            return;
        }
        // Entries are added one at a time as the warps of this slot need them: most slots use
        // few (a streaming kernel's warp three of 16), and a platform has thousands of slots.
        // Each entry is allocated alone, so adding one never moves another (an LSU thread
        // holds a reference across its access) and the entries a kernel uses lie close
        // together in host memory.
        ws.ops.push_back(std::make_unique<mem_op>()); // a fresh entry is free
    }
    mem_op& op = *ws.ops[k];
    m_coalescer.coalesce_into(a.lane_mask, a.addr.data(), op.lines);
    if (op.lines.misaligned) {
        fault_cta(ws.cta, slot, r.pc, a.addr[ctz64(op.lines.misaligned)], "misaligned access");
        return;
    }
    if (kind == tlm_bus::access_kind::atomic) {
        // One request per distinct word, in the order of the first lane on it, carrying the
        // sum of its lanes' addends; do_line hands the lanes their old values in lane order,
        // as one read-modify-write at the LLC per word of the warp (docs/isa.md, "Atomics").
        op.lines.count = 0;
        for (std::uint32_t m = a.lane_mask; m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            const std::uint64_t line = a.addr[l] & ~std::uint64_t{m_line_bytes - 1};
            const auto offset = static_cast<unsigned>(a.addr[l] - line);
            unsigned i = 0;
            while (i < op.lines.count && (op.lines.requests[i].line_addr != line ||
                                          op.lines.requests[i].offset != offset))
                ++i;
            coalescer::request& q = op.lines.requests[i];
            if (i == op.lines.count) {
                ++op.lines.count;
                q.line_addr = line;
                q.lane_mask = 0;
                q.offset = offset;
                q.bytes = 4;
            }
            q.lane_mask |= 1u << l;
        }
        op.data = a.data;
        ++m_atomics;
    }
    op.lines_sig = 0;
    for (unsigned i = 0; i < op.lines.count; ++i)
        op.lines_sig |= 1ull << ((op.lines.requests[i].line_addr / m_line_bytes) % 64);
    op.addr = a.addr;
    op.store = r.kind == step_kind::store;
    if (op.store)
        op.data = a.data;
    op.lane_mask = a.lane_mask;
    op.kind = kind;
    op.zero_lanes = zero_lanes;
    for (std::uint32_t m = zero_lanes; m != 0; m &= m - 1)
        op.data[static_cast<unsigned>(__builtin_ctz(m))] = 0;
    op.reg = a.reg;
    op.pc = r.pc;
    op.issue = m_cycle + m_cfg.lsu_delay(); // address stage (sm.units.lsu.latency)
    op.end = op.issue;
    op.remaining = op.lines.count;
    op.failed = false;
    op.fail_reason = nullptr;
    if (op.store)
        ++m_stores;
    else if (kind == tlm_bus::access_kind::data) // a unit counts its own loads
        ++m_loads;
    m_mem_requests += op.lines.count;
    ++c.outstanding;
    ws.board.memory_issued(op.store, m_cycle);
    // The memory pipeline sends one line request per cycle for the whole SM (all sub-cores;
    // LD, ST, ATOM and a unit's loads), in instruction order: an instruction's first request
    // follows the previous instruction's last one. The requests of warps that issue on
    // consecutive cycles thus leave warp by warp in both timing modes, not interleaved. The
    // instruction takes its cycles here, before the memory order below: one that waits for an
    // earlier access of its warp waits aside (as in accurate mode, where it waits in the LSU
    // threads), and never holds back the other warps' requests.
    op.issue = std::max(op.issue, m_line_port_free);
    m_line_port_free = op.issue + op.lines.count;
    // A warp's accesses to one line keep program order where one of them is a store: the
    // later waits in the LSU until the earlier completed (both modes, so that they agree).
    op.waits = 0;
    op.behind = false;
    const std::uint64_t port = op.issue;
    for (unsigned j = 0; j < ws.ops.size(); ++j) {
        const mem_op& o = *ws.ops[j];
        if (j == k || !(o.busy || o.end > op.issue) || !ordered(o, op))
            continue;
        op.behind = true;
        if (o.busy)
            op.waits |= 1ull << j;
        else
            op.issue = std::max(op.issue, o.end);
    }
    op.fault_cycle = 0;
    if (op.lines.count == 0) { // a unit's load whose lanes all read 0
        finish_mem(slot, k);
        return;
    }
    // Fast mode: an access that waits for an earlier one of its warp is made when it goes,
    // not now. Made now, its requests would book the shared resources ahead of the requests
    // other warps and SMs make meanwhile in simulated time (call order is not time order):
    // a chain of stores to one line, each made at the previous one's completion, would book
    // a saturated channel before them and hold them back (docs/architecture.md, "Timing").
    const bool deferred = !m_clk.accurate && op.issue > port;
    if (m_clk.accurate || op.waits != 0 || deferred) {
        // Accurate mode; or fast mode behind an access of this warp that completes later or
        // waits for a page fault: LSU threads perform it when it may go.
        op.busy = true;
        if (!m_clk.accurate)
            ++m_busy_ops;
        if (op.waits == 0)
            dispatch_mem(slot, k);
        return;
    }
    op.end = op.issue;
    op.remaining = 0;
    catch_up();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    for (unsigned i = 0; i < op.lines.count; ++i) {
        lsu_job job{static_cast<std::uint16_t>(slot), static_cast<std::uint16_t>(i),
                    static_cast<std::uint8_t>(k)};
        if (m_line_limit.limit() != 0 && !take_place(job)) {
            // sm.max_line_requests are in flight: the request waits in the LSU and the SM
            // makes it when its place is free (send_queued_lines), in time order with the
            // other SMs' requests.
            hold_op(op);
            continue;
        }
        sc_core::sc_time delay = time_of(op.issue + i) - now;
        auto f = do_line(slot, k, i, delay, m_line_bufs.data(), m_be_bufs.data());
        m_line_limit.release(cycle_of(now + delay));
        if (f)
            wait_fault(job, std::move(f));
    }
    if (op.remaining == 0)
        finish_mem(slot, k);
}

void sm::catch_up()
{
    // Fast mode books shared resources in call order: an SM that ran ahead would take a
    // saturated port before SMs that reach it earlier in simulated time. Far ahead, it first
    // lets global time catch up (platform.timing.memory_quantum_ns).
    if (const std::uint64_t local = time_of(m_cycle).value(),
        global = sc_core::sc_time_stamp().value();
        local > global && local - global > m_clk.memory_quantum_ps) {
        m_qk.set(time_of(m_cycle) - sc_core::sc_time_stamp());
        m_qk.sync();
        ++m_memory_syncs;
    }
}

std::uint64_t sm::due_of(const lsu_job& job) const
{
    return m_warps[job.slot].ops[job.op]->issue + job.line;
}

void sm::hold_op(mem_op& op)
{
    if (op.remaining++ == 0) {
        op.busy = true;
        ++m_busy_ops;
    }
}

bool sm::take_place(lsu_job& job)
{
    const std::uint64_t due = due_of(job);
    std::optional<std::uint64_t> at;
    if (m_line_queue.empty()) // requests take places in request order
        at = m_line_limit.take(due);
    if (at) {
        job.not_before = *at;
        job.counted = true;
        if (m_clk.accurate || *at == due)
            return true; // it goes (accurate mode: from *at on, in run_lsu_job)
    }
    m_line_queue.push_back(job);
    return false;
}

void sm::wait_fault(lsu_job job, std::shared_ptr<tlm_bus::fault_wait> f)
{
    // The page is being faulted in: an LSU thread waits for the host's answer and replays the
    // line; the SM goes on issuing the other warps.
    mem_op& op = *m_warps[job.slot].ops[job.op];
    hold_op(op);
    if (op.fault_cycle == 0)
        op.fault_cycle = op.issue + job.line;
    job.counted = false; // its place was given up when the fault was answered
    job.fault = std::move(f);
    hand_to_lsu(job);
}

void sm::send_queued_lines()
{
    while (!m_line_queue.empty()) {
        lsu_job& front = m_line_queue.front();
        const std::uint64_t due = due_of(front);
        if (!front.counted) {
            // Fast mode knows the completion of every request sent: a place is found.
            const auto at = m_line_limit.take(due);
            if (!at) {
                SC_REPORT_ERROR("vgpu/sm", "no place for a line request (sm.max_line_requests)");
                return;
            }
            front.not_before = *at;
            front.counted = true;
        }
        if (front.not_before > m_cycle)
            return;
        const lsu_job job = front;
        m_line_queue.pop_front();
        mem_op& op = *m_warps[job.slot].ops[job.op];
        count_line_wait(due, job.not_before);
        catch_up();
        const sc_core::sc_time at = time_of(job.not_before), now = sc_core::sc_time_stamp();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        auto f = do_line(job.slot, job.op, job.line, delay, m_line_bufs.data(), m_be_bufs.data());
        m_line_limit.release(cycle_of(now + delay));
        if (f) {
            --op.remaining; // wait_fault counts it again
            wait_fault(job, std::move(f));
        } else if (--op.remaining == 0) {
            finish_mem(job.slot, job.op);
        }
    }
}

void sm::dispatch_mem(unsigned slot, unsigned k)
{
    // One LSU thread per line request, woken in request order (so the order in which the
    // requests reach the L1 does not depend on which thread takes which).
    const mem_op& op = *m_warps[slot].ops[k];
    for (unsigned i = 0; i < op.lines.count; ++i) {
        lsu_job job{static_cast<std::uint16_t>(slot), static_cast<std::uint16_t>(i),
                    static_cast<std::uint8_t>(k)};
        // Accurate mode, sm.max_line_requests: a request takes a place, or waits for one in
        // request order (release_line). Fast mode calls this only for an access behind an
        // earlier one of its warp, which is not limited.
        if (m_line_limit.limit() != 0 && !op.behind && m_clk.accurate && !take_place(job))
            continue;
        hand_to_lsu(job);
    }
}

void sm::count_line_wait(std::uint64_t due, std::uint64_t at)
{
    if (at > due) {
        ++m_line_limit_waits;
        m_line_limit_wait_cycles += at - due;
    }
}

void sm::release_line(std::uint64_t end)
{
    m_line_limit.release(end);
    while (!m_line_queue.empty()) {
        lsu_job& front = m_line_queue.front();
        const auto at = m_line_limit.take(due_of(front));
        if (!at)
            return;
        lsu_job job = front;
        m_line_queue.pop_front();
        job.not_before = *at;
        job.counted = true;
        hand_to_lsu(job);
    }
}

std::shared_ptr<tlm_bus::fault_wait> sm::do_line(unsigned slot, unsigned k, unsigned line,
                                                 sc_core::sc_time& delay, std::uint8_t* buf,
                                                 std::uint8_t* be)
{
    warp_slot& ws = m_warps[slot];
    mem_op& op = *ws.ops[k];
    const coalescer::request& req = op.lines.requests[line];
    const std::uint64_t va = req.line_addr + req.offset;
    const unsigned len = req.bytes;
    const tlm_bus::gpu_extension ext =
        request_ext(static_cast<int>(slot), op.kind, va, op.pc, m_cta_slots[ws.cta].launch);
    m_request_barrier_count.sample(ext.barrier_waiting);
    tlm::tlm_response_status st;
    std::shared_ptr<tlm_bus::fault_wait> fault;
    if (op.kind == tlm_bus::access_kind::atomic) {
        // A write of the lanes' summed addend, answered with the word's old value in the same
        // buffer; lane by lane, each lane's old value is the word after the lanes before it.
        std::uint32_t sum = 0;
        for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1)
            sum += op.data[static_cast<unsigned>(__builtin_ctz(m))];
        std::memcpy(buf, &sum, 4);
        st = mem.access(tlm::TLM_WRITE_COMMAND, va, buf, 4, delay, &ext, nullptr, &fault);
        if (st == tlm::TLM_OK_RESPONSE) {
            std::uint32_t word;
            std::memcpy(&word, buf, 4);
            for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
                const auto l = static_cast<unsigned>(__builtin_ctz(m));
                const std::uint32_t addend = op.data[l];
                op.data[l] = word;
                word += addend;
            }
        }
    } else if (!op.store) {
        st = mem.access(tlm::TLM_READ_COMMAND, va, buf, len, delay, &ext, nullptr, &fault);
        if (st == tlm::TLM_OK_RESPONSE)
            for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
                const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
                std::memcpy(&op.data[l], buf + (op.addr[l] - va), 4);
            }
    } else {
        std::memset(be, 0, len);
        for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
            const std::uint64_t off = op.addr[l] - va;
            std::memcpy(buf + off, &op.data[l], 4);
            std::memset(be + off, 0xff, 4);
        }
        // Lanes that leave holes in the segment write with TLM byte enables.
        const bool holes = std::memchr(be, 0, len) != nullptr;
        st = mem.access(tlm::TLM_WRITE_COMMAND, va, buf, len, delay, &ext, holes ? be : nullptr,
                        &fault);
    }
    if (fault) {
        ++m_page_faults;
        return fault;
    }
    op.end = std::max(op.end, cycle_of(sc_core::sc_time_stamp() + delay));
    if (st != tlm::TLM_OK_RESPONSE && !op.failed) {
        op.failed = true;
        op.fail_vaddr = op.addr[static_cast<unsigned>(__builtin_ctz(req.lane_mask))];
        op.fail_status = st;
    }
    return nullptr;
}

void sm::replay_line(unsigned slot, unsigned k, unsigned line,
                     std::shared_ptr<tlm_bus::fault_wait> f, std::uint8_t* buf, std::uint8_t* be)
{
    mem_op& op = *m_warps[slot].ops[k]; // entries never move
    while (f) {
        if (op.fault_cycle == 0)
            op.fault_cycle = std::max<std::uint64_t>(1, cycle_of(sc_core::sc_time_stamp()));
        while (!f->resolved && sc_core::sc_time_stamp().value() < f->deadline_ps)
            sc_core::wait(
                sc_core::sc_time::from_value(f->deadline_ps - sc_core::sc_time_stamp().value()),
                f->done);
        if (!f->resolved || f->fatal) {
            if (!op.failed) {
                const coalescer::request& req = op.lines.requests[line];
                op.failed = true;
                op.fail_vaddr = op.addr[static_cast<unsigned>(__builtin_ctz(req.lane_mask))];
                op.fail_status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
                op.fail_reason = f->resolved ? f->fatal
                                             : "page fault not answered by the host within "
                                               "host.fault_timeout";
            }
            op.end = std::max(op.end, cycle_of(sc_core::sc_time_stamp()));
            return;
        }
        // The replay: the same line request again, now (not a new instruction).
        const sc_core::sc_time at = time_of(op.issue + line);
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        f = do_line(slot, k, line, delay, buf, be);
    }
}

void sm::finish_mem(unsigned slot, unsigned k)
{
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    mem_op& op = *ws.ops[k];
    --c.outstanding;
    ws.board.memory_done(op.store, op.end);
    if (op.busy) {
        op.busy = false;
        if (!m_clk.accurate)
            --m_busy_ops;
        // Accesses of this warp that waited for this one may go when it completed (op.end,
        // which may lie beyond now: a target can annotate the end of its response).
        for (unsigned j = 0; j < ws.ops.size(); ++j) {
            mem_op& o = *ws.ops[j];
            if (!o.busy || !(o.waits >> k & 1))
                continue;
            o.issue = std::max(o.issue, op.end);
            if ((o.waits &= ~(1ull << k)) == 0)
                dispatch_mem(slot, j);
        }
    }
    if (op.fault_cycle != 0)
        m_fault_stall_cycles += op.end - std::min(op.end, op.fault_cycle);
    c.end = std::max(c.end, op.end);
    if (op.failed) {
        // The translation answers an unmapped page with an address error and a store to a
        // page that is not writable with a command error (TLM-2.0's meaning of each); a page
        // fault the host refused carries the host's reason.
        const char* why = op.fail_reason                                      ? op.fail_reason
                          : op.fail_status == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "not mapped"
                          : op.fail_status != tlm::TLM_COMMAND_ERROR_RESPONSE
                              ? tlm_bus::response_name(op.fail_status)
                          : op.store ? "read-only"
                                     : "not readable";
        char msg[96];
        const char* what = op.kind == tlm_bus::access_kind::atomic ? "ATOM"
                           : op.store                              ? "ST"
                                                                   : "LD";
        std::snprintf(msg, sizeof msg, "%s at VA 0x%llx failed (%s)", what,
                      static_cast<unsigned long long>(op.fail_vaddr), why);
        fault_cta(ws.cta, slot, op.pc, op.fail_vaddr, msg);
        m_check = true;
        return;
    }
    if (!op.store && op.reg != reg_zero) {
        ws.w->complete_load(op.reg, op.data, op.lane_mask | op.zero_lanes);
        ws.board.write_load(op.reg, op.end);
    }
    if (m_live & (1ull << slot))
        update_next(slot);
    if (m_slots.state(ws.cta) == cta_state::ending || m_barriers.all_exited(ws.cta))
        m_check = true;
}

// ---- the unit seam (sm_unit.h) ----

void sm::attach_unit(const unit_factory& make)
{
    m_attached = make(*this);
}

void sm::load(unsigned warp, const step_result& r, const mem_access& a, tlm_bus::access_kind kind,
              std::uint32_t zero_lanes)
{
    issue_mem(warp, r, a, kind, zero_lanes);
}

void sm::read_line(sm_unit& unit, const line_read& rd)
{
    if (m_clk.accurate) {
        unsigned index;
        if (!m_unit_reads_free.empty()) {
            index = m_unit_reads_free.back();
            m_unit_reads_free.pop_back();
        } else {
            index = static_cast<unsigned>(m_unit_reads.size());
            m_unit_reads.emplace_back();
            if (index > 0xffff)
                SC_REPORT_ERROR("vgpu/sm", "too many unit line reads in flight");
        }
        m_unit_reads[index] = {&unit, rd};
        lsu_job job(static_cast<std::uint16_t>(index), 0);
        job.unit = true;
        hand_to_lsu(job);
        return;
    }
    const sc_core::sc_time at = time_of(rd.at), now = sc_core::sc_time_stamp();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    unit.read_made(rd, unit_read(rd, delay));
}

line_result sm::unit_read(const line_read& rd, sc_core::sc_time& delay)
{
    line_result res;
    res.start = cycle_of(sc_core::sc_time_stamp() + delay);
    if (rd.bytes > 0) {
        const tlm_bus::gpu_extension ext =
            request_ext(static_cast<int>(rd.warp), rd.kind, rd.addr, rd.pc,
                        m_cta_slots[m_warps[rd.warp].cta].launch);
        res.status = mem.access(tlm::TLM_READ_COMMAND, rd.addr, rd.data, rd.bytes, delay, &ext);
        ++m_mem_requests;
    }
    res.end = std::max<std::uint64_t>(1, cycle_of(sc_core::sc_time_stamp() + delay));
    return res;
}

void sm::begin_access(unsigned warp)
{
    warp_slot& ws = m_warps[warp];
    ++m_cta_slots[ws.cta].outstanding;
    ws.board.memory_issued(false, m_cycle);
}

void sm::end_access(unsigned warp, std::uint64_t end)
{
    warp_slot& ws = m_warps[warp];
    cta_slot& c = m_cta_slots[ws.cta];
    --c.outstanding;
    ws.board.memory_done(false, end);
    c.end = std::max(c.end, end);
    if (m_live & (1ull << warp))
        update_next(warp);
    if (m_slots.state(ws.cta) == cta_state::ending || m_barriers.all_exited(ws.cta))
        m_check = true;
}

void sm::write_register(unsigned warp, unsigned reg, const lane_values& v, std::uint64_t at)
{
    warp_slot& ws = m_warps[warp];
    ws.w->complete_load(reg, v, ~0u);
    ws.board.write_load(static_cast<std::uint8_t>(reg), at);
}

void sm::wake(unsigned warp)
{
    if (m_live & (1ull << warp))
        update_next(warp);
}

void sm::fault(unsigned warp, std::uint32_t pc, std::uint64_t vaddr, const std::string& msg)
{
    fault_cta(m_warps[warp].cta, warp, pc, vaddr, msg);
    m_check = true;
}

// ---- barriers, exits, faults ----

void sm::arrive(unsigned slot, std::uint32_t pc)
{
    warp_slot& ws = m_warps[slot];
    m_ready.set(slot, never, wait_reason::barrier);
    trace_event(shader_trace::event::barrier_arrive, slot, pc, m_cycle);
    const barrier_tracker::arrival a = m_barriers.arrive(slot, pc, m_cycle);
    if (a.result == barrier_tracker::outcome::released)
        release_barrier(a.released);
    else if (a.result == barrier_tracker::outcome::deadlock)
        fault_cta(ws.cta, slot, pc, 0, "barrier deadlock: " + wait_report(m_cta_slots[ws.cta]));
}

void sm::trace_event(shader_trace::event e, unsigned slot, std::uint32_t arg, std::uint64_t cycle)
{
    if (m_trace_source == shader_trace::event_if::no_source)
        return;
    trace_events->post({cycle, m_trace_source, e, slot, arg});
    if (!trace_events->blocked(m_trace_source))
        return;
    // The unit holds this source's groups (full_policy stall): the issue stage waits, in
    // simulated time, until they are stored.
    m_qk.sync();
    while (trace_events->blocked(m_trace_source))
        sc_core::wait(trace_events->unblocked());
    const std::uint64_t before = m_cycle;
    m_cycle = std::max(m_cycle, cycle_of(sc_core::sc_time_stamp()));
    m_trace_stall_cycles += m_cycle - before;
    m_qk.set(time_of(m_cycle) - sc_core::sc_time_stamp());
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
        trace_event(shader_trace::event::barrier_release, s, m_barriers.pc(s), m_cycle);
        update_next(s);
    }
}

void sm::warp_exited(unsigned slot)
{
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    m_live &= ~(1ull << slot);
    trace_event(shader_trace::event::warp_exit, slot, c.launch.kernel_seq, m_cycle);
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
        rec.span(name(), "ctas",
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

    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time at = time_of(end);
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    const tlm_bus::gpu_extension ext = request_ext(-1, tlm_bus::access_kind::other, 0, 0, c.launch);
    const auto st = done.access(tlm::TLM_WRITE_COMMAND, 0, &d, sizeof d, delay, &ext);
    if (st != tlm::TLM_OK_RESPONSE)
        SC_REPORT_ERROR("vgpu/sm", "the CP refused a cta_done record");
    m_cycle = std::max(m_cycle, cycle_of(sc_core::sc_time_stamp()));
}

// ---- processes ----

void sm::issue_loop()
{
    m_qk.reset();
    if (trace_events.size() != 0)
        m_trace_source = trace_events->source_id(shader_trace::source_kind::isu, m_sm_id);
    m_cycle = cycle_of(sc_core::sc_time_stamp());
    for (;;) {
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

        m_ready.update(m_live, m_cycle);
        std::uint64_t ready = m_ready.ready();
        std::uint64_t earliest = std::min(
            m_ready.earliest(),
            m_line_queue.empty() || m_clk.accurate ? never : m_line_queue.front().not_before);
        bool issued = false, structural = false;
        for (std::size_t k = 0; ready != 0 && k < m_cores.size(); ++k) {
            sub_core& core = *m_cores[k];
            // A warp another sub-core's issue ended (fault) or stopped is no longer live.
            std::uint64_t can = ready & core.slots & m_live;
            if (can == 0)
                continue;
            // The warps whose unit is busy, a class at a time.
            for (unsigned c = 0; c < num_unit_classes; ++c) {
                const std::uint64_t on = can & m_unit_warps[c];
                if (on == 0)
                    continue;
                const std::uint64_t free =
                    m_units.free_at(static_cast<unsigned>(k), static_cast<unit_class>(c));
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
            keep_time();
            continue;
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
        // one waiting for a place (sm.max_line_requests) is made when target comes.
        const bool wait_memory =
            !structural && why == wait_reason::memory && (target != never || m_busy_ops != 0);
        if (!m_clk.accurate && target != never && !wait_memory)
            m_cycle = target; // nothing can change before target: jump (idle costs nothing)
        else if (!m_clk.accurate && !wait_memory && m_slots.pending().empty())
            SC_REPORT_ERROR("vgpu/sm", "issue loop blocked with nothing that could wake it");
        else
            block(target);
        stall += m_cycle - before;
        m_active_cycles += m_cycle - before;
        keep_time();
    }
}

unsigned sm::spawn_lsu()
{
    const auto id = static_cast<unsigned>(m_lsu.size());
    auto w = std::make_unique<lsu_worker>();
    w->buf.resize(m_line_bytes);
    w->be.resize(m_line_bytes);
    m_lsu.push_back(std::move(w));
    sc_core::sc_spawn([this, id] { lsu_thread(id); }, sc_core::sc_gen_unique_name("lsu"));
    return id;
}

void sm::hand_to_lsu(const lsu_job& job)
{
    unsigned id;
    if (!m_lsu_idle.empty()) {
        id = m_lsu_idle.back();
        m_lsu_idle.pop_back();
    } else if (const auto g = host_resources::take_thread(); g == host_resources::grant::thread) {
        id = spawn_lsu();
    } else if (g == host_resources::grant::host_spent) {
        // Waiting here would make the timing depend on the host: fail instead.
        const std::string msg =
            "the host's memory mappings (vm.max_map_count) allow no more SystemC threads after " +
            std::to_string(host_resources::threads_taken()) + " of platform.max_host_threads (" +
            std::to_string(host_resources::thread_budget()) +
            "): raise vm.max_map_count or lower platform.max_host_threads "
            "(docs/architecture.md, \"Host limits\")";
        SC_REPORT_ERROR("vgpu/sm", msg.c_str());
        return;
    } else {
        // platform.max_host_threads is spent (docs/architecture.md, "Host limits"): the job
        // waits for the next LSU thread to finish, in request order.
        if (!m_lsu_budget_warned) {
            m_lsu_budget_warned = true;
            VGPU_WARN(m_log,
                      "platform.max_host_threads (%llu) is spent: this SM keeps at most %zu "
                      "line requests in flight, so timing differs from the model",
                      static_cast<unsigned long long>(host_resources::thread_budget()),
                      m_lsu.size());
        }
        m_lsu_waiting.push_back(job);
        ++m_lsu_budget_waits;
        return;
    }
    lsu_worker& w = *m_lsu[id];
    w.job = job;
    w.go.notify(sc_core::SC_ZERO_TIME);
}

void sm::run_lsu_job(const lsu_job& job, lsu_worker& w)
{
    if (job.fill) {
        // The vector may grow while this thread waits in the access: copy, index again after.
        const fill_request f = m_fills[job.line];
        const sc_core::sc_time at = time_of(f.cycle);
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        const auto st =
            mem.access(tlm::TLM_READ_COMMAND, f.va, w.buf.data(), m_line_bytes, delay, &f.ext);
        m_fills[job.line].busy = false;
        fill_done(f.va, cycle_of(sc_core::sc_time_stamp() + delay), st);
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    if (job.unit) {
        // The vector may grow while this thread waits: copy, and free the entry now.
        const pending_read u = m_unit_reads[job.slot];
        m_unit_reads_free.push_back(job.slot);
        const sc_core::sc_time at = time_of(u.rd.at);
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        const line_result res = unit_read(u.rd, delay);
        u.unit->read_made(u.rd, res);
        sc_core::wait(delay); // the unit learns of the data when it is here
        u.unit->read_arrived(u.rd, res, cycle_of(sc_core::sc_time_stamp()));
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    if (job.fetch) {
        for (unsigned i = job.line; i < m_fetch.lines; i += fetch_threads)
            if (!fetch_line(i))
                break;
        if (--m_fetch.left == 0)
            m_fetch_done.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    mem_op& op = *m_warps[job.slot].ops[job.op];
    std::shared_ptr<tlm_bus::fault_wait> f = job.fault;
    if (!f) {
        const std::uint64_t due = op.issue + job.line;
        count_line_wait(due, job.not_before);
        const sc_core::sc_time at = time_of(std::max(due, job.not_before));
        // Fast mode: the request is made at its time, so that it reaches the shared resources
        // in time order with the other SMs' requests (the targets never wait).
        if (!m_clk.accurate && at > sc_core::sc_time_stamp())
            sc_core::wait(at - sc_core::sc_time_stamp());
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        f = do_line(job.slot, job.op, job.line, delay, w.buf.data(), w.be.data());
        // Its place is free from its completion on (a page fault gives it up when reported;
        // the replay is not limited).
        if (job.counted)
            release_line(cycle_of(sc_core::sc_time_stamp() + delay));
    }
    if (f)
        replay_line(job.slot, job.op, job.line, std::move(f), w.buf.data(), w.be.data());
    if (--op.remaining == 0) {
        finish_mem(job.slot, job.op);
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
    }
}

void sm::lsu_thread(unsigned id)
{
    lsu_worker& w = *m_lsu[id];
    for (;;) {
        sc_core::wait(w.go);
        run_lsu_job(w.job, w);
        while (!m_lsu_waiting.empty()) { // only when platform.max_host_threads is spent
            const lsu_job next = m_lsu_waiting.front();
            m_lsu_waiting.pop_front();
            run_lsu_job(next, w);
        }
        m_lsu_idle.push_back(id);
    }
}

} // namespace vgpu::sm
