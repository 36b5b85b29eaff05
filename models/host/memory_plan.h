// The driver's memory planning (no SystemC): the virtual layout of a workload, page placement and
// frames per module, the page table's place. See models/host/README.md ("Driver", step 1).
#pragma once

#include "models/common/page_table.h"
#include "models/host/host_config.h"
#include "models/host/workload.h"
#include "models/page_alloc/core/page_placer.h"

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
    /// No frames until an access faults: buffer `alloc: on_demand`, or any buffer when
    /// placed_at_first_touch() (its initial data staged on the host until then).
    bool on_demand = false;
    /// Placed at its first touch (placed_at_first_touch()): the TLB asks the driver to place
    /// the page when a walk finds it not present (driver::place_at_touch); on_demand too, so
    /// that without that hook (the firmware host) the fault handler places it.
    bool at_touch = false;
    /// True if va lies in [this->va, this->va + bytes).
    bool contains(std::uint64_t a) const { return a >= va && a - va < bytes; }
};

/// The driver's physical-memory manager (models/page_alloc/README.md): used at set-up and by
/// the page-fault handler.
using placement::page_placer;

/// The placer's view of the platform facts.
placement::placer_config placer_config_of(const platform_facts& f);

/// True if buffer pages are placed when a kernel first touches them (a page fault the host
/// serves) rather than at set-up: `memory.page_alloc` first_touch or adaptive, more than one
/// module, and a host that serves page faults (models/page_alloc/README.md).
bool placed_at_first_touch(const platform_facts& f);

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
/// on_demand buffers, nor for any buffer when placed_at_first_touch(facts)); the page table's nodes
/// after module 0's frames. `placer`, when given, receives the allocator's state, for the frames
/// the fault handler allocates later.
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
