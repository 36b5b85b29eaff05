// vgpu-trace: decodes a shader-trace image (OUTDIR/shader_trace.bin) into events as CSV,
// JSON and a Chrome/Perfetto trace. Exit codes: 0 ok, 1 an output could not be written, 2 bad
// usage or a malformed image (the message names the byte offset). See docs/trace-format.md.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/image.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

using namespace vgpu::shader_trace;

namespace {

/// Time in ns with picosecond precision, exact ("12.345").
std::string ns_text(std::uint64_t ps)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                  static_cast<unsigned long long>(ps % 1000));
    return buf;
}

bool write_file(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
        std::cerr << "vgpu-trace: cannot write " << path << "\n";
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"vgpu-trace: decode a shader-trace image into events"};
    std::string in, csv, json, perfetto;
    app.add_option("image", in, "shader_trace.bin written by vgpu-sim")->required();
    app.add_option("--csv", csv,
                   "events as CSV (time_ns,source,sm,warp,event,opcode,arg,lost,unreadable)");
    app.add_option("--json", json, "events as a JSON array");
    app.add_option("--perfetto", perfetto, "Chrome/Perfetto trace-event JSON");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    std::ifstream f(in, std::ios::binary);
    if (!f) {
        std::cerr << "vgpu-trace: " << in << ": cannot be read\n";
        return 2;
    }
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                          std::istreambuf_iterator<char>());
    std::string err;
    const image im = decode_image(bytes, err);
    if (!err.empty()) {
        std::cerr << "vgpu-trace: " << in << ": " << err << "\n";
        return 2;
    }
    const std::uint64_t first = header_bytes + 16 * im.sources.size() + 8;
    decode_result d = decode(im.tokens, im.tokens_per_group, first);
    if (!d.ok()) {
        std::cerr << "vgpu-trace: " << in << ": " << d.error << "\n";
        return 2;
    }
    for (const decoded_event& e : d.events)
        if (e.source >= im.sources.size()) {
            std::cerr << "vgpu-trace: " << in << ": source " << e.source
                      << " is not in the header's source table\n";
            return 2;
        }
    // Memory order interleaves the sources; users read a timeline. Stable: a gap stays before
    // the events that follow the SYNC it ends at (they share its time).
    std::stable_sort(
        d.events.begin(), d.events.end(),
        [](const decoded_event& a, const decoded_event& b) { return a.time < b.time; });
    std::ostringstream c;
    nlohmann::json events = nlohmann::json::array(), trace = nlohmann::json::array();
    c << "time_ns,source,sm,warp,event,opcode,arg,lost,unreadable\n";
    std::map<std::pair<unsigned, unsigned>, std::uint64_t> warp_start; // (sm, warp) -> ps
    std::map<std::uint32_t, std::uint64_t> kernel_start; // kernel sequence number -> ps
    for (const decoded_event& e : d.events) {
        const source_info& s = im.sources[e.source];
        const bool isu = s.kind == source_kind::isu;
        const std::uint64_t ps = e.time * im.cycle_ps;
        const std::string ev = e.is_gap ? "gap" : name(e.what);
        const bool user = !e.is_gap && e.what == event::user;
        c << ns_text(ps) << ',' << name(s.kind) << ',' << (isu ? std::to_string(s.sm) : "") << ','
          << (isu && !e.is_gap ? std::to_string(e.warp) : "") << ',' << ev << ','
          << (user ? std::to_string(e.arg) : "") << ','
          << (!e.is_gap && !user ? std::to_string(e.arg) : "") << ','
          << (e.is_gap ? std::to_string(e.lost_groups) : "") << ','
          << (e.is_gap ? std::to_string(e.unreadable) : "") << '\n';
        nlohmann::json j = {{"time_ns", ns_text(ps)}, {"source", name(s.kind)}, {"event", ev}};
        if (isu)
            j["sm"] = s.sm;
        if (isu && !e.is_gap)
            j["warp"] = e.warp;
        if (user)
            j["opcode"] = e.arg;
        else if (!e.is_gap)
            j["arg"] = e.arg;
        if (e.is_gap) {
            j["lost_groups"] = e.lost_groups;
            j["unreadable"] = e.unreadable;
        }
        events.push_back(j);
        // Perfetto: kernels and warps as spans, the rest as instants (ts in microseconds).
        const double us = static_cast<double>(ps) / 1e6;
        const int pid = isu ? static_cast<int>(s.sm) + 1 : 0;
        if (!e.is_gap && e.what == event::kernel_begin)
            kernel_start[e.arg] = ps;
        else if (!e.is_gap && e.what == event::kernel_end && kernel_start.count(e.arg))
            trace.push_back({{"name", "kernel " + std::to_string(e.arg)},
                             {"ph", "X"},
                             {"ts", static_cast<double>(kernel_start[e.arg]) / 1e6},
                             {"dur", static_cast<double>(ps - kernel_start[e.arg]) / 1e6},
                             {"pid", 0},
                             {"tid", static_cast<int>(e.arg)}});
        else if (!e.is_gap && e.what == event::warp_start)
            warp_start[{s.sm, e.warp}] = ps;
        else if (!e.is_gap && e.what == event::warp_exit && warp_start.count({s.sm, e.warp}))
            trace.push_back({{"name", "warp " + std::to_string(e.warp)},
                             {"ph", "X"},
                             {"ts", static_cast<double>(warp_start[{s.sm, e.warp}]) / 1e6},
                             {"dur", static_cast<double>(ps - warp_start[{s.sm, e.warp}]) / 1e6},
                             {"pid", pid},
                             {"tid", static_cast<int>(e.warp)}});
        else
            trace.push_back({{"name", user ? "TRACE " + std::to_string(e.arg) : ev},
                             {"ph", "i"},
                             {"s", "t"},
                             {"ts", us},
                             {"pid", pid},
                             {"tid", isu && !e.is_gap ? static_cast<int>(e.warp) : 0}});
    }
    bool ok = true;
    if (!csv.empty())
        ok = write_file(csv, c.str()) && ok;
    if (!json.empty())
        ok = write_file(json, events.dump(1) + "\n") && ok;
    if (!perfetto.empty())
        ok = write_file(perfetto, nlohmann::json{{"traceEvents", trace}}.dump() + "\n") && ok;
    if (csv.empty() && json.empty() && perfetto.empty())
        std::cout << c.str();
    return ok ? 0 : 1;
}
