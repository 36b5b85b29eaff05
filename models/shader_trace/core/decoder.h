// The shader-trace decoder: tokens as they reached memory -> events with exact absolute times,
// gaps where groups were lost, and an error where the stream is out of order. Pure C++.
// See docs/trace-format.md.
#pragma once

#include "models/shader_trace/core/token.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

/// One decoded event; a gap (`is_gap`) says that `lost_groups` groups of `source` never
/// reached memory and that `unreadable` events of it that did could not be timed (their
/// deltas chain to a lost group, or they precede the source's first SYNC), just before it.
struct decoded_event {
    std::uint64_t time = 0; ///< cycles (a gap: the time of the SYNC that ends it)
    unsigned source = 0;
    event what = event::user;
    unsigned warp = 0;
    std::uint32_t arg = 0;
    bool is_gap = false;
    unsigned lost_groups = 0;
    std::uint64_t unreadable = 0;
};

struct decode_result {
    std::vector<decoded_event> events; ///< in memory order (per source: time order)
    /// "" or "offset N: ..." (N: byte offset of the token): a malformed token, or a SYNC that
    /// contradicts the chain before it (groups out of order: the stream cannot be decoded).
    std::string error;
    std::uint64_t syncs = 0; ///< SYNC tokens read
    bool ok() const { return error.empty(); }
};

/// Decodes `tokens` (groups of `tokens_per_group`, in memory order); `first_byte` is the byte
/// offset of tokens[0] in the image, for messages. A source is picked up at its first SYNC
/// token, so a stream may start anywhere at a group boundary (wrap mode, a reader joining
/// late); what precedes that SYNC is reported as a gap.
decode_result decode(const std::vector<std::uint64_t>& tokens, unsigned tokens_per_group,
                     std::uint64_t first_byte = 0);

} // namespace vgpu::shader_trace
