// Shader-trace tokens: the 64-bit format the packer writes and the decoder reads. Pure C++,
// no SystemC. See docs/trace-format.md.
#pragma once

#include <cstdint>

namespace vgpu::shader_trace {

/// Token kinds (bits 63..61).
enum class token_kind : std::uint8_t {
    pad = 0,   ///< all zero: fills a partly filled group; skipped
    full = 1,  ///< a group header or time resync: source, group sequence, absolute time
    event = 2, ///< an event: source, event, warp, time delta, 32-bit argument
};

/// Events (bits 50..47 of an event token).
enum class event : std::uint8_t {
    kernel_begin = 0,
    kernel_end = 1,
    cta_dispatch = 2,
    cta_retire = 3,
    warp_start = 4,
    warp_exit = 5,
    barrier_arrive = 6,
    barrier_release = 7,
    user = 8, ///< the TRACE instruction; argument = its 32-bit code
};
const char* name(event e); ///< "kernel_begin", ..., "user"

constexpr unsigned source_bits = 10; ///< sources 0 .. 1023
constexpr unsigned seq_bits = 10;    ///< group sequence number, mod 1024
constexpr unsigned time_bits = 41;   ///< absolute time (cycles) of a FULL token
constexpr unsigned delta_bits = 9;   ///< time delta (cycles) of an event token
constexpr std::uint64_t max_delta = (1u << delta_bits) - 1;
constexpr std::uint64_t time_mask = (std::uint64_t{1} << time_bits) - 1;

/// A FULL token: the first token of every group (and a resync after a long delta).
constexpr std::uint64_t make_full(unsigned source, unsigned seq, std::uint64_t time)
{
    return std::uint64_t{1} << 61 | std::uint64_t{source & 0x3ff} << 51 |
           std::uint64_t{seq & 0x3ff} << 41 | (time & time_mask);
}

/// An event token: delta <= max_delta cycles after the previous token of its source.
constexpr std::uint64_t make_event(unsigned source, event e, unsigned warp, unsigned delta,
                                   std::uint32_t arg)
{
    return std::uint64_t{2} << 61 | std::uint64_t{source & 0x3ff} << 51 |
           std::uint64_t{static_cast<unsigned>(e) & 0xf} << 47 | std::uint64_t{warp & 0x3f} << 41 |
           std::uint64_t{delta & max_delta} << 32 | arg;
}

constexpr token_kind kind_of(std::uint64_t t)
{
    return static_cast<token_kind>(t >> 61);
}
constexpr unsigned source_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 51 & 0x3ff);
}
constexpr unsigned seq_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 41 & 0x3ff);
}
constexpr std::uint64_t time_of(std::uint64_t t)
{
    return t & time_mask;
}
constexpr event event_of(std::uint64_t t)
{
    return static_cast<event>(t >> 47 & 0xf);
}
constexpr unsigned warp_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 41 & 0x3f);
}
constexpr unsigned delta_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 32 & max_delta);
}
constexpr std::uint32_t arg_of(std::uint64_t t)
{
    return static_cast<std::uint32_t>(t);
}

} // namespace vgpu::shader_trace
