// Chrome/Perfetto trace-event recorder (`--trace` writes trace.json): models report spans,
// instants and counter values on named tracks; nothing is recorded unless the platform enabled
// it. See docs/outputs.md ("trace.json").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace vgpu::trace {

/// What an event is.
enum class event_kind : std::uint8_t {
    span,    ///< "ph": "X", from begin_ps to end_ps
    instant, ///< "ph": "i", at begin_ps
    counter, ///< "ph": "C", value from begin_ps on
};

/// One recorded event (times in picoseconds of simulated time).
struct event {
    std::uint32_t track;  ///< index into the recorder's tracks (process and thread)
    event_kind kind;      ///< span, instant or counter
    std::uint32_t kernel; ///< kernel_seq the event belongs to, 0 for none
    std::string name;     ///< what happened, e.g. "BAR"; "{kernel}" stands for the kernel's name
    std::uint64_t begin_ps;
    std::uint64_t end_ps; ///< == begin_ps for instants and counters
    double value;         ///< counter value
};

/// A waveform that takes levels booked at known simulated times, also ahead of the current
/// time (fast mode books occupancy in the future), and shows each change at its own time
/// without running a SystemC process. The platform's VCD writer implements it; a model finds
/// it with dynamic_cast from the sc_trace_file it is given.
class level_sink {
public:
    virtual ~level_sink() = default;
    /// Declares level signal `name` (`bit`: shown as 1 while the level is positive), value 0.
    virtual unsigned add_level(const std::string& name, bool bit) = 0;
    /// Adds `delta` to level `id` from `at_ps` on (a time already passed means now).
    virtual void step_level(unsigned id, std::uint64_t at_ps, int delta) = 0;
};

/// Process of the host's activity (host_span): tracks "load", "phase N", "checks".
inline constexpr const char* host_process = "host";
/// Process of the kernels (the CP records one track per queue, "queue N").
inline constexpr const char* kernel_process = "kernels";

/// Collects events for the whole run (one simulation per process, like SystemC itself). With a
/// stream attached (stream_to()), recorded events are written out in chunks as the run goes, so
/// the recorder's memory stays bounded however long the run; without one (tests), they are
/// kept until write_json().
class recorder {
public:
    static recorder& instance();
    void enable(bool on) { m_on = on; }
    bool enabled() const { return m_on; } ///< test before building strings on hot paths

    /// A span on track `thread` of group `process`, e.g. ("gpu.m0.c0.sm1", "warp 3", "BAR").
    /// With `kernel` != 0, "{kernel}" in `name` is replaced by the kernel's name when written.
    void span(const std::string& process, const std::string& thread, const std::string& name,
              std::uint64_t begin_ps, std::uint64_t end_ps, std::uint32_t kernel = 0);
    /// An instant on a track (see span()).
    void instant(const std::string& process, const std::string& thread, const std::string& name,
                 std::uint64_t at_ps, std::uint32_t kernel = 0);
    /// The value of counter `name` of `process` from `at_ps` on (a counter track in Perfetto).
    /// A value at the same time as the counter's latest one replaces it: changes within one
    /// instant (delta cycles) leave only the final value.
    void counter(const std::string& process, const std::string& name, double value,
                 std::uint64_t at_ps);

    /// Declares a counter track of `process` that follows a booked level (level_step()); it
    /// starts at 0 at time 0. `bit`: the counter is 1 while the level is positive.
    std::uint32_t level_track(const std::string& process, const std::string& name, bool bit);
    /// Adds `delta` to the level of `track` from `at_ps` on. Steps may arrive in any time order
    /// (fast mode books ahead); they become counter events, one per change, when written.
    void level_step(std::uint32_t track, std::uint64_t at_ps, int delta)
    {
        if (m_on) {
            m_levels[m_tracks[track].level].steps.emplace_back(at_ps, delta);
            if (m_out && ++m_pending_steps >= m_chunk)
                flush(m_now_ps(), false);
        }
    }

    /// Names kernel `kernel_seq` (the CP's KERNEL_SEQ: 1 for the first accepted LAUNCH write,
    /// then one more per accepted write) after the workload's kernel, e.g. "reduce". Events
    /// that carry the kernel show this name instead of "kernel <seq>"; the latest call wins.
    /// Recorded even when tracing is off (it is one map entry per launch).
    void name_kernel(std::uint32_t kernel_seq, const std::string& name);
    /// The name of a kernel: its name_kernel() name, else "kernel <seq>".
    std::string kernel_label(std::uint32_t kernel_seq) const;

    /// A span of the host's activity on track `track` of process "host", e.g. ("load",
    /// "load 3 buffers"), ("phase 0", "phase 0: reduce"), ("checks", "checks"). The host's
    /// tracks are listed in the order of their first span (other processes' tracks in natural
    /// name order).
    void host_span(const std::string& track, const std::string& name, std::uint64_t begin_ps,
                   std::uint64_t end_ps);

    /// Streams the Chrome trace-event JSON document ({"traceEvents": [...]}, times in
    /// microseconds) to `os`: its opening now, then the recorded events in chunks of about
    /// `chunk` events while the run goes on, then finish_stream() writes the rest. `now_ps`
    /// tells the simulated time: level steps before it are final (bookings are never made for
    /// a time already passed) and leave memory as counter events. A kernel event whose
    /// "{kernel}" is not named yet waits for the name (the driver names a kernel right after
    /// its LAUNCH write), else it is written with the name the kernel has when it leaves.
    void stream_to(std::ostream& os, std::function<std::uint64_t()> now_ps,
                   std::size_t chunk = 1u << 16);
    /// Writes what is left (events, level changes, then the metadata naming and ordering every
    /// process and track) and the document's end. Returns false when any write to the stream
    /// failed (after a failure the recorder stops writing). Detaches the stream.
    bool finish_stream();
    /// The whole document at once into `os` (a copy of this recorder streamed and finished),
    /// for tests and for runs without a stream. Returns false when `os` failed.
    bool write_json(std::ostream& os) const;
    /// write_json() into a string (for tests).
    std::string to_json() const;
    /// Events recorded and not yet written (all of them without a stream).
    std::size_t size() const { return m_events.size(); }
    void clear(); ///< forgets every event and name, and detaches any stream

private:
    struct track_info {
        std::string process, thread;
        bool counter;      ///< a counter track (no thread metadata)
        int host_order;    ///< position among the host's tracks, -1 for other processes
        int pid;           ///< the process's id in the document (order of first appearance)
        std::size_t last;  ///< index of the track's latest event (counters), or npos
        std::size_t level; ///< index into m_levels (level tracks), or npos
    };
    struct level_info {
        bool bit;                                         ///< counter is level > 0
        std::vector<std::pair<std::uint64_t, int>> steps; ///< (time, delta), any order
        std::int64_t sum = 0;        ///< the level after the steps already turned into changes
        std::uint64_t final_to = 0;  ///< steps before this time have been turned into changes
        std::uint64_t change_ps = 0; ///< the latest change, not written yet: its time...
        double change_value = 0.0;   ///< ...and value (0 at time 0 to begin with)
    };
    std::uint32_t track_of(const std::string& process, const std::string& thread, bool counter);
    void recorded(); ///< after an event is added: writes a chunk when one is due
    /// Writes the events whose kernel name is known (all with `all`) and the level changes
    /// before `horizon_ps`.
    void flush(std::uint64_t horizon_ps, bool all);
    void put(const std::string& json_object); ///< one element of the traceEvents array
    void write_event(const event& e);
    void write_level_change(std::uint32_t track, std::uint64_t at_ps, double value);

    bool m_on = false;
    std::vector<event> m_events;
    std::ostream* m_out = nullptr; ///< the stream, while one is attached
    std::function<std::uint64_t()> m_now_ps;
    std::size_t m_chunk = 0, m_flush_at = 0, m_pending_steps = 0;
    bool m_first = true, m_failed = false;
    std::vector<std::string> m_processes; ///< by pid - 1
    std::vector<track_info> m_tracks;
    std::vector<level_info> m_levels;
    std::unordered_map<std::string, std::uint32_t> m_track_ids; ///< "C|P|T" -> index
    std::map<std::uint32_t, std::string> m_kernel_names;
    int m_host_tracks = 0;
};

/// Compares names with digit runs as numbers ("sm2" < "sm10", "m0.c1" < "m0.c10").
bool natural_less(const std::string& a, const std::string& b);

} // namespace vgpu::trace
