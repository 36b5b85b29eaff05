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
    std::uint64_t order = 0;      ///< arrival order at the port (smaller = arrived earlier)
};

/// Arbitration policies (config `noc.arbiter`).
enum class arbiter_kind {
    round_robin,   ///< rotate among the inputs with a request
    barrier_aware, ///< highest barrier count first, ties round-robin (seed 004); optional ageing
    fifo           ///< oldest request first, ties round-robin
};

/// Why the last grant went where it did.
enum class grant_reason : std::uint8_t {
    none,     ///< nothing was granted
    rotation, ///< round-robin among equals (or the only candidate)
    priority, ///< a higher barrier count beat a lower one
    age,      ///< older than max_wait_cycles (ageing), or the oldest (fifo)
};
} // namespace vgpu::noc

template <> struct vgpu::enum_names<vgpu::noc::arbiter_kind> {
    static constexpr std::pair<std::string_view, noc::arbiter_kind> table[] = {
        {"round_robin", noc::arbiter_kind::round_robin},
        {"barrier_aware", noc::arbiter_kind::barrier_aware},
        {"fifo", noc::arbiter_kind::fifo}};
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
    grant_reason last_reason() const { return m_reason; } ///< why the last call granted

    /// Input granted among cands[0..count) (count must equal inputs()), or -1 if none valid.
    int grant(const candidate* cands, std::size_t count);
    /// As above, for a vector of inputs() candidates.
    int grant(const std::vector<candidate>& cands) { return grant(cands.data(), cands.size()); }
    /// Forgets the priority state, as after reset.
    void reset() { m_last = -1; }
    void set_reason(grant_reason r) { m_reason = r; } ///< policies: why choose() picked

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
    grant_reason m_reason = grant_reason::none;
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

/// The barrier-aware arbiter (seed 004): the highest barrier count wins; ties go round-robin.
/// Ageing is an addition not in the patent (off with `max_wait_cycles` 0, the default of
/// `noc.max_wait_cycles`): a head that has waited `max_wait_cycles` wins (round-robin among
/// such heads), so a request is granted within max_wait_cycles + inputs - 1 grants of the port
/// after it reached the head of its input. The port (shared_resource) offers per input the best
/// head of that input's per-SM queues, so the heads of all SM queues are ranked.
class barrier_aware_arbiter final : public arbiter {
public:
    barrier_aware_arbiter(unsigned inputs, std::uint64_t max_wait_cycles)
        : arbiter(inputs), m_max_wait(max_wait_cycles)
    {
    }

protected:
    int choose(const candidate* cands) override;

private:
    std::uint64_t m_max_wait;
};

/// First come, first served: the earliest arrived head request wins.
class fifo_arbiter final : public arbiter {
public:
    explicit fifo_arbiter(unsigned inputs) : arbiter(inputs) {}

protected:
    int choose(const candidate* cands) override;
};

/// An arbiter of the given kind for the given number of inputs (`max_wait_cycles`: ageing of
/// barrier_aware).
std::unique_ptr<arbiter> make_arbiter(arbiter_kind kind, unsigned inputs,
                                      std::uint64_t max_wait_cycles = 0);

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
