// Shell tests of noc::occupancy_probe: changes booked ahead reach the waveform sink and the
// trace.json counter track at their own times, and the probe never touches the simulation.
// See models/noc/occupancy_probe.h.
#include "models/noc/occupancy_probe.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr std::uint64_t ns = 1000; // picoseconds

/// A parent for the probe (the process of its counter track) and one thread running `body`.
struct bench : sc_core::sc_module {
    noc::occupancy_probe probe;
    std::function<void(bench&)> body;
    bool done = false;
    bench(const sc_core::sc_module_name& n, bool bit) : sc_module(n), probe("busy", bit)
    {
        SC_HAS_PROCESS(bench);
        SC_THREAD(run);
    }
    void run()
    {
        body(*this);
        done = true;
    }
};

/// A waveform sink that keeps what it is given.
struct recording_sink : trace::level_sink {
    std::vector<std::pair<std::string, bool>> levels;
    std::vector<std::tuple<unsigned, std::uint64_t, int>> steps;
    unsigned add_level(const std::string& name, bool bit) override
    {
        levels.emplace_back(name, bit);
        return static_cast<unsigned>(levels.size() - 1);
    }
    void step_level(unsigned id, std::uint64_t at_ps, int delta) override
    {
        steps.emplace_back(id, at_ps, delta);
    }
};

using changes = std::vector<std::pair<std::uint64_t, double>>;

/// (time in ps, value) of the counter events of process `process`.
changes counter_events(const std::string& process)
{
    const auto doc = nlohmann::json::parse(trace::recorder::instance().to_json());
    int pid = 0;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == process)
            pid = e["pid"].get<int>();
    changes out;
    for (const auto& e : doc["traceEvents"])
        if (e["ph"] == "C" && e["pid"] == pid) {
            CHECK(e["name"] == "busy");
            out.emplace_back(static_cast<std::uint64_t>(e["ts"].get<double>() * 1e6 + 0.5),
                             e["args"]["value"].get<double>());
        }
    return out;
}

} // namespace

TEST_CASE("occupancy probe: overlapping intervals booked ahead add up at their own times")
{
    trace::recorder::instance().clear();
    trace::recorder::instance().enable(true);
    bench tb("top", false);
    recording_sink sink;
    tb.probe.attach(sink);
    tb.body = [&](bench& b) {
        CHECK(b.probe.active());
        b.probe.add(10 * ns, 30 * ns);
        b.probe.add(20 * ns, 40 * ns);
        b.probe.add(40 * ns, 40 * ns); // empty: nothing
        sc_core::wait(45, SC_NS);
        b.probe.add(30 * ns, 60 * ns); // starts in the past: counts from now
        b.probe.step(50 * ns, +2);
        b.probe.step(55 * ns, -2);
        b.probe.add(60 * ns, 70 * ns); // back to back with the previous one
    };
    sc_core::sc_start();
    REQUIRE(tb.done);
    // The probe schedules nothing: the simulation ends with the thread.
    CHECK(sc_core::sc_time_stamp() == sc_time(45, SC_NS));
    CHECK(sink.levels == std::vector<std::pair<std::string, bool>>{{"top.busy", false}});
    CHECK(sink.steps == std::vector<std::tuple<unsigned, std::uint64_t, int>>{{0, 10 * ns, +1},
                                                                              {0, 30 * ns, -1},
                                                                              {0, 20 * ns, +1},
                                                                              {0, 40 * ns, -1},
                                                                              {0, 45 * ns, +1},
                                                                              {0, 60 * ns, -1},
                                                                              {0, 50 * ns, +2},
                                                                              {0, 55 * ns, -2},
                                                                              {0, 60 * ns, +1},
                                                                              {0, 70 * ns, -1}});
    // The counter track: the level over time, one event per change, from 0 at time 0.
    CHECK(counter_events("top") == changes{{0, 0},
                                           {10 * ns, 1},
                                           {20 * ns, 2},
                                           {30 * ns, 1},
                                           {40 * ns, 0},
                                           {45 * ns, 1},
                                           {50 * ns, 3},
                                           {55 * ns, 1},
                                           {70 * ns, 0}});
}

TEST_CASE("occupancy probe: a 1-bit probe's counter shows busy and idle, not the level")
{
    trace::recorder::instance().clear();
    trace::recorder::instance().enable(true);
    bench tb("top", true);
    tb.body = [&](bench& b) {
        b.probe.add(0, 5 * ns);
        b.probe.add(10 * ns, 20 * ns);
        b.probe.add(15 * ns, 25 * ns); // overlapping: still just busy
        b.probe.add(25 * ns, 30 * ns); // back to back: no idle instant
    };
    sc_core::sc_start();
    REQUIRE(tb.done);
    CHECK(counter_events("top") == changes{{0, 1}, {5 * ns, 0}, {10 * ns, 1}, {30 * ns, 0}});
}

TEST_CASE("occupancy probe: without a waveform or trace events it follows nothing")
{
    trace::recorder::instance().clear();
    trace::recorder::instance().enable(false);
    bench tb("top", false);
    tb.body = [&](bench& b) {
        CHECK_FALSE(b.probe.active());
        b.probe.add(0, 10 * ns);
        b.probe.step(0, +1);
    };
    sc_core::sc_start();
    REQUIRE(tb.done);
    trace::recorder::instance().enable(true);
    CHECK(counter_events("top").empty());
}
