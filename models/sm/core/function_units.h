// Functional units of an SM's sub-cores: the unit class of each opcode, and per scheduler and
// class when the unit takes its next warp-instruction. Pure C++; see models/sm/README.md.
#pragma once

#include "models/sm/core/isa.h"

#include <array>
#include <cstdint>
#include <vector>

namespace vgpu::sm {

/// Unit classes (config `sm.units.<class>`); every opcode belongs to exactly one.
enum class unit_class : std::uint8_t {
    int_alu, ///< "int": integer and logic operations, moves, compares, selects, NOP, TRACE
    mul,     ///< "mul": integer multiplies (IMUL, IMAD, IMADX)
    fp32,    ///< "fp32": fp32 arithmetic and compares
    sfu,     ///< "sfu": conversions (I2F, F2I, CVT), MUFU functions, FDIV, IDIV
    lsu,     ///< "lsu": memory instructions (LD, ST, CDL, MEMBAR)
    branch,  ///< "branch": control (BRA, BAR, EXIT)
    fp64     ///< "fp64": fp64 arithmetic, compares and conversions (DADD DMUL DFMA DFN DSETP DCVT)
};
constexpr unsigned num_unit_classes = 7; ///< number of unit classes

/// Config name of a class ("int", "mul", "fp32", "sfu", "lsu", "branch", "fp64").
const char* name(unit_class c);
/// The class whose unit executes op (INVALID: int).
inline unit_class unit_of(opcode op)
{
    switch (op) {
    case opcode::IMUL:
    case opcode::IMAD:
    case opcode::IMADX:
        return unit_class::mul;
    case opcode::FADD:
    case opcode::FSUB:
    case opcode::FMUL:
    case opcode::FFMA:
    case opcode::FMIN:
    case opcode::FMAX:
    case opcode::FNEG:
    case opcode::FABS:
    case opcode::FSETP:
    case opcode::FSETPX:
        return unit_class::fp32;
    case opcode::I2F:
    case opcode::F2I:
    case opcode::FDIV:
    case opcode::IDIV:
    case opcode::MUFU:
    case opcode::CVT:
        return unit_class::sfu;
    case opcode::LD:
    case opcode::ST:
    case opcode::CDL:
    case opcode::MEMBAR:
    case opcode::ATOM:
    case opcode::CAS:
        return unit_class::lsu;
    case opcode::BRA:
    case opcode::BAR:
    case opcode::EXIT:
        return unit_class::branch;
    case opcode::DADD:
    case opcode::DMUL:
    case opcode::DFMA:
    case opcode::DFN:
    case opcode::DSETP:
    case opcode::DCVT:
        return unit_class::fp64;
    default:
        return unit_class::int_alu;
    }
}

/// Throughput and latency of one class's unit in each sub-core.
struct unit_timing {
    unsigned lanes = warp_size; ///< lanes: a warp-instruction holds the unit ceil(32/lanes) cycles
    unsigned latency = 1;       ///< cycles from issue until a dependent instruction may issue
};

/// When each sub-core's unit of each class is free, in core cycles.
class function_units {
public:
    /// schedulers >= 1; every timing's lanes in 1..32 and latency >= 1.
    function_units(unsigned schedulers, const std::array<unit_timing, num_unit_classes>& timing);

    unsigned schedulers() const { return m_schedulers; } ///< sub-cores
    /// Cycles a warp-instruction of class c holds its unit: ceil(32 / lanes).
    unsigned occupancy(unit_class c) const { return m_occupancy[index(c)]; }
    /// Cycles from the issue of an instruction of class c until its result can be read.
    unsigned latency(unit_class c) const { return m_latency[index(c)]; }
    /// First cycle at which sub-core `sched`'s unit of class c takes a new instruction.
    std::uint64_t free_at(unsigned sched, unit_class c) const
    {
        return m_free[sched * num_unit_classes + index(c)];
    }
    /// An instruction of class c issued at `cycle` on sub-core `sched` (its unit is free then).
    void issue(unsigned sched, unit_class c, std::uint64_t cycle)
    {
        m_free[sched * num_unit_classes + index(c)] = cycle + occupancy(c);
    }

private:
    static unsigned index(unit_class c) { return static_cast<unsigned>(c); }

    unsigned m_schedulers;
    std::array<unsigned, num_unit_classes> m_occupancy{};
    std::array<unsigned, num_unit_classes> m_latency{};
    std::vector<std::uint64_t> m_free;
};

} // namespace vgpu::sm
