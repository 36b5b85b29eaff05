// SM shell: CTA launch target, warp issue loop over the SIMT cores, coalesced LD/ST through
// the `mem` port, CTA completion and fault records to the CP. See models/sm/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/cp/cta_launch.h"
#include "models/sm/core/barrier_tracker.h"
#include "models/sm/core/coalescer.h"
#include "models/sm/core/cta_slots.h"
#include "models/sm/core/function_units.h"
#include "models/sm/core/icache.h"
#include "models/sm/core/isa.h"
#include "models/sm/core/line_limit.h"
#include "models/sm/core/ready_set.h"
#include "models/sm/core/scoreboard.h"
#include "models/sm/core/source_profile.h"
#include "models/sm/core/warp.h"
#include "models/sm/core/warp_scheduler.h"
#include "models/sm/core/watchdog.h"
#include "models/sm/same_time_gate.h"
#include "models/sm/sm_config.h"
#include "models/sm/sm_state.h"
#include "models/sm/sm_unit.h"
#include "tlm_bus/event_port.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <vector>

namespace vgpu::sm {

/// One streaming multiprocessor: runs the CTAs the CP launches on it.
class sm : public sc_core::sc_module, private unit_host, private same_time_gate::private_work {
public:
    tlm_utils::simple_target_socket<sm> ctrl; ///< CP writes one cp::cta_launch to address 0
    tlm_bus::initiator_port mem;              ///< instruction fetch and LD/ST (virtual addresses)
    tlm_bus::initiator_port done;             ///< writes one cp::cta_done to address 0 per CTA
    tlm_bus::event_port events;               ///< ISU events (tlm_bus/event_port.h; optional)

    /// sm_id is the global SM index; module and cluster locate it; line_bytes is the L1 line;
    /// per_warp_stats adds the w<i>.* statistics of each warp slot (config stats.per_warp).
    sm(const sc_core::sc_module_name& name, const sm_config& cfg, const clock_params& clk,
       unsigned sm_id, unsigned module, unsigned cluster, unsigned line_bytes,
       bool per_warp_stats = false);
    ~sm() override;

    unsigned sm_id() const { return m_sm_id; }                            ///< global SM index
    const sm_config& config() const { return m_cfg; }                     ///< parameters in force
    std::uint64_t instructions() const { return m_instructions.value(); } ///< warp-instructions
    /// Thread-instructions (active lanes with a true guard).
    std::uint64_t lane_instructions() const { return m_lane_instructions.value(); }
    std::uint64_t ctas() const { return m_ctas.value(); }     ///< CTAs finished
    std::uint64_t faults() const { return m_faults.value(); } ///< CTAs ended by a fault
    /// Attaches the unit that executes the instructions the issue stage hands off (without
    /// one they fault the CTA); call before the simulation starts. See sm_unit.h.
    void attach_unit(const unit_factory& make);
    /// A warp's access after its store to the same line waits for the store's completion
    /// instead of following it through the in-order path: for a memory system in which the two
    /// may take different paths (an LLC whose organisation switches within a kernel); call
    /// before the simulation starts.
    void stores_wait_for_completion() { m_stores_follow = false; }
    /// Fast mode: the issue loop sleeps through `gate` (member sm_id), so that SMs resuming at
    /// one simulated time run in SM-id order (docs/architecture.md, "Timing"); call before
    /// the simulation starts. Accurate mode orders requests at the ports'
    /// arbiters: the call does nothing there.
    void join_gate(same_time_gate& gate);
    /// Cycles LD/STs waited on page faults (from the first fault to completion, summed).
    std::uint64_t fault_stall_cycles() const { return m_fault_stall_cycles.value(); }
    std::uint64_t mem_requests() const { return m_mem_requests.value(); } ///< line requests
    /// Jobs that waited for an LSU thread past platform.max_host_threads.
    std::uint64_t lsu_budget_waits() const { return m_lsu_budget_waits.value(); }
    /// Line requests that waited for a place (sm.max_line_requests).
    std::uint64_t line_limit_waits() const { return m_line_limit_waits.value(); }
    std::uint64_t loads() const { return m_loads.value(); }   ///< warp LD instructions
    std::uint64_t stores() const { return m_stores.value(); } ///< warp ST instructions
    std::uint64_t active_cycles() const { return m_active_cycles.value(); } ///< cycles with CTAs
    /// Cycles no warp could issue, mostly waiting for memory.
    std::uint64_t stall_memory() const { return m_stall_memory.value(); }
    /// Cycles no warp could issue, mostly waiting for ALU results.
    std::uint64_t stall_scoreboard() const { return m_stall_scoreboard.value(); }
    /// Cycles no warp could issue, mostly waiting at barriers.
    std::uint64_t stall_barrier() const { return m_stall_barrier.value(); }
    /// Cycles in which at least one sub-core issued.
    std::uint64_t issue_cycles() const { return m_issue_cycles.value(); }
    /// Cycles no sub-core issued although a warp was ready: its unit was busy.
    std::uint64_t stall_structural() const { return m_stall_structural.value(); }
    std::uint64_t cycles() const { return m_cycle; } ///< current core cycle of the issue loop
    /// Fast mode on more than one host thread: issue-loop cycles run as local ones
    /// (local_next()); a host-side figure (on one thread no cycle is run that way).
    std::uint64_t local_cycles() const { return m_local_cycles; }
    /// Instruction-line lookups that found the line present (0 without an instruction cache).
    std::uint64_t icache_hits() const { return m_icache_hits.value(); }
    /// Instruction-line lookups that found the line absent and started its fill.
    std::uint64_t icache_misses() const { return m_icache_misses.value(); }
    /// Instruction-line lookups that found their line being filled and waited for that fill.
    std::uint64_t icache_pending_hits() const { return m_icache_pending_hits.value(); }
    /// Next-line prefetch fills requested.
    std::uint64_t icache_prefetches() const { return m_icache_prefetches.value(); }
    /// Full text of the last fault (cta_done.message holds its first 95 characters).
    const std::string& last_fault() const { return m_last_fault; }
    /// Resident CTAs (launched or being started, not yet ended).
    unsigned resident_ctas() const { return m_resident; }
    /// Registers `<path>.resident_ctas` with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;
    /// Counts per PC (issued, stall cycles, line requests) for the programs p profiles
    /// (models/sm/core/source_profile.h); set before the run, p outlives the SM.
    void set_source_profile(source_profile* p) { m_profile = p && !p->empty() ? p : nullptr; }

private:
    /// Charges a stall of `cycles` in which no warp issued to each profiled live warp, at its
    /// next instruction, by its reason (`ready`: the warps that waited for a busy unit).
    void profile_stall(std::uint64_t cycles, std::uint64_t ready);
    static constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
    /// The lowest set bit of v (v != 0): the first warp slot of a mask.
    static unsigned ctz64(std::uint64_t v) { return static_cast<unsigned>(__builtin_ctzll(v)); }

    // Control, time and CTA life (sm.cpp).
    void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned ctrl_transport_dbg(tlm::tlm_generic_payload& gp);
    // Inline: every stage converts on its hot paths (the stages are separate files).
    sc_core::sc_time time_of(std::uint64_t cycle) const
    {
        return tlm_bus::ps_time(cycle * m_period_ticks);
    }
    std::uint64_t cycle_of(const sc_core::sc_time& t) const ///< rounded up
    {
        return (t.value() + m_period_ticks - 1) / m_period_ticks;
    }
    /// Sets the quantum keeper's local time to m_cycle and syncs when the quantum is used up.
    void keep_time();
    /// keep_time() without the sync: true when one is due.
    bool advance_time();
    /// Simulated time: the current one, or the local cycles' (m_round_now) while they run.
    const sc_core::sc_time& now_time() const { return m_local ? m_round_now : tlm_bus::sim_now(); }
    /// Waits (after a sync) until `until` or a wake-up; m_cycle follows simulated time.
    void block(std::uint64_t until);
    /// Fast mode with a gate: hands a notification of m_wake (an LSU thread's) to the gate.
    void forward_wake();
    void start_cta(int c);
    tlm_bus::gpu_extension request_ext(int warp_slot, tlm_bus::access_kind kind,
                                       std::uint64_t vaddr, std::uint32_t pc,
                                       const cp::cta_launch& l) const;
    void arrive(unsigned slot, std::uint32_t pc);
    /// Hands an ISU event of warp `slot` at `cycle` to the shader-trace unit (if any); waits
    /// while the unit holds this SM's groups (full_policy stall).
    void post_event(tlm_bus::event_kind e, unsigned slot, std::uint32_t arg, std::uint64_t cycle);
    /// Statistics, trace and issue times of the warps a barrier released (bit w: slot w).
    void release_barrier(std::uint64_t released);
    void warp_exited(unsigned slot);
    void fault_cta(int c, unsigned slot, std::uint32_t pc, std::uint64_t vaddr,
                   const std::string& msg);
    std::string wait_report(const cta_slot& c) const;
    void check_ctas();
    void end_cta(int c);

    // Issue stage (sm.cpp).
    void issue_loop();
    /// How a cycle of the issue loop ended: the next may follow, its time needs a sync, the SM
    /// waits (m_stall), or it is blocked for good (an error).
    enum class cycle_end : std::uint8_t { next, sync, block, stuck };
    /// One cycle from the ready warps on (`updated`: m_ready is up to date): issue, or a
    /// stall that jumps or waits.
    cycle_end run_cycle(bool updated = false);
    /// Serial part of a cycle: the instruction lookups it deferred, then its sync or wait.
    void end_cycle(cycle_end e);
    /// Counts a stall of the cycles since `before` (no warp issued; `ready`: the warps whose
    /// unit was busy).
    void count_stall(stats::counter& stall, std::uint64_t before, std::uint64_t ready);
    /// True when the next cycle touches nothing but this SM's state (docs/architecture.md,
    /// "Parallel simulation"): no launch, CTA end, watchdog limit, queued line request or
    /// access in an LSU thread is due, and every ready warp's next instruction runs locally
    /// (issue_plan::local).
    bool local_next();
    /// Runs the local cycles this SM handed to the gate and that wait in its batch, before
    /// another process changes its state (docs/architecture.md, "Parallel simulation").
    void settle()
    {
        if (m_gate)
            m_gate->settle(m_sm_id);
    }
    /// private_work: the cycles that run locally from here (on any host thread; no SystemC
    /// call), stopping where a sync, a wait or a deferred lookup is due (m_left).
    void run_private() override;
    void issue(unsigned slot);
    void update_next(unsigned slot);
    /// Sets slot's bit of m_nonlocal from the plan of its next instruction (none: done).
    void note_next(unsigned slot, const issue_plan* next)
    {
        const std::uint64_t bit = 1ull << slot;
        m_nonlocal = (m_nonlocal & ~bit) | (next && next->local ? 0 : bit);
    }
    /// Sets the unit class of slot's next instruction (m_unit and m_unit_warps).
    void set_unit(unsigned slot, unit_class u);

    // Fetch stage: program fetch and instruction cache (sm_fetch.cpp).
    int fetch_program(cta_slot& c, std::uint64_t& ready);
    /// Fetches line i of m_fetch into m_fetch_buf (delay: until cycle ready + i); false if it
    /// failed.
    bool fetch_line(unsigned i);
    /// Reads the program of `l` into buf with debug reads (no time); the first VA that could
    /// not be read, if any.
    std::optional<std::uint64_t> read_program(const cp::cta_launch& l, std::uint8_t* buf);
    /// Instruction cache: the line of the warp's next instruction is looked up when it differs
    /// from the last one the warp looked up (a miss requests it, no earlier than `at`, and the
    /// next line is prefetched), and the warp's next issue waits until that line arrived.
    void fetch_next(unsigned slot, std::uint64_t at, std::uint64_t now);
    /// Requests an instruction line through `mem` at cycle `at` or the next free fill cycle
    /// (one per cycle): inline in fast mode, by an LSU thread in accurate mode.
    void request_fill(std::uint64_t va, std::uint64_t at, const cp::cta_launch& l);
    /// The fill of line va arrived at cycle `ready` (or failed with st): installs it, and
    /// releases (accurate mode: wakes) or faults the warps waiting for it.
    void fill_done(std::uint64_t va, std::uint64_t ready, tlm::tlm_response_status st);
    /// The current cycle for the instruction cache: never decreases, also in an LSU thread.
    std::uint64_t fetch_cycle() const { return std::max(m_cycle, cycle_of(now_time())); }

    // LSU stage (sm_lsu.cpp).
    /// Issues LD/ST/ATOM (or a unit's load of `a`: of `kind`, zero_lanes read 0).
    void issue_mem(unsigned slot, const step_result& r, const mem_access& a,
                   tlm_bus::access_kind kind = tlm_bus::access_kind::data,
                   std::uint32_t zero_lanes = 0);
    /// LD/ST/ATOM/CAS.SHARED of `slot`: executed on its CTA's window in the SM's shared-memory
    /// pipeline (one pass per cycle per bank-conflict way), complete after sm.shared_latency.
    void issue_shared(unsigned slot, const step_result& r, const mem_access& a);
    /// True when `b` must wait for `a` (same warp): their lines overlap and one is a store.
    static bool ordered(const mem_op& a, const mem_op& b);
    /// Fast mode: lets global time catch up before a memory access when the SM is more than
    /// platform.timing.memory_quantum_ns ahead.
    void catch_up();
    /// The cycle line request `job` is due: its access's issue plus one per line before it.
    std::uint64_t due_of(const lsu_job& job) const;
    /// Fast mode: one more of op's line requests completes in an LSU thread or waits in
    /// m_line_queue (the first makes the op busy).
    void hold_op(mem_op& op);
    // sm.max_line_requests (models/sm/README.md, "Line requests in flight").
    /// A place for line request `job` (not_before and counted set), or false: it waits in
    /// m_line_queue (fast mode: also when its place frees later than it is due).
    bool take_place(lsu_job& job);
    /// Accurate mode: a counted line request completes at cycle `end` (its place is free from
    /// then on); the oldest waiting requests take the places there are.
    void release_line(std::uint64_t end);
    /// line_limit_waits and their cycles: a request due at `due` goes at `at`.
    void count_line_wait(std::uint64_t due, std::uint64_t at);
    /// Fast mode: makes the queued line requests whose place is free by m_cycle, in order.
    void send_queued_lines();
    /// Fast mode: line request `job` page-faulted; an LSU thread waits for the host and
    /// replays it.
    void wait_fault(lsu_job job, std::shared_ptr<tlm_bus::fault_wait> f);
    /// Accurate mode: hands the line requests of op k of `slot` to LSU threads.
    void dispatch_mem(unsigned slot, unsigned k);
    /// Performs line request `line` of op k of `slot` with `delay` as offset. Returns the
    /// page fault the line is waiting on (replay it after the host's answer), or nullptr.
    std::shared_ptr<tlm_bus::fault_wait> do_line(unsigned slot, unsigned k, unsigned line,
                                                 sc_core::sc_time& delay, std::uint8_t* buf,
                                                 std::uint8_t* be);
    /// In an LSU thread: waits for the host's answer to fault f of a line of op k of `slot`
    /// and replays the line until it completes; a refused page or no answer within
    /// host.fault_timeout fails the op instead.
    void replay_line(unsigned slot, unsigned k, unsigned line,
                     std::shared_ptr<tlm_bus::fault_wait> f, std::uint8_t* buf, std::uint8_t* be);
    void finish_mem(unsigned slot, unsigned k);
    /// A line request of op k of `slot` was made (fast mode: answered without a page fault;
    /// accurate mode: handed to the memory path) for cycle `at`: when it is the op's last, the
    /// later accesses of the warp that follow the store go from at + 1 on.
    void line_sent(unsigned slot, unsigned k, std::uint64_t at);
    /// The accesses of `slot` that wait for op k's requests to go (and with `done`, those that
    /// wait for its completion) may go from cycle `from` on; those that wait for nothing else
    /// go.
    void release_followers(unsigned slot, unsigned k, std::uint64_t from, bool done);
    /// A load `op` of `slot` behind earlier stores of its warp in flight: its lanes take the
    /// newest such store's value of their word (the order of the warp's accesses, whatever
    /// path its data takes).
    void forward_stores(unsigned slot, mem_op& op);
    /// Starts another LSU thread (not in the idle list); returns its index.
    unsigned spawn_lsu();
    /// Hands a job to an idle LSU thread (a new one if none is idle), woken in the next delta.
    void hand_to_lsu(const lsu_job& job);
    void run_lsu_job(const lsu_job& job, lsu_worker& w);
    void lsu_thread(unsigned id);

    // unit_host: the services the attached unit uses (sm_unit.h; sm_units.cpp).
    const unit_params& params() const override { return m_unit_params; }
    std::uint64_t cycle() const override { return m_cycle; }
    void load(unsigned warp, const step_result& r, const mem_access& a, tlm_bus::access_kind kind,
              std::uint32_t zero_lanes) override;
    void read_line(sm_unit& unit, const line_read& rd) override;
    /// Makes a unit's line read with `delay` as offset (in mem_requests if it reads bytes).
    line_result unit_read(const line_read& rd, sc_core::sc_time& delay,
                          std::shared_ptr<tlm_bus::fault_wait>* fault = nullptr);
    /// A unit's line read that page-faulted (or was told to retry): waits for the host's
    /// answer and replays it until it is made; `delay` receives the made read's annotation.
    line_result unit_replay(const line_read& rd, std::shared_ptr<tlm_bus::fault_wait> f,
                            sc_core::sc_time& delay);
    /// Hands `rd` of `unit` to an LSU thread (with `fault`: the access page-faulted).
    void unit_to_lsu(sm_unit& unit, const line_read& rd,
                     std::shared_ptr<tlm_bus::fault_wait> fault);
    void begin_access(unsigned warp) override;
    void end_access(unsigned warp, std::uint64_t end) override;
    void write_register(unsigned warp, unsigned reg, const lane_values& v,
                        std::uint64_t at) override;
    void wake(unsigned warp) override;
    void fault(unsigned warp, std::uint32_t pc, std::uint64_t vaddr,
               const std::string& msg) override;

    const sm_config m_cfg;
    const clock_params m_clk;
    const unsigned m_sm_id, m_module, m_cluster, m_line_bytes;
    const std::uint64_t m_period_ticks;
    coalescer m_coalescer;
    function_units m_units; ///< per sub-core and class: when the unit is free
    logger m_log;

    std::vector<warp_slot> m_warps;
    /// Per warp slot, the earliest cycle its next instruction can issue and why not earlier:
    /// the issue loop's view of the slots, kept apart from warp_slot (kilobytes each).
    ready_set m_ready;
    std::vector<unit_class> m_unit; ///< per warp slot: unit of the next instruction
    /// Per unit class, the slots whose next instruction is of that class (m_unit):
    /// the issue loop drops the warps of a busy unit a class at a time.
    std::array<std::uint64_t, num_unit_classes> m_unit_warps{};
    std::vector<cta_slot> m_cta_slots;
    cta_slots m_slots;          ///< CTA slot states, warp-slot allocation, pending launches
    barrier_tracker m_barriers; ///< BAR arrivals and exits per CTA
    watchdog m_watchdog;        ///< sm.max_cta_cycles per running CTA
    std::vector<prog_entry> m_progs;
    std::optional<icache> m_icache; ///< absent when sm.icache_bytes is 0
    std::uint64_t m_fill_port = 0;  ///< first cycle the next instruction fill may be requested
    std::optional<std::uint64_t> m_icache_ptbr; ///< page table of the lines held
    std::vector<fill_request> m_fills;          ///< accurate mode: fills handed to LSU threads
    std::vector<std::uint8_t> m_fill_buf; ///< fast mode: fill data (not used: decoded at launch)
    std::uint64_t m_live = 0;             ///< bit w: warp slot w may issue (resident, not done)
    unsigned m_resident = 0;              ///< CTA slots not free (traced as resident_ctas)
    std::uint64_t m_cycle = 0;
    bool m_check = false;             ///< a CTA may have finished or deadlocked
    bool m_stores_follow = true;      ///< see stores_wait_for_completion()
    gated_quantumkeeper m_qk;         ///< syncs through m_gate when there is one
    same_time_gate* m_gate = nullptr; ///< fast mode: orders same-time resumes (join_gate)
    bool m_local = false;             ///< local cycles run (run_private)
    std::uint64_t m_local_cycles = 0; ///< local_cycles()
    /// Bit w: warp slot w's next instruction does not run locally (or is not known yet).
    std::uint64_t m_nonlocal = ~std::uint64_t{0};
    sc_core::sc_time m_round_now;       ///< simulated time of the local cycles
    cycle_end m_left = cycle_end::next; ///< what the last local cycle left to end_cycle()
    struct stall_wait {
        stats::counter* stall = nullptr;
        std::uint64_t target = 0, before = 0, ready = 0;
    } m_stall; ///< a cycle's wait (cycle_end::block)
    /// Instruction lookups a local cycle left (the line needs a fill): warp slot and cycle.
    std::vector<std::pair<unsigned, std::uint64_t>> m_deferred;
    sc_core::sc_event m_wake;    ///< launch accepted or memory completed
    std::uint64_t m_wakeups = 0; ///< notifications of m_wake so far (see block())

    /// The programs counted per PC (set_source_profile); none: nothing is counted.
    source_profile* m_profile = nullptr;

    /// Accurate mode: LSU threads, as many as line requests in flight (more are started when
    /// every one is busy, so they never bound memory-level parallelism: the L1's MSHRs do).
    std::vector<std::unique_ptr<lsu_worker>> m_lsu;
    std::vector<unsigned> m_lsu_idle; ///< idle LSU threads
    /// accurate mode: the idle LSU threads' registration (host_resources::add_parked_source)
    std::optional<unsigned> m_parked_source;
    std::deque<lsu_job> m_lsu_waiting; ///< jobs past platform.max_host_threads (rare)
    /// Fast mode: line requests the L1 answered with every MSHR busy replay one at a time,
    /// oldest first (as accurate mode's misses wait in line in the L1): whether one is
    /// replaying, and the events of those waiting for their turn.
    bool m_retry_busy = false;
    bool m_replaying = false; ///< do_line is making such a replay
    std::deque<sc_core::sc_event*> m_retry_line;
    /// sm.max_line_requests: the places of the line requests in flight.
    line_limit m_line_limit;
    /// Line requests waiting for a place (accurate mode) or for the cycle their place frees
    /// (fast mode), in request order.
    std::deque<lsu_job> m_line_queue;
    /// Fast mode: LD/STs in LSU threads (page faults, waits) or with requests in m_line_queue.
    unsigned m_busy_ops = 0;
    /// First cycle at which the SM's memory pipeline can send the next line request: it sends
    /// one per cycle, in instruction order, for all sub-cores (see issue_mem).
    std::uint64_t m_line_port_free = 0;
    unit_params m_unit_params;               ///< what the unit knows of this SM
    std::unique_ptr<sm_unit> m_attached;     ///< the unit of the handed-off instructions, if any
    std::vector<pending_read> m_unit_reads;  ///< unit reads in LSU threads (fast: faulted)
    std::vector<unsigned> m_unit_reads_free; ///< free entries of m_unit_reads
    bool m_lsu_budget_warned = false;
    std::vector<std::uint8_t> m_line_bufs; ///< fast mode: line data
    std::vector<std::uint8_t> m_be_bufs;   ///< fast mode: byte enables
    std::vector<std::uint8_t> m_fetch_buf;
    fetch_state m_fetch;
    sc_core::sc_event m_fetch_done; ///< accurate mode: the last fetching LSU thread finished
    std::string m_last_fault;
    std::vector<std::string> m_warp_tracks; ///< "warp <slot>"

    stats::group m_stats;
    stats::counter m_instructions, m_lane_instructions, m_loads, m_stores, m_mem_requests,
        m_fetches, m_ctas, m_faults, m_active_cycles, m_idle_cycles, m_stall_scoreboard,
        m_stall_barrier, m_stall_memory, m_barrier_wait_cycles, m_trace_events, m_issue_cycles,
        m_stall_structural, m_icache_hits, m_icache_misses, m_icache_pending_hits,
        m_icache_prefetches, m_memory_syncs, m_page_faults, m_fault_stall_cycles,
        m_trace_stall_cycles, m_atomics, m_lsu_budget_waits, m_line_limit_waits,
        m_line_limit_wait_cycles;
    stats::counter m_local_loads, m_local_stores;           ///< LD.LOCAL, ST.LOCAL (docs/cuda.md)
    unsigned m_event_source = tlm_bus::event_if::no_source; ///< this ISU's source id
    stats::average m_request_barrier_count;
    stats::formula m_ipc;
    std::vector<std::unique_ptr<sub_core>> m_cores;        ///< sm.schedulers sub-cores
    std::vector<std::unique_ptr<slot_stats>> m_slot_stats; ///< empty unless per_warp_stats
    shared_pipe m_shared;                                  ///< shared-memory pipeline (sm_lsu.cpp)
};

} // namespace vgpu::sm
