// The token packer of one source: events in time order -> groups of G tokens. Each event's
// time is a delta from the source's previous event, chained across groups; a SYNC token
// (absolute time, group sequence, chain check) opens every `sync_interval`-th group, follows
// a loss, precedes a delta too long for its field and closes a flushed group. Pure C++.
// See docs/trace-format.md.
#pragma once

#include "models/shader_trace/core/token.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::shader_trace {

/// A group: exactly G tokens (claim 4), padded with PAD tokens.
using group = std::vector<std::uint64_t>;

class packer {
public:
    /// `source`: this packer's source id; `tokens_per_group`: G (>= 2); `sync_interval`: a
    /// SYNC token opens group 0 and every sync_interval-th group after it (>= 1).
    packer(unsigned source, unsigned tokens_per_group, unsigned sync_interval = 16);
    /// Adds an event at `time` (cycles, never earlier than the previous one); appends the
    /// groups it completed (0, 1 or 2) to `out`.
    void add(event e, unsigned warp, std::uint32_t arg, std::uint64_t time,
             std::vector<group>& out);
    /// The partly filled group, closed by a SYNC token and padded (kernel end, idle timeout,
    /// flush register); nothing if no event is waiting.
    std::optional<group> flush();
    /// A group of this source was lost: the next event is preceded by a SYNC token, so that
    /// a decoder picks the chain up again there.
    void request_sync() { m_need_sync = true; }
    unsigned source() const { return m_source; }
    std::uint64_t groups() const { return m_seq; }  ///< groups completed so far
    std::uint64_t syncs() const { return m_syncs; } ///< SYNC tokens packed so far

private:
    void sync(std::uint64_t time); ///< appends a SYNC token at `time`
    std::optional<group> close();  ///< pads and returns m_cur
    unsigned m_source, m_g, m_interval;
    group m_cur;
    std::uint64_t m_last = 0; ///< time the next delta counts from
    std::uint64_t m_seq = 0;  ///< sequence number of the group being filled
    std::uint64_t m_syncs = 0;
    std::uint8_t m_check = 0; ///< CRC-8 of the event tokens since the last SYNC
    bool m_need_sync = true;  ///< the first event is preceded by a SYNC
};

} // namespace vgpu::shader_trace
