// Native host driver: allocates GPU virtual memory for a workload, writes the page table,
// buffers and programs by DMA, launches the schedule through the CP registers, waits for the
// interrupts and checks the results. See models/host/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/page_table.h"
#include "models/common/stats.h"
#include "models/host/host_config.h"
#include "models/host/workload.h"
#include "models/host_cpu/cpu.h"
#include "tlm_bus/initiator_port.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace vgpu::host {

constexpr std::uint64_t program_va_base = 0x01000000; ///< first virtual address of programs
constexpr std::uint64_t buffer_va_base = 0x10000000;  ///< first virtual address of buffers
/// Time an eviction waits after its TLB shootdown before it copies the pages out, for accesses
/// translated before the shootdown to land (models/host/README.md, "Page faults").
constexpr double evict_drain_ns = 2000;
using page_table::va_limit; ///< virtual addresses are 32 bits (models/common/page_table.h)

/// A buffer or program placed in virtual memory.
struct region {
    std::uint64_t va = 0;    ///< first virtual address (page-aligned)
    std::uint64_t bytes = 0; ///< size in bytes
    unsigned module = 0;     ///< first-touch module (the page's module under first_touch)
    bool on_demand = false;  ///< no frames until an access faults (buffer alloc: on_demand)
    /// True if va lies in [this->va, this->va + bytes).
    bool contains(std::uint64_t a) const { return a >= va && a - va < bytes; }
};

/// The driver's physical-memory manager: picks each new page's home module
/// (`memory.page_alloc`) and hands out frames from one bump allocator per module (frames are
/// never reused, so a new frame reads as zero). Used at set-up and by the page-fault handler.
class page_placer {
public:
    explicit page_placer(const platform_facts& f);
    /// The home of page vpn first touched from touch_module. Adaptive (seed 004): first touch
    /// while, with the page, that module holds at most balance_ratio x the mean pages per
    /// module; otherwise the module of a round-robin pointer that advances only on such
    /// placements.
    unsigned home(std::uint64_t vpn, unsigned touch_module);
    /// A free frame on module m, or nullopt when its DRAM is full.
    std::optional<std::uint64_t> frame(unsigned m);
    /// Reserves `bytes` (page-aligned) on module m after its frames so far; returns the start.
    std::uint64_t reserve(unsigned m, std::uint64_t bytes);
    std::uint64_t next(unsigned m) const { return m_next[m]; } ///< next free byte of module m
    unsigned modules() const { return static_cast<unsigned>(m_next.size()); }
    /// Bytes handed out per module (frames and reservations).
    const std::vector<std::uint64_t>& bytes_per_module() const { return m_bytes; }
    /// Pages placed per module so far (adaptive placement).
    const std::vector<std::uint64_t>& pages_per_module() const { return m_pages; }
    std::uint64_t placed() const { return m_placed; } ///< pages placed so far
    unsigned round_robin() const { return m_rr; }     ///< the adaptive policy's pointer

private:
    platform_facts m_f;
    std::vector<std::uint64_t> m_next, m_bytes, m_pages;
    std::uint64_t m_placed = 0;
    unsigned m_rr = 0;
};

/// Seed 002: what an instrumented kernel needs in memory (models/shader_trace/README.md).
struct instrument_plan {
    bool active = false;                        ///< the kernel is instrumented
    instrumented profile, traced; ///< the two programs and their records
    region profile_prog, traced_prog;           ///< where the programs live
    region control; ///< block counters (4 B each), then a next-free pointer (4 B) per type
    std::array<region, shader_trace::record_types> window; ///< per type: reserved, unmapped
};

/// Where everything of a workload lives: computed before the simulation starts (no SystemC).
struct memory_plan {
    std::uint64_t ptbr = 0;        ///< physical address of the page table's root (module 0)
    std::uint64_t table_bytes = 0; ///< bytes of the page table's nodes, after module 0's frames
    std::vector<region> buffers;   ///< one per workload buffer, in declaration order
    std::vector<region> programs;  ///< one per kernel, in declaration order
    std::vector<instrument_plan> instrumented;        ///< one per kernel (active: instrumented)
    std::map<std::uint64_t, std::uint64_t> pages;     ///< virtual page number -> physical address
    std::map<std::uint64_t, std::uint64_t> on_demand; ///< VPNs of on_demand buffers -> 0
    std::vector<std::uint64_t> bytes_per_module;      ///< physical bytes allocated per module
    std::string error;                                ///< non-empty when the workload does not fit
    int error_kernel = -1; ///< with error: the kernel whose program could not be placed, or -1
    int error_buffer = -1; ///< with error: the buffer that could not be placed, or -1
    /// Physical address of va, or nullopt when its page is not mapped.
    std::optional<std::uint64_t> translate(std::uint64_t va, std::uint64_t page_bytes) const;
};

/// Lays out wl: programs from program_va_base, buffers from buffer_va_base, each page-aligned
/// and followed by one unmapped guard page; frames per module from a bump allocator (none for
/// on_demand buffers); the page table's nodes after module 0's frames. `placer`, when given,
/// receives the allocator's state, for the frames the fault handler allocates later.
memory_plan plan_memory(const workload& wl, const platform_facts& facts,
                        page_placer* placer = nullptr);

/// Located errors ("file:line:col: error: buffers[i]: ...") for what plan_memory(wl, facts)
/// cannot place: the load-time form of the driver's allocation failure.
std::vector<std::string> check_memory_fit(const workload& wl, const platform_facts& facts);

/// The firmware image host.kind riscv runs: host.firmware, else the generic driver built with
/// vgpu; empty with `why` set when there is none (the cross compiler was missing at build time).
std::string firmware_image(const host_config& cfg, std::string& why);

/// One kernel launch of the schedule.
struct kernel_run {
    std::string name;       ///< kernel name
    unsigned phase = 0;     ///< schedule phase
    unsigned queue = 0;     ///< CP queue it ran on
    unsigned sm_first = 0;  ///< first SM of its SM set
    unsigned sm_count = 0;  ///< SMs in its SM set
    sc_core::sc_time start; ///< LAUNCH write
    sc_core::sc_time end;   ///< interrupt seen for its queue
    bool ok = false;        ///< STATUS done (not error, not timed out)
    bool ended = false;     ///< the interrupt was seen (end is meaningful)
    int start_mark = -1;    ///< window mark taken at the LAUNCH write (see set_window_marker)
    int end_mark = -1;      ///< window mark taken at the interrupt
};

/// One phase of the schedule: its kernels run side by side.
struct phase_run {
    unsigned index = 0;               ///< schedule phase
    std::vector<std::size_t> kernels; ///< indices into driver::runs()
    sc_core::sc_time start;           ///< first LAUNCH write of the phase
    sc_core::sc_time end;             ///< last interrupt of the phase
    bool ended = false;               ///< every kernel's interrupt was seen
    int start_mark = -1;              ///< window mark at start
    int end_mark = -1;                ///< window mark at end
};

/// One contiguous piece of a host transfer: never crosses a line.
struct transfer_piece {
    std::uint64_t pa = 0;         ///< physical address
    std::uint8_t* data = nullptr; ///< host bytes
    unsigned len = 0;             ///< bytes
};

/// The native driver: one SC_THREAD that loads, runs and checks one workload.
class driver : public sc_core::sc_module {
public:
    tlm_bus::initiator_port mmio;   ///< CP registers (window at platform_facts::cp_base)
    tlm_bus::initiator_port dma;    ///< GPU physical memory, through the memory system
    sc_core::sc_in<bool> irq;       ///< CP interrupt (level)
    sc_core::sc_in<bool> fault_irq; ///< fault unit interrupt (level): records in the fault buffer
    sc_core::sc_event done;         ///< notified when the driver has finished

    driver(const sc_core::sc_module_name& name, const host_config& cfg, const workload& wl,
           const platform_facts& facts);

    bool finished() const { return m_finished; } ///< the thread ran to its end
    /// Every problem found (allocation, launch, kernel fault, timeout, failed check); empty
    /// after a successful run.
    std::vector<std::string> failures() const { return m_failures; }
    const std::vector<kernel_run>& runs() const { return m_runs; }    ///< launches in order
    const std::vector<phase_run>& phases() const { return m_phases; } ///< phases run so far
    const memory_plan& plan() const { return m_plan; } ///< the memory layout (pages: resident)
    /// Called at every kernel window boundary (LAUNCH write, interrupt seen), in the driver's
    /// process at that simulated time; returns an id stored in kernel_run's marks. The
    /// platform uses it to snapshot its statistics, so figures cover a kernel's own window.
    void set_window_marker(std::function<int()> marker) { m_marker = std::move(marker); }
    /// Simulated time spent loading memory before the first launch (0 with host.load backdoor).
    sc_core::sc_time load_time() const { return m_load_time; }
    std::uint64_t fault_services() const { return m_fault_services.value(); } ///< pages mapped
    std::uint64_t fault_batches() const { return m_fault_batches.value(); }   ///< service rounds
    /// The shader-trace region as OUTDIR/shader_trace.bin holds it (docs/trace-format.md);
    /// empty without a trace unit or before the run ended.
    const std::vector<std::uint8_t>& trace_image() const { return m_trace_image; }
    /// Seed 002: the merged trace of the instrumented kernel (OUTDIR/instrumented_trace.csv),
    /// empty without one.
    const std::string& instrumented_csv() const { return m_instrumented_csv; }
    /// host.kind riscv: the firmware CPU (bind its `mmio` to the MMIO bus); null otherwise.
    host_cpu::cpu* cpu() { return m_cpu.get(); }
    const host_cpu::cpu* cpu() const { return m_cpu.get(); }

private:
    void run();
    bool load_memory();
    /// Checks the schedule against the CP; `program`: writes PTBR and IRQ_ENABLE too (the
    /// firmware does that itself).
    bool set_up_cp(bool program = true);
    /// host.kind riscv: writes the launch table, runs the firmware until its verdict.
    bool run_firmware();
    /// The launch table (models/host/launch_table.h), or empty after a failure.
    std::vector<std::uint8_t> launch_table();
    /// The firmware's host-services registers (launch_table.h, VGPU_HS_*).
    bool host_service(bool write, std::uint32_t off, std::uint32_t& value);
    /// Allocates the shader-trace region after the workload's memory and programs the unit.
    bool set_up_trace();
    /// Flushes the unit, waits until it is idle and reads the region into m_trace_image.
    bool save_trace();
    bool run_phase(unsigned p);
    /// A launch of another program of a kernel (seed 002's profiling and traced forms).
    struct launch_variant {
        const region* prog = nullptr;     ///< the program to run instead of the kernel's
        std::vector<std::uint32_t> extra; ///< parameters appended after the kernel's
        std::string record;               ///< the kernel record's name
    };
    bool launch(unsigned phase, unsigned queue, const kernel_decl& k,
                const launch_variant* v = nullptr);
    /// Waits for the launches m_runs[first_run + q] (bit q of pending) of `kernels` and
    /// records their ends in the current phase.
    bool wait_launches(unsigned p, std::size_t first_run, std::uint32_t pending,
                       const std::vector<const kernel_decl*>& kernels);
    /// Seed 002, before the traced launch of kernel ki: saves its buffers, runs the profiling
    /// program, sizes and maps the trace buffers, restores the buffers; fills `v` with the
    /// traced launch.
    bool profile_kernel(unsigned p, std::size_t ki, launch_variant& v);
    /// Seed 002, before the profiling launch of kernel ki: saves the buffers it uses
    /// (parameters and CBVs) and zeroes its block counters.
    bool trace_save(std::size_t ki);
    /// Seed 002, after the profiling launch: reads the counters and sizes each traced type's
    /// buffer (m_trace_bytes); false, reported, when one needs more than its window.
    bool trace_size(std::size_t ki);
    /// Seed 002, before the traced launch: writes back what trace_save() saved.
    bool trace_restore();
    /// Seed 002, after the traced launch: reads the buffers back, reports refused records,
    /// merges them into m_instrumented_csv.
    bool collect_trace(std::size_t ki);
    /// Reads or writes [va, va + bytes) of GPU virtual memory by host.load.
    bool move_virtual(tlm::tlm_command cmd, std::uint64_t va, std::uint8_t* data,
                      std::uint64_t bytes);
    /// Writes the kernel's CBV bindings into the CBV table (docs/registers.md).
    bool program_cbvs(const kernel_decl& k);
    /// False (the run failed, with the reason) when the platform has no CBV slot c.slot.
    bool cbv_slot_exists(const kernel_decl& k, const cbv_binding& c);
    void report_kernel_error(kernel_run& r, const kernel_decl& k);
    void run_checks();
    /// Appends the pieces of [va, va + bytes) (translated, split at lines) to `out`.
    bool pieces_virtual(std::uint64_t va, std::uint8_t* data, std::uint64_t bytes,
                        std::vector<transfer_piece>& out);
    /// Appends the pieces of physical [pa, pa + bytes) to `out`.
    void pieces_physical(std::uint64_t pa, std::uint8_t* data, std::uint64_t bytes,
                         std::vector<transfer_piece>& out) const;
    /// Moves every piece by host.load: debug transport (zero time) or the DMA copy engine.
    bool transfer(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces);
    /// Moves the pieces with the DMA copy engine, timed from qk's local time (advanced).
    bool transfer_dma(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces,
                      tlm_utils::tlm_quantumkeeper& qk);

    // ---- page faults (seed 003) ----
    /// A record of the fault buffer as the shadow thread read it.
    struct fault_entry {
        std::uint64_t va = 0;
        std::uint32_t sm = 0, warp = 0, pc = 0, info = 0;
    };
    /// The shadow thread: asleep in a blocking read of the fault buffer (fault_irq); takes up to
    /// host.fault_batch records per round and services them in the patent's order.
    void shadow_thread();
    /// Steps (2) to (6) for one record: returns the FAULT_ACK value (1 mapped, 2 refused) and
    /// sets reason for a refusal.
    std::uint32_t service(const fault_entry& f, std::uint32_t& reason);
    /// The host's page-fault handler (the memory manager): places, allocates, fills and maps
    /// the page of va; 0 or a fault_reason.
    std::uint32_t map_page(std::uint64_t va, bool write, unsigned sm);
    /// Evicts every resident page of buffer b (the unpinned memory of seed 003).
    void evict(std::size_t b);
    /// An eviction's copy-out of pages vpns of buffer b (unmapped, shot down, drained): one DMA
    /// batch from their frames to the host's copies; the pages are no longer resident. `by`
    /// ends the log line.
    void copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                  tlm_utils::tlm_quantumkeeper& qk, const char* by);
    /// The region (buffer or program) holding va, or nullptr.
    const region* region_of(std::uint64_t va, std::size_t* buffer = nullptr) const;
    /// The host's copy of page vpn of buffer b (initial data, or the page evicted last), into
    /// `out` (page_bytes); false if it is all zero.
    bool host_copy(std::size_t b, std::uint64_t vpn, std::vector<std::uint8_t>& out) const;
    bool fault_write(std::uint64_t off, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk);
    std::uint32_t fault_read(std::uint64_t off, tlm_utils::tlm_quantumkeeper& qk);
    /// Writes PTE raw at the leaf of va (timed) and shoots down the TLBs for the page.
    bool set_pte(std::uint64_t va, std::uint64_t raw, tlm_utils::tlm_quantumkeeper& qk);
    void dma_engine(); ///< one copy-engine slot (host.dma_outstanding of them, dma mode)
    int mark() { return m_marker ? m_marker() : -1; }
    /// One 32-bit register access on `mmio` at addr, timed by qk; a failure is reported
    /// naming the register window.
    bool mmio_write(std::uint64_t addr, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk,
                    const char* window);
    std::uint32_t mmio_read(std::uint64_t addr, tlm_utils::tlm_quantumkeeper& qk,
                            const char* window, bool* ok = nullptr);
    bool reg_write(std::uint64_t off, std::uint32_t value);
    std::uint32_t reg_read(std::uint64_t off, bool* ok = nullptr);
    void fail(const std::string& msg);
    sc_core::sc_time now() const; ///< simulated time including the local offset

    const host_config m_cfg;
    const workload& m_wl;
    const platform_facts m_facts;
    page_placer m_placer;         ///< frames and home modules, at set-up and at fault time
    std::uint64_t m_trace_pa = 0; ///< physical start of the shader-trace region
    std::vector<std::uint8_t> m_trace_image; ///< see trace_image()
    std::string m_instrumented_csv;          ///< see instrumented_csv()
    /// Seed 002: the trace buffer bytes the profiling run computed, per type.
    std::array<std::uint64_t, shader_trace::record_types> m_trace_bytes{};
    /// Seed 002's statistics per type: records written, refused, buffer bytes.
    std::array<std::uint64_t, shader_trace::record_types> m_instrument_records{},
        m_instrument_refused{}, m_instrument_bytes{};
    std::vector<std::unique_ptr<stats::formula>> m_instrument_stats;
    /// Seed 002: the instrumented kernel's buffers, saved around its profiling launch.
    std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>> m_trace_saved;
    memory_plan m_plan;
    unsigned m_chunk; ///< largest piece: min(dma_bytes, line) (dma), line (backdoor)
    sc_core::sc_time m_piece_interval; ///< DMA: port time of one full piece (issue pacing)
    tlm_bus::gpu_extension m_ext;
    tlm_utils::tlm_quantumkeeper m_qk;  ///< the driver thread's
    tlm_utils::tlm_quantumkeeper m_sqk; ///< the shadow thread's
    bool m_finished = false;
    std::vector<std::string> m_failures;
    std::vector<kernel_run> m_runs;
    std::vector<phase_run> m_phases;
    std::function<int()> m_marker;
    sc_core::sc_time m_load_time;

    // The DMA copy engine: the driver posts one batch of pieces; engine slots take pieces in
    // order, piece i no earlier than batch start + i x m_piece_interval (the port's rate).
    const std::vector<transfer_piece>* m_batch = nullptr;
    tlm::tlm_command m_batch_cmd = tlm::TLM_IGNORE_COMMAND;
    std::size_t m_batch_next = 0, m_batch_done = 0;
    sc_core::sc_time m_batch_start, m_batch_end;
    std::string m_batch_error;
    sc_core::sc_event m_batch_posted, m_batch_finished;

    // Page faults: leaf-entry addresses of on_demand pages, the host's copies of evicted pages,
    // the staged initial data of on_demand buffers; one lock for the memory manager and one
    // for the copy engine (the shadow thread and eviction threads share both).
    std::map<std::uint64_t, std::uint64_t> m_leaf;                ///< VPN -> leaf PTE address
    std::map<std::uint64_t, std::vector<std::uint8_t>> m_evicted; ///< VPN -> page contents
    std::vector<reference_result> m_expected;         ///< per check, computed by load_memory
    std::vector<std::vector<std::uint32_t>> m_staged; ///< per buffer, or empty
    std::set<std::uint64_t> m_read_only;              ///< read_only VPNs
    std::vector<fault_entry> m_round; ///< the shadow thread's records of the current round
    sc_core::sc_mutex m_mm_lock, m_dma_lock;

    // host.kind riscv: the firmware CPU and the state of its host-services registers.
    std::unique_ptr<host_cpu::cpu> m_cpu;
    std::uint32_t m_table_addr = 0, m_image_end = 0, m_num_sms = 0;
    /// What the host keeps of a launch-table entry.
    struct table_launch {
        const kernel_decl* kernel = nullptr; ///< the kernel launched
        std::size_t index = 0;               ///< its index in the workload
        std::string name;                    ///< its kernel_run's name (`k.profile`: profiling)
        std::uint32_t kind = 0;              ///< VGPU_LT_KERNEL, _PROFILE or _TRACED
    };
    std::vector<table_launch> m_launches; ///< per launch-table entry
    std::vector<int> m_launch_run;        ///< per launch-table entry: its index in m_runs, or -1
    std::vector<std::uint64_t> m_evict_batch; ///< VPNs of an eviction's copy-out (COPY_GO 3)
    std::uint32_t m_hs_status = 0, m_hs_va = 0, m_hs_pa_lo = 0, m_hs_pa_hi = 0, m_hs_pte_lo = 0,
                  m_hs_pte_hi = 0;
    sc_core::sc_time m_round_start;

    logger m_log;
    stats::group m_stats;
    stats::counter m_bytes_written, m_bytes_read, m_transactions, m_kernels, m_checks_passed,
        m_checks_failed, m_fault_records, m_fault_services, m_fault_batches, m_fatal_faults,
        m_evictions;
    stats::average m_service_time;
    stats::formula m_load_ns;
    std::map<std::string, std::unique_ptr<stats::average>> m_kernel_time;
    std::vector<std::unique_ptr<stats::formula>> m_pages; ///< pages placed on each module
};

} // namespace vgpu::host
