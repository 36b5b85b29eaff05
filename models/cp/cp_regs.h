// generated from models/cp/cp_regs.yaml by scripts/gen-regs; do not edit
// Register map of the command processor (the driver's and firmware's view). See docs/registers.md
// ("Command processor") and models/cp/cp.h.
#pragma once

#include <cstdint>

namespace vgpu::cp {

/// Register offsets in the window (docs/registers.md, "Command processor").
namespace reg {
// Per-queue block (offset `q * 0x100 +`)
/// Bytes between the blocks of two queues.
inline constexpr std::uint64_t QUEUE_STRIDE = 0x100;
/// RW virtual address of the program
inline constexpr std::uint64_t PROG_ADDR = 0x00;
/// RW program size (multiple of 16)
inline constexpr std::uint64_t PROG_BYTES = 0x04;
/// RW CTAs in x
inline constexpr std::uint64_t GRID_X = 0x08;
/// RW CTAs in y
inline constexpr std::uint64_t GRID_Y = 0x0c;
/// RW threads per CTA in x
inline constexpr std::uint64_t BLOCK_X = 0x10;
/// RW threads per CTA in y
inline constexpr std::uint64_t BLOCK_Y = 0x14;
/// RW first SM of the queue's SM set
inline constexpr std::uint64_t SM_FIRST = 0x18;
/// RW SMs in the queue's SM set
inline constexpr std::uint64_t SM_COUNT = 0x1c;
/// RW valid PARAMn registers (<= 16)
inline constexpr std::uint64_t NPARAMS = 0x20;
/// WO bit 0 = 1 launches the kernel
inline constexpr std::uint64_t LAUNCH = 0x24;
/// RO queue_status
inline constexpr std::uint64_t STATUS = 0x28;
/// RO CTAs of the kernel finished ok
inline constexpr std::uint64_t CTAS_DONE = 0x2c;
/// RO faulting SM
inline constexpr std::uint64_t ERROR_SM = 0x30;
/// RO faulting warp slot
inline constexpr std::uint64_t ERROR_WARP = 0x34;
/// RO faulting PC
inline constexpr std::uint64_t ERROR_PC = 0x38;
/// RO faulting address, bits 0..31
inline constexpr std::uint64_t ERROR_VADDR_LO = 0x3c;
/// RO faulting address, bits 32..63
inline constexpr std::uint64_t ERROR_VADDR_HI = 0x40;
/// RO kernel_seq of the latest launch
inline constexpr std::uint64_t KERNEL_SEQ = 0x44;
/// RO error_cause of STATUS error
inline constexpr std::uint64_t ERROR_CAUSE = 0x48;
/// RO CTAs of the kernel dispatched
inline constexpr std::uint64_t CTAS_DISPATCHED = 0x4c;
/// RW shared memory per CTA in bytes
inline constexpr std::uint64_t SHARED_BYTES = 0x5c;
/// RW PARAM0..PARAM15 at PARAM0 + 4 * i: 32-bit kernel parameters
inline constexpr std::uint64_t PARAM0 = 0x60;
/// RO ERROR_MSG0..ERROR_MSG23 at ERROR_MSG + 4 * i: 96-byte NUL-terminated message, byte i at
/// ERROR_MSG + i
inline constexpr std::uint64_t ERROR_MSG = 0xa0;
/// Offset of register `off` of queue `q`.
constexpr std::uint64_t queue(unsigned q, std::uint64_t off)
{
    return q * QUEUE_STRIDE + off;
}

// Global block
/// Start of the block.
inline constexpr std::uint64_t GLOBAL = 0x1000;
/// W1C bit q: queue q finished or failed
inline constexpr std::uint64_t IRQ_STATUS = 0x1000;
/// RW bit q: queue q drives irq
inline constexpr std::uint64_t IRQ_ENABLE = 0x1004;
/// RW page-table base, bits 0..31
inline constexpr std::uint64_t PTBR_LO = 0x1008;
/// RW page-table base, bits 32..63
inline constexpr std::uint64_t PTBR_HI = 0x100c;
/// RO SMs the CP dispatches to
inline constexpr std::uint64_t NUM_SMS = 0x1010;
/// RO launches so far (latest kernel_seq)
inline constexpr std::uint64_t LAUNCH_SEQ = 0x1014;
/// RO register-map version
inline constexpr std::uint64_t VERSION = 0x1018;
/// RO queues (cp.queues)
inline constexpr std::uint64_t NUM_QUEUES = 0x101c;
/// RW first VA to invalidate, bits 0..31
inline constexpr std::uint64_t TLB_INV_VA_LO = 0x1020;
/// RW first VA, bits 32..63
inline constexpr std::uint64_t TLB_INV_VA_HI = 0x1024;
/// RW bytes from it (0: every page)
inline constexpr std::uint64_t TLB_INV_BYTES = 0x1028;
/// WO bit 0 = 1: invalidate the TLBs
inline constexpr std::uint64_t TLB_INVALIDATE = 0x102c;
/// RW first physical address to invalidate in the L1s, bits 0..31
inline constexpr std::uint64_t L1_INV_PA_LO = 0x1030;
/// RW first physical address, bits 32..63
inline constexpr std::uint64_t L1_INV_PA_HI = 0x1034;
/// RW bytes from it
inline constexpr std::uint64_t L1_INV_BYTES = 0x1038;
/// WO bit 0 = 1: invalidate that range in every L1
inline constexpr std::uint64_t L1_INVALIDATE = 0x103c;

/// Size to map.
inline constexpr std::uint64_t WINDOW_BYTES = 0x2000;
/// size of the ERROR_MSG window
inline constexpr unsigned ERROR_MSG_BYTES = 96;
/// VERSION reads 1.0
inline constexpr std::uint32_t VERSION_VALUE = 0x10000;
} // namespace reg

/// Value of a queue's STATUS register
enum class queue_status : std::uint32_t {
    /// never launched
    idle = 0,
    /// launched, CTAs dispatched or running
    running = 1,
    /// every CTA finished ok
    done = 2,
    /// bad launch or a CTA fault (ERROR_* registers)
    error = 3,
};

/// Value of a queue's ERROR_CAUSE register
enum class error_cause : std::uint32_t {
    /// no error
    none = 0,
    /// the launch registers were invalid (ERROR_MSG says which)
    bad_launch = 1,
    /// an SM reported a fault (ERROR_SM/WARP/PC/VADDR/MSG)
    cta_fault = 2,
    /// an SM answered a CTA launch with an error response
    dispatch = 3,
};

} // namespace vgpu::cp
