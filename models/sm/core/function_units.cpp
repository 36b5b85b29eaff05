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
