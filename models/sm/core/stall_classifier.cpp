// Stall classifier: the reason a cycle in which no warp issues is charged to, from what the
// waiting warps wait for. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/stall_classifier.h"

namespace vgpu::sm {

wait_reason stall_classifier::classify() const
{
    const unsigned mem = count(wait_reason::memory);
    const unsigned bar = count(wait_reason::barrier);
    const unsigned sb = count(wait_reason::scoreboard);
    if (mem >= bar && mem >= sb)
        return wait_reason::memory;
    return bar >= sb ? wait_reason::barrier : wait_reason::scoreboard;
}

} // namespace vgpu::sm
