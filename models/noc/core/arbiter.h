// Output-port arbiters of the NoC: one grant per call (per cycle) among the input ports.
// Pure C++ core of the NoC models, no SystemC; see models/noc/README.md.
#pragma once

#include "models/common/enum_names.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace vgpu::noc {

/// What an output port knows this cycle about the head request of one input port.
struct candidate {
    bool valid = false;           ///< the input has a request for this output
    unsigned barrier_count = 0;   ///< warps of the requesting SM waiting at a barrier
    std::uint64_t age_cycles = 0; ///< cycles the request has waited so far
};

/// Arbitration policies (config `noc.arbiter`).
enum class arbiter_kind { round_robin };
} // namespace vgpu::noc

template <> struct vgpu::enum_names<vgpu::noc::arbiter_kind> {
    static constexpr std::pair<std::string_view, noc::arbiter_kind> table[] = {
        {"round_robin", noc::arbiter_kind::round_robin}};
};

namespace vgpu::noc {

/// Config spelling of kind ("round_robin").
std::string_view to_string(arbiter_kind kind);
/// kind named by text, or nothing if the name is unknown.
std::optional<arbiter_kind> arbiter_kind_from_string(std::string_view text);

/// Grants one of a fixed number of inputs per call; keeps its own priority state.
class arbiter {
public:
    virtual ~arbiter() = default;

    unsigned inputs() const { return m_inputs; } ///< number of inputs
    int last_grant() const { return m_last; }    ///< input granted last, -1 before the first

    /// Input granted among cands[0..count) (count must equal inputs()), or -1 if none valid.
    int grant(const candidate* cands, std::size_t count);
    /// As above, for a vector of inputs() candidates.
    int grant(const std::vector<candidate>& cands) { return grant(cands.data(), cands.size()); }
    /// Forgets the priority state, as after reset.
    void reset() { m_last = -1; }

protected:
    explicit arbiter(unsigned inputs);
    /// The policy: the input to grant among valid candidates, or -1 if none is valid.
    virtual int choose(const candidate* cands) = 0;
    /// First input, searching cyclically from the one after the last grant, whose candidate
    /// is valid and satisfies pred; -1 if there is none. Policies use it to break ties fairly.
    template <class Pred> int first_after_last(const candidate* cands, Pred&& pred) const;

private:
    unsigned m_inputs;
    int m_last = -1;
};

/// Classic fair round-robin: priority rotates to the input after the last one granted, so with
/// N inputs a requesting input is granted within N grants.
class round_robin_arbiter final : public arbiter {
public:
    /// inputs must be at least 1.
    explicit round_robin_arbiter(unsigned inputs) : arbiter(inputs) {}

protected:
    int choose(const candidate* cands) override;
};

/// An arbiter of the given kind for the given number of inputs.
std::unique_ptr<arbiter> make_arbiter(arbiter_kind kind, unsigned inputs);

template <class Pred> int arbiter::first_after_last(const candidate* cands, Pred&& pred) const
{
    unsigned i = m_last < 0 ? 0 : (static_cast<unsigned>(m_last) + 1) % m_inputs;
    for (unsigned n = 0; n < m_inputs; ++n) {
        if (cands[i].valid && pred(cands[i]))
            return static_cast<int>(i);
        if (++i == m_inputs)
            i = 0;
    }
    return -1;
}

} // namespace vgpu::noc
