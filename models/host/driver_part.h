// The driver's seam: a block's host-side work (set-up, around each launch and phase, output
// files) is a driver part in a file of its own. See models/host/README.md ("Driver parts").
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/host/host_config.h"
#include "models/host/launch_table.h"
#include "models/host/memory_plan.h"
#include "models/host/workload.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace vgpu::host {

/// A launch of another program of a kernel (seed 002's profiling and traced forms).
struct launch_variant {
    const region* prog = nullptr;     ///< the program to run instead of the kernel's
    std::vector<std::uint32_t> extra; ///< parameters appended after the kernel's
    std::string record;               ///< the kernel record's name
};

/// The host's copies of pages that are not resident on the GPU: the staged initial data of
/// on_demand buffers and the pages evicted last. Shared by the transfers (a read of such a page
/// reads the copy) and the fault part (which fills a new frame from it).
struct host_pages {
    std::vector<std::vector<std::uint32_t>> staged;             ///< per buffer, or empty
    std::map<std::uint64_t, std::vector<std::uint8_t>> evicted; ///< VPN -> page contents
    std::set<std::uint64_t> read_only;                          ///< read_only VPNs
};

/// What part_host::place_page did with a page.
struct placed_page {
    enum class outcome {
        placed,   ///< on its frame, filled, its leaf PTE written
        no_frame, ///< its home module's memory is full (nothing written)
        /// The fill or the PTE write failed (the frame is free again), or the TLB shootdown
        /// after the PTE write failed (`mapped`: the page keeps its frame, in the plan)
        write_failed
    };
    outcome result = outcome::no_frame;
    bool mapped = false;   ///< its leaf PTE points to its frame (placed, or the shootdown failed)
    std::uint64_t pa = 0;  ///< its frame (mapped)
    std::uint64_t pte = 0; ///< the leaf PTE written (mapped)
    bool filled = false; ///< contents written to the frame (a host copy, or a reused frame's zeros)
};

/// Output files of a run, by name in OUTDIR.
using output_files = std::map<std::string, std::vector<std::uint8_t>>;

/// What the driver offers its parts: the workload and its memory, timed register and memory
/// access, launches. Implemented by vgpu::host::driver; a part keeps a reference.
class part_host {
public:
    virtual ~part_host() = default;
    virtual const workload& work() const = 0;        ///< the workload being run
    virtual const host_config& config() const = 0;   ///< section `host`
    virtual const platform_facts& facts() const = 0; ///< the platform's facts
    virtual memory_plan& memory() = 0;               ///< the memory plan (pages: resident now)
    virtual page_placer& placer() = 0;               ///< frames and home modules
    virtual host_pages& pages() = 0;                 ///< the host's copies, read-only pages
    virtual logger& log() = 0;                       ///< the driver's logger (gpu.host)
    virtual stats::group& stats() = 0;               ///< the driver's statistics (gpu.host.*)
    virtual tlm_utils::tlm_quantumkeeper& qk() = 0;  ///< the driver thread's quantum keeper
    virtual sc_core::sc_time now() const = 0;        ///< simulated time with qk()'s offset
    virtual void fail(const std::string& msg) = 0;   ///< reports a failure of the run
    /// One 32-bit register write on the MMIO bus at addr, timed by qk; a failure is reported
    /// naming the register window.
    virtual bool mmio_write(std::uint64_t addr, std::uint32_t value,
                            tlm_utils::tlm_quantumkeeper& qk, const char* window) = 0;
    /// One 32-bit register read, as mmio_write; `ok` (if given) says whether it succeeded.
    virtual std::uint32_t mmio_read(std::uint64_t addr, tlm_utils::tlm_quantumkeeper& qk,
                                    const char* window, bool* ok = nullptr) = 0;
    /// Reads or writes [va, va + bytes) of GPU virtual memory by host.load (driver thread).
    virtual bool move_virtual(tlm::tlm_command cmd, std::uint64_t va, std::uint8_t* data,
                              std::uint64_t bytes) = 0;
    /// Appends the pieces of physical [pa, pa + bytes) to `out`.
    virtual void pieces_physical(std::uint64_t pa, std::uint8_t* data, std::uint64_t bytes,
                                 std::vector<transfer_piece>& out) const = 0;
    /// Moves every piece by host.load: debug transport (zero time) or the DMA copy engine.
    virtual bool transfer(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces) = 0;
    /// Moves the pieces with the DMA copy engine, timed from qk's local time (advanced); counts
    /// no bytes (the caller does, with count_bytes).
    virtual bool transfer_dma(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces,
                              tlm_utils::tlm_quantumkeeper& qk) = 0;
    /// Adds to gpu.host.bytes_read (read) or bytes_written.
    virtual void count_bytes(bool read, std::uint64_t bytes) = 0;
    /// Writes PTE raw at the leaf of va (timed by qk) and shoots down the TLBs for the page.
    /// `written` (if given): whether the PTE write itself succeeded (false returned with it
    /// true: the shootdown failed).
    virtual bool set_pte(std::uint64_t va, std::uint64_t raw, tlm_utils::tlm_quantumkeeper& qk,
                         bool* written = nullptr) = 0;
    /// The region (buffer or program) holding va, or nullptr; `buffer` receives its index.
    virtual const region* region_of(std::uint64_t va, std::size_t* buffer = nullptr) const = 0;
    /// The host's copy of page vpn of buffer b (initial data, or the page evicted last), into
    /// `out` (page_bytes); false if it is all zero.
    virtual bool host_copy(std::size_t b, std::uint64_t vpn,
                           std::vector<std::uint8_t>& out) const = 0;
    /// Places page vpn of buffer b, the one rule of both placement paths (first touch and the
    /// fault service): its home module by memory.page_alloc (`touch`: the module of the SM
    /// that touched it), a frame there, the host's copy written to it (staged data or the
    /// evicted copy; a reused frame with nothing staged is zeroed, a new one reads as zero),
    /// its leaf PTE (writable unless read-only, the home module in it), and the memory plan.
    /// `qk` null: zero time, by the backdoor (debug transport); else timed from qk (the copy
    /// engine's DMA, set_pte() with its TLB shootdown). Counts no bytes and no statistic.
    virtual placed_page place_page(std::size_t b, std::uint64_t vpn, unsigned touch,
                                   tlm_utils::tlm_quantumkeeper* qk) = 0;
    /// Launches v of kernel k alone on queue 0 within phase p and waits for it (driver thread).
    virtual bool launch_and_wait(unsigned p, const kernel_decl& k, const launch_variant& v) = 0;
};

/// A block's host-side work. The driver calls each part's hooks in the order the parts were
/// added; a hook that returns false stops the run (it has reported why with fail()). Every
/// hook runs in the driver thread except where noted; a part owns its facts, state and stats.
class driver_part {
public:
    virtual ~driver_part() = default;
    /// Before the first launch, after memory is loaded and the CP is set up (native and
    /// firmware hosts).
    virtual bool set_up() { return true; }
    /// Before the launches of phase p (native host): may launch kernels itself
    /// (part_host::launch_and_wait) and set variants[q], the launch of the phase's kernel q.
    virtual bool before_phase(unsigned p, std::vector<launch_variant>& variants)
    {
        (void)p;
        (void)variants;
        return true;
    }
    /// Before the LAUNCH write of kernel k (every launch, native host): its per-kernel registers.
    virtual bool before_launch(const kernel_decl& k)
    {
        (void)k;
        return true;
    }
    /// After the LAUNCH writes of phase p, which started at `start`, while its kernels run.
    virtual void phase_launched(unsigned p, sc_core::sc_time start)
    {
        (void)p;
        (void)start;
    }
    /// The driver placed page vpn at its first touch (models/page_alloc/README.md), outside
    /// the fault service: it is resident now.
    virtual void page_placed(std::uint64_t vpn) { (void)vpn; }
    /// After every kernel of phase p finished well (native host).
    virtual bool after_phase(unsigned p)
    {
        (void)p;
        return true;
    }
    /// After the last phase, before the checks (native and firmware hosts).
    virtual bool after_run() { return true; }
    /// Adds the part's files to `out` (called after the run).
    virtual void files(output_files& out) const { (void)out; }
    /// host.kind riscv: the part's fields of the firmware's launch table header (its register
    /// window).
    virtual void launch_table(vgpu_lt_header& h) const { (void)h; }
    /// host.kind riscv: the part's fields of launch `l` of kernel k in the launch table (its
    /// per-kernel registers); false stops the run (the part has reported why with fail()).
    virtual bool launch_entry(const kernel_decl& k, vgpu_lt_launch& l)
    {
        (void)k;
        (void)l;
        return true;
    }
};

} // namespace vgpu::host
