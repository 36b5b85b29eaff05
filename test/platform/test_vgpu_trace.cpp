// vgpu-trace, the shader-trace decoder binary: an image built by the core (packers, a slot
// buffer under replace, random back-pressure) decodes to the CSV computed here from the
// ground truth; malformed and out-of-order images are refused with the byte offset (exit 2).
#include "models/shader_trace/core/image.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "test/platform/cli_runner.h"
#include "test/shader_trace_core/stream_model.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

using namespace vgpu::shader_trace;
using vgpu::test::cli_runner;

namespace {
std::string run_trace(const cli_runner& cli, const std::string& args, int& code)
{
    const std::string cmd = "cd '" + cli.dir().string() + "' && '" VGPU_TRACE_PATH "' " + args +
                            " >stdout.txt 2>stderr.txt";
    const int st = std::system(cmd.c_str());
    code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return cli.read("stderr.txt");
}

void save(const cli_runner& cli, const std::string& name, const std::vector<std::uint8_t>& b)
{
    std::ofstream(cli.dir() / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
} // namespace

TEST_CASE("vgpu-trace: an image decodes to the ground truth as CSV, with gaps")
{
    const std::uint32_t seed = 4242;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    image im;
    im.tokens_per_group = 4;
    im.cycle_ps = 1250; // 800 MHz
    im.sources = {{source_kind::ce, 0, 0}, {source_kind::isu, 3, 0}, {source_kind::isu, 7, 0}};
    // The unit in miniature (test/shader_trace_core/stream_model.h): 2 slots under replace,
    // a SYNC every 3 groups, a write engine held at random.
    vgpu::shader_trace::test::stream_model m(3, 4, 2, full_policy::replace,
                                             victim_policy::lowest_priority, 3);
    std::vector<std::uint64_t> now(3, 0);
    for (int i = 0; i < 300; ++i) {
        decoded_event e;
        e.source = rng() % 3;
        now[e.source] += rng() % 5 == 0 ? 1000 : rng() % 30;
        e.time = now[e.source];
        e.warp = rng() % 32;
        e.what = static_cast<event>(rng() % 9);
        e.arg = static_cast<std::uint32_t>(rng());
        m.add(e);
        if (rng() % 3 == 0)
            m.write_one(false);
    }
    m.drain();
    im.tokens = m.memory;
    for (unsigned s = 0; s < 3; ++s)
        im.sources[s].dropped_tokens = m.lost[s]; // any count: the header is informative
    // The CSV expected from the ground truth, stably in time order (a gap keeps its place
    // before the events that follow the SYNC it ends at).
    std::vector<std::pair<std::uint64_t, std::string>> rows;
    unsigned gaps = 0, unreadable = 0;
    auto ns = [&](std::uint64_t cycles) {
        const std::uint64_t ps = cycles * 1250;
        char b[40];
        std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                      static_cast<unsigned long long>(ps % 1000));
        return std::string(b);
    };
    for (const decoded_event& e : m.expected()) {
        const unsigned s = e.source;
        const std::string src = s == 0 ? "CE" : "ISU";
        const std::string sm = s == 0 ? "" : s == 1 ? "3" : "7";
        if (e.is_gap) {
            ++gaps;
            unreadable += e.unreadable != 0;
            rows.emplace_back(e.time, ns(e.time) + ',' + src + ',' + sm + ",,gap,,," +
                                          std::to_string(e.lost_groups) + ',' +
                                          std::to_string(e.unreadable) + '\n');
            continue;
        }
        const bool user = e.what == event::user;
        rows.emplace_back(e.time, ns(e.time) + ',' + src + ',' + sm + ',' +
                                      (s ? std::to_string(e.warp) : "") + ',' + name(e.what) + ',' +
                                      (user ? std::to_string(e.arg) : "") + ',' +
                                      (user ? "" : std::to_string(e.arg)) + ",,\n");
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::ostringstream want;
    want << "time_ns,source,sm,warp,event,opcode,arg,lost,unreadable\n";
    for (const auto& row : rows)
        want << row.second;
    CHECK(gaps > 0);       // the case covers lost groups
    CHECK(unreadable > 0); // and events that reached memory after a loss, before the SYNC
    cli_runner cli("vgpu_trace");
    save(cli, "shader_trace.bin", encode_image(im));
    int code = -1;
    const std::string err = run_trace(
        cli, "shader_trace.bin --csv events.csv --json events.json --perfetto t.json", code);
    INFO(err);
    REQUIRE(code == 0);
    CHECK(cli.read("events.csv") == want.str());
    CHECK(cli.exists("events.json"));
    CHECK(cli.read("t.json").find("traceEvents") != std::string::npos);
}

TEST_CASE("vgpu-trace: a malformed or truncated image is refused with the byte offset")
{
    image im;
    im.tokens_per_group = 2;
    im.sources = {{source_kind::rm, 0, 0}};
    im.tokens = {make_sync(0, 0, 0, 10), make_event(0, event::cta_dispatch, 0, 1, 5)};
    std::vector<std::uint8_t> b = encode_image(im);
    cli_runner cli("vgpu_trace_bad");
    int code = -1;
    // Truncated: the last token is cut.
    std::vector<std::uint8_t> cut(b.begin(), b.end() - 3);
    save(cli, "cut.bin", cut);
    std::string err = run_trace(cli, "cut.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("cut.bin: offset 56: truncated tokens (1 of 2)") != std::string::npos);
    // A token of an unknown kind (token 1 at byte 64).
    std::vector<std::uint8_t> bad = b;
    bad[64 + 7] = 0x60; // kind 3
    save(cli, "bad.bin", bad);
    err = run_trace(cli, "bad.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("offset 64: unknown token kind 3") != std::string::npos);
    // Groups out of order: the SYNC of group 1 right after group 0's only event, which
    // the chain check does not cover (token 2 at byte 72).
    image swapped = im;
    swapped.tokens = {make_sync(0, 0, 0, 10), make_event(0, event::cta_dispatch, 0, 1, 5),
                      make_sync(0, 2, 0, 20), make_event(0, event::cta_retire, 0, 1, 5)};
    save(cli, "swapped.bin", encode_image(swapped));
    err = run_trace(cli, "swapped.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("offset 72: source 0: the stream is out of order") != std::string::npos);
    // A version 1 image (an absolute header in every group) is refused, not misread.
    std::vector<std::uint8_t> v1 = b;
    v1[8] = 1;
    save(cli, "v1.bin", v1);
    err = run_trace(cli, "v1.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("offset 8: unsupported version 1") != std::string::npos);
    // Not an image at all.
    save(cli, "junk.bin", {1, 2, 3});
    err = run_trace(cli, "junk.bin", code);
    CHECK(code == 2);
    CHECK(err.find("offset 0: truncated header") != std::string::npos);
}
