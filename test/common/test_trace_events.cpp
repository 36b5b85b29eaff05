// Unit tests of the trace-event recorder: natural ordering, sort metadata, kernel names, host
// tracks, counters and a failing stream. See models/common/trace_events.h.
#include "models/common/trace_events.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <streambuf>
#include <vector>

using namespace vgpu;

namespace {

/// Names of the processes (or of one process's tracks) in the order of their sort index.
std::vector<std::string> sorted_names(const nlohmann::json& doc, const char* name_kind,
                                      const char* sort_kind, int pid = 0)
{
    std::map<std::pair<int, int>, std::string> names;
    std::map<std::pair<int, int>, int> index;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] != "M")
            continue;
        if (pid != 0 && e["pid"] != pid)
            continue;
        const std::pair<int, int> key{e["pid"].get<int>(), e.value("tid", 0)};
        if (e["name"] == name_kind)
            names[key] = e["args"]["name"].get<std::string>();
        if (e["name"] == sort_kind)
            index[key] = e["args"]["sort_index"].get<int>();
    }
    REQUIRE(names.size() == index.size());
    std::map<int, std::string> by_index;
    for (const auto& [key, n] : names) {
        REQUIRE(index.count(key) == 1);
        REQUIRE(by_index.count(index[key]) == 0); // sort indices are distinct
        by_index[index[key]] = n;
    }
    std::vector<std::string> out;
    for (const auto& [i, n] : by_index)
        out.push_back(n);
    return out;
}

int pid_of(const nlohmann::json& doc, const std::string& process)
{
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == process)
            return e["pid"].get<int>();
    FAIL("no process " << process);
    return 0;
}

/// A stream buffer that refuses every write after `room` characters.
class full_buffer : public std::streambuf {
public:
    explicit full_buffer(std::size_t room) : m_room(room) {}

protected:
    int_type overflow(int_type c) override
    {
        if (m_room == 0)
            return traits_type::eof();
        --m_room;
        return traits_type::not_eof(c);
    }

private:
    std::size_t m_room;
};

} // namespace

TEST_CASE("natural_less compares digit runs as numbers")
{
    using trace::natural_less;
    CHECK(natural_less("sm2", "sm10"));
    CHECK_FALSE(natural_less("sm10", "sm2"));
    CHECK(natural_less("gpu.m0.c1.sm7", "gpu.m0.c10.sm0"));
    CHECK(natural_less("gpu.m2.llc0", "gpu.m10.c0.sm0"));
    CHECK(natural_less("warp 9", "warp 10"));
    CHECK(natural_less("ctas", "warp 0"));
    CHECK(natural_less("abc", "abd"));
    CHECK(natural_less("sm", "sm0"));
    CHECK_FALSE(natural_less("sm3", "sm3"));
}

TEST_CASE("trace.json lists groups first, then instance paths and tracks in natural order")
{
    auto& r = trace::recorder::instance();
    r.clear();
    r.enable(true);
    r.span("gpu.m0.c0.sm10", "warp 10", "w", 0, 10);
    r.span("gpu.m1.llc0", "x", "x", 0, 10);
    r.span("gpu.m0.c0.sm2", "warp 2", "w", 0, 10);
    r.span("kernels", "queue 1", "k", 0, 10);
    r.span("gpu.m0.c0.sm10", "ctas", "c", 0, 10);
    r.span("gpu.m0.c0.sm10", "warp 2", "w", 0, 10);
    r.host_span("load", "load", 0, 5);
    r.host_span("phase 0", "phase 0", 5, 8);
    r.host_span("phase 1", "phase 1", 8, 9);
    r.host_span("phase 10", "phase 10", 9, 10);
    r.host_span("phase 2", "phase 2", 10, 11);
    r.host_span("checks", "checks", 11, 12);
    r.span("kernels", "queue 0", "k", 0, 10);
    const auto doc = nlohmann::json::parse(r.to_json());

    CHECK(sorted_names(doc, "process_name", "process_sort_index") ==
          std::vector<std::string>{"host", "kernels", "gpu.m0.c0.sm2", "gpu.m0.c0.sm10",
                                   "gpu.m1.llc0"});
    CHECK(sorted_names(doc, "thread_name", "thread_sort_index", pid_of(doc, "gpu.m0.c0.sm10")) ==
          std::vector<std::string>{"ctas", "warp 2", "warp 10"});
    CHECK(sorted_names(doc, "thread_name", "thread_sort_index", pid_of(doc, "kernels")) ==
          std::vector<std::string>{"queue 0", "queue 1"});
    // The host's tracks keep the order in which the driver first used them.
    CHECK(sorted_names(doc, "thread_name", "thread_sort_index", pid_of(doc, "host")) ==
          std::vector<std::string>{"load", "phase 0", "phase 1", "phase 10", "phase 2", "checks"});
    // Spans carry the pid and tid of their track, times in microseconds.
    bool found = false;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "X" && e["name"] == "load") {
            found = true;
            CHECK(e["pid"] == pid_of(doc, "host"));
            CHECK(e["ts"].get<double>() == 0.0);
            CHECK(e["dur"].get<double>() == Approx(5e-6));
        }
    CHECK(found);
}

TEST_CASE("kernel events show the workload's kernel name, or the sequence number without one")
{
    auto& r = trace::recorder::instance();
    r.clear();
    r.enable(true);
    r.span("kernels", "queue 0", "{kernel}", 1000, 5000, 1);
    r.span("kernels", "queue 1", "{kernel} (error)", 2000, 3000, 2);
    r.instant("kernels", "queue 0", "bad launch {kernel}", 6000, 3);
    r.span("gpu.m0.c0.sm0", "ctas", "cta (1,0) {kernel}", 1000, 2000, 1);
    r.name_kernel(1, "scale");
    r.name_kernel(3, "offset");
    r.name_kernel(3, "combine"); // the latest name wins
    std::map<std::string, int> names;
    const auto doc = nlohmann::json::parse(r.to_json());
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] != "M") {
            names[e["name"].get<std::string>()] = e["args"]["kernel_seq"].get<int>();
            if (e["ph"] == "X" && e["name"] == "scale") {
                CHECK(e["ts"].get<double>() == Approx(0.001));
                CHECK(e["dur"].get<double>() == Approx(0.004));
            }
        }
    CHECK(names == std::map<std::string, int>{{"scale", 1},
                                              {"kernel 2 (error)", 2},
                                              {"bad launch combine", 3},
                                              {"cta (1,0) scale", 1}});
}

TEST_CASE("counters are written as Chrome counter events on their process")
{
    auto& r = trace::recorder::instance();
    r.clear();
    r.enable(true);
    r.counter("gpu.m0.llc1", "mshrs_in_use", 3, 2500000);
    r.counter("gpu.m0.llc1", "mshrs_in_use", 0, 4000000);
    r.counter("gpu.m0.dram", "ch1_busy", 1, 1000);
    r.counter("gpu.m0.dram", "ch1_busy", 0, 2000);
    r.counter("gpu.m0.dram", "ch1_busy", 1, 2000); // same instant: replaces the 0
    const auto doc = nlohmann::json::parse(r.to_json());
    std::vector<std::tuple<int, std::string, double, double>> seen;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "C")
            seen.emplace_back(e["pid"].get<int>(), e["name"].get<std::string>(),
                              e["ts"].get<double>(), e["args"]["value"].get<double>());
    const int llc = pid_of(doc, "gpu.m0.llc1"), dram = pid_of(doc, "gpu.m0.dram");
    CHECK(seen == std::vector<std::tuple<int, std::string, double, double>>{
                      {llc, "mshrs_in_use", 2.5, 3.0},
                      {llc, "mshrs_in_use", 4.0, 0.0},
                      {dram, "ch1_busy", 0.001, 1.0},
                      {dram, "ch1_busy", 0.002, 1.0}});
    // Counter tracks are not threads: no thread_name for them.
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name")
            FAIL("unexpected thread " << e["args"]["name"]);
}

TEST_CASE("nothing is recorded while tracing is off, a failing stream is reported")
{
    auto& r = trace::recorder::instance();
    r.clear();
    r.enable(false);
    r.span("p", "t", "n", 0, 1);
    r.counter("p", "c", 1, 0);
    r.host_span("load", "load", 0, 1);
    CHECK(r.size() == 0);
    CHECK(nlohmann::json::parse(r.to_json())["traceEvents"].empty());

    r.enable(true);
    for (unsigned i = 0; i < 1000; ++i)
        r.span("gpu.m0.c0.sm0", "warp 0", "event " + std::to_string(i), i, i + 1);
    std::ostringstream fine;
    CHECK(r.write_json(fine));
    full_buffer buf(4096); // much less than the document
    std::ostream full(&buf);
    CHECK_FALSE(r.write_json(full));
    CHECK(fine.str().size() > 4096);
}

namespace {
/// The events of a trace document other than metadata, each as its JSON text, sorted.
std::vector<std::string> event_texts(const std::string& json)
{
    std::vector<std::string> out;
    const nlohmann::json doc = nlohmann::json::parse(json); // the loop below refers into it
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] != "M")
            out.push_back(e.dump());
    std::sort(out.begin(), out.end());
    return out;
}

/// Records a long run: spans of 4 warps, a counter, a level booked ahead of `now`, and a
/// kernel event named only after it was recorded. `step` is called after each cycle.
void record_run(trace::recorder& r, std::uint64_t& now, const std::function<void()>& step)
{
    const std::uint32_t level = r.level_track("gpu.m0.llc0", "mshrs_in_use", false);
    r.instant("kernels", "queue 0", "bad launch {kernel}", 0, 1);
    r.name_kernel(1, "k");
    for (unsigned c = 0; c < 5000; ++c) {
        now = c * 1000ull;
        r.span("gpu.m0.c0.sm0", "warp " + std::to_string(c % 4), "w", now, now + 700);
        r.counter("gpu.m0.dram", "ch0_busy", c % 3, now);
        r.counter("gpu.m0.dram", "ch0_busy", c % 2, now); // replaces the value of this instant
        r.level_step(level, now + 3000, 1);               // booked ahead, freed later still
        r.level_step(level, now + 9000, -1);
        step();
    }
}
} // namespace

TEST_CASE("a streamed trace keeps a bounded number of events and writes the same events")
{
    auto& r = trace::recorder::instance();
    std::uint64_t now = 0;
    r.clear();
    r.enable(true);
    record_run(r, now, [] {});
    const std::vector<std::string> whole = event_texts(r.to_json());
    CHECK(r.size() > 10000); // without a stream, everything stays until written

    r.clear();
    r.enable(true);
    std::ostringstream os;
    r.stream_to(
        os, [&] { return now; }, 100);
    std::size_t most = 0;
    record_run(r, now, [&] { most = std::max(most, r.size()); });
    CHECK(most <= 100 + 4); // a chunk, plus what may still change (a counter's latest value)
    CHECK(os.str().size() > 100000); // written while the run went on
    REQUIRE(r.finish_stream());
    CHECK(r.size() == 0);
    const std::vector<std::string> streamed = event_texts(os.str());
    CHECK(streamed.size() == whole.size());
    CHECK(streamed == whole);
    // The metadata, written last, still names every process.
    CHECK(sorted_names(nlohmann::json::parse(os.str()), "process_name", "process_sort_index") ==
          std::vector<std::string>{"kernels", "gpu.m0.c0.sm0", "gpu.m0.dram", "gpu.m0.llc0"});
    r.clear();
}

TEST_CASE("a stream that fails during the run is reported when the trace is finished")
{
    auto& r = trace::recorder::instance();
    std::uint64_t now = 0;
    r.clear();
    r.enable(true);
    full_buffer buf(4096);
    std::ostream full(&buf);
    r.stream_to(
        full, [&] { return now; }, 10);
    record_run(r, now, [] {});
    CHECK(r.size() < 100); // a failed stream does not make the recorder keep everything
    CHECK_FALSE(r.finish_stream());
    r.clear();
}
