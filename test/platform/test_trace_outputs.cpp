// The trace outputs of vgpu-sim read back: trace.vcd (a small VCD reader checks the declared
// signals and their values over time) and trace.json (sort metadata, kernel names, counter
// tracks), and runs that fail because a trace file cannot be written. See docs/outputs.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {

/// One signal of a VCD file: declaration and value changes.
struct vcd_signal {
    unsigned width = 0;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> changes; ///< (time in fs, value)
    std::uint64_t max() const
    {
        std::uint64_t m = 0;
        for (const auto& c : changes)
            m = std::max(m, c.second);
        return m;
    }
    std::uint64_t last() const { return changes.empty() ? ~0ull : changes.back().second; }
};

/// A VCD file read back: signals by full dotted name (their scopes joined by dots).
struct vcd_file {
    std::string timescale;
    std::map<std::string, vcd_signal> signals;
    std::uint64_t last_time = 0;
    bool times_ordered = true;
};

/// Reads the subset of VCD that SystemC writes: $timescale, nested $scope/$var, $dumpvars,
/// #time, scalar (0x/1x) and vector (b... x) changes; comments and other sections skipped.
vcd_file read_vcd(const std::string& text)
{
    vcd_file f;
    std::map<std::string, std::string> by_id;
    std::vector<std::string> scopes;
    std::istringstream in(text);
    std::string tok;
    std::uint64_t now = 0;
    auto skip_to_end = [&](std::vector<std::string>* words) {
        std::string w;
        while (in >> w && w != "$end")
            if (words)
                words->push_back(w);
    };
    auto set = [&](const std::string& id, std::uint64_t v) {
        REQUIRE(by_id.count(id) == 1);
        f.signals[by_id[id]].changes.emplace_back(now, v);
    };
    while (in >> tok) {
        if (tok == "$timescale") {
            std::vector<std::string> w;
            skip_to_end(&w);
            for (const auto& x : w)
                f.timescale += x;
        } else if (tok == "$scope") {
            std::vector<std::string> w;
            skip_to_end(&w);
            REQUIRE(w.size() == 2);
            scopes.push_back(w[1]);
        } else if (tok == "$upscope") {
            skip_to_end(nullptr);
            REQUIRE(!scopes.empty());
            scopes.pop_back();
        } else if (tok == "$var") {
            std::vector<std::string> w; // type width id name [range]
            skip_to_end(&w);
            REQUIRE(w.size() >= 4);
            std::string name;
            for (const auto& sc : scopes)
                name += sc + ".";
            name += w[3];
            REQUIRE(f.signals.count(name) == 0);
            f.signals[name].width = static_cast<unsigned>(std::stoul(w[1]));
            by_id[w[2]] = name;
        } else if (tok == "$dumpvars" || tok == "$enddefinitions") {
            if (tok == "$enddefinitions")
                skip_to_end(nullptr);
        } else if (tok == "$end") {
            // closes $dumpvars
        } else if (tok[0] == '$') {
            skip_to_end(nullptr); // $date, $version, $comment
        } else if (tok[0] == '#') {
            const std::uint64_t t = std::stoull(tok.substr(1));
            f.times_ordered = f.times_ordered && t >= now;
            now = t;
            f.last_time = t;
        } else if (tok[0] == 'b') {
            std::string id;
            in >> id;
            set(id, std::stoull(tok.substr(1), nullptr, 2));
        } else if (tok[0] == '0' || tok[0] == '1') {
            set(tok.substr(1), static_cast<std::uint64_t>(tok[0] - '0'));
        } else {
            FAIL("unexpected VCD token " << tok);
        }
    }
    return f;
}

/// Checks of a `--vcd` run of the default workload with 2 CP queues, 2 LLC slices of 4 MSHRs,
/// 2 DRAM channels and 3 CTA slots per SM, in timing mode `mode`.
void check_vcd_run(const std::string& mode)
{
    cli_runner cli("vcd_" + mode);
    const auto r =
        cli.run("--vcd -s platform.timing.mode=" + mode +
                " -s cp.queues=2 -s llc.slices_per_module=2 -s llc.mshrs=4 -s dram.channels=2"
                " -s sm.cta_slots=3");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto stats = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto end_fs =
        static_cast<std::uint64_t>(stats["meta"]["sim_time_ns"].get<double>() * 1e6 + 0.5);
    const vcd_file f = read_vcd(cli.read("out/trace.vcd"));
    CHECK(f.timescale == "1fs");
    CHECK(f.times_ordered);
    // Delta cycles add at most a few femtoseconds to the final picosecond.
    CHECK(f.last_time >= end_fs);
    CHECK(f.last_time < end_fs + 1000);

    // Exactly the documented signals: 1 module x 2 clusters x 4 SMs (sm0..sm3 in c0).
    std::map<std::string, unsigned> expected = {{"gpu.irq", 1},
                                                {"gpu.cp.queue0.busy", 1},
                                                {"gpu.cp.queue1.busy", 1},
                                                {"gpu.m0.llc0.mshrs_in_use", 32},
                                                {"gpu.m0.llc1.mshrs_in_use", 32},
                                                {"gpu.m0.dram.ch0_busy", 1},
                                                {"gpu.m0.dram.ch1_busy", 1}};
    for (unsigned s = 0; s < 8; ++s)
        expected["gpu.m0.c" + std::to_string(s / 4) + ".sm" + std::to_string(s) +
                 ".resident_ctas"] = 32;
    std::map<std::string, unsigned> declared;
    for (const auto& [name, sig] : f.signals)
        declared[name] = sig.width;
    CHECK(declared == expected);

    for (const auto& [name, sig] : f.signals) {
        INFO(name);
        REQUIRE(!sig.changes.empty());
        CHECK(sig.changes.front() == std::make_pair(std::uint64_t{0}, std::uint64_t{0}));
        CHECK(sig.last() == 0); // everything idle again at the end
        // Delta cycles of the last picosecond are written at end_ps x 1000 + d.
        for (const auto& c : sig.changes)
            CHECK(c.first < end_fs + 1000);
    }
    // The CP interrupts the driver once per kernel: one pulse here (one kernel). The driver
    // clears it through zero-latency registers, so it lasts a few delta cycles (fs).
    const auto& irq = f.signals.at("gpu.irq").changes;
    REQUIRE(irq.size() == 3);
    CHECK(irq[1].second == 1);
    CHECK(irq[2].second == 0);
    CHECK(irq[1].first > 0);

    // Queue 0 runs the one kernel; the interrupt follows its end; queue 1 stays idle.
    const auto& q0 = f.signals.at("gpu.cp.queue0.busy").changes;
    REQUIRE(q0.size() == 3);
    CHECK(q0[1].second == 1);
    CHECK(q0[2].first <= irq[1].first);
    CHECK(f.signals.at("gpu.cp.queue1.busy").max() == 0);
    const double kernel_ns = stats["stats"]["gpu.cp.queue0.kernel_time"].get<double>();
    const double busy_ns = static_cast<double>(q0[2].first - q0[1].first) / 1e6;
    CHECK(busy_ns >= kernel_ns - 0.001);
    CHECK(busy_ns <= kernel_ns + 1000); // the launch is seen up to one quantum early

    // 32 CTAs on 8 SMs of 3 slots: the slots fill up; every CTA runs during the kernel.
    std::uint64_t most = 0;
    for (unsigned s = 0; s < 8; ++s) {
        const auto& sig = f.signals.at("gpu.m0.c" + std::to_string(s / 4) + ".sm" +
                                       std::to_string(s) + ".resident_ctas");
        INFO("sm" << s);
        CHECK(sig.max() >= 1);
        CHECK(sig.max() <= 3);
        most = std::max(most, sig.max());
        for (const auto& c : sig.changes)
            if (c.first > 0) {
                CHECK(c.first >= q0[1].first);
                CHECK(c.first <= q0[2].first);
            }
    }
    CHECK(most == 3);

    // Memory side: misses hold MSHRs (at most llc.mshrs) and channels transfer.
    std::uint64_t mshrs = 0;
    for (unsigned k = 0; k < 2; ++k) {
        const auto& sig = f.signals.at("gpu.m0.llc" + std::to_string(k) + ".mshrs_in_use");
        CHECK(sig.max() <= 4);
        mshrs = std::max(mshrs, sig.max());
    }
    CHECK(mshrs >= 1);
    for (unsigned c = 0; c < 2; ++c) {
        const auto& sig = f.signals.at("gpu.m0.dram.ch" + std::to_string(c) + "_busy");
        CHECK(sig.max() == 1);
        CHECK(sig.changes.size() >= 3);
    }
}

/// Events of trace.json by kind.
struct trace_doc {
    nlohmann::json doc;
    std::map<int, std::string> process;               ///< pid -> name
    std::map<int, int> process_index;                 ///< pid -> process_sort_index
    std::map<std::pair<int, int>, std::string> track; ///< (pid, tid) -> name
    std::map<std::pair<int, int>, int> track_index;   ///< (pid, tid) -> thread_sort_index
    int pid(const std::string& name) const
    {
        for (const auto& [p, n] : process)
            if (n == name)
                return p;
        return 0;
    }
};

trace_doc read_trace(const std::string& text)
{
    trace_doc t;
    REQUIRE_NOTHROW(t.doc = nlohmann::json::parse(text));
    for (const auto& e : t.doc["traceEvents"]) {
        if (e["ph"] != "M")
            continue;
        const int pid = e["pid"].get<int>();
        const std::string kind = e["name"].get<std::string>();
        if (kind == "process_name")
            t.process[pid] = e["args"]["name"].get<std::string>();
        else if (kind == "process_sort_index")
            t.process_index[pid] = e["args"]["sort_index"].get<int>();
        else if (kind == "thread_name")
            t.track[{pid, e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
        else if (kind == "thread_sort_index")
            t.track_index[{pid, e["tid"].get<int>()}] = e["args"]["sort_index"].get<int>();
    }
    return t;
}

} // namespace

TEST_CASE("trace.vcd of a fast run: interrupt, CP queues, resident CTAs, MSHRs, channels")
{
    check_vcd_run("fast");
}

TEST_CASE("trace.vcd of an accurate run: interrupt, CP queues, resident CTAs, MSHRs, channels")
{
    check_vcd_run("accurate");
}

TEST_CASE("a trace.vcd that cannot be created stops the run with exit code 1, naming it")
{
    cli_runner cli("vcd_create");
    std::filesystem::create_directories(cli.path() / "out" / "trace.vcd"); // a folder in the way
    const auto r = cli.run("--vcd");
    CHECK(r.code == 1);
    CHECK(r.err.find("out/trace.vcd") != std::string::npos);
    CHECK(r.out.find("verdict") == std::string::npos); // nothing was simulated
}

TEST_CASE("trace files that cannot be written fail the run with exit code 1, naming them")
{
    if (!std::filesystem::exists("/dev/full")) {
        WARN("no /dev/full: skipped");
        return;
    }
    cli_runner cli("trace_full");
    std::filesystem::create_directories(cli.path() / "out");
    std::filesystem::create_symlink("/dev/full", cli.path() / "out" / "trace.vcd");
    std::filesystem::create_symlink("/dev/full", cli.path() / "out" / "trace.json");
    const auto r = cli.run("--vcd --trace");
    CHECK(r.code == 1);
    CHECK(r.err.find("cannot write 'out/trace.vcd'") != std::string::npos);
    CHECK(r.err.find("cannot write 'out/trace.json'") != std::string::npos);
    CHECK(r.out.find("verdict: fail") != std::string::npos);
}

TEST_CASE("trace.json is valid JSON with processes and tracks in natural order and counters")
{
    cli_runner cli("trace_json");
    // One cluster of 12 SMs: sm10 and sm11 must follow sm9, not sm1.
    const auto r =
        cli.run("--trace -s platform.clusters_per_module=1 -s platform.sms_per_cluster=12"
                " -s llc.slices_per_module=2");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const trace_doc t = read_trace(cli.read("out/trace.json"));
    const auto stats = nlohmann::json::parse(cli.read("out/stats.json"));
    const double end_us = stats["meta"]["sim_time_ns"].get<double>() / 1000.0;

    std::vector<std::string> expected = {"host", "kernels"};
    for (unsigned s = 0; s < 12; ++s)
        expected.push_back("gpu.m0.c0.sm" + std::to_string(s));
    for (const char* p : {"gpu.m0.dram", "gpu.m0.llc0", "gpu.m0.llc1"})
        expected.push_back(p);
    REQUIRE(t.process_index.size() == t.process.size());
    std::map<int, std::string> by_index;
    for (const auto& [pid, name] : t.process)
        by_index[t.process_index.at(pid)] = name;
    std::vector<std::string> order;
    for (const auto& [i, name] : by_index)
        order.push_back(name);
    CHECK(order == expected);

    // Tracks of an SM: one per CTA slot, then the warps by number.
    const int sm0 = t.pid("gpu.m0.c0.sm0");
    std::map<int, std::string> tracks;
    for (const auto& [key, name] : t.track)
        if (key.first == sm0)
            tracks[t.track_index.at(key)] = name;
    std::vector<std::string> track_order;
    for (const auto& [i, name] : tracks)
        track_order.push_back(name);
    REQUIRE(track_order.size() >= 12); // 8 warps per CTA, several CTAs' warp slots
    std::size_t slots = 0;
    while (slots < track_order.size() && track_order[slots].rfind("cta slot ", 0) == 0) {
        CHECK(track_order[slots] == "cta slot " + std::to_string(slots));
        ++slots;
    }
    CHECK(slots >= 2);
    for (std::size_t i = slots; i < track_order.size(); ++i)
        CHECK(track_order[i] == "warp " + std::to_string(i - slots));

    // The kernel is named as in the workload; CTA spans name it too.
    std::set<std::string> kernel_names, cta_kernels;
    std::map<std::string, std::vector<double>> counters; // "process/name" -> values
    for (const auto& e : t.doc["traceEvents"]) {
        if (e["ph"] == "M")
            continue;
        CHECK(e["ts"].get<double>() >= 0);
        CHECK(e["ts"].get<double>() <= end_us + 1e-6);
        const std::string& proc = t.process.at(e["pid"].get<int>());
        if (e["ph"] == "X" && proc == "kernels")
            kernel_names.insert(e["name"].get<std::string>());
        if (e["ph"] == "X" &&
            t.track.at({e["pid"].get<int>(), e["tid"].get<int>()}).rfind("cta slot ", 0) == 0)
            cta_kernels.insert(
                e["name"].get<std::string>().substr(e["name"].get<std::string>().find(')') + 2));
        if (e["ph"] == "C")
            counters[proc + "/" + e["name"].get<std::string>()].push_back(
                e["args"]["value"].get<double>());
    }
    CHECK(kernel_names == std::set<std::string>{"reduce"});
    CHECK(cta_kernels == std::set<std::string>{"reduce"});
    std::set<std::string> counter_tracks;
    for (const auto& [k, v] : counters)
        counter_tracks.insert(k);
    CHECK(counter_tracks == std::set<std::string>{"gpu.m0.llc0/mshrs_in_use",
                                                  "gpu.m0.llc1/mshrs_in_use",
                                                  "gpu.m0.dram/ch0_busy", "gpu.m0.dram/ch1_busy"});
    for (const auto& [k, v] : counters) {
        INFO(k);
        CHECK(v.front() == 0);
        CHECK(v.back() == 0);
        CHECK(*std::max_element(v.begin(), v.end()) >= 1);
    }
}

namespace {
/// The spans of a trace by track: (pid, tid) -> (begin, end) in microseconds.
std::map<std::pair<int, int>, std::vector<std::pair<double, double>>>
spans_by_track(const trace_doc& t)
{
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> out;
    for (const auto& e : t.doc["traceEvents"])
        if (e["ph"] == "X") {
            const double ts = e["ts"].get<double>();
            out[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(
                ts, ts + e["dur"].get<double>());
        }
    return out;
}

/// Two spans that overlap without one holding the other (Perfetto shows only nested spans), or
/// "" when every pair nests or is disjoint. Times closer than half a picosecond are equal.
std::string first_overlap(std::vector<std::pair<double, double>> spans)
{
    constexpr double eps = 0.5e-6;
    // Outer spans first: by begin, the longer first at the same begin.
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
        return a.first < b.first - eps || (a.first <= b.first + eps && a.second > b.second);
    });
    std::vector<std::pair<double, double>> open;
    for (const auto& s : spans) {
        while (!open.empty() && open.back().second <= s.first + eps)
            open.pop_back();
        if (!open.empty() && s.second > open.back().second + eps) {
            std::ostringstream os;
            os << "[" << open.back().first << ", " << open.back().second << "] and [" << s.first
               << ", " << s.second << "]";
            return os.str();
        }
        open.push_back(s);
    }
    return {};
}
} // namespace

TEST_CASE("the nesting check of trace.json spans finds spans that overlap without nesting")
{
    CHECK(first_overlap({{0, 10}, {2, 5}, {5, 10}, {10, 12}, {3, 4}}).empty());
    CHECK(first_overlap({{0, 10}, {5, 15}}) == "[0, 10] and [5, 15]");
    CHECK(first_overlap({{0, 10}, {2, 5}, {4, 6}}) == "[2, 5] and [4, 6]");
}

TEST_CASE("trace.json: spans on every track nest, with several CTAs resident on each SM")
{
    // 64 CTAs of 8 warps on 8 SMs of 32 warp slots: 4 CTAs resident per SM at once, each slot
    // used twice. On one track per SM their spans overlapped (shown wrongly by Perfetto).
    for (const std::string mode : {"fast", "accurate"}) {
        INFO("mode " << mode);
        cli_runner cli("trace_nest_" + mode);
        const auto r = cli.run("--trace -D ctas=64 -s platform.timing.mode=" + mode);
        INFO(r.err);
        REQUIRE(r.code == 0);
        const trace_doc t = read_trace(cli.read("out/trace.json"));
        const auto tracks = spans_by_track(t);
        std::size_t cta_tracks = 0, cta_spans = 0;
        for (const auto& [key, spans] : tracks) {
            const std::string& name = t.track.at(key);
            INFO(t.process.at(key.first) << " / " << name);
            CHECK(first_overlap(spans).empty());
            if (name.rfind("cta slot ", 0) == 0) {
                ++cta_tracks;
                cta_spans += spans.size();
            }
        }
        CHECK(cta_spans == 64);
        CHECK(cta_tracks == 8 * 4); // 4 slots used on each of the 8 SMs
        // The CTAs of an SM were resident together (on separate tracks), so the case is real.
        const int sm0 = t.pid("gpu.m0.c0.sm0");
        std::vector<std::pair<double, double>> sm0_ctas;
        for (const auto& [key, spans] : tracks)
            if (key.first == sm0 && t.track.at(key).rfind("cta slot ", 0) == 0)
                sm0_ctas.insert(sm0_ctas.end(), spans.begin(), spans.end());
        std::size_t together = 0;
        for (std::size_t i = 0; i < sm0_ctas.size(); ++i)
            for (std::size_t j = i + 1; j < sm0_ctas.size(); ++j)
                together += sm0_ctas[i].first < sm0_ctas[j].second &&
                            sm0_ctas[j].first < sm0_ctas[i].second;
        CHECK(together >= 4);
    }
}

TEST_CASE("trace.json names each kernel of a multi-kernel schedule on the queue it ran on")
{
    cli_runner cli("trace_kernels");
    const auto r =
        cli.run("--trace -w " VGPU_SOURCE_DIR "/testbenches/workloads/multi_kernel.yaml");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const trace_doc t = read_trace(cli.read("out/trace.json"));
    const int kernels = t.pid("kernels");
    std::multimap<double, std::pair<std::string, std::string>> spans; // ts -> (queue, name)
    for (const auto& e : t.doc["traceEvents"])
        if (e["ph"] == "X" && e["pid"] == kernels)
            spans.emplace(e["ts"].get<double>(),
                          std::make_pair(t.track.at({kernels, e["tid"].get<int>()}),
                                         e["name"].get<std::string>()));
    // schedule: [scale, offset], then [combine].
    std::vector<std::pair<std::string, std::string>> seen;
    for (const auto& [ts, s] : spans)
        seen.push_back(s);
    REQUIRE(seen.size() == 3);
    CHECK(
        std::set<std::pair<std::string, std::string>>(seen.begin(), seen.begin() + 2) ==
        std::set<std::pair<std::string, std::string>>{{"queue 0", "scale"}, {"queue 1", "offset"}});
    CHECK(seen[2] == std::make_pair(std::string("queue 0"), std::string("combine")));
}

TEST_CASE("recording trace.vcd and trace.json leaves the simulation and its statistics unchanged")
{
    cli_runner cli("trace_same");
    const std::string run = "-w " VGPU_SOURCE_DIR "/testbenches/workloads/random_gather.yaml";
    const auto plain = cli.run(run + " -o plain");
    const auto traced = cli.run(run + " -o traced --vcd --trace");
    REQUIRE(plain.code == 0);
    REQUIRE(traced.code == 0);
    auto a = nlohmann::json::parse(cli.read("plain/stats.json"));
    auto b = nlohmann::json::parse(cli.read("traced/stats.json"));
    vgpu::test::erase_host_time(a);
    vgpu::test::erase_host_time(b);
    CHECK(a == b);
}

TEST_CASE("trace.json: the host's load, phases and checks, and kernels named as in the workload")
{
    cli_runner cli("trace_host");
    auto r =
        cli.run("--trace -w " VGPU_SOURCE_DIR "/testbenches/workloads/multi_kernel.yaml -o out");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/trace.json"));
    std::set<std::string> host_spans, kernel_spans;
    int host_pid = -1, kernels_pid = -1;
    for (const auto& e : j["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") {
            if (e["args"]["name"] == "host")
                host_pid = e["pid"].get<int>();
            if (e["args"]["name"] == "kernels")
                kernels_pid = e["pid"].get<int>();
        }
    REQUIRE(host_pid >= 0);
    REQUIRE(kernels_pid >= 0);
    for (const auto& e : j["traceEvents"]) {
        if (e["ph"] != "X")
            continue;
        if (e["pid"] == host_pid)
            host_spans.insert(e["name"].get<std::string>());
        if (e["pid"] == kernels_pid)
            kernel_spans.insert(e["name"].get<std::string>());
    }
    CHECK(host_spans ==
          std::set<std::string>{"load memory, set up the CP", "phase 0", "phase 1", "checks"});
    for (const char* k : {"scale", "offset", "combine"}) {
        INFO(k);
        bool found = false;
        for (const auto& name : kernel_spans)
            found = found || name.find(k) != std::string::npos;
        CHECK(found);
    }
}
