// The SM's per-slot state records, shared by its stage files (sm.cpp, sm_fetch.cpp,
// sm_lsu.cpp); not part of the SM's interface. See models/sm/README.md ("Stages").
#pragma once

#include "models/common/stats.h"
#include "models/cp/cta_launch.h"
#include "models/sm/core/coalescer.h"
#include "models/sm/core/isa.h"
#include "models/sm/core/scoreboard.h"
#include "models/sm/core/shared_memory.h"
#include "models/sm/core/source_profile.h"
#include "models/sm/core/warp.h"
#include "models/sm/core/warp_scheduler.h"
#include "models/sm/sm_config.h"
#include "models/sm/sm_unit.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm>
#include <vector>

namespace vgpu::sm {

/// Statistics of one warp slot.
struct slot_stats {
    slot_stats(stats::group& g, unsigned slot);
    stats::counter instructions, barrier_wait_cycles, stall_cycles;
};

/// One sub-core: its warp scheduler and statistics (its units are in m_units).
struct sub_core {
    sub_core(stats::group& g, unsigned index, unsigned warp_slots, unsigned schedulers,
             sched_policy policy);
    warp_scheduler sched;
    std::uint64_t slots; ///< bit w: warp slot w belongs to this sub-core
    stats::counter instructions, structural_stalls;
};

/// A memory instruction of a warp (up to sm.max_loads_per_warp + sm.max_stores_per_warp
/// per warp in flight).
/// The fields every issue and completion reads come first, then the requests (count
/// first), then the lanes' values: scanning a warp's entries and issuing an access of one
/// line touch the first host cache lines of an entry only.
struct mem_op {
    bool busy = false;  ///< in LSU threads (accurate mode; in fast mode a page fault, a
                        ///< follower of a store, an MSHR retry or a wait for a line place)
    bool store = false; ///< a store (else a load or atomic)
    /// It waits for an earlier access of its warp to one of its lines (a store among them):
    /// its requests go when that one went (an earlier store) or completed (an earlier load or
    /// atomic), outside sm.max_line_requests.
    bool behind = false;
    std::uint8_t reg = reg_zero;
    /// data, constant (a unit's load) or atomic (ATOM: one request per word, old values
    /// in data).
    tlm_bus::access_kind kind = tlm_bus::access_kind::data;
    std::uint32_t lane_mask = 0;
    std::uint32_t pc = 0;
    unsigned remaining = 0;       ///< lines not yet completed (LSU threads)
    std::uint64_t issue = 0;      ///< issue cycle
    std::uint64_t end = 0;        ///< cycle the last line completed
    std::uint64_t waits = 0;      ///< ops of the warp whose completion it waits for (bit = op)
    std::uint64_t waits_sent = 0; ///< earlier stores of the warp whose requests must go first
    /// Earlier stores it follows that were in flight at its issue (accurate mode: a page-fault
    /// replay waits for them); a bit clears when that store completes.
    std::uint64_t after = 0;
    unsigned unsent = 0;           ///< line requests not made yet (a store's followers wait for 0)
    std::uint64_t seq = 0;         ///< program order among the warp's memory instructions
    std::uint32_t fwd_mask = 0;    ///< a load's lanes that read a word an earlier store in flight
                                   ///< writes: they take that store's value (fwd)
    std::uint64_t lines_sig = 0;   ///< one bit per line address hash (overlap pre-check)
    std::uint32_t zero_lanes = 0;  ///< a unit's load: lanes that receive 0 (no request)
    std::uint64_t fault_cycle = 0; ///< cycle of its first page fault (0: none)
    coalescer::result lines;       ///< line requests
    lane_values addr{};            ///< per-lane virtual addresses
    lane_values data{};            ///< store data, or the loaded values
    lane_values fwd{};             ///< fwd_mask lanes: the newest earlier store's value
    mem_width width = mem_width::b32;  ///< bytes per lane and a load's extension
    atom_op aop = atom_op::ADD;        ///< kind atomic: the operation (cas: CAS)
    bool cas = false;                  ///< kind atomic: CAS (compare data, new value data2)
    lane_values data2{};               ///< CAS: per-lane new value
    lane_values data_hi{}, data2_hi{}; ///< ATOM/CAS.B64: high words of data, data2 (old values)
    bool failed = false;               ///< a line got an error response
    std::uint64_t fail_vaddr = 0;
    tlm::tlm_response_status fail_status = tlm::TLM_OK_RESPONSE;
    const char* fail_reason = nullptr; ///< the host's reason for a refused page fault
};

/// One warp slot.
struct warp_slot {
    explicit warp_slot(const sm_config& cfg);
    std::optional<warp> w;                 ///< the warp, while resident
    std::vector<std::uint32_t> spare_regs; ///< the last warp's register storage, reused
    int cta = -1;                          ///< CTA slot
    unsigned core = 0;                     ///< sub-core (slot mod sm.schedulers)
    scoreboard board;                      ///< register, predicate and memory-order readiness
    std::uint64_t start = 0;               ///< launch cycle
    std::uint64_t issued = 0;              ///< instructions issued by this warp
    std::uint64_t prog_va = 0;             ///< VA of its program's first instruction
    std::uint64_t prog_end = 0;            ///< VA just past its program
    std::uint64_t fetch_line = scoreboard::never; ///< line of its next instruction, looked up
    std::uint64_t fetch_ready = 0;     ///< cycle fetch_line arrives (never: not known yet)
    std::uint64_t mem_seq = 0;         ///< memory instructions issued (mem_op::seq)
    pc_counters* prof = nullptr;       ///< its program's per-PC counters, when profiled
    const issue_plan* plans = nullptr; ///< its program's issue plans (prog_entry::plans)
    /// Its memory instructions (in flight or done); grows up to sm.max_loads_per_warp +
    /// sm.max_stores_per_warp entries, each allocated alone (never moved).
    std::vector<std::unique_ptr<mem_op>> ops;
};

/// What the shell keeps of one CTA slot (state and warp slots: m_slots).
struct cta_slot {
    cp::cta_launch launch{};
    launch_context ctx;
    std::uint64_t arrival_ps = 0; ///< when the launch was accepted (with its delay)
    unsigned outstanding = 0;     ///< memory instructions in flight
    int prog = -1;                ///< program cache entry
    std::uint64_t start = 0;      ///< cycle the warps were launched
    std::uint64_t end = 0;        ///< latest completion cycle of its memory requests
    bool faulted = false;
    cp::cta_done fault{};
    std::vector<std::uint8_t> shared; ///< its shared-memory window (launch.shared_bytes)
};

/// The SM's shared-memory pipeline (sm_lsu.cpp; models/sm/README.md, "Shared memory").
struct shared_pipe {
    shared_pipe(stats::group& g, const sm_config& cfg);
    shared_banks banks;             ///< the bank-conflict rule
    std::uint64_t free = 0;         ///< first cycle the pipeline takes the next access
    lane_values values{};           ///< the values of the access being executed
    lane_values values_hi{};        ///< their high words (ATOM/CAS.B64)
    stats::counter accesses;        ///< warp LD/ST/ATOM/CAS.SHARED instructions
    stats::counter atomics;         ///< of which ATOM/CAS
    stats::counter passes;          ///< pipeline cycles they occupied
    stats::counter conflict_cycles; ///< passes beyond one per access (bank conflicts)
};

/// A decoded program shared by the CTAs of one launch.
struct prog_entry {
    bool valid = false;
    std::uint32_t kernel_seq = 0, addr = 0, bytes = 0;
    unsigned users = 0;
    std::uint64_t ready = 0; ///< cycle the last line of the fetch arrived
    program code;
    /// Per instruction, what the scoreboard and the issue loop read of it (its unit class,
    /// registers read and written): worked out once per program, not at every issue.
    std::vector<issue_plan> plans;
    bool checked = false; ///< every instruction passes check() with sm.regs_per_thread
};

/// A line request handed to an LSU thread (accurate mode).
struct lsu_job {
    lsu_job() = default;
    lsu_job(std::uint16_t s, std::uint16_t l, std::uint8_t o = 0, bool fe = false, bool fi = false)
        : slot(s), line(l), op(o), fetch(fe), fill(fi)
    {
    }
    std::uint16_t slot = 0;
    std::uint16_t line = 0;
    std::uint8_t op = 0; ///< index into the warp's ops
    bool fetch = false;  ///< program fetch: lines line, line + fetch_threads, ...
    bool fill = false;   ///< instruction-cache fill m_fills[line]
    /// Fast mode: the line page-faulted; wait for the host's answer, then replay it.
    std::shared_ptr<tlm_bus::fault_wait> fault;
    bool unit = false; ///< a unit's line read m_unit_reads[slot] (fast mode: it faulted)
    /// It holds one of the sm.max_line_requests places until it is answered.
    bool counted = false;
    std::uint64_t not_before = 0; ///< with a place: the cycle it may go (the place is free)
};

/// An instruction-cache fill handed to an LSU thread (accurate mode).
struct fill_request {
    bool busy = false;
    std::uint64_t va = 0;    ///< the line
    std::uint64_t cycle = 0; ///< cycle it is requested
    tlm_bus::gpu_extension ext{};
};

/// The program fetch in progress (its lines may be fetched by LSU threads).
struct fetch_state {
    const cp::cta_launch* launch = nullptr;
    std::uint64_t first = 0; ///< VA of the first line
    unsigned lines = 0;      ///< lines to fetch
    std::uint64_t ready = 0; ///< cycle the first line is requested (line i at ready + i)
    std::uint64_t end = 0;   ///< cycle the last line arrived
    unsigned left = 0;       ///< LSU threads still fetching (accurate mode)
    bool failed = false;
    std::uint64_t fail_va = 0; ///< lowest VA whose fetch failed
    tlm::tlm_response_status fail_status = tlm::TLM_OK_RESPONSE;
};
/// Accurate mode: LSU threads that fetch a program's lines in parallel (each fetches every
/// fetch_threads-th line).
inline constexpr unsigned fetch_threads = 64;

/// An LSU thread (accurate mode): performs one line request at a time with its own buffers.
struct lsu_worker {
    sc_core::sc_event go;          ///< a job was handed to it
    const void* process = nullptr; ///< its SystemC process object (host_resources::parked_source)
    lsu_job job{};                 ///< the job
    std::vector<std::uint8_t> buf; ///< line data
    std::vector<std::uint8_t> be;  ///< byte enables
};

/// A unit's line read handed to an LSU thread (accurate mode).
struct pending_read {
    sm_unit* unit = nullptr;
    line_read rd;
};

} // namespace vgpu::sm
