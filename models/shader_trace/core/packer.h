// The token packer of one source: events in time order -> groups of G tokens, each starting
// with a FULL token (source, group sequence, absolute time), events as deltas. Pure C++.
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
    /// `source`: this packer's source id; `tokens_per_group`: G (>= 2).
    packer(unsigned source, unsigned tokens_per_group);
    /// Adds an event at `time` (cycles, never earlier than the previous one); appends the
    /// groups it completed (0, 1 or 2) to `out`.
    void add(event e, unsigned warp, std::uint32_t arg, std::uint64_t time,
             std::vector<group>& out);
    /// The partly filled group, padded (kernel end, idle timeout, flush register); nothing if
    /// no event is waiting.
    std::optional<group> flush();
    unsigned source() const { return m_source; }
    std::uint64_t groups() const { return m_seq; } ///< groups completed so far

private:
    void start(std::uint64_t time);
    unsigned m_source, m_g;
    group m_cur;
    std::uint64_t m_last = 0; ///< time of the last token in m_cur
    std::uint64_t m_seq = 0;
};

} // namespace vgpu::shader_trace
