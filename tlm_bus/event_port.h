// The GPU's event seam: the CP (its CE and RM) and every SM's issue stage (ISU) post what they
// do (kernels, CTAs, warps, barriers, TRACE codes) through an event_port; a block that records
// them (the shader-trace unit) implements event_if and is bound to the ports. Left unbound, a
// port costs its poster one test. See docs/architecture.md ("Seams").
#pragma once

#include <cstdint>

#include <systemc>

namespace vgpu::tlm_bus {

/// Who posts an event.
enum class event_source : std::uint8_t {
    ce,  ///< the CP's compute engine (kernel begin and end)
    rm,  ///< the CP's resource manager (CTA dispatch and retire)
    isu, ///< an SM's issue stage (warps, barriers, TRACE)
};

/// What happened.
enum class event_kind : std::uint8_t {
    kernel_begin,
    kernel_end,
    cta_dispatch,
    cta_retire,
    warp_start,
    warp_exit,
    barrier_arrive,
    barrier_release,
    user, ///< a TRACE instruction; argument = its 32-bit code
};

/// An event as its source saw it.
struct gpu_event {
    std::uint64_t cycle = 0; ///< core cycle; never earlier than the poster's current time
    unsigned source = 0;     ///< source id (event_if::source_id)
    event_kind what = event_kind::user;
    unsigned warp = 0;     ///< ISU: warp slot
    std::uint32_t arg = 0; ///< kernel sequence number, CTA index or TRACE code
};

/// What a source sees of the block its port is bound to.
class event_if : public virtual sc_core::sc_interface {
public:
    static constexpr unsigned no_source = ~0u; ///< the source's events are not wanted

    /// The id of the CE, the RM or the ISU of SM `sm`; no_source when that source's events
    /// are not wanted.
    virtual unsigned source_id(event_source kind, unsigned sm = 0) const = 0;
    /// Takes `e`. Events may arrive out of time order (temporal decoupling).
    virtual void post(const gpu_event& e) = 0;
    /// True while `source` must not go on (the receiver is full) until unblocked() fires.
    virtual bool blocked(unsigned source) const = 0;
    virtual const sc_core::sc_event& unblocked() const = 0; ///< a blocked source may go on
    /// Every source's partly gathered events are complete at `cycle` (a kernel ended).
    virtual void flush_at(std::uint64_t cycle) = 0;
};

/// A source's connection to the receiver; left unbound when the platform has none.
using event_port = sc_core::sc_port<event_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

} // namespace vgpu::tlm_bus
