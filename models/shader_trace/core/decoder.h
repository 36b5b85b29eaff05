// The shader-trace decoder: tokens as they reached memory -> events with exact absolute times,
// and gaps where groups were lost. Pure C++. See docs/trace-format.md.
#pragma once

#include "models/shader_trace/core/token.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

/// One decoded event; a gap (`is_gap`) says `lost_groups` groups of `source` are missing
/// before it.
struct decoded_event {
    std::uint64_t time = 0; ///< cycles
    unsigned source = 0;
    event what = event::user;
    unsigned warp = 0;
    std::uint32_t arg = 0;
    bool is_gap = false;
    unsigned lost_groups = 0;
};

struct decode_result {
    std::vector<decoded_event> events; ///< in memory order (per source: time order)
    std::string error;                 ///< "" or "offset N: ..." (N: byte offset of the token)
    bool ok() const { return error.empty(); }
};

/// Decodes `tokens` (groups of `tokens_per_group`, in memory order); `first_byte` is the byte
/// offset of tokens[0] in the image, for messages.
decode_result decode(const std::vector<std::uint64_t>& tokens, unsigned tokens_per_group,
                     std::uint64_t first_byte = 0);

} // namespace vgpu::shader_trace
