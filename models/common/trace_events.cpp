// Chrome/Perfetto trace-event recorder. See docs/outputs.md ("trace.json").
#include "models/common/trace_events.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vgpu::trace {

namespace {
double to_us(std::uint64_t ps)
{
    return static_cast<double>(ps) / 1e6;
}

/// Processes without a dot ("host", "kernels") are groups and come before instance paths.
bool process_less(const std::string& a, const std::string& b)
{
    const bool group_a = a.find('.') == std::string::npos;
    const bool group_b = b.find('.') == std::string::npos;
    if (group_a != group_b)
        return group_a;
    return natural_less(a, b);
}
} // namespace

bool natural_less(const std::string& a, const std::string& b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            // Compare the digit runs as numbers: skip leading zeros, then length, then digits.
            std::size_t ei = i, ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
                ++ei;
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
                ++ej;
            std::size_t si = i, sj = j;
            while (si + 1 < ei && a[si] == '0')
                ++si;
            while (sj + 1 < ej && b[sj] == '0')
                ++sj;
            if (ei - si != ej - sj)
                return ei - si < ej - sj;
            const int c = a.compare(si, ei - si, b, sj, ej - sj);
            if (c != 0)
                return c < 0;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j])
            return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
        ++i;
        ++j;
    }
    if (a.size() - i != b.size() - j)
        return a.size() - i < b.size() - j;
    return a < b; // equal as numbers ("sm01" vs "sm1"): any fixed order
}

recorder& recorder::instance()
{
    static recorder r;
    return r;
}

std::uint32_t recorder::track_of(const std::string& process, const std::string& thread,
                                 bool counter)
{
    std::string key;
    key.reserve(process.size() + thread.size() + 3);
    key += counter ? 'C' : 'T';
    key += process;
    key += '\x1f';
    key += thread;
    auto [it, added] = m_track_ids.emplace(std::move(key), static_cast<std::uint32_t>(0));
    if (added) {
        it->second = static_cast<std::uint32_t>(m_tracks.size());
        const bool host = !counter && process == host_process;
        const auto p = std::find(m_processes.begin(), m_processes.end(), process);
        const int pid = static_cast<int>(p - m_processes.begin()) + 1;
        if (p == m_processes.end())
            m_processes.push_back(process);
        m_tracks.push_back({process, thread, counter, host ? m_host_tracks++ : -1, pid,
                            std::string::npos, std::string::npos});
    }
    return it->second;
}

void recorder::span(const std::string& process, const std::string& thread, const std::string& name,
                    std::uint64_t begin_ps, std::uint64_t end_ps, std::uint32_t kernel)
{
    if (!m_on)
        return;
    m_events.push_back({track_of(process, thread, false), event_kind::span, kernel, name, begin_ps,
                        std::max(begin_ps, end_ps), 0.0});
    recorded();
}

void recorder::instant(const std::string& process, const std::string& thread,
                       const std::string& name, std::uint64_t at_ps, std::uint32_t kernel)
{
    if (!m_on)
        return;
    m_events.push_back(
        {track_of(process, thread, false), event_kind::instant, kernel, name, at_ps, at_ps, 0.0});
    recorded();
}

void recorder::counter(const std::string& process, const std::string& name, double value,
                       std::uint64_t at_ps)
{
    if (!m_on)
        return;
    const std::uint32_t track = track_of(process, name, true);
    std::size_t& last = m_tracks[track].last;
    if (last != std::string::npos && m_events[last].begin_ps == at_ps) {
        m_events[last].value = value;
        return;
    }
    last = m_events.size();
    m_events.push_back({track, event_kind::counter, 0, {}, at_ps, at_ps, value});
    recorded();
}

std::uint32_t recorder::level_track(const std::string& process, const std::string& name, bool bit)
{
    const std::uint32_t track = track_of(process, name, true);
    if (m_tracks[track].level == std::string::npos) {
        m_tracks[track].level = m_levels.size();
        m_levels.push_back({bit, {}});
    }
    return track;
}

void recorder::name_kernel(std::uint32_t kernel_seq, const std::string& name)
{
    m_kernel_names[kernel_seq] = name;
}

std::string recorder::kernel_label(std::uint32_t kernel_seq) const
{
    auto it = m_kernel_names.find(kernel_seq);
    return it != m_kernel_names.end() ? it->second : "kernel " + std::to_string(kernel_seq);
}

void recorder::host_span(const std::string& track, const std::string& name, std::uint64_t begin_ps,
                         std::uint64_t end_ps)
{
    span(host_process, track, name, begin_ps, end_ps);
}

void recorder::clear()
{
    m_out = nullptr;
    m_now_ps = nullptr;
    m_first = true;
    m_failed = false;
    m_pending_steps = 0;
    m_processes.clear();
    m_events.clear();
    m_tracks.clear();
    m_track_ids.clear();
    m_kernel_names.clear();
    m_levels.clear();
    m_host_tracks = 0;
}

void recorder::stream_to(std::ostream& os, std::function<std::uint64_t()> now_ps, std::size_t chunk)
{
    m_out = &os;
    m_now_ps = std::move(now_ps);
    m_chunk = std::max<std::size_t>(chunk, 1);
    m_flush_at = m_chunk;
    m_first = true;
    m_failed = false;
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    m_failed = !os;
}

void recorder::recorded()
{
    if (m_out && m_events.size() >= m_flush_at) {
        flush(m_now_ps(), false);
        m_flush_at = m_events.size() + m_chunk; // what stays (a few events) is not rewritten
    }
}

void recorder::put(const std::string& json_object)
{
    if (m_failed)
        return;
    *m_out << (m_first ? "\n" : ",\n") << json_object;
    m_first = false;
    m_failed = !*m_out;
}

void recorder::write_event(const event& e)
{
    const track_info& t = m_tracks[e.track];
    nlohmann::json j = {{"pid", t.pid}, {"ts", to_us(e.begin_ps)}};
    switch (e.kind) {
    case event_kind::counter:
        j["ph"] = "C";
        j["name"] = t.thread;
        j["args"] = {{"value", e.value}};
        break;
    case event_kind::instant:
        j["ph"] = "i";
        j["s"] = "t";
        break;
    case event_kind::span:
        j["ph"] = "X";
        j["dur"] = to_us(e.end_ps - e.begin_ps);
        break;
    }
    if (e.kind != event_kind::counter) {
        j["tid"] = e.track + 1;
        std::string name = e.name;
        if (e.kernel != 0) {
            const std::string::size_type at = name.find("{kernel}");
            if (at != std::string::npos)
                name.replace(at, 8, kernel_label(e.kernel));
            j["args"] = {{"kernel_seq", e.kernel}};
        }
        j["name"] = std::move(name);
    }
    put(j.dump());
}

void recorder::write_level_change(std::uint32_t track, std::uint64_t at_ps, double value)
{
    put(nlohmann::json({{"ph", "C"},
                        {"name", m_tracks[track].thread},
                        {"pid", m_tracks[track].pid},
                        {"ts", to_us(at_ps)},
                        {"args", {{"value", value}}}})
            .dump());
}

void recorder::flush(std::uint64_t horizon_ps, bool all)
{
    // Events: a counter's latest value may still be replaced within its instant, and a kernel
    // event may still get its kernel's name; those stay (unless `all`), the rest are written.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        event& e = m_events[i];
        track_info& t = m_tracks[e.track];
        const bool latest_counter = e.kind == event_kind::counter && t.last == i;
        const bool unnamed = e.kernel != 0 && m_kernel_names.count(e.kernel) == 0 &&
                             e.name.find("{kernel}") != std::string::npos;
        if (!all && (latest_counter || unnamed)) {
            if (latest_counter)
                t.last = kept;
            if (kept != i)
                m_events[kept] = std::move(e);
            ++kept;
            continue;
        }
        if (latest_counter)
            t.last = std::string::npos;
        write_event(e);
    }
    m_events.resize(kept);

    // Level tracks: the booked steps before the horizon in time order, one counter event per
    // change of the value (the last value of an instant wins), from 0 at time 0. A change is
    // written once a later one exists, since a step at its own time could still replace it.
    for (std::uint32_t k = 0; k < m_tracks.size(); ++k) {
        if (m_tracks[k].level == std::string::npos)
            continue;
        level_info& l = m_levels[m_tracks[k].level];
        std::stable_sort(l.steps.begin(), l.steps.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::size_t i = 0;
        while (i < l.steps.size() && (all || l.steps[i].first < horizon_ps)) {
            // A step booked for a time already made final counts from the end of that time.
            const std::uint64_t t = std::max(l.steps[i].first, l.final_to);
            for (; i < l.steps.size() && std::max(l.steps[i].first, l.final_to) == t; ++i)
                l.sum += l.steps[i].second;
            const double v = l.bit ? (l.sum > 0 ? 1.0 : 0.0) : static_cast<double>(l.sum);
            if (t == l.change_ps) {
                l.change_value = v;
            } else if (v != l.change_value) {
                write_level_change(k, l.change_ps, l.change_value);
                l.change_ps = t;
                l.change_value = v;
            }
        }
        l.steps.erase(l.steps.begin(), l.steps.begin() + static_cast<std::ptrdiff_t>(i));
        if (!all)
            l.final_to = std::max(l.final_to, horizon_ps);
        else
            write_level_change(k, l.change_ps, l.change_value);
    }
    m_pending_steps = 0;
}

bool recorder::finish_stream()
{
    if (!m_out)
        return false;
    flush(0, true);

    // Metadata: every process and track gets a sort index, groups first, then instance paths
    // in natural order, tracks in natural order within their process (the host's in the order
    // of first use), so Perfetto lists gpu.m0.c0.sm2 before gpu.m0.c1.sm10.
    std::vector<std::string> processes = m_processes;
    std::sort(processes.begin(), processes.end(), process_less);
    for (std::size_t p = 0; p < m_processes.size(); ++p) {
        const int index = static_cast<int>(std::lower_bound(processes.begin(), processes.end(),
                                                            m_processes[p], process_less) -
                                           processes.begin()) +
                          1;
        const int pid = static_cast<int>(p) + 1;
        put(nlohmann::json({{"ph", "M"},
                            {"name", "process_name"},
                            {"pid", pid},
                            {"args", {{"name", m_processes[p]}}}})
                .dump());
        put(nlohmann::json({{"ph", "M"},
                            {"name", "process_sort_index"},
                            {"pid", pid},
                            {"args", {{"sort_index", index}}}})
                .dump());
    }
    std::vector<std::uint32_t> order;
    for (std::uint32_t k = 0; k < m_tracks.size(); ++k)
        if (!m_tracks[k].counter)
            order.push_back(k);
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        const track_info &a = m_tracks[x], &b = m_tracks[y];
        if (a.pid != b.pid)
            return a.pid < b.pid;
        if (a.host_order != b.host_order)
            return a.host_order < b.host_order;
        return natural_less(a.thread, b.thread);
    });
    int in_process = 0, current = 0;
    for (std::uint32_t k : order) {
        const track_info& t = m_tracks[k];
        in_process = t.pid == current ? in_process + 1 : 1;
        current = t.pid;
        const int tid = static_cast<int>(k) + 1;
        put(nlohmann::json({{"ph", "M"},
                            {"name", "thread_name"},
                            {"pid", t.pid},
                            {"tid", tid},
                            {"args", {{"name", t.thread}}}})
                .dump());
        put(nlohmann::json({{"ph", "M"},
                            {"name", "thread_sort_index"},
                            {"pid", t.pid},
                            {"tid", tid},
                            {"args", {{"sort_index", in_process}}}})
                .dump());
    }
    if (!m_failed) {
        *m_out << "\n]}\n";
        m_out->flush();
        m_failed = !*m_out;
    }
    m_out = nullptr;
    m_now_ps = nullptr;
    return !m_failed;
}

bool recorder::write_json(std::ostream& os) const
{
    recorder copy = *this;
    copy.stream_to(
        os, [] { return std::uint64_t{0}; }, copy.m_events.size() + 1);
    return copy.finish_stream();
}

std::string recorder::to_json() const
{
    std::ostringstream ss;
    write_json(ss);
    return ss.str();
}

} // namespace vgpu::trace
