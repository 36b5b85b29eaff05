// Output-port arbiters of the NoC: one grant per call (per cycle) among the input ports.
// Pure C++ core of the NoC models, no SystemC; see models/noc/README.md.
#include "models/noc/core/arbiter.h"

#include <algorithm>
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
    m_reason = grant_reason::none;
    const int g = choose(cands);
    // An idle cycle leaves the priority where it was.
    if (g >= 0)
        m_last = g;
    return g;
}

int round_robin_arbiter::choose(const candidate* cands)
{
    const int g = first_after_last(cands, [](const candidate&) { return true; });
    set_reason(g < 0 ? grant_reason::none : grant_reason::rotation);
    return g;
}

namespace {
/// The valid candidate that satisfies pred and arrived first, or -1.
template <class Pred> int earliest(const candidate* cands, unsigned n, Pred&& pred)
{
    int best = -1;
    for (unsigned i = 0; i < n; ++i)
        if (cands[i].valid && pred(cands[i]) &&
            (best < 0 || cands[i].order < cands[static_cast<unsigned>(best)].order))
            best = static_cast<int>(i);
    return best;
}
} // namespace

int barrier_aware_arbiter::choose(const candidate* cands)
{
    if (m_max_wait > 0) {
        // Aged heads win, round-robin among them: once a request has aged, at most every
        // other input is served once before it. (Oldest-first among them would turn a
        // congested port, where every head has aged, into FIFO, which favours the inputs
        // with the longest queues.)
        const int aged =
            first_after_last(cands, [&](const candidate& c) { return c.age_cycles >= m_max_wait; });
        if (aged >= 0) {
            set_reason(grant_reason::age);
            return aged;
        }
    }
    bool any = false;
    unsigned best = 0, lowest = ~0u;
    for (unsigned i = 0; i < inputs(); ++i)
        if (cands[i].valid) {
            any = true;
            best = std::max(best, cands[i].barrier_count);
            lowest = std::min(lowest, cands[i].barrier_count);
        }
    if (!any)
        return -1;
    set_reason(best > lowest ? grant_reason::priority : grant_reason::rotation);
    return first_after_last(cands, [&](const candidate& c) { return c.barrier_count == best; });
}

int fifo_arbiter::choose(const candidate* cands)
{
    const int first = earliest(cands, inputs(), [](const candidate&) { return true; });
    if (first < 0)
        return -1;
    bool others = false;
    for (unsigned i = 0; i < inputs(); ++i)
        others = others || (cands[i].valid && static_cast<int>(i) != first);
    set_reason(others ? grant_reason::age : grant_reason::rotation);
    return first;
}

std::unique_ptr<arbiter> make_arbiter(arbiter_kind kind, unsigned inputs,
                                      std::uint64_t max_wait_cycles)
{
    switch (kind) {
    case arbiter_kind::round_robin:
        return std::make_unique<round_robin_arbiter>(inputs);
    case arbiter_kind::barrier_aware:
        return std::make_unique<barrier_aware_arbiter>(inputs, max_wait_cycles);
    case arbiter_kind::fifo:
        return std::make_unique<fifo_arbiter>(inputs);
    }
    throw std::invalid_argument("make_arbiter: unknown arbiter kind");
}

} // namespace vgpu::noc
