// Configuration of each SM (section `sm`): warp and CTA slots, register file, scheduler,
// latencies and limits. See models/sm/README.md.
#pragma once

#include "models/common/config.h"
#include "models/sm/core/cta_slots.h"
#include "models/sm/core/function_units.h"
#include "models/sm/core/isa.h"
#include "models/sm/core/warp_scheduler.h"

#include <array>
#include <cstdint>

namespace vgpu::sm {

/// Section `sm.units.<class>`: one unit class in each sub-core.
struct unit_config {
    unsigned lanes = warp_size; ///< lanes; a warp-instruction holds the unit ceil(32/lanes) cycles
    unsigned latency = 0;       ///< cycles from issue to a readable result; 0 = the class default

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("lanes", lanes,
                spec("lanes of this unit in each sub-core: a warp-instruction occupies it for "
                     "ceil(32 / lanes) cycles, during which the sub-core issues no other "
                     "instruction of this class")
                    .range(1, warp_size));
        v.value("latency", latency,
                spec("cycles from issue until a dependent instruction can issue (int, mul: "
                     "0 = sm.alu_latency; fp32, sfu, fp64: 0 = sm.fp_latency; lsu: cycles "
                     "before the first line request leaves, 0 = none; branch: cycles until the "
                     "warp's next instruction, 0 = 1)")
                    .range(0, 1000)
                    .unit("cycles"));
    }
};

/// Section `sm.units`: the functional units of each sub-core, by class (models/sm/README.md).
struct units_config {
    std::array<unit_config, num_unit_classes> by_class{}; ///< indexed by unit_class

    /// fp64 defaults to half the lanes of the other classes (fp64 at half the fp32 rate, as
    /// GV100 and GA100 have it).
    units_config() { by_class[static_cast<unsigned>(unit_class::fp64)].lanes = warp_size / 2; }

    void declare(config::visitor& v)
    {
        static const char* const docs[num_unit_classes] = {
            ("Integer and logic operations, moves, compares, selects (IADD..SAR, MOV, S2R, LDP, "
             "ISETP, USETP, SEL, NOP, TRACE), bit operations (BITS, BFX, PRMT) and warp "
             "operations (SHFL, VOTE, BALLOT, WARPSYNC)."),
            "Integer multiplies (IMUL, IMAD, IMADX).",
            "fp32 arithmetic and compares (FADD..FABS, FSETP, FSETPX).",
            ("Special functions and conversions (MUFU, I2F, F2I, CVT) and the divisions "
             "(FDIV, IDIV), each one operation of this unit."),
            "Memory instructions (LD, ST, CDL, MEMBAR): the address stage ahead of the L1.",
            "Control (BRA, BAR, EXIT).",
            ("fp64 arithmetic, compares and conversions (DADD, DMUL, DFMA, DFN, DSETP, DCVT; "
             "docs/isa.md, \"fp64 and 64-bit integers\"), each one operation of this unit; "
             "64-bit integer instructions (I64, I64SETP) are int.")};
        for (unsigned c = 0; c < num_unit_classes; ++c)
            v.section(name(static_cast<unit_class>(c)), by_class[c], docs[c]);
    }
};

/// Section `sm`: resources, issue policy and timing of one SM.
struct sm_config {
    unsigned warp_slots = 32;                   ///< resident warps
    unsigned cta_slots = 8;                     ///< resident CTAs
    unsigned regs_per_thread = 64;              ///< registers per thread (R0..R<n-1>)
    sched_policy scheduler = sched_policy::gto; ///< warp issue policy
    unsigned schedulers = 1;                    ///< sub-cores, each with a scheduler and units
    units_config units;                         ///< functional units of each sub-core
    unsigned alu_latency = 4;                   ///< cycles until an integer/ALU result can be read
    unsigned fp_latency = 4;                    ///< cycles until an fp32 result can be read
    unsigned max_loads_per_warp = 8;            ///< loads (LD, CDL) a warp keeps in flight
    unsigned max_stores_per_warp = 8; ///< stores a warp keeps in flight (its store buffer)
    unsigned max_line_requests = 0;   ///< line requests the SM keeps in flight (0: no limit)
    unsigned lsu_threads = 8; ///< accurate mode: LSU threads started at once (more on demand)
    byte_size icache_bytes{32 * 1024};  ///< instruction cache capacity (0: whole-program fetch)
    unsigned icache_ways = 4;           ///< instruction cache associativity
    unsigned icache_prefetch_lines = 1; ///< lines prefetched ahead of a miss or prefetched use
    std::uint64_t max_cta_cycles = 50000000; ///< a CTA running longer is stopped with a fault
    // Occupancy (resident CTAs per SM, models/sm/core/cta_slots.h occupancy()).
    unsigned max_threads = 2048;       ///< resident threads per SM (in whole warps)
    unsigned registers = 65536;        ///< 32-bit registers of the SM's register file
    byte_size shared_bytes{96 * 1024}; ///< shared memory of the SM
    // shared memory (models/sm/README.md, "Shared memory")
    unsigned shared_banks = 32;   ///< shared-memory banks of 4 bytes
    unsigned shared_latency = 19; ///< cycles from a shared load's issue until its result is read

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("warp_slots", warp_slots, spec("resident warps per SM").range(1, 64));
        v.value("cta_slots", cta_slots, spec("resident CTAs per SM").range(1, 64));
        v.value("regs_per_thread", regs_per_thread,
                spec("registers per thread").range(1, max_registers));
        v.choice("scheduler", scheduler,
                 spec("warp issue policy: loose round-robin or greedy-then-oldest"));
        v.value("schedulers", schedulers,
                spec("sub-cores (warp schedulers) per SM: warp slot w belongs to sub-core "
                     "w mod schedulers, and each sub-core issues at most one warp-instruction "
                     "per cycle from its warps, with its own policy and functional units")
                    .range(1, 8));
        v.section("units", units,
                  "Functional units per sub-core and class: throughput (lanes) and latency.");
        v.value("alu_latency", alu_latency,
                spec("cycles until an ALU result can be read by a dependent instruction")
                    .range(1, 1000)
                    .unit("cycles"));
        v.value("fp_latency", fp_latency,
                spec("cycles until an fp32 result can be read by a dependent instruction")
                    .range(1, 1000)
                    .unit("cycles"));
        v.value("max_loads_per_warp", max_loads_per_warp,
                spec("loads (LD, CDL) a warp keeps in flight: it issues further independent "
                     "instructions, loads included, while earlier loads are outstanding, and "
                     "waits only for a register a load has not yet written, or for a free entry")
                    .range(1, 32));
        v.value("max_stores_per_warp", max_stores_per_warp,
                spec("stores a warp keeps in flight: a store does not block the warp; "
                     "outstanding stores drain before BAR, EXIT and MEMBAR")
                    .range(1, 32));
        v.value("max_line_requests", max_line_requests,
                spec("line requests of LD, ST and ATOM the SM keeps in flight at once: a "
                     "request due while this many are in flight waits in the LSU, in request "
                     "order, until one completes (as a memory pipeline stalls when its L1 "
                     "cannot take another miss). Accesses that follow an earlier access of "
                     "their warp to the same line (a store among them) and replays after a page "
                     "fault are not limited. 0 = no limit")
                    .range(0, 65536));
        v.value("lsu_threads", lsu_threads,
                spec("accurate mode: LSU threads started with the SM; more start whenever every "
                     "one is busy, so this changes neither timing nor results (a simulator "
                     "detail kept for old configurations; the L1's MSHRs bound the requests in "
                     "flight)")
                    .range(1, 256));
        v.value("icache_bytes", icache_bytes,
                spec("instruction cache of the SM, shared by its warps: a warp whose next "
                     "instruction's line is absent waits while the line is read through the "
                     "memory system (with a next-line prefetch); 0 = no instruction cache: each "
                     "launch's whole program is read at CTA start and the warps start when it "
                     "arrived. Lines are l1.line_bytes; at least icache_ways lines")
                    .range(0, 16 << 20)
                    .unit("B"));
        v.value("icache_ways", icache_ways,
                spec("instruction cache associativity (LRU replacement)").range(1, 64));
        v.value("icache_prefetch_lines", icache_prefetch_lines,
                spec("instruction prefetch depth: on a miss and on the first use of a "
                     "prefetched line, the next this many lines of the program are requested "
                     "when absent (1 = next-line prefetch, 0 = none)")
                    .range(0, 64));
        v.value("max_cta_cycles", max_cta_cycles,
                spec("a CTA running longer is stopped with a fault naming what each warp waits on")
                    .range(1, 1e15)
                    .unit("cycles"));
        v.value("max_threads", max_threads,
                spec("resident threads per SM, allocated in whole warps (CUDA's "
                     "maxThreadsPerMultiprocessor): at most max_threads / 32 / (warps per CTA) "
                     "CTAs of a kernel are resident on an SM at once")
                    .range(32, 65536));
        v.value("registers", registers,
                spec("32-bit registers of the SM's register file, split evenly among the "
                     "sm.schedulers sub-cores: a warp is allocated its kernel's registers per "
                     "thread x 32 rounded up to 256, and a sub-core's share holds "
                     "floor(share / that) warps (CUDA's occupancy rule for compute capability "
                     "7.0). A kernel's registers per thread are those of its translation, or "
                     "sm.regs_per_thread for an assembly kernel")
                    .range(256, 1 << 24));
        v.value("shared_bytes", shared_bytes,
                spec("shared memory of the SM: each resident CTA is allocated its kernel's "
                     "shared memory (static + dynamic) rounded up to 256 B, so at most "
                     "floor(shared_bytes / that) CTAs are resident; also the most one CTA may "
                     "use")
                    .range(0, 16 << 20)
                    .unit("B"));
        // shared memory
        v.value("shared_banks", shared_banks,
                spec("shared-memory banks of 4 bytes (word w is in bank w mod banks): a warp "
                     "access whose lanes touch k different words in one bank occupies the SM's "
                     "shared-memory pipeline for k cycles (k - 1 extra), one pass per cycle; "
                     "lanes on one word are served by one broadcast")
                    .range(1, warp_size));
        v.value("shared_latency", shared_latency,
                spec("cycles from the issue of a conflict-free shared load (LD.SHARED, "
                     "ATOM.SHARED, CAS.SHARED) until a dependent instruction can issue, when the "
                     "shared-memory pipeline is free; a k-way conflict adds k - 1")
                    .range(1, 1000)
                    .unit("cycles"));
    }

    /// What the SM gives resident CTAs, for occupancy().
    sm_resources resources() const
    {
        return {max_threads, warp_slots, cta_slots,
                registers,   schedulers, static_cast<std::uint32_t>(shared_bytes.bytes)};
    }

    /// The effective timing of each unit class (defaults resolved).
    std::array<unit_timing, num_unit_classes> unit_timings() const
    {
        std::array<unit_timing, num_unit_classes> t{};
        for (unsigned c = 0; c < num_unit_classes; ++c) {
            const unit_config& u = units.by_class[c];
            unsigned fallback = 1;
            switch (static_cast<unit_class>(c)) {
            case unit_class::int_alu:
            case unit_class::mul:
                fallback = alu_latency;
                break;
            case unit_class::fp32:
            case unit_class::sfu:
            case unit_class::fp64:
                fallback = fp_latency;
                break;
            default:
                break;
            }
            t[c].lanes = u.lanes;
            t[c].latency = u.latency != 0 ? u.latency : fallback;
        }
        return t;
    }
    /// Cycles before a memory instruction's first line request leaves (sm.units.lsu.latency).
    unsigned lsu_delay() const
    {
        return units.by_class[static_cast<unsigned>(unit_class::lsu)].latency;
    }

    void validate(config::checker& c) const
    {
        if (schedulers > warp_slots)
            c.conflict({{"sm.schedulers", std::to_string(schedulers)},
                        {"sm.warp_slots", std::to_string(warp_slots)}},
                       "more sub-cores than warp slots",
                       "set sm.schedulers to at most " + std::to_string(warp_slots) +
                           " or sm.warp_slots to at least " + std::to_string(schedulers));
        if (cta_slots > warp_slots)
            c.conflict({{"sm.cta_slots", std::to_string(cta_slots)},
                        {"sm.warp_slots", std::to_string(warp_slots)}},
                       "more CTA slots than warp slots, and every CTA needs a warp",
                       "set sm.cta_slots to at most " + std::to_string(warp_slots) +
                           " or sm.warp_slots to at least " + std::to_string(cta_slots));
    }
};

} // namespace vgpu::sm
