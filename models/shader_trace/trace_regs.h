// generated from models/shader_trace/trace_regs.yaml by scripts/gen-regs; do not edit
// Register map of the shader-trace unit (the driver's and firmware's view). See docs/registers.md
// ("Shader-trace unit") and models/shader_trace/shader_trace.h.
#pragma once

#include <cstdint>

namespace vgpu::shader_trace {

/// Register offsets in the window (docs/registers.md, "Shader-trace unit").
namespace trace_reg {
/// RW region start (physical), bits 0..31
inline constexpr std::uint64_t BASE_LO = 0x00;
/// RW bits 32..63
inline constexpr std::uint64_t BASE_HI = 0x04;
/// RW region bytes (a multiple of a group)
inline constexpr std::uint64_t SIZE = 0x08;
/// RW bit 0: 0 stop, 1 wrap
inline constexpr std::uint64_t MODE = 0x0c;
/// RW bit 0: record events
inline constexpr std::uint64_t ENABLE = 0x10;
/// RO next write's offset from BASE
inline constexpr std::uint64_t WPTR = 0x14;
/// W1C bit 0 WMARK (W1C), 1 FULL, 2 WRAPPED, 3 IDLE
inline constexpr std::uint64_t STATUS = 0x18;
/// RW WPTR at or past this sets WMARK (0: off)
inline constexpr std::uint64_t WATERMARK = 0x1c;
/// RW bit 0: WMARK drives trace_irq
inline constexpr std::uint64_t IRQ_ENABLE = 0x20;
/// WO 1: pad and store every partial group
inline constexpr std::uint64_t FLUSH = 0x24;
/// RW source id for SRC_INFO and DROPPED
inline constexpr std::uint64_t SRC_SEL = 0x28;
/// RO selected source: kind | SM << 8
inline constexpr std::uint64_t SRC_INFO = 0x2c;
/// RO selected source's tokens lost, 0..31
inline constexpr std::uint64_t DROPPED_LO = 0x30;
/// RO bits 32..63
inline constexpr std::uint64_t DROPPED_HI = 0x34;
/// RO number of source ids
inline constexpr std::uint64_t SOURCES = 0x38;
/// RO G
inline constexpr std::uint64_t GROUP_TOKENS = 0x3c;
/// RO core clock period (token time unit)
inline constexpr std::uint64_t CLOCK_PS = 0x40;
/// RO groups written since ENABLE, 0..31
inline constexpr std::uint64_t WRITTEN_LO = 0x44;
/// RO bits 32..63
inline constexpr std::uint64_t WRITTEN_HI = 0x48;

/// Size to map.
inline constexpr std::uint64_t WINDOW_BYTES = 0x100;
} // namespace trace_reg

/// Fields of TRACE_STATUS (masks and shifts).
namespace trace_status {
/// W1C WPTR reached WATERMARK (write 1 to clear)
inline constexpr std::uint32_t WMARK = 0x01;
inline constexpr unsigned WMARK_SHIFT = 0;
/// RO stop mode: the region is full
inline constexpr std::uint32_t FULL = 0x02;
inline constexpr unsigned FULL_SHIFT = 1;
/// RO wrap mode: the write pointer wrapped
inline constexpr std::uint32_t WRAPPED = 0x04;
inline constexpr unsigned WRAPPED_SHIFT = 2;
/// RO nothing packed, buffered, waiting or in flight
inline constexpr std::uint32_t IDLE = 0x08;
inline constexpr unsigned IDLE_SHIFT = 3;
} // namespace trace_status

/// Fields of TRACE_SRC_INFO (masks and shifts).
namespace trace_src_info {
/// RO 0 CE, 1 RM, 2 ISU
inline constexpr std::uint32_t KIND = 0xff;
inline constexpr unsigned KIND_SHIFT = 0;
/// RO the ISU's SM
inline constexpr std::uint32_t SM = 0xffffff00;
inline constexpr unsigned SM_SHIFT = 8;
} // namespace trace_src_info

} // namespace vgpu::shader_trace
