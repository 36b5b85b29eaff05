// The DRAM timings the DRAM core tests compute their expected times from.
#pragma once

#include "models/dram/core/channel_state.h"

namespace vgpu::dram::test {

/// tRCD = tCL = tRP = 10 ns, tRAS = 30 ns, tBURST = 1 ns, 64 GB/s: a 128 B line takes 2 ns.
inline dram_timing timing()
{
    dram_timing t;
    t.tRCD = 10000;
    t.tCL = 10000;
    t.tRP = 10000;
    t.tRAS = 30000;
    t.tBURST = 1000;
    t.bandwidth_gbps = 64.0;
    return t;
}

} // namespace vgpu::dram::test
