// Output-port arbiters of the NoC: one grant per call (per cycle) among the input ports.
// Pure C++ core of the NoC models, no SystemC; see models/noc/README.md.
#include "models/noc/core/arbiter.h"

#include <stdexcept>
#include <string>

namespace vgpu::noc {

std::string_view to_string(arbiter_kind kind)
{
    return name_of(kind);
}

std::optional<arbiter_kind> arbiter_kind_from_string(std::string_view text)
{
    return enum_from_name<arbiter_kind>(text);
}

arbiter::arbiter(unsigned inputs) : m_inputs(inputs)
{
    if (inputs == 0)
        throw std::invalid_argument("arbiter: inputs must be at least 1");
}

int arbiter::grant(const candidate* cands, std::size_t count)
{
    if (count != m_inputs)
        throw std::invalid_argument("arbiter::grant: " + std::to_string(count) +
                                    " candidates for " + std::to_string(m_inputs) + " inputs");
    const int g = choose(cands);
    // An idle cycle leaves the priority where it was.
    if (g >= 0)
        m_last = g;
    return g;
}

int round_robin_arbiter::choose(const candidate* cands)
{
    return first_after_last(cands, [](const candidate&) { return true; });
}

std::unique_ptr<arbiter> make_arbiter(arbiter_kind kind, unsigned inputs)
{
    switch (kind) {
    case arbiter_kind::round_robin:
        return std::make_unique<round_robin_arbiter>(inputs);
    }
    throw std::invalid_argument("make_arbiter: unknown arbiter kind");
}

} // namespace vgpu::noc
