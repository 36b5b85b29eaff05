// An occupancy level booked in simulated time for the waveform and trace.json.
// See docs/outputs.md.
#include "models/noc/occupancy_probe.h"

#include <algorithm>

namespace vgpu::noc {

occupancy_probe::occupancy_probe(const char* name, bool bit) : sc_object(name), m_bit(bit)
{
    auto& rec = trace::recorder::instance();
    if (rec.enabled()) {
        const sc_core::sc_object* parent = get_parent_object();
        m_track = rec.level_track(parent ? parent->name() : "", basename(), bit);
        m_counter = true;
    }
}

void occupancy_probe::trace(sc_core::sc_trace_file* tf) const
{
    if (auto* sink = dynamic_cast<trace::level_sink*>(tf))
        attach(*sink);
}

void occupancy_probe::attach(trace::level_sink& sink) const
{
    m_sink = &sink;
    m_sink_id = sink.add_level(name(), m_bit);
}

void occupancy_probe::book(std::uint64_t at_ps, int delta)
{
    at_ps = std::max<std::uint64_t>(at_ps, sc_core::sc_time_stamp().value());
    if (m_sink)
        m_sink->step_level(m_sink_id, at_ps, delta);
    if (m_counter)
        trace::recorder::instance().level_step(m_track, at_ps, delta);
}

} // namespace vgpu::noc
