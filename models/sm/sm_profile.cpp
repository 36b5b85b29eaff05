// The SM's per-PC counting for the source profile (models/sm/core/source_profile.h,
// docs/outputs.md "Source profile"): the stall cycles of the profiled warps.
#include "models/sm/sm.h"

namespace vgpu::sm {

void sm::profile_stall(std::uint64_t cycles, std::uint64_t ready)
{
    if (cycles == 0)
        return;
    for (std::uint64_t m = m_live; m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        if (!ws.prof || !ws.w || ws.w->done() || ws.w->next() == nullptr)
            continue;
        stall_column col = stall_column::structural;
        if ((ready >> s & 1) == 0) {
            const wait_reason why = m_ready.reason(s);
            col = why == wait_reason::memory    ? stall_column::memory
                  : why == wait_reason::barrier ? stall_column::barrier
                                                : stall_column::scoreboard;
        }
        ws.prof[ws.w->pc()].stall[static_cast<unsigned>(col)] += cycles;
    }
}

} // namespace vgpu::sm
