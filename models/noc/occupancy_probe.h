// An occupancy level (MSHRs in use, a channel busy) booked in simulated time for the VCD
// waveform (`--vcd`) and a trace.json counter track (`--trace`). See docs/outputs.md.
#pragma once

#include "models/common/trace_events.h"

#include <cstdint>
#include <systemc>

namespace vgpu::noc {

/// A level that a model raises and lowers at given simulated times, also ahead of the current
/// time (fast mode books occupancy in the future). The probe runs no process and schedules no
/// event, so it cannot change the simulation: it forwards each change to the waveform (a
/// trace::level_sink, which shows it at its own time) and to the trace-event recorder (a
/// counter track). Without either, step() and add() return at once.
class occupancy_probe : public sc_core::sc_object {
public:
    /// `bit`: the waveform and the counter show 1 while the level is positive (busy) instead of
    /// the level. The counter track is named after the probe, on the process of its parent; it
    /// exists if trace events are being recorded when the probe is constructed.
    occupancy_probe(const char* name, bool bit);

    /// Registers the level with `tf` under the probe's path, if `tf` is a trace::level_sink.
    void trace(sc_core::sc_trace_file* tf) const override;
    /// Registers the level with `sink` under the probe's path.
    void attach(trace::level_sink& sink) const;
    bool active() const { return m_sink || m_counter; } ///< changes go somewhere

    /// Adds `delta` to the level from `at_ps` on (a time already passed means now).
    void step(std::uint64_t at_ps, int delta)
    {
        if (active())
            book(at_ps, delta);
    }
    /// Raises the level by one over [begin_ps, end_ps).
    void add(std::uint64_t begin_ps, std::uint64_t end_ps)
    {
        if (active() && end_ps > begin_ps) {
            book(begin_ps, +1);
            book(end_ps, -1);
        }
    }

private:
    void book(std::uint64_t at_ps, int delta);

    const bool m_bit;
    mutable trace::level_sink* m_sink = nullptr; ///< set by trace(): the waveform
    mutable unsigned m_sink_id = 0;
    bool m_counter = false;    ///< trace events were on at construction
    std::uint32_t m_track = 0; ///< the recorder's counter track
};

} // namespace vgpu::noc
