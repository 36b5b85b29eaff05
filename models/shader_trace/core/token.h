// Shader-trace tokens: the 64-bit format the packer writes and the decoder reads. Pure C++,
// no SystemC. See docs/trace-format.md.
#pragma once

#include <cstdint>

namespace vgpu::shader_trace {

/// Token kinds (bits 62..61; bit 63 is the loss flag of a group's first token).
enum class token_kind : std::uint8_t {
    pad = 0,   ///< all zero: fills a partly filled group; skipped
    sync = 1,  ///< a sync point: source, group sequence, chain check, absolute time
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
constexpr unsigned check_bits = 8;   ///< CRC-8 of the source's event tokens since its last sync
constexpr unsigned time_bits = 33;   ///< absolute time (cycles) of a SYNC token, mod 2^33
constexpr unsigned delta_bits = 9;   ///< time delta (cycles) of an event token
constexpr std::uint64_t max_delta = (1u << delta_bits) - 1;
constexpr std::uint64_t time_mask = (std::uint64_t{1} << time_bits) - 1;
constexpr std::uint64_t seq_mask = (1u << seq_bits) - 1;
/// Bit 63 of a group's first token: the unit lost groups of this source just before this
/// group (replaced, dropped, refused by memory), so its deltas do not chain to what precedes
/// it in memory; the source's times are unknown until its next SYNC.
constexpr std::uint64_t loss_flag = std::uint64_t{1} << 63;

/// A SYNC token: the source's group sequence number (of the group it is in), the check of
/// the source's event tokens since its previous SYNC, and the absolute time the next event's
/// delta counts from.
constexpr std::uint64_t make_sync(unsigned source, unsigned seq, unsigned check, std::uint64_t time)
{
    return std::uint64_t{1} << 61 | std::uint64_t{source & 0x3ff} << 51 |
           std::uint64_t{seq & seq_mask} << 41 | std::uint64_t{check & 0xff} << 33 |
           (time & time_mask);
}

/// An event token: delta <= max_delta cycles after the previous event (or SYNC) of its
/// source, across groups.
constexpr std::uint64_t make_event(unsigned source, event e, unsigned warp, unsigned delta,
                                   std::uint32_t arg)
{
    return std::uint64_t{2} << 61 | std::uint64_t{source & 0x3ff} << 51 |
           std::uint64_t{static_cast<unsigned>(e) & 0xf} << 47 | std::uint64_t{warp & 0x3f} << 41 |
           std::uint64_t{delta & max_delta} << 32 | arg;
}

constexpr token_kind kind_of(std::uint64_t t)
{
    return static_cast<token_kind>(t >> 61 & 3);
}
constexpr bool lost_before(std::uint64_t t)
{
    return (t & loss_flag) != 0;
}
constexpr unsigned source_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 51 & 0x3ff);
}
constexpr unsigned seq_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 41 & seq_mask);
}
constexpr unsigned check_of(std::uint64_t t)
{
    return static_cast<unsigned>(t >> 33 & 0xff);
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

/// The chain check: CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07) of `crc` extended by the 8
/// bytes of event token `t` (loss flag cleared), least significant byte first.
std::uint8_t chain_check(std::uint8_t crc, std::uint64_t t);

/// The absolute time whose low time_bits are `low`, the first at or after `ref`.
constexpr std::uint64_t unwrap_time(std::uint64_t low, std::uint64_t ref)
{
    return ref + ((low - ref) & time_mask);
}

} // namespace vgpu::shader_trace
