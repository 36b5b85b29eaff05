// The port through which the CP (CE, RM) and every SM's issue stage (ISU) hand events to the
// shader-trace unit. See models/shader_trace/README.md.
#pragma once

#include "models/shader_trace/core/image.h"
#include "models/shader_trace/core/token.h"

#include <cstdint>

#include <systemc>

namespace vgpu::shader_trace {

/// An event as its source saw it.
struct trace_event {
    std::uint64_t cycle = 0; ///< core cycle; never earlier than the poster's current time
    unsigned source = 0;     ///< source id (event_if::source_id)
    event what = event::user;
    unsigned warp = 0;     ///< ISU: warp slot
    std::uint32_t arg = 0; ///< kernel sequence number, CTA index or TRACE code
};

/// What a source sees of the unit.
class event_if : public virtual sc_core::sc_interface {
public:
    static constexpr unsigned no_source = ~0u; ///< the kind is not recorded

    /// The id of the CE, the RM or the ISU of SM `sm`; no_source when that kind is not in
    /// `shader_trace.sources`.
    virtual unsigned source_id(source_kind kind, unsigned sm = 0) const = 0;
    /// Records `e`. Events may arrive out of time order (temporal decoupling); the unit packs
    /// each source's events in time order.
    virtual void post(const trace_event& e) = 0;
    /// True while `source` has groups waiting for a slot (full_policy stall): it must not go
    /// on until unblocked() fires.
    virtual bool blocked(unsigned source) const = 0;
    virtual const sc_core::sc_event& unblocked() const = 0; ///< a waiting group was stored
    /// Pads and stores every source's partly filled group at `cycle` (a kernel ended).
    virtual void flush_at(std::uint64_t cycle) = 0;
};

/// A source's connection to the unit; left unbound when the platform has no trace unit.
using trace_port = sc_core::sc_port<event_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

} // namespace vgpu::shader_trace
