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
        m_tracks.push_back({process, thread, counter, host ? m_host_tracks++ : -1,
                            std::string::npos, std::string::npos});
    }
    return it->second;
}

void recorder::span(const std::string& process, const std::string& thread, const std::string& name,
                    std::uint64_t begin_ps, std::uint64_t end_ps, std::uint32_t kernel)
{
    if (m_on)
        m_events.push_back({track_of(process, thread, false), event_kind::span, kernel, name,
                            begin_ps, std::max(begin_ps, end_ps), 0.0});
}

void recorder::instant(const std::string& process, const std::string& thread,
                       const std::string& name, std::uint64_t at_ps, std::uint32_t kernel)
{
    if (m_on)
        m_events.push_back({track_of(process, thread, false), event_kind::instant, kernel, name,
                            at_ps, at_ps, 0.0});
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
    m_events.clear();
    m_tracks.clear();
    m_track_ids.clear();
    m_kernel_names.clear();
    m_levels.clear();
    m_host_tracks = 0;
}

bool recorder::write_json(std::ostream& os) const
{
    // Processes get pids in display order (groups, then instance paths in natural order) and
    // a process_sort_index; tracks get tids in display order within their process and a
    // thread_sort_index, so Perfetto lists gpu.m0.c0.sm2 before gpu.m0.c1.sm10.
    std::vector<std::string> processes;
    for (const auto& t : m_tracks)
        processes.push_back(t.process);
    std::sort(processes.begin(), processes.end(), process_less);
    processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
    std::vector<int> pid(m_tracks.size());
    for (std::size_t k = 0; k < m_tracks.size(); ++k)
        pid[k] = static_cast<int>(std::lower_bound(processes.begin(), processes.end(),
                                                   m_tracks[k].process, process_less) -
                                  processes.begin()) +
                 1;

    std::vector<std::uint32_t> order(m_tracks.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        const track_info &a = m_tracks[x], &b = m_tracks[y];
        if (pid[x] != pid[y])
            return pid[x] < pid[y];
        if (a.counter != b.counter)
            return !a.counter;
        if (a.host_order != b.host_order)
            return a.host_order < b.host_order;
        return natural_less(a.thread, b.thread);
    });
    std::vector<int> tid(m_tracks.size(), 0);

    bool first = true;
    auto put = [&](const nlohmann::json& j) {
        os << (first ? "\n" : ",\n") << j.dump();
        first = false;
    };
    os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    for (std::size_t i = 0; i < processes.size(); ++i) {
        const int p = static_cast<int>(i) + 1;
        put({{"ph", "M"},
             {"name", "process_name"},
             {"pid", p},
             {"args", {{"name", processes[i]}}}});
        put({{"ph", "M"},
             {"name", "process_sort_index"},
             {"pid", p},
             {"args", {{"sort_index", p}}}});
    }
    int next_tid = 1, in_process = 0, current = 0;
    for (std::uint32_t k : order) {
        const track_info& t = m_tracks[k];
        if (pid[k] != current) {
            current = pid[k];
            in_process = 0;
        }
        tid[k] = next_tid++;
        if (t.counter)
            continue;
        ++in_process;
        const int p = pid[k];
        put({{"ph", "M"},
             {"name", "thread_name"},
             {"pid", p},
             {"tid", tid[k]},
             {"args", {{"name", t.thread}}}});
        put({{"ph", "M"},
             {"name", "thread_sort_index"},
             {"pid", p},
             {"tid", tid[k]},
             {"args", {{"sort_index", in_process}}}});
    }
    for (const auto& e : m_events) {
        const track_info& t = m_tracks[e.track];
        nlohmann::json j = {{"pid", pid[e.track]}, {"ts", to_us(e.begin_ps)}};
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
            j["tid"] = tid[e.track];
            std::string name = e.name;
            if (e.kernel != 0) {
                const std::string::size_type at = name.find("{kernel}");
                if (at != std::string::npos)
                    name.replace(at, 8, kernel_label(e.kernel));
                j["args"] = {{"kernel_seq", e.kernel}};
            }
            j["name"] = std::move(name);
        }
        put(j);
        if (!os)
            return false;
    }
    // Level tracks: the booked steps in time order, one counter event per change of the
    // value (the last value of an instant wins), from 0 at time 0.
    std::vector<std::pair<std::uint64_t, int>> steps;
    std::vector<std::pair<std::uint64_t, double>> changes;
    for (std::uint32_t k = 0; k < m_tracks.size(); ++k) {
        if (m_tracks[k].level == std::string::npos)
            continue;
        const level_info& l = m_levels[m_tracks[k].level];
        steps = l.steps;
        std::stable_sort(steps.begin(), steps.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        changes.assign(1, {0, 0.0});
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < steps.size();) {
            const std::uint64_t t = steps[i].first;
            for (; i < steps.size() && steps[i].first == t; ++i)
                sum += steps[i].second;
            const double v = l.bit ? (sum > 0 ? 1.0 : 0.0) : static_cast<double>(sum);
            if (changes.back().first == t)
                changes.back().second = v;
            else if (changes.back().second != v)
                changes.emplace_back(t, v);
        }
        for (const auto& [t, v] : changes) {
            put({{"ph", "C"},
                 {"name", m_tracks[k].thread},
                 {"pid", pid[k]},
                 {"ts", to_us(t)},
                 {"args", {{"value", v}}}});
            if (!os)
                return false;
        }
    }
    os << "\n]}\n";
    os.flush();
    return static_cast<bool>(os);
}

std::string recorder::to_json() const
{
    std::ostringstream ss;
    write_json(ss);
    return ss.str();
}

} // namespace vgpu::trace
