// Register map of the shader-trace unit (the driver's and firmware's view). See
// docs/registers.md ("Shader-trace unit").
#pragma once

#include <cstdint>

namespace vgpu::shader_trace {

/// Register offsets of the unit's window (docs/registers.md, "Shader-trace unit").
namespace trace_reg {
inline constexpr std::uint64_t BASE_LO = 0x00;    ///< RW region start (physical), bits 0..31
inline constexpr std::uint64_t BASE_HI = 0x04;    ///< RW bits 32..63
inline constexpr std::uint64_t SIZE = 0x08;       ///< RW region bytes (a multiple of a group)
inline constexpr std::uint64_t MODE = 0x0c;       ///< RW bit 0: 0 stop, 1 wrap
inline constexpr std::uint64_t ENABLE = 0x10;     ///< RW bit 0: record events
inline constexpr std::uint64_t WPTR = 0x14;       ///< RO next write's offset from BASE
inline constexpr std::uint64_t STATUS = 0x18;     ///< bit 0 WMARK (W1C), 1 FULL, 2 WRAPPED, 3 IDLE
inline constexpr std::uint64_t WATERMARK = 0x1c;  ///< RW WPTR at or past this sets WMARK (0: off)
inline constexpr std::uint64_t IRQ_ENABLE = 0x20; ///< RW bit 0: WMARK drives trace_irq
inline constexpr std::uint64_t FLUSH = 0x24;      ///< WO 1: pad and store every partial group
inline constexpr std::uint64_t SRC_SEL = 0x28;    ///< RW source id for SRC_INFO and DROPPED
inline constexpr std::uint64_t SRC_INFO = 0x2c;   ///< RO selected source: kind | SM << 8
inline constexpr std::uint64_t DROPPED_LO = 0x30; ///< RO selected source's tokens lost, 0..31
inline constexpr std::uint64_t DROPPED_HI = 0x34; ///< RO bits 32..63
inline constexpr std::uint64_t SOURCES = 0x38;    ///< RO number of source ids
inline constexpr std::uint64_t GROUP_TOKENS = 0x3c;  ///< RO G
inline constexpr std::uint64_t CLOCK_PS = 0x40;      ///< RO core clock period (token time unit)
inline constexpr std::uint64_t WRITTEN_LO = 0x44;    ///< RO groups written since ENABLE, 0..31
inline constexpr std::uint64_t WRITTEN_HI = 0x48;    ///< RO bits 32..63
inline constexpr std::uint64_t WINDOW_BYTES = 0x100; ///< size to map
} // namespace trace_reg

/// STATUS bits.
namespace trace_status {
inline constexpr std::uint32_t WMARK = 1u << 0;   ///< WPTR reached WATERMARK (W1C)
inline constexpr std::uint32_t FULL = 1u << 1;    ///< stop mode: the region is full
inline constexpr std::uint32_t WRAPPED = 1u << 2; ///< wrap mode: the write pointer wrapped
inline constexpr std::uint32_t IDLE = 1u << 3;    ///< nothing packed, buffered or in flight
} // namespace trace_status

} // namespace vgpu::shader_trace
