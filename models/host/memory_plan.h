// The driver's memory planning (no SystemC): the virtual layout of a workload, page placement and
// frames per module, the page table's place. See models/host/README.md ("Driver", step 1).
#pragma once

#include "models/common/page_table.h"
#include "models/host/host_config.h"
#include "models/host/workload.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::host {

constexpr std::uint64_t program_va_base = 0x01000000; ///< first virtual address of programs
constexpr std::uint64_t buffer_va_base = 0x10000000;  ///< first virtual address of buffers
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
    /// Frame pa is free again (an evicted page's): frame() hands it out before new ones.
    void release(std::uint64_t pa) { m_free[module_of(pa)].push_back(pa); }
    /// True when module m has no free frame left.
    bool full(unsigned m) const
    {
        return m_free[m].empty() && m_next[m] + m_f.page_bytes > (m + 1ull) * m_f.dram_bytes;
    }
    /// The module whose DRAM holds physical address pa.
    unsigned module_of(std::uint64_t pa) const
    {
        return static_cast<unsigned>(std::min<std::uint64_t>(
            pa / std::max<std::uint64_t>(1, m_f.dram_bytes), modules() - 1));
    }
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
    std::vector<std::vector<std::uint64_t>> m_free; ///< per module: released frames
    std::uint64_t m_placed = 0;
    unsigned m_rr = 0;
};

/// Seed 002: what an instrumented kernel needs in memory (models/shader_trace/README.md).
struct instrument_plan {
    bool active = false;              ///< the kernel is instrumented
    instrumented profile, traced;     ///< the two programs and their records
    region profile_prog, traced_prog; ///< where the programs live
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

/// One contiguous piece of a host transfer: never crosses a line.
struct transfer_piece {
    std::uint64_t pa = 0;         ///< physical address
    std::uint8_t* data = nullptr; ///< host bytes
    unsigned len = 0;             ///< bytes
};

/// v as "0x..." (lower-case hex) for messages.
std::string hex(std::uint64_t v);

} // namespace vgpu::host
