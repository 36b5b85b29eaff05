// The shader-trace unit's group buffer as the unit calls it: the core (slot_buffer) or, with
// shader_trace.impl rtl, the verilated OUTLis buffer behind its adapter
// (models/shader_trace/rtl/outlis_adapter.h). Pure C++, no SystemC. See
// models/shader_trace/README.md.
#pragma once

#include "models/shader_trace/core/packer.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace vgpu::shader_trace {

/// What store() did.
struct store_result {
    enum class kind : std::uint8_t {
        stored,   ///< into a free slot (S50)
        replaced, ///< over the victim's oldest slot (S30); victim_source lost a group
        stall,    ///< full, policy stall: nothing stored, the source must wait
        dropped,  ///< full, policy replace, no victim qualifies (claim 5): the new group is lost
    } what = kind::stored;
    unsigned slot = 0;          ///< stored, replaced: the slot
    unsigned victim_source = 0; ///< replaced: whose group was overwritten
    group lost;                 ///< replaced: the overwritten group
};

/// The calls the unit makes on its buffer, as slot_buffer.h describes them (slot_buffer is the
/// reference; the unit holds one of these, made by make_group_buffer() in shader_trace.cpp).
class group_buffer {
public:
    static constexpr unsigned none = ~0u; ///< no slot
    virtual ~group_buffer() = default;
    virtual store_result store(unsigned source, group g) = 0;
    virtual std::optional<unsigned> take_head() = 0;
    virtual void write_done(unsigned slot) = 0;
    virtual void mark_lost(unsigned source) = 0;
    virtual const group& contents(unsigned slot) const = 0;
    virtual unsigned source_of_slot(unsigned slot) const = 0;
    virtual unsigned head() const = 0; ///< OUTLis head (none if empty)
    virtual std::size_t free_slots() const = 0;
    /// Clock cycles a clocked implementation evaluated (the RTL: one per call; the core: 0).
    virtual std::uint64_t clock_cycles() const { return 0; }
};

/// The size of the verilated OUTLis buffer (models/shader_trace/rtl/CMakeLists.txt; the adapter
/// checks that the build verilated these): K slots and sources (2 + SMs).
constexpr unsigned outlis_rtl_slots = 16;
constexpr unsigned outlis_rtl_sources = 82;
/// True when this build has the verilated OUTLis buffer (verilator was found: VGPU_RTL).
bool outlis_rtl_built();

} // namespace vgpu::shader_trace
