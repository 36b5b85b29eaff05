// The shader-trace decoder. See models/shader_trace/core/decoder.h.
#include "models/shader_trace/core/decoder.h"

#include <unordered_map>

namespace vgpu::shader_trace {

decode_result decode(const std::vector<std::uint64_t>& tokens, unsigned tokens_per_group,
                     std::uint64_t first_byte)
{
    decode_result r;
    struct stream {
        bool known = false; ///< a group of this source was seen
        unsigned seq = 0;   ///< sequence number of its current group
        std::uint64_t time = 0;
    };
    std::unordered_map<unsigned, stream> streams;
    auto fail = [&](std::size_t i, const std::string& what) {
        r.error = "offset " + std::to_string(first_byte + 8 * i) + ": " + what;
        return r;
    };
    if (tokens_per_group < 2)
        return fail(0, "a group must hold at least 2 tokens");
    if (tokens.size() % tokens_per_group != 0)
        return fail(tokens.size() / tokens_per_group * tokens_per_group,
                    "truncated group (" + std::to_string(tokens.size() % tokens_per_group) +
                        " of " + std::to_string(tokens_per_group) + " tokens)");
    for (std::size_t g = 0; g < tokens.size(); g += tokens_per_group) {
        const std::uint64_t head = tokens[g];
        if (kind_of(head) != token_kind::full)
            return fail(g, "a group does not start with a FULL token");
        const unsigned src = source_of(head);
        stream& s = streams[src];
        const unsigned seq = seq_of(head);
        // Groups of a source reach memory in sequence order; lost ones (replaced, dropped)
        // show as a jump (mod 1024: more than 1023 lost in a row cannot be told apart).
        const unsigned expected = s.known ? (s.seq + 1) & 0x3ff : 0;
        if (seq != expected) {
            decoded_event gap;
            gap.time = time_of(head);
            gap.source = src;
            gap.is_gap = true;
            gap.lost_groups = (seq - expected) & 0x3ff;
            r.events.push_back(gap);
        }
        for (std::size_t i = g; i < g + tokens_per_group; ++i) {
            const std::uint64_t t = tokens[i];
            switch (kind_of(t)) {
            case token_kind::pad:
                if (t != 0)
                    return fail(i, "malformed PAD token");
                break;
            case token_kind::full:
                if (source_of(t) != src)
                    return fail(i, "a FULL token of another source inside a group");
                if (i == g) {
                    // Lost groups of this source show as a jump in the sequence number.
                    s.time = time_of(t);
                } else {
                    if (time_of(t) < s.time)
                        return fail(i, "time going backwards");
                    s.time = time_of(t);
                }
                break;
            case token_kind::event: {
                if (source_of(t) != src)
                    return fail(i, "an event of another source inside a group");
                if (static_cast<unsigned>(event_of(t)) > static_cast<unsigned>(event::user))
                    return fail(i, "unknown event " +
                                       std::to_string(static_cast<unsigned>(event_of(t))));
                s.time += delta_of(t);
                decoded_event e;
                e.time = s.time;
                e.source = src;
                e.what = event_of(t);
                e.warp = warp_of(t);
                e.arg = arg_of(t);
                r.events.push_back(e);
                break;
            }
            default:
                return fail(i, "unknown token kind " +
                                   std::to_string(static_cast<unsigned>(kind_of(t))));
            }
        }
        s.known = true;
        s.seq = seq;
    }
    return r;
}

} // namespace vgpu::shader_trace
