// The `noc` section's checks that need the build (is the RTL arbiter in it?). See
// models/noc/README.md and models/noc/rtl/README.md.
#include "models/noc/noc_config.h"

#include <string>

namespace vgpu::noc {

bool rtl_arbiter_built()
{
    return VGPU_NOC_RTL != 0; // models/noc/CMakeLists.txt: VGPU_RTL
}

void noc_config::validate(config::checker& c, bool accurate, bool gpu) const
{
    if (arbiter_impl != arbiter_impl_kind::rtl || !gpu)
        return; // the traffic platform builds no NoC: noc.* is inert there (a warning)
    if (!rtl_arbiter_built()) {
        c.error("noc.arbiter_impl",
                "rtl: this build has no RTL (Verilator was not found when it was configured); "
                "install the Debian package 'verilator' (scripts/test installs it) and configure "
                "and build again, or set noc.arbiter_impl to tlm");
        return;
    }
    if (!accurate)
        c.conflict({{"noc.arbiter_impl", "rtl"}, {"platform.timing.mode", "fast"}},
                   "the RTL arbiter grants cycle by cycle, in accurate mode only (fast mode "
                   "books NoC ports in arrival order, without an arbiter)",
                   "set platform.timing.mode to accurate or noc.arbiter_impl to tlm");
    if (arbiter == arbiter_kind::fifo)
        c.conflict({{"noc.arbiter_impl", "rtl"}, {"noc.arbiter", "fifo"}},
                   "the RTL arbiter has no fifo policy",
                   "set noc.arbiter to round_robin or barrier_aware, or noc.arbiter_impl to tlm");
    if (max_wait_cycles > rtl_arbiter_max_wait)
        c.conflict(
            {{"noc.arbiter_impl", "rtl"}, {"noc.max_wait_cycles", std::to_string(max_wait_cycles)}},
            "the RTL arbiter's ages and max_wait are 16 bits",
            "set noc.max_wait_cycles to at most " + std::to_string(rtl_arbiter_max_wait) +
                " or noc.arbiter_impl to tlm");
}

} // namespace vgpu::noc
