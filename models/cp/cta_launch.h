// Records exchanged between the command processor and the SMs over TLM (plain bytes):
// a CTA launch (CP -> SM `ctrl`) and a CTA completion or fault (SM `done` -> CP).
// See docs/architecture.md ("Control path") and models/cp/README.md.
#pragma once

#include <cstdint>
#include <type_traits>

namespace vgpu::cp {

constexpr unsigned max_params = 16; ///< 32-bit kernel parameters per launch

/// One CTA for one SM: written as data_length = sizeof(cta_launch) to address 0 of `ctrl`.
struct cta_launch {
    std::uint32_t queue;              ///< CP queue (kernel slot) the CTA belongs to
    std::uint32_t kernel_seq;         ///< launch sequence number (changes with every launch)
    std::uint32_t prog_addr;          ///< virtual address of the encoded program
    std::uint32_t prog_bytes;         ///< program size in bytes (16 per instruction)
    std::uint32_t grid_x, grid_y;     ///< CTAs in the grid
    std::uint32_t block_x, block_y;   ///< threads per CTA
    std::uint32_t cta_x, cta_y;       ///< this CTA's index
    std::uint32_t nparams;            ///< valid entries of params
    std::uint32_t params[max_params]; ///< kernel parameters
    std::uint64_t ptbr;               ///< physical address of the page table
    std::uint32_t shared_bytes;       ///< shared memory per CTA (its window on the SM)
};

/// Why a CTA ended.
enum class cta_status : std::uint32_t {
    ok = 0,    ///< all warps executed EXIT
    fault = 1, ///< a warp hit a fatal error (bad address, illegal instruction, ...)
};

/// Written by an SM to the CP's `cta_done` socket when a CTA ends.
struct cta_done {
    std::uint32_t queue;      ///< from the launch
    std::uint32_t kernel_seq; ///< from the launch
    std::uint32_t sm;         ///< global SM index
    std::uint32_t cta_x, cta_y;
    cta_status status;
    std::uint32_t warp;  ///< faulting warp slot (status fault)
    std::uint32_t pc;    ///< faulting PC (status fault)
    std::uint64_t vaddr; ///< faulting address, if any
    char message[96];    ///< NUL-terminated description of the fault
};

static_assert(std::is_trivially_copyable_v<cta_launch> && std::is_trivially_copyable_v<cta_done>);

} // namespace vgpu::cp
