// Configuration of each SM (section `sm`): warp and CTA slots, register file, scheduler,
// latencies and limits. See models/sm/README.md.
#pragma once

#include "models/common/config.h"
#include "models/sm/core/isa.h"
#include "models/sm/core/warp_scheduler.h"

#include <cstdint>

namespace vgpu::sm {

/// Section `sm`: resources, issue policy and timing of one SM.
struct sm_config {
    unsigned warp_slots = 32;                   ///< resident warps
    unsigned cta_slots = 8;                     ///< resident CTAs
    unsigned regs_per_thread = 64;              ///< registers per thread (R0..R<n-1>)
    sched_policy scheduler = sched_policy::gto; ///< warp issue policy
    unsigned alu_latency = 4;                   ///< cycles until an integer/ALU result can be read
    unsigned fp_latency = 4;                    ///< cycles until an fp32 result can be read
    unsigned lsu_threads = 8; ///< accurate mode: LSU threads started at once (more on demand)
    std::uint64_t max_cta_cycles = 50000000; ///< a CTA running longer is stopped with a fault

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("warp_slots", warp_slots, spec("resident warps per SM").range(1, 64));
        v.value("cta_slots", cta_slots, spec("resident CTAs per SM").range(1, 64));
        v.value("regs_per_thread", regs_per_thread,
                spec("registers per thread").range(1, max_registers));
        v.choice("scheduler", scheduler,
                 spec("warp issue policy: loose round-robin or greedy-then-oldest"));
        v.value("alu_latency", alu_latency,
                spec("cycles until an ALU result can be read by a dependent instruction")
                    .range(1, 1000)
                    .unit("cycles"));
        v.value("fp_latency", fp_latency,
                spec("cycles until an fp32 result can be read by a dependent instruction")
                    .range(1, 1000)
                    .unit("cycles"));
        v.value("lsu_threads", lsu_threads,
                spec("accurate mode: LSU threads started with the SM; more start whenever every "
                     "one is busy, so this changes neither timing nor results (a simulator "
                     "detail kept for old configurations; the L1's MSHRs bound the requests in "
                     "flight)")
                    .range(1, 256));
        v.value("max_cta_cycles", max_cta_cycles,
                spec("a CTA running longer is stopped with a fault naming what each warp waits on")
                    .range(1, 1e15)
                    .unit("cycles"));
    }

    void validate(config::checker& c) const
    {
        if (cta_slots > warp_slots)
            c.error("sm.cta_slots", "more CTA slots than warp slots (every CTA needs a warp)");
    }
};

} // namespace vgpu::sm
