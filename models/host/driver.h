// Native host driver: loads a workload's memory, launches its schedule through the CP registers
// and checks the results; blocks join through driver parts (driver_part.h). See
// models/host/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/host/driver_part.h"
#include "models/host/host_config.h"
#include "models/host/memory_plan.h"
#include "models/host/workload.h"
#include "models/host_cpu/cpu.h"
#include "models/page_alloc/core/touch_claims.h"
#include "models/sm/core/source_profile.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace vgpu::host {

/// The firmware image host.kind riscv runs: host.firmware, else the generic driver built with
/// vgpu; empty with `why` set when there is none (the cross compiler was missing at build time).
std::string firmware_image(const host_config& cfg, std::string& why);

/// One kernel launch of the schedule.
struct kernel_run {
    std::string name;       ///< kernel name
    std::size_t kernel = 0; ///< index of its kernel_decl in the workload
    unsigned phase = 0;     ///< schedule phase
    std::uint64_t pass = 0; ///< pass of the phase's loop (0 outside loops)
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
    std::uint64_t pass = 0;           ///< pass of the phase's loop (0 outside loops)
    std::vector<std::size_t> kernels; ///< indices into driver::runs()
    sc_core::sc_time start;           ///< first LAUNCH write of the phase
    sc_core::sc_time end;             ///< last interrupt of the phase
    bool ended = false;               ///< every kernel's interrupt was seen
    int start_mark = -1;              ///< window mark at start
    int end_mark = -1;                ///< window mark at end
};

/// The source profile of wl's kernels translated with a CUDA line map, at their programs'
/// addresses in plan (driver_dump.cpp).
sm::source_profile profile_of(const workload& wl, const memory_plan& plan);

/// The native driver: one SC_THREAD that loads, runs and checks one workload. The work of the
/// blocks beyond the CP (trace unit, page faults, CBVs, LLC switcher, seed 002) is done by its
/// parts (driver_part.h), which it calls at set-up, around launches and phases, and for files.
class driver : public sc_core::sc_module, private part_host {
public:
    tlm_bus::initiator_port mmio;   ///< CP registers (window at platform_facts::cp_base)
    tlm_bus::initiator_port dma;    ///< GPU physical memory, through the memory system
    sc_core::sc_in<bool> irq;       ///< CP interrupt (level)
    sc_core::sc_in<bool> fault_irq; ///< fault unit interrupt (level): records in the fault buffer
    sc_core::sc_event done;         ///< notified when the driver has finished

    /// `add_parts` adds the blocks' parts (the platform's blocks: fault, CBV, LLC switch and
    /// shader-trace parts), in hook order, before the driver adds its own (instrumentation).
    driver(const sc_core::sc_module_name& name, const host_config& cfg, const workload& wl,
           const platform_facts& facts, const std::function<void(driver&)>& add_parts = {});
    ~driver() override;

    /// Constructs part P(host, args...) and adds it after the others (before the simulation
    /// starts): its hooks run in the order parts were added.
    template <class P, class... A> P& add_part(A&&... args)
    {
        auto p = std::make_unique<P>(static_cast<part_host&>(*this), std::forward<A>(args)...);
        P& ref = *p;
        m_parts.push_back(std::move(p));
        return ref;
    }
    /// The first part of type P, or nullptr.
    template <class P> P* part() const
    {
        for (const auto& p : m_parts)
            if (auto* q = dynamic_cast<P*>(p.get()))
                return q;
        return nullptr;
    }

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
    /// The answer to a touch of a page waiting for its first touch.
    struct touch_answer {
        std::uint64_t pte = 0; ///< the page's leaf PTE now (0 without `wait`: fault as usual)
        /// Not decided yet: the access waits for this (resolved, never fatal, once the page is
        /// decided) and replays.
        std::shared_ptr<tlm_bus::fault_wait> wait;
    };
    /// First-touch placement (models/page_alloc/README.md): SM `sm`'s access found va's page
    /// not present at simulated time at_ps (the call is made at or before it). The page goes
    /// to the module of the earliest touch, ties to the lowest SM (placement::touch_claims),
    /// placed in zero simulated time with its staged contents copied in; until simulated time
    /// has passed the earliest touch's time, the toucher is told to wait and replay, unless
    /// `can_wait` is false (then the page is decided among the touches seen so far). pte 0 and
    /// no wait if the page is not a buffer page waiting for its first touch (the access then
    /// faults as usual). Called by the TLBs when a walk finds a page not present.
    touch_answer place_at_touch(std::uint64_t va, int sm, std::uint64_t at_ps, bool can_wait);
    std::uint64_t fault_services() const; ///< pages the fault part mapped (0 without it)
    std::uint64_t fault_batches() const;  ///< the fault part's service rounds (0 without it)
    /// The parts' output files (OUTDIR/shader_trace.bin, instrumented_trace.csv, ...); complete
    /// once the run has ended.
    output_files files() const;
    /// The programs the SMs count per PC: those of kernels translated from CUDA with a PC ->
    /// CUDA line map (gpu platforms hand it to every SM before the run).
    sm::source_profile* source_profile() { return &m_profile; }
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
    bool run_phase(unsigned p);
    /// After phase p ran well: the phase to run next (schedule.size(): the end), following the
    /// schedule's loops (an `until` loop reads its element after each pass); nullopt after a
    /// failure (a loop that used its `max` passes) (driver_schedule.cpp).
    std::optional<std::size_t> next_phase(std::size_t p);
    bool launch(unsigned phase, unsigned queue, const kernel_decl& k,
                const launch_variant* v = nullptr);
    /// Waits for the launches m_runs[first_run + q] (bit q of pending) of `kernels` and
    /// records their ends in the current phase.
    bool wait_launches(unsigned p, std::size_t first_run, std::uint32_t pending,
                       const std::vector<const kernel_decl*>& kernels);
    void report_kernel_error(kernel_run& r, const kernel_decl& k);
    void run_checks();
    /// Reads the buffers host.dump_buffers names (debug transport: zero simulated time, no
    /// statistic) into m_dumps as buffers/<name>.bin (driver_dump.cpp).
    void dump_buffers();
    /// Adds source_profile.csv to out when a kernel is profiled (driver_dump.cpp).
    void add_source_profile(output_files& out) const;
    /// Appends the pieces of [va, va + bytes) (translated, split at lines) to `out`.
    bool pieces_virtual(std::uint64_t va, std::uint8_t* data, std::uint64_t bytes,
                        std::vector<transfer_piece>& out);
    void dma_engine(); ///< one copy-engine slot (host.dma_outstanding of them, dma mode)
    int mark() { return m_marker ? m_marker() : -1; }
    bool reg_write(std::uint64_t off, std::uint32_t value);
    std::uint32_t reg_read(std::uint64_t off, bool* ok = nullptr);

    // part_host: what the parts use (driver_part.h).
    const workload& work() const override { return m_wl; }
    const host_config& config() const override { return m_cfg; }
    const platform_facts& facts() const override { return m_facts; }
    memory_plan& memory() override { return m_plan; }
    page_placer& placer() override { return m_placer; }
    host_pages& pages() override { return m_pages; }
    logger& log() override { return m_log; }
    stats::group& stats() override { return m_stats; }
    tlm_utils::tlm_quantumkeeper& qk() override { return m_qk; }
    sc_core::sc_time now() const override;
    void fail(const std::string& msg) override;
    bool mmio_write(std::uint64_t addr, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk,
                    const char* window) override;
    std::uint32_t mmio_read(std::uint64_t addr, tlm_utils::tlm_quantumkeeper& qk,
                            const char* window, bool* ok = nullptr) override;
    bool move_virtual(tlm::tlm_command cmd, std::uint64_t va, std::uint8_t* data,
                      std::uint64_t bytes) override;
    void pieces_physical(std::uint64_t pa, std::uint8_t* data, std::uint64_t bytes,
                         std::vector<transfer_piece>& out) const override;
    bool transfer(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces) override;
    bool transfer_dma(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces,
                      tlm_utils::tlm_quantumkeeper& qk) override;
    void count_bytes(bool read, std::uint64_t bytes) override;
    bool set_pte(std::uint64_t va, std::uint64_t raw, tlm_utils::tlm_quantumkeeper& qk,
                 bool* written = nullptr) override;
    const region* region_of(std::uint64_t va, std::size_t* buffer = nullptr) const override;
    placed_page place_page(std::size_t b, std::uint64_t vpn, unsigned touch,
                           tlm_utils::tlm_quantumkeeper* qk) override;
    bool host_copy(std::size_t b, std::uint64_t vpn, std::vector<std::uint8_t>& out) const override;
    bool launch_and_wait(unsigned p, const kernel_decl& k, const launch_variant& v) override;

    const host_config m_cfg;
    const workload& m_wl;
    const platform_facts m_facts;
    page_placer m_placer; ///< frames and home modules, at set-up and at fault time
    memory_plan m_plan;
    /// The translated kernels' programs counted per PC by the SMs (OUTDIR/source_profile.csv;
    /// driver_dump.cpp).
    sm::source_profile m_profile;
    unsigned m_chunk; ///< largest piece: min(dma_bytes, line) (dma), line (backdoor)
    sc_core::sc_time m_piece_interval; ///< DMA: port time of one full piece (issue pacing)
    tlm_bus::gpu_extension m_ext;
    tlm_utils::tlm_quantumkeeper m_qk; ///< the driver thread's
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
    sc_core::sc_mutex m_dma_lock; ///< one batch at a time (driver, fault service, evictions)

    // Memory: leaf-entry addresses of on_demand pages (the fault handler writes the leaves),
    // the host's copies of pages not on the GPU, the checks' expected contents.
    std::map<std::uint64_t, std::uint64_t> m_leaf; ///< VPN -> leaf PTE address
    host_pages m_pages;
    std::vector<reference_result> m_expected; ///< per check, computed by load_memory
    output_files m_dumps;                     ///< buffers/<name>.bin of host.dump_buffers
    bool m_loaded = false;                    ///< load_memory wrote every buffer

    // host.kind riscv: the firmware CPU and the state of its host-services registers.
    std::unique_ptr<host_cpu::cpu> m_cpu;
    std::uint32_t m_table_addr = 0, m_image_end = 0, m_num_sms = 0;
    std::uint64_t m_pass = 0; ///< passes of the current loop done so far (native host)
    /// What the host keeps of a launch-table entry.
    struct table_launch {
        const kernel_decl* kernel = nullptr; ///< the kernel launched
        std::size_t index = 0;               ///< its index in the workload
        std::string name;                    ///< its kernel_run's name (`k.profile`: profiling)
        std::uint32_t kind = 0;              ///< VGPU_LT_KERNEL, _PROFILE or _TRACED
        bool opens_phase = false;            ///< the first launch of a launch-table phase
        std::uint64_t pass = 0;              ///< pass of its phase's loop (0 outside loops)
    };
    std::vector<table_launch> m_launches; ///< per launch-table entry
    std::vector<int> m_launch_run;        ///< per launch-table entry: its index in m_runs, or -1
    std::vector<std::uint64_t> m_evict_batch; ///< VPNs of an eviction's copy-out (COPY_GO 3)
    std::uint32_t m_hs_status = 0, m_hs_va = 0, m_hs_pa_lo = 0, m_hs_pa_hi = 0, m_hs_pte_lo = 0,
                  m_hs_pte_hi = 0;

    logger m_log;
    stats::group m_stats;
    /// A module's memory has filled: pages are placed by the fault service from now on (it
    /// evicts to make room), not at their first touch (pages with touches pending included).
    bool m_touch_full = false;
    void update_touch_full(); ///< sets m_touch_full once a module's memory is full
    /// Pages whose zero-time placement failed (the run has failed): they fault as usual.
    std::set<std::uint64_t> m_touch_failed;
    /// Pages a timed place_page (the fault service) is placing now: they fault as usual.
    std::set<std::uint64_t> m_touch_busy;
    placement::touch_claims m_claims; ///< touches of pages not placed yet (place_at_touch)
    /// Pages with touches not decided yet: what their touchers wait for.
    std::map<std::uint64_t, std::shared_ptr<tlm_bus::fault_wait>> m_touch_waits;
    sc_core::sc_event m_touch_due; ///< the earliest undecided page can be decided
    /// SC_METHOD: places every page whose earliest touch is past and wakes its touchers.
    void decide_touches();
    /// Places page vpn of buffer b for touch `first` (zero time); its leaf PTE, 0 if it failed.
    std::uint64_t place_touched(std::uint64_t vpn, std::size_t b,
                                const placement::touch_claim& first);
    stats::counter m_bytes_written, m_bytes_read, m_transactions, m_kernels, m_touch_placements,
        m_checks_passed, m_checks_failed;
    stats::formula m_load_ns;
    std::map<std::string, std::unique_ptr<stats::average>> m_kernel_time;
    std::vector<std::unique_ptr<stats::formula>> m_pages_placed; ///< pages placed on each module
    /// In hook order; last, so that they go before the statistics they registered.
    std::vector<std::unique_ptr<driver_part>> m_parts;
};

} // namespace vgpu::host
