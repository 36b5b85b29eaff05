// generated from models/tlb/fault_regs.yaml by scripts/gen-regs; do not edit
// Register map of the GPU's fault unit (the driver's and firmware's view). See docs/registers.md
// ("Fault unit") and models/tlb/fault_unit.h.
#pragma once

#include <cstdint>

namespace vgpu::tlb {

/// Register offsets in the window (docs/registers.md, "Fault unit").
namespace fault_reg {
/// RO records in the fault buffer
inline constexpr std::uint64_t COUNT = 0x00;
/// RO head record: faulting VA, bits 0..31
inline constexpr std::uint64_t VA_LO = 0x04;
/// RO bits 32..63
inline constexpr std::uint64_t VA_HI = 0x08;
/// RO head record: SM (global index)
inline constexpr std::uint64_t SM = 0x0c;
/// RO head record: warp slot
inline constexpr std::uint64_t WARP = 0x10;
/// RO head record: PC
inline constexpr std::uint64_t PC = 0x14;
/// RO head record: fault_access | type << 8
inline constexpr std::uint64_t INFO = 0x18;
/// WO bit 0 = 1: drop the head record
inline constexpr std::uint64_t POP = 0x1c;
/// RW page to answer, bits 0..31
inline constexpr std::uint64_t ACK_VA_LO = 0x20;
/// RW bits 32..63
inline constexpr std::uint64_t ACK_VA_HI = 0x24;
/// RW fault_reason of a fatal answer
inline constexpr std::uint64_t ACK_REASON = 0x28;
/// WO 1: page mapped, replay; 2: fatal
inline constexpr std::uint64_t ACK = 0x2c;
/// RW bit 0: records drive fault_irq
inline constexpr std::uint64_t IRQ_ENABLE = 0x30;
/// RO fault-buffer entries
inline constexpr std::uint64_t CAPACITY = 0x34;
/// RO records that waited for a free entry
inline constexpr std::uint64_t OVERFLOWS = 0x38;

/// Size to map.
inline constexpr std::uint64_t WINDOW_BYTES = 0x100;
} // namespace fault_reg

/// Fields of FAULT_INFO (masks and shifts).
namespace fault_info {
/// RO fault_access: 0 load, 1 store, 2 instruction fetch
inline constexpr std::uint32_t ACCESS = 0xff;
inline constexpr unsigned ACCESS_SHIFT = 0;
/// RO fault_type: 0 not present, 1 protection, 2 other exception
inline constexpr std::uint32_t TYPE = 0xff00;
inline constexpr unsigned TYPE_SHIFT = 8;
} // namespace fault_info

/// The access that faulted (FAULT_INFO bits 0..7)
enum class fault_access : std::uint32_t {
    /// a load
    load = 0,
    /// a store
    store = 1,
    /// an instruction fetch
    fetch = 2,
};

/// The fault's type (FAULT_INFO bits 8..15), the patent's step 52
enum class fault_type : std::uint32_t {
    /// the page is not present (a page fault)
    not_present = 0,
    /// a store to a present page that is not writable (copy-on-write or read-only)
    protection = 1,
    /// another exception of the access (a request across a page or outside the VA space): the
    /// host's other-exception branch
    other = 2,
};

/// Why the host refused a page (FAULT_ACK_REASON); reason_text() is what the access reports
enum class fault_reason : std::uint32_t {
    /// the address is outside every allocation
    not_mapped = 1,
    /// a store to a read-only allocation
    read_only = 2,
    /// no free frame on any module the policy allows
    memory_full = 3,
    /// the record was not a page fault (the other-exception branch)
    not_a_fault = 4,
};

} // namespace vgpu::tlb
