// The shader-trace decoder. See models/shader_trace/core/decoder.h.
#include "models/shader_trace/core/decoder.h"

#include <algorithm>
#include <unordered_map>

namespace vgpu::shader_trace {

decode_result decode(const std::vector<std::uint64_t>& tokens, unsigned tokens_per_group,
                     std::uint64_t first_byte)
{
    decode_result r;
    struct stream {
        bool synced = false;          ///< times are known (a SYNC was read, no loss since)
        bool ever = false;            ///< synced once: `seq` and `time` say where it was
        unsigned seq = 0;             ///< synced: sequence number of the source's current group
        std::uint64_t time = 0;       ///< synced: the time the next delta counts from
        std::uint8_t check = 0;       ///< synced: CRC-8 of its event tokens since the last SYNC
        unsigned skipped_groups = 0;  ///< not synced: its groups read since it lost the chain
        std::uint64_t unreadable = 0; ///< not synced: its events read that cannot be timed
    };
    std::unordered_map<unsigned, stream> streams;
    std::uint64_t latest = 0; ///< the latest time decoded, any source
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
        if (kind_of(head) == token_kind::pad)
            return fail(g, head == 0 ? "a group starts with a PAD token" : "malformed PAD token");
        const unsigned src = source_of(head);
        stream& s = streams[src];
        // A new group of the source: the chain continues into it, unless the unit flagged a
        // loss just before it (then its times are unknown until the source's next SYNC).
        if (lost_before(head) && s.synced)
            s.synced = false;
        if (s.synced)
            s.seq = (s.seq + 1) & seq_mask;
        else
            ++s.skipped_groups;
        for (std::size_t i = g; i < g + tokens_per_group; ++i) {
            const std::uint64_t t = tokens[i];
            if (i != g && lost_before(t))
                return fail(i, "a loss flag inside a group");
            switch (kind_of(t)) {
            case token_kind::pad:
                if (t != 0)
                    return fail(i, "malformed PAD token");
                break;
            case token_kind::sync: {
                if (source_of(t) != src)
                    return fail(i, "a SYNC token of another source inside a group");
                const unsigned seq = seq_of(t);
                if (s.synced) {
                    // The chain before it must be the one the unit packed: same group count
                    // and the same event tokens in the same order. Groups written out of
                    // order (or a loss the unit did not flag) break one or the other.
                    if (seq != s.seq || check_of(t) != s.check)
                        return fail(i, "source " + std::to_string(src) +
                                           ": the stream is out of order (SYNC of group " +
                                           std::to_string(seq) + " with check " +
                                           std::to_string(check_of(t)) + " after group " +
                                           std::to_string(s.seq) + " with check " +
                                           std::to_string(s.check) + ")");
                    s.time = unwrap_time(time_of(t), s.time);
                } else {
                    // Picking the chain up: the groups from the loss (or the stream's start)
                    // to this one that are not in memory were lost; those that are could not
                    // be timed.
                    const unsigned first = s.ever ? (s.seq + 1) & seq_mask : 0;
                    const unsigned lost = (seq - (s.skipped_groups - 1) - first) & seq_mask;
                    s.time = unwrap_time(time_of(t), s.ever ? s.time
                                                     : latest > (std::uint64_t{1} << 32)
                                                         ? latest - (std::uint64_t{1} << 32)
                                                         : 0);
                    if (lost != 0 || s.unreadable != 0) {
                        decoded_event gap;
                        gap.time = s.time;
                        gap.source = src;
                        gap.is_gap = true;
                        gap.lost_groups = lost;
                        gap.unreadable = s.unreadable;
                        r.events.push_back(gap);
                    }
                    s.synced = s.ever = true;
                    s.skipped_groups = 0;
                    s.unreadable = 0;
                }
                s.seq = seq;
                s.check = 0;
                ++r.syncs;
                latest = std::max(latest, s.time);
                break;
            }
            case token_kind::event: {
                if (source_of(t) != src)
                    return fail(i, "an event of another source inside a group");
                if (static_cast<unsigned>(event_of(t)) > static_cast<unsigned>(event::user))
                    return fail(i, "unknown event " +
                                       std::to_string(static_cast<unsigned>(event_of(t))));
                if (!s.synced) {
                    ++s.unreadable;
                    break;
                }
                s.time += delta_of(t);
                s.check = chain_check(s.check, t);
                latest = std::max(latest, s.time);
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
    }
    // Sources whose chain was lost and never picked up again: what reached memory of them
    // after the loss cannot be timed.
    std::vector<unsigned> open;
    for (const auto& [src, s] : streams)
        if (!s.synced && (s.unreadable != 0))
            open.push_back(src);
    std::sort(open.begin(), open.end());
    for (unsigned src : open) {
        decoded_event gap;
        gap.time = latest;
        gap.source = src;
        gap.is_gap = true;
        gap.unreadable = streams[src].unreadable;
        r.events.push_back(gap);
    }
    return r;
}

} // namespace vgpu::shader_trace
