// Unit tests of a workload's checks against the platform: SM ranges, warp slots, queues, program
// size and simulated time. See docs/workloads.md ("Limits").
#include "test/host/workload_cases.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("check_against_platform: SM ranges, warp slots, overlap of 'all SMs'", "[workload]")
{
    const auto r = parse_workload_text(R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: 1, block: 1024, sms: {first: 6, count: 4}, program: EXIT}
  - {name: k2, grid: 1, block: 32, sms: {first: 8}, program: EXIT}
  - {name: k3, grid: 1, block: 32, sms: {first: 2}, program: EXIT}
  - {name: k4, grid: 1, block: 32, sms: {first: 0, count: 2}, program: EXIT}
schedule: [[k3, k4], [k1], [k2]]
)",
                                       "p.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    CHECK(check_against_platform(r.wl, 8, 16) ==
          std::vector<std::string>{
              "p.yaml:4:5: error: kernels[0].sms: kernel 'k1' uses SMs 6..9 but the platform has "
              "8 SMs (0..7)",
              "p.yaml:4:5: error: kernels[0].block: kernel 'k1' has 32 warps per CTA but an SM "
              "has 16 warp slots",
              "p.yaml:5:5: error: kernels[1].sms: kernel 'k2' uses SMs 8..last but the platform "
              "has 8 SMs (0..7)"});
    CHECK(check_against_platform(r.wl, 16, 32).empty());
}

TEST_CASE("check_against_platform with limits: queues, program size, simulated time", "[workload]")
{
    const auto r = parse_workload_text(R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: [100, 10], block: 64, sms: {first: 0, count: 4}, program: EXIT}
  - {name: k2, grid: 7, block: 32, sms: {first: 4, count: 4}, program: "NOP\nEXIT"}
schedule:
  - [k1, k2]
  - [k2]
)",
                                       "p.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    REQUIRE(r.wl.schedule_where.size() == 2);
    CHECK(r.wl.schedule_where[0].str() == "p.yaml:7:5");
    platform_limits lim;
    lim.num_sms = 8;
    lim.warp_slots = 32;
    lim.core_period_ps = 500;
    lim.dispatch_latency = 100;
    lim.cta_dispatch_interval = 10;
    CHECK(check_against_platform(r.wl, lim).empty());

    // By hand: k1 has 1000 CTAs of 2 warps on 4 SMs, so one SM gets 250: the dispatch bound
    // 249 x 10 + 1 = 2491 cycles beats the issue bound 250 x 2 = 500; plus 100 of latency.
    CHECK(min_kernel_ps(r.wl.kernels[0], 4, lim) == 2591ull * 500);
    // k2: 7 CTAs of 1 warp on 4 SMs: 2 per SM, max(1 x 10 + 1, 2 x 1) + 100 = 111 cycles.
    CHECK(min_kernel_ps(r.wl.kernels[1], 4, lim) == 111ull * 500);
    lim.cta_dispatch_interval = 0; // the issue bound: 250 x 2 + 100
    CHECK(min_kernel_ps(r.wl.kernels[0], 4, lim) == 600ull * 500);
    lim.cta_dispatch_interval = 10;

    platform_limits one_queue = lim;
    one_queue.queues = 1;
    CHECK(check_against_platform(r.wl, one_queue) ==
          std::vector<std::string>{"p.yaml:7:5: error: schedule[0]: the phase runs 2 kernels side "
                                   "by side but the CP has 1 queue(s) (cp.queues)"});

    platform_limits short_programs = lim;
    short_programs.max_program_bytes = 16; // one instruction
    CHECK(check_against_platform(r.wl, short_programs) ==
          std::vector<std::string>{"p.yaml:5:73: error: kernels[1].program: kernel 'k2' has 2 "
                                   "instructions but an SM loads programs of at most 1 (16 "
                                   "bytes)"});

    platform_limits short_time = lim;
    short_time.max_time_ps = 2591ull * 500 - 1; // k1 alone needs 2591 cycles
    CHECK(check_against_platform(r.wl, short_time) ==
          std::vector<std::string>{
              "p.yaml:4:5: error: kernels[0].grid: 1000 CTAs of 2 warp(s) on 4 SMs take at least "
              "1.3 us of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = 10 "
              "cycles and issues one warp-instruction per cycle), more than platform.max_time "
              "(1295499 ps)"});
    platform_limits short_timeout = short_time;
    short_timeout.kernel_timeout_ps = 1000000; // 1 us, met before max_time
    CHECK(check_against_platform(r.wl, short_timeout)
              .front()
              .find("more than host.kernel_timeout (1 us)") != std::string::npos);
    // Each kernel fits, but the two phases together (2591 + 111 cycles) do not.
    platform_limits short_run = lim;
    short_run.max_time_ps = 2700ull * 500;
    CHECK(check_against_platform(r.wl, short_run) ==
          std::vector<std::string>{"p.yaml:7:5: error: schedule: the 2 phases take at least "
                                   "1.35 us of simulated time, more than platform.max_time "
                                   "(1350 ns)"});
}

TEST_CASE("check_against_platform: a loop's phases count once per pass in the time check",
          "[workload]")
{
    // Phase 0: k1 (2591 cycles, see above) beside k2; the loop's phase: k2 (111 cycles).
    const std::string head = R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: [100, 10], block: 64, sms: {first: 0, count: 4}, program: EXIT}
  - {name: k2, grid: 7, block: 32, sms: {first: 4, count: 4}, program: "NOP\nEXIT"}
schedule:
  - [k1, k2]
)";
    platform_limits lim;
    lim.num_sms = 8;
    lim.warp_slots = 32;
    lim.core_period_ps = 500;
    lim.dispatch_latency = 100;
    lim.cta_dispatch_interval = 10;
    lim.max_time_ps = 3000ull * 500; // 2591 + 111 fits, 2591 + 10 x 111 = 3701 does not
    const auto times = parse_workload_text(head + "  - {repeat: [k2], times: 10}\n", "p.yaml");
    REQUIRE(times.ok());
    CHECK(check_against_platform(times.wl, lim) ==
          std::vector<std::string>{"p.yaml:7:5: error: schedule: the 2 phases (with their loops' "
                                   "passes) take at least 1.85 us of simulated time, more than "
                                   "platform.max_time (1500 ns)"});
    const auto once = parse_workload_text(head + "  - {repeat: [k2], times: 1}\n", "p.yaml");
    REQUIRE(once.ok());
    CHECK(check_against_platform(once.wl, lim).empty());
    // An until loop may end after its first pass: it counts once, whatever its max.
    const auto until = parse_workload_text(
        head + "  - {repeat: [k2], until: {buffer: a, index: 0, equals: 1}, max: 1000}\n",
        "p.yaml");
    REQUIRE(until.ok());
    CHECK(check_against_platform(until.wl, lim).empty());
}
