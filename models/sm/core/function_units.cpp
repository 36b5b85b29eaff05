// Functional units of an SM's sub-cores. Pure C++; see models/sm/README.md.
#include "models/sm/core/function_units.h"

#include <stdexcept>
#include <string>

namespace vgpu::sm {

const char* name(unit_class c)
{
    static const char* const names[num_unit_classes] = {"int", "mul",    "fp32", "sfu",
                                                        "lsu", "branch", "fp64"};
    return names[static_cast<unsigned>(c)];
}

unit_class unit_of(opcode op)
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

function_units::function_units(unsigned schedulers,
                               const std::array<unit_timing, num_unit_classes>& timing)
    : m_schedulers(schedulers), m_free(std::size_t{schedulers} * num_unit_classes, 0)
{
    if (schedulers == 0)
        throw std::invalid_argument("function_units: at least one scheduler");
    for (unsigned c = 0; c < num_unit_classes; ++c) {
        const unit_timing& t = timing[c];
        if (t.lanes == 0 || t.lanes > warp_size || t.latency == 0)
            throw std::invalid_argument(
                std::string("function_units: ") + name(static_cast<unit_class>(c)) + ": lanes " +
                std::to_string(t.lanes) + ", latency " + std::to_string(t.latency));
        m_occupancy[c] = (warp_size + t.lanes - 1) / t.lanes;
        m_latency[c] = t.latency;
    }
}

} // namespace vgpu::sm
