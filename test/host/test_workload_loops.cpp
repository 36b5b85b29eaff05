// Unit tests of the schedule's host loops as the workload reader reads them: the flat list of
// phases, the loops beside it, and every bad loop with its exact message. The driver's side
// (launch counts, `until` read between passes, the `max` failure) is test_schedule_loops.cpp.
// See docs/workloads.md ("Schedule").
#include "test/host/workload_cases.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

// Line 9 is the first schedule entry.
const std::string head = R"(name: t
buffers:
  - {name: a, type: u32, elements: 4}
  - {name: s, type: i8, elements: 2}
kernels:
  - {name: k1, grid: 1, block: 32, program: EXIT}
  - {name: k2, grid: 1, block: 32, program: EXIT}
schedule:
)";

} // namespace

TEST_CASE("loops: the schedule holds each body once and the loops beside it", "[workload]")
{
    const parse_result r = parse_workload_text(
        head + "  - k1\n  - {repeat: [k2, [k1]], times: 3}\n"
               "  - {repeat: [k2], until: {buffer: s, index: 1, equals: -2}, max: 10}\n",
        "w.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    CHECK(r.wl.schedule == std::vector<std::vector<std::size_t>>{{0}, {1}, {0}, {1}});
    REQUIRE(r.wl.loops.size() == 2);
    const loop_decl& t = r.wl.loops[0];
    CHECK((t.first == 1 && t.count == 2 && t.times == 3 && !t.until() && t.entry == 1));
    CHECK(t.where.str() == "w.yaml:10:5");
    const loop_decl& u = r.wl.loops[1];
    CHECK((u.first == 3 && u.count == 1 && u.until() && u.max == 10 && u.entry == 2));
    CHECK((u.buffer == "s" && u.index == 1));
    CHECK((u.equals & 0xff) == 0xfe); // -2 in an i8
    CHECK(r.wl.loop_of(0) == nullptr);
    CHECK(r.wl.loop_of(2) == &r.wl.loops[0]);
    CHECK(r.wl.loop_of(3) == &r.wl.loops[1]);
    // An eviction's phase counts the phases as written (a loop's body once).
    CHECK(errors_of(head + "  - k1\n  - {repeat: [k2], times: 2}\n"
                           "evict: [{buffer: a, phase: 1, after_ns: 10}]\n")
              .empty());
}

TEST_CASE("loops: bad loops, each with position, key path and problem", "[workload]")
{
    struct bad_case {
        std::string schedule; ///< lines after `schedule:` (line 9 on)
        std::vector<std::string> errors;
    };
    const std::vector<bad_case> cases = {
        {"  - {repeat: [k1, k2], times: 0}\n",
         {"w.yaml:9:31: error: schedule[0].times: value out of range (expected 1..1000000, got "
          "0)"}},
        {"  - {repeat: [k1, k2], times: 1000001}\n",
         {"w.yaml:9:31: error: schedule[0].times: value out of range (expected 1..1000000, got "
          "1000001)"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 0, equals: 1}, max: 0}\n",
         {"w.yaml:9:70: error: schedule[0].max: value out of range (expected 1..1000000, got "
          "0)"}},
        {"  - {repeat: [k1, k2], times: 2, until: {buffer: a, index: 0, equals: 1}, max: 3}\n",
         {"w.yaml:9:41: error: schedule[0].until: a loop has either times or until, not both"}},
        {"  - {repeat: [k1, k2]}\n",
         {"w.yaml:9:5: error: schedule[0]: a loop needs times (a count of passes) or until (a "
          "value to wait for) with max"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 0, equals: 1}}\n",
         {"w.yaml:9:5: error: schedule[0]: missing required key 'max'"}},
        {"  - {repeat: [k1, k2], times: 2, max: 3}\n",
         {"w.yaml:9:39: error: schedule[0].max: max goes with until (times is the count)"}},
        {"  - {repeat: [k1, k2], time: 2}\n",
         {"w.yaml:9:24: error: schedule[0].time: unknown key (did you mean 'times'?)",
          "w.yaml:9:5: error: schedule[0]: a loop needs times (a count of passes) or until (a "
          "value to wait for) with max"}},
        {"  - {times: 2}\n", {"w.yaml:9:5: error: schedule[0]: missing required key 'repeat'"}},
        {"  - {repeat: [], times: 2}\n",
         {"w.yaml:9:14: error: schedule[0].repeat: the list is empty"}},
        {"  - {repeat: k1, times: 2}\n",
         {"w.yaml:9:14: error: schedule[0].repeat: wrong type (expected a list, got 'k1')"}},
        {"  - {repeat: [k1, {repeat: [k2], times: 2}], times: 2}\n",
         {"w.yaml:9:19: error: schedule[0].repeat[1]: loops do not nest (a loop's body is a "
          "list of phases)"}},
        {"  - {repeat: [k1, [k2, kk]], times: 2}\n",
         {"w.yaml:9:24: error: schedule[0].repeat[1][1]: undefined kernel 'kk' (did you mean "
          "'k1'?)"}},
        {"  - {repeat: [k1, k2], until: {buffer: aa, index: 0, equals: 1}, max: 3}\n",
         {"w.yaml:9:40: error: schedule[0].until.buffer: undefined buffer 'aa' (did you mean "
          "'a'?)"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 4, equals: 1}, max: 3}\n",
         {"w.yaml:9:50: error: schedule[0].until.index: value out of range (expected 0..3, got "
          "4)"}},
        {"  - {repeat: [k1, k2], until: {buffer: s, index: 0, equals: 200}, max: 3}\n",
         {"w.yaml:9:61: error: schedule[0].until.equals: value out of range (expected "
          "-128..127 for a i8 buffer, got 200)"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 0, equals: 1.5}, max: 3}\n",
         {"w.yaml:9:61: error: schedule[0].until.equals: wrong type (expected an integer for a "
          "u32 buffer, got 1.5)"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 0}, max: 3}\n",
         {"w.yaml:9:31: error: schedule[0].until: missing required key 'equals'"}},
        {"  - {repeat: [k1, k2], until: {buffer: a, index: 0, equals: 1, at: 2}, max: 3}\n",
         {"w.yaml:9:64: error: schedule[0].until.at: unknown key"}},
        {"  - {repeat: [k1, k2], until: 3, max: 3}\n",
         {"w.yaml:9:31: error: schedule[0].until: wrong type (expected a mapping with buffer, "
          "index and equals, got '3')"}},
        // A loop counts as phases for the kernels every phase must run.
        {"  - {repeat: [k1], times: 2}\n",
         {"w.yaml:7:5: error: kernels[1]: kernel 'k2' is in no phase of the schedule, so it "
          "would never run"}},
        // evict's phase counts the phases as written: there are two here.
        {"  - {repeat: [k1, k2], times: 2}\nevict: [{buffer: a, phase: 2, after_ns: 1}]\n",
         {"w.yaml:10:28: error: evict[0].phase: phase 2 does not exist (the schedule has 2 "
          "phases)"}},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i << ":\n" << cases[i].schedule);
        CHECK(errors_of(head + cases[i].schedule) == cases[i].errors);
    }
}
