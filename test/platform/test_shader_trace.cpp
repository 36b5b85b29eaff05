// The shader-trace unit on the GPU (seed 000): the decoded OUTDIR/shader_trace.bin holds one
// event per warp start and exit, TRACE instruction, barrier, CTA and kernel that ran; a
// throttled trace path stalls the SMs under `stall` and loses counted groups under `replace`.
// See models/shader_trace/README.md.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/group_buffer.h"
#include "models/shader_trace/core/image.h"
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>

using vgpu::test::cli_runner;
using namespace vgpu::shader_trace;

namespace {
const std::string workloads = VGPU_SOURCE_DIR "/testbenches/workloads/";
const std::string traced = "-w " + workloads + "trace_events.yaml -s shader_trace.enable=true ";
/// Slow trace path: 2 slots, one write in flight, at most one write per 100 cycles.
const std::string throttled = "-s shader_trace.slots=2 -s shader_trace.writes_in_flight=1 "
                              "-s shader_trace.write_interval_cycles=100 ";

/// A run's decoded trace with what the image says besides the events.
struct decoded_run {
    vgpu::test::stats_run run;
    image im;
    std::vector<decoded_event> events;
    std::uint64_t dropped = 0, tokens = 0, gaps = 0;
    std::map<std::string, unsigned> count; ///< by event name ("user 2" for TRACE 2)
    double sum(const std::string& suffix) const
    {
        double s = 0;
        for (const auto& [k, v] : run.stats.items())
            if (k.size() >= suffix.size() &&
                k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
                s += v.get<double>();
        return s;
    }
};

decoded_run run_traced(const cli_runner& cli, const std::string& args)
{
    decoded_run d;
    d.run = vgpu::test::run_with_stats(cli, args);
    INFO(d.run.r.err);
    REQUIRE(d.run.r.code == 0);
    REQUIRE(cli.exists("out/shader_trace.bin"));
    const std::string bytes = cli.read("out/shader_trace.bin");
    std::string err;
    d.im = decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), err);
    REQUIRE(err.empty());
    const decode_result r = decode(d.im.tokens, d.im.tokens_per_group);
    REQUIRE(r.ok());
    d.events = r.events;
    for (const auto& s : d.im.sources)
        d.dropped += s.dropped_tokens;
    for (std::uint64_t t : d.im.tokens)
        d.tokens += t != 0;
    for (const auto& e : d.events) {
        if (e.is_gap)
            ++d.gaps;
        else
            ++d.count[e.what == event::user ? "user " + std::to_string(e.arg) : name(e.what)];
    }
    return d;
}

/// What every complete trace of trace_events.yaml (16 CTAs of 4 warps, 4 iterations) holds.
void check_complete(const decoded_run& d)
{
    CHECK(d.dropped == 0);
    CHECK(d.gaps == 0);
    CHECK(d.count.at("kernel_begin") == 1);
    CHECK(d.count.at("kernel_end") == 1);
    CHECK(d.count.at("cta_dispatch") == 16);
    CHECK(d.count.at("cta_retire") == 16);
    CHECK(d.count.at("warp_start") == 64);
    CHECK(d.count.at("warp_exit") == 64);
    CHECK(d.count.at("barrier_arrive") == 256);
    CHECK(d.count.at("barrier_release") == 256);
    CHECK(d.count.at("user 1") == 64);
    CHECK(d.count.at("user 2") == 256);
    CHECK(d.count.at("user 3") == 64);
    // TRACE events = TRACE instructions the SMs executed.
    CHECK(d.count.at("user 1") + d.count.at("user 2") + d.count.at("user 3") ==
          d.sum(".trace_events"));
    CHECK(d.tokens == d.run.stat("gpu.trace_unit.tokens"));
}
} // namespace

TEST_CASE("shader trace: the decoded trace holds every warp, TRACE, barrier, CTA and kernel, "
          "at its time, in both modes")
{
    for (const char* mode : {"fast", "accurate"}) {
        CAPTURE(mode);
        cli_runner cli(std::string("strace_") + mode);
        const decoded_run d =
            run_traced(cli, traced + "-s platform.timing.mode=" + std::string(mode));
        check_complete(d);
        const auto kernels = nlohmann::json::parse(cli.read("out/stats.json"))["kernels"];
        REQUIRE(kernels.size() == 1);
        const std::uint64_t cycle_ps = d.im.cycle_ps;
        std::uint64_t begin = 0, end = 0;
        std::map<unsigned, std::uint64_t> last; // per source: time order
        std::map<std::pair<unsigned, unsigned>, std::vector<event>> per_warp;
        std::set<std::uint32_t> dispatched, retired;
        for (const auto& e : d.events) {
            CHECK(e.time >= last[e.source]);
            last[e.source] = e.time;
            if (e.what == event::kernel_begin)
                begin = e.time;
            if (e.what == event::kernel_end)
                end = e.time;
            if (e.what == event::cta_dispatch)
                dispatched.insert(e.arg);
            if (e.what == event::cta_retire)
                retired.insert(e.arg);
            if (d.im.sources[e.source].kind == source_kind::isu)
                per_warp[{d.im.sources[e.source].sm, e.warp}].push_back(e.what);
        }
        // The CE's times are the kernel record's window.
        CHECK(static_cast<double>(begin * cycle_ps) / 1000.0 ==
              Approx(kernels[0]["start_ns"].get<double>()).margin(cycle_ps / 1000.0));
        CHECK(static_cast<double>(end * cycle_ps) / 1000.0 ==
              Approx(kernels[0]["end_ns"].get<double>()).margin(cycle_ps / 1000.0));
        CHECK(dispatched.size() == 16);
        CHECK(retired == dispatched);
        for (const auto& e : d.events)
            if (d.im.sources[e.source].kind == source_kind::isu) {
                CHECK(e.time >= begin);
                CHECK(e.time <= end);
            }
        // Each warp slot's life: start, TRACE 1, then per iteration TRACE 2, arrive, release,
        // then TRACE 3 and exit (a slot may run several warps one after another).
        for (const auto& [key, seq] : per_warp) {
            CAPTURE(key.first, key.second);
            REQUIRE(seq.size() % 16 == 0);
            for (std::size_t i = 0; i < seq.size(); ++i) {
                const std::size_t k = i % 16;
                const event want = k == 0    ? event::warp_start
                                   : k == 15 ? event::warp_exit
                                   : k == 1 || k == 14
                                       ? event::user
                                       : std::array<event, 3>{event::user, event::barrier_arrive,
                                                              event::barrier_release}[(k - 2) % 3];
                CHECK(seq[i] == want);
            }
        }
    }
}

TEST_CASE("shader trace: one kernel_begin and kernel_end per launch of a multi-kernel schedule")
{
    cli_runner cli("strace_multi");
    const auto r = vgpu::test::run_with_stats(
        cli, "-w " + workloads + "multi_kernel.yaml -s shader_trace.enable=true");
    REQUIRE(r.r.code == 0);
    const auto kernels = nlohmann::json::parse(cli.read("out/stats.json"))["kernels"];
    const std::string bytes = cli.read("out/shader_trace.bin");
    std::string err;
    const image im = decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), err);
    REQUIRE(err.empty());
    const decode_result d = decode(im.tokens, im.tokens_per_group);
    REQUIRE(d.ok());
    std::set<std::uint32_t> begins, ends;
    for (const auto& e : d.events) {
        if (!e.is_gap && e.what == event::kernel_begin)
            CHECK(begins.insert(e.arg).second);
        if (!e.is_gap && e.what == event::kernel_end)
            CHECK(ends.insert(e.arg).second);
    }
    CHECK(kernels.size() > 1);
    CHECK(begins.size() == kernels.size());
    CHECK(ends == begins);
}

TEST_CASE("shader trace: a throttled trace path under stall loses nothing and stalls the SMs")
{
    cli_runner fast_path("strace_free"), slow_path("strace_stall");
    const decoded_run free = run_traced(fast_path, traced);
    const decoded_run slow = run_traced(slow_path, traced + throttled);
    check_complete(slow);
    CHECK(slow.sum(".trace_stall_cycles") > 0);
    CHECK(slow.run.stat("gpu.trace_unit.stall_cycles") > 0);
    const auto t = [](const cli_runner& c) {
        return nlohmann::json::parse(c.read("out/stats.json"))["kernels"][0]["cycles"]
            .get<double>();
    };
    CHECK(t(slow_path) > t(fast_path));
}

TEST_CASE("shader trace: a throttled trace path under replace drops, counts and marks the gaps")
{
    cli_runner cli("strace_replace");
    const decoded_run d =
        run_traced(cli, traced + throttled + "-s shader_trace.full_policy=replace");
    CHECK(d.dropped > 0);
    CHECK(d.gaps > 0);
    CHECK(d.run.stat("gpu.trace_unit.groups_replaced") > 0);
    // Nothing unaccounted: tokens in memory + tokens dropped = tokens packed.
    CHECK(d.tokens + d.dropped == d.run.stat("gpu.trace_unit.tokens"));
    CHECK(d.sum(".trace_stall_cycles") == 0);
}

TEST_CASE("shader trace: under replace with victim same_source, the groups dropped (claim 5) "
          "are counted with their tokens")
{
    cli_runner cli("strace_same_source");
    const decoded_run d = run_traced(cli, traced + throttled +
                                              "-s shader_trace.full_policy=replace "
                                              "-s shader_trace.victim=same_source");
    CHECK(d.run.stat("gpu.trace_unit.groups_dropped") > 0);
    CHECK(d.tokens + d.dropped == d.run.stat("gpu.trace_unit.tokens"));
}

TEST_CASE("shader trace: under replace the issue's big run replaces more groups than it drops, "
          "with SYNC tokens at most 2 % of the trace")
{
    // Issue 35 item 5: with slots held until their writes completed, this run dropped more
    // groups (claim 5) than it replaced; a slot is free once its write is issued now.
    cli_runner cli("strace_big");
    const decoded_run d = run_traced(cli, traced + "-D ctas=128 -D threads=256 -D iters=16 "
                                                   "-s shader_trace.full_policy=replace");
    CHECK(d.run.stat("gpu.trace_unit.groups_replaced") >
          d.run.stat("gpu.trace_unit.groups_dropped"));
    const double syncs = d.run.stat("gpu.trace_unit.sync_tokens");
    CHECK(syncs > 0);
    CHECK(syncs * 50 <= d.run.stat("gpu.trace_unit.tokens"));
    CHECK(d.tokens + d.dropped == d.run.stat("gpu.trace_unit.tokens"));
}

TEST_CASE("shader trace: wrap mode keeps the newest groups and counts the overwritten ones")
{
    cli_runner cli("strace_wrap");
    const decoded_run d =
        run_traced(cli, traced + "-s shader_trace.region_bytes=4096 -s shader_trace.mode=wrap");
    CHECK(d.im.tokens.size() == 4096 / 8);
    CHECK(d.run.stat("gpu.trace_unit.overwritten_groups") > 0);
    CHECK(d.dropped > 0);
    CHECK(d.tokens + d.dropped == d.run.stat("gpu.trace_unit.tokens"));
    CHECK(d.count.count("kernel_end") == 1); // the newest events survive
}

TEST_CASE("shader trace: off by default, and its bad settings are configuration errors")
{
    cli_runner cli("strace_cfg");
    const auto off = vgpu::test::run_with_stats(cli, "-w " + workloads + "trace_events.yaml");
    REQUIRE(off.r.code == 0);
    CHECK_FALSE(cli.exists("out/shader_trace.bin"));
    CHECK(off.stat("gpu.trace_unit.events") == -1);
    for (const auto& [arg, text] : std::vector<std::pair<std::string, std::string>>{
             {"-s shader_trace.token_bits=32", "shader_trace.token_bits"},
             {"-s shader_trace.sources=ce,isux", "did you mean 'isu'"},
             {"-s shader_trace.sources=ce,ce", "listed twice"},
             {"-s shader_trace.region_bytes=100", "not a whole number of groups"},
             {"-s shader_trace.write_bits=2048", "must fit in a line"},
             {"-s shader_trace.full_policy=drop", "shader_trace.full_policy"},
             {"-s shader_trace.sync_interval=0", "shader_trace.sync_interval"}}) {
        CAPTURE(arg);
        const auto r = cli.run(traced + arg);
        CHECK(r.code == 2);
        CHECK(r.err.find(text) != std::string::npos);
    }
}

TEST_CASE("shader trace: impl rtl in a build without verilator is a located configuration error")
{
    if (outlis_rtl_built()) // test/shader_trace_impl checks the message in this build
        return;
    cli_runner cli("strace_no_rtl");
    const auto r = cli.run(traced + "-s shader_trace.impl=rtl");
    CHECK(r.code == 2);
    CHECK(r.err.substr(0, r.err.find('\n')) ==
          "-s shader_trace.impl=rtl: error: shader_trace.impl: rtl needs the verilated OUTLis "
          "buffer, which this build does not have (verilator was not found when it was "
          "configured): install verilator 5 (the Debian package 'verilator'; scripts/test "
          "installs it) and configure the build again, or set shader_trace.impl to tlm");
}
