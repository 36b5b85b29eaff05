// The verilated OUTLis buffer (outlis_buffer.sv) as the shader-trace unit's group buffer
// (shader_trace.impl rtl): the RTL keeps the control state (free list, OUTLis, INLis, in-flight
// slots, loss bits), this adapter the payload (each slot's group) and the map between the
// unit's source ids and the RTL's priority-ordered source numbers. One RTL clock cycle per
// call, evaluated only then. Needs Verilator (VGPU_RTL); the header does not include it. See
// models/shader_trace/rtl/README.md, "In the platform".
#pragma once

#include "models/shader_trace/core/slot_buffer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace vgpu::shader_trace {

class outlis_rtl_buffer : public group_buffer {
public:
    /// As slot_buffer's constructor; `slots` must be outlis_rtl_slots and `sources` at most
    /// outlis_rtl_sources (std::invalid_argument otherwise: the configuration refuses both).
    /// `priority` lists every source id, highest priority first (it numbers the RTL's sources).
    outlis_rtl_buffer(unsigned slots, unsigned sources, full_policy full, victim_policy victim,
                      const std::vector<unsigned>& priority);
    ~outlis_rtl_buffer() override;
    outlis_rtl_buffer(const outlis_rtl_buffer&) = delete;
    outlis_rtl_buffer& operator=(const outlis_rtl_buffer&) = delete;

    store_result store(unsigned source, group g) override;
    std::optional<unsigned> take_head() override;
    void write_done(unsigned slot) override;
    void mark_lost(unsigned source) override;
    const group& contents(unsigned slot) const override { return m_payload[slot]; }
    unsigned source_of_slot(unsigned slot) const override;
    unsigned head() const override;
    std::size_t free_slots() const override;

    std::uint64_t clock_cycles() const override { return m_cycles; } ///< one per call

private:
    struct model; ///< the verilated model and its context
    void begin(); ///< a cycle: every call input low, the clock low, the context current
    void settle();
    void edge(); ///< the rising edge: the cycle's state is registered; checks the assertions

    std::unique_ptr<model> m_model;
    std::vector<unsigned> m_rank;     ///< per source id: its RTL source number (0 highest)
    std::vector<unsigned> m_source;   ///< per RTL source number: the source id
    std::vector<group> m_payload;     ///< per slot: its group's tokens
    std::vector<std::uint16_t> m_tag; ///< per slot: the tag stored with its group
    std::uint16_t m_next_tag = 0;     ///< tags number the stores (a check of the slot returned)
    std::uint64_t m_cycles = 0;
};

} // namespace vgpu::shader_trace
