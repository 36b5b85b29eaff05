// The SM's unit seam: a per-SM unit executes the instructions the issue stage hands off, with
// the few services the SM offers it. See models/sm/README.md ("Units").
#pragma once

#include "models/sm/core/warp.h"
#include "tlm_bus/gpu_extension.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tlm>

namespace vgpu::sm {

class sm_unit;

/// A line read a unit asks the SM to make through its memory port (one TLM read).
struct line_read {
    unsigned warp = 0;    ///< warp slot it is made for (its CTA's address space)
    std::uint32_t pc = 0; ///< PC of the instruction that asked for it
    tlm_bus::access_kind kind = tlm_bus::access_kind::data; ///< as the L1 and LLC see it
    std::uint64_t addr = 0;       ///< first byte (virtual, within one line)
    unsigned bytes = 0;           ///< bytes read (0: no access, the read only takes its time)
    std::uint8_t* data = nullptr; ///< where the bytes land (the unit keeps it until done)
    std::uint64_t at = 0;         ///< cycle it goes (now, if that is later)
    std::uint32_t tag = 0;        ///< the unit's, handed back with the result
    std::uint32_t index = 0;      ///< the unit's, handed back with the result
};

/// What became of a line read.
struct line_result {
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE; ///< TLM_OK_RESPONSE unless it failed
    std::uint64_t start = 0;                                ///< cycle it went
    std::uint64_t end = 0;                                  ///< cycle its data is here (at least 1)
};

/// What a unit knows of its SM (fixed for the run).
struct unit_params {
    std::string path;             ///< the SM's instance path (the unit's stats prefix)
    unsigned line_bytes = 0;      ///< L1 line: a line read stays within one
    unsigned regs_per_thread = 0; ///< registers of a warp (sm.regs_per_thread)
    unsigned lsu_delay = 0;       ///< address-stage cycles of a memory instruction
    std::uint64_t core_ps = 0;    ///< core clock period
    bool accurate = false;        ///< accurate timing mode (line reads in LSU threads)
};

/// The services the SM offers its unit. Every call is made from the SM's processes (the issue
/// stage, or an LSU thread in a read_made/read_arrived callback).
class unit_host {
public:
    virtual ~unit_host() = default;
    /// The facts of this SM.
    virtual const unit_params& params() const = 0;
    /// The issue stage's current cycle (the cycle of the instruction being issued).
    virtual std::uint64_t cycle() const = 0;
    /// Issues `a` of instruction `r` of warp `warp` as a load through the SM's LSU: coalesced
    /// line requests of `kind` with the SM's request places, memory order and timing modes;
    /// lanes in zero_lanes receive 0 without a request. Completes like an LD (register a.reg).
    virtual void load(unsigned warp, const step_result& r, const mem_access& a,
                      tlm_bus::access_kind kind, std::uint32_t zero_lanes) = 0;
    /// Makes line read `rd` for `unit`: fast mode now (timed to rd.at) and calls
    /// unit.read_made() before returning; accurate mode in an LSU thread, which calls
    /// read_made() after the access and read_arrived() once the data is here. A read that
    /// page-faults waits for the host's answer and is replayed in an LSU thread, which then
    /// calls read_made() and read_arrived() (in fast mode too: read_made() is not called
    /// before read_line returns).
    virtual void read_line(sm_unit& unit, const line_read& rd) = 0;
    /// A unit's access of `warp` that writes registers is in flight (the CTA waits for it).
    virtual void begin_access(unsigned warp) = 0;
    /// That access is complete at cycle `end`: the warp issues on (unless its CTA faulted).
    virtual void end_access(unsigned warp, std::uint64_t end) = 0;
    /// Writes register `reg` of `warp` (all lanes); readers may issue from cycle `at`.
    virtual void write_register(unsigned warp, unsigned reg, const lane_values& v,
                                std::uint64_t at) = 0;
    /// The registers of `warp` changed outside its issue: it may issue earlier now.
    virtual void wake(unsigned warp) = 0;
    /// Ends the CTA of `warp` with a fault record (warp, pc, vaddr, msg).
    virtual void fault(unsigned warp, std::uint32_t pc, std::uint64_t vaddr,
                       const std::string& msg) = 0;

protected:
    unit_host() = default;
    unit_host(const unit_host&) = default;
    unit_host& operator=(const unit_host&) = default;
};

/// A per-SM unit: executes the instructions the issue stage hands off (step_kind::cdl).
class sm_unit {
public:
    virtual ~sm_unit() = default;
    /// Warp `warp` issued `r` at host.cycle(); the unit owns it from here.
    virtual void issue(unsigned warp, const step_result& r) = 0;
    /// Line read `rd` was made: `res` says when it went and when its data is here (rd.data
    /// holds it unless it failed).
    virtual void read_made(const line_read& rd, const line_result& res) = 0;
    /// Accurate mode, or a fast-mode read that page-faulted: the data of `rd` is here; `now`
    /// is the cycle of simulated time.
    virtual void read_arrived(const line_read& rd, const line_result& res, std::uint64_t now) = 0;
};

/// Builds a unit for the SM that offers `host` (sm::attach_unit calls it once).
using unit_factory = std::function<std::unique_ptr<sm_unit>(unit_host& host)>;

} // namespace vgpu::sm
