// End to end: the schedule's host loops run by vgpu-sim. A one-thread kernel counts its
// launches in memory and sets a flag when the count reaches K; the records in stats.json
// (one per launch, in order, with their pass) must show exactly the launches the loop's
// contract gives: `times` N passes, `until` the first pass that sets the flag (a do-while:
// at least one), and a loop that never meets its condition stops at `max` with exit 1 and a
// message naming the loop and the value last read. See docs/workloads.md ("Schedule").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

using vgpu::test::cli_runner;

namespace {

// step: c[0] += 1; c[1] = c[0] >= k. tally: t[0] += 1. The loop is line 38 col 5.
const std::string workload_head = R"(name: loops
vars: {k: 5, max: 50, times: 4}
buffers:
  - {name: c, type: u32, elements: 2}
  - {name: t, type: u32, elements: 1}
kernels:
  - name: step
    params:
      - {name: c, buffer: c}
      - {name: k, value: "${k}"}
    grid: 1
    block: 1
    program: |
      # c[0] += 1; c[1] = (c[0] >= k)
              LDP  R1, c
              LDP  R4, k
              LD   R2, [R1]
              IADD R2, R2, 1
              ST   [R1], R2
              ISETP.GE P0, R2, R4
              MOV  R3, 0
      @P0     MOV  R3, 1
              ST   [R1 + 4], R3
              EXIT
  - name: tally
    params:
      - {name: t, buffer: t}
    grid: 1
    block: 1
    program: |
      # t[0] += 1
              LDP  R1, t
              LD   R2, [R1]
              IADD R2, R2, 1
              ST   [R1], R2
              EXIT
schedule:
)";

/// (name, phase, pass) of each record of stats.json's `kernels` (or `phases`).
std::vector<std::tuple<std::string, unsigned, unsigned>> records(const nlohmann::json& list)
{
    std::vector<std::tuple<std::string, unsigned, unsigned>> out;
    for (const auto& r : list)
        out.emplace_back(r.at("name").get<std::string>(), r.at("phase").get<unsigned>(),
                         r.at("pass").get<unsigned>());
    return out;
}

nlohmann::json stats_of(const cli_runner& cli, const std::string& out)
{
    return nlohmann::json::parse(cli.read(out + "/stats.json"));
}

} // namespace

TEST_CASE("until: the loop runs until the flag is set, one record per launch", "[schedule]")
{
    cli_runner cli("loops_until");
    cli.write("w.yaml", workload_head +
                            "  - {repeat: [step, [tally]], until: {buffer: c, index: 1, equals: "
                            "1}, max: \"${max}\"}\n  - tally\nchecks:\n"
                            "  - {buffer: c, expect: [\"${k}\", 1]}\n"
                            "  - {buffer: t, expect: [\"${k + 1}\"]}\n");
    for (unsigned k : {1u, 3u, 7u}) {
        for (const char* mode : {"fast", "accurate"}) {
            INFO("k = " << k << ", " << mode);
            const std::string out = "out_" + std::to_string(k) + mode;
            const auto r = cli.run("-w w.yaml -o " + out + " -D k=" + std::to_string(k) +
                                   " -s platform.timing.mode=" + mode);
            INFO(r.err);
            REQUIRE(r.code == 0);
            const nlohmann::json j = stats_of(cli, out);
            // The reference: K passes of (step, tally), then tally alone (phase 2).
            std::vector<std::tuple<std::string, unsigned, unsigned>> want;
            for (unsigned p = 0; p < k; ++p) {
                want.emplace_back("step", 0, p);
                want.emplace_back("tally", 1, p);
            }
            want.emplace_back("tally", 2, 0);
            CHECK(records(j.at("kernels")) == want);
            CHECK(records(j.at("phases")) == want); // each phase has one kernel here
            CHECK(j.at("stats").at("gpu.host.kernels").get<double>() == 2.0 * k + 1);
        }
    }
}

TEST_CASE("times: the loop runs exactly N passes", "[schedule]")
{
    cli_runner cli("loops_times");
    // k is never reached: the flag stays 0 and only the count ends the loop.
    cli.write("w.yaml", workload_head + "  - tally\n  - {repeat: [step], times: \"${times}\"}\n"
                                        "checks:\n  - {buffer: c, expect: [\"${times}\", 0]}\n");
    for (unsigned n : {1u, 4u, 9u}) {
        INFO("times = " << n);
        const std::string out = "out_" + std::to_string(n);
        const auto r = cli.run("-w w.yaml -o " + out + " -D k=1000 -D times=" + std::to_string(n));
        INFO(r.err);
        REQUIRE(r.code == 0);
        std::vector<std::tuple<std::string, unsigned, unsigned>> want{{"tally", 0, 0}};
        for (unsigned p = 0; p < n; ++p)
            want.emplace_back("step", 1, p);
        CHECK(records(stats_of(cli, out).at("kernels")) == want);
    }
}

TEST_CASE("until: a loop that never meets its condition stops at max and fails", "[schedule]")
{
    cli_runner cli("loops_max");
    cli.write("w.yaml", workload_head +
                            "  - {repeat: [step, [tally]], until: {buffer: c, index: 1, equals: "
                            "1}, max: \"${max}\"}\n  - tally\n");
    const auto r = cli.run("-w w.yaml -o out -D k=1000 -D max=4");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("vgpu-sim: FAIL: w.yaml:38:5: schedule[0]: the loop stopped after its max "
                     "of 4 passes without its condition: c[1] was 0 after the last pass, not "
                     "1\n") != std::string::npos);
    std::vector<std::tuple<std::string, unsigned, unsigned>> want;
    for (unsigned p = 0; p < 4; ++p) {
        want.emplace_back("step", 0, p);
        want.emplace_back("tally", 1, p);
    }
    CHECK(records(stats_of(cli, "out").at("kernels")) == want); // the last tally never ran
    // Met on the last pass allowed: not a failure.
    CHECK(cli.run("-w w.yaml -o out2 -D k=4 -D max=4").code == 0);
}
