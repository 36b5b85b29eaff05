// vgpu-trace, the shader-trace decoder binary: an image built by the core (packers, a slot
// buffer under replace, random back-pressure) decodes to the CSV computed here from the
// ground truth; malformed images are refused with the byte offset (exit 2).
#include "models/shader_trace/core/image.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "test/platform/cli_runner.h"

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
    slot_buffer buf(2, 3, full_policy::replace, victim_policy::lowest_priority);
    std::vector<packer> packers = {packer(0, 4), packer(1, 4), packer(2, 4)};
    struct truth_event {
        std::uint64_t cycles;
        unsigned source, warp;
        event what;
        std::uint32_t arg;
    };
    std::map<std::pair<unsigned, std::uint64_t>, std::vector<truth_event>> groups;
    std::vector<std::vector<truth_event>> open(3);
    std::vector<std::uint64_t> produced(3, 0), now(3, 0);
    std::vector<group> out;
    auto collect = [&](unsigned s) {
        for (group& g : out) {
            unsigned n = 0;
            for (std::uint64_t t : g)
                n += kind_of(t) == token_kind::event;
            groups[{s, produced[s]++}].assign(open[s].begin(), open[s].begin() + n);
            open[s].erase(open[s].begin(), open[s].begin() + n);
            const store_result r = buf.store(s, std::move(g));
            if (r.what == store_result::kind::replaced)
                im.sources[r.victim_source].dropped_tokens += 4;
        }
        out.clear();
    };
    for (int i = 0; i < 300; ++i) {
        const unsigned s = rng() % 3;
        now[s] += rng() % 5 == 0 ? 1000 : rng() % 30;
        truth_event e{now[s], s, static_cast<unsigned>(rng() % 32), static_cast<event>(rng() % 9),
                      static_cast<std::uint32_t>(rng())};
        open[s].push_back(e);
        packers[s].add(e.what, e.warp, e.arg, e.cycles, out);
        collect(s);
        if (rng() % 3 == 0)
            if (const auto h = buf.take_head()) {
                const group& g = buf.contents(*h);
                im.tokens.insert(im.tokens.end(), g.begin(), g.end());
                buf.write_done(*h);
            }
    }
    while (const auto h = buf.take_head()) {
        const group& g = buf.contents(*h);
        im.tokens.insert(im.tokens.end(), g.begin(), g.end());
        buf.write_done(*h);
    }
    // The CSV expected from the ground truth: rows group by group in memory order, then
    // stably in time order (a gap keeps its place before the events of its group).
    std::vector<std::pair<std::uint64_t, std::string>> rows;
    std::vector<std::uint64_t> next(3, 0);
    unsigned gaps = 0;
    for (std::size_t i = 0; i < im.tokens.size(); i += 4) {
        const unsigned s = source_of(im.tokens[i]);
        std::uint64_t seq = next[s];
        while ((seq & 0x3ff) != seq_of(im.tokens[i]))
            ++seq;
        auto ns = [&](std::uint64_t cycles) {
            const std::uint64_t ps = cycles * 1250;
            char b[40];
            std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                          static_cast<unsigned long long>(ps % 1000));
            return std::string(b);
        };
        const std::string src = s == 0 ? "CE" : "ISU";
        const std::string sm = s == 0 ? "" : s == 1 ? "3" : "7";
        if (seq != next[s]) {
            ++gaps;
            rows.emplace_back(time_of(im.tokens[i]), ns(time_of(im.tokens[i])) + ',' + src + ',' +
                                                         sm + ",,gap,,," +
                                                         std::to_string(seq - next[s]) + '\n');
        }
        for (const truth_event& e : groups.at({s, seq})) {
            const bool user = e.what == event::user;
            rows.emplace_back(e.cycles, ns(e.cycles) + ',' + src + ',' + sm + ',' +
                                            (s ? std::to_string(e.warp) : "") + ',' + name(e.what) +
                                            ',' + (user ? std::to_string(e.arg) : "") + ',' +
                                            (user ? "" : std::to_string(e.arg)) + ",\n");
        }
        next[s] = seq + 1;
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::ostringstream want;
    want << "time_ns,source,sm,warp,event,opcode,arg,lost\n";
    for (const auto& row : rows)
        want << row.second;
    CHECK(gaps > 0); // the case covers lost groups
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
    im.tokens = {make_full(0, 0, 10), make_event(0, event::cta_dispatch, 0, 1, 5)};
    std::vector<std::uint8_t> b = encode_image(im);
    cli_runner cli("vgpu_trace_bad");
    int code = -1;
    // Truncated: the last token is cut.
    std::vector<std::uint8_t> cut(b.begin(), b.end() - 3);
    save(cli, "cut.bin", cut);
    std::string err = run_trace(cli, "cut.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("cut.bin: offset 56: truncated tokens (1 of 2)") != std::string::npos);
    // A group that does not start with a FULL token (token 0 at byte 56).
    std::vector<std::uint8_t> bad = b;
    bad[56 + 7] = 0x40; // kind event
    save(cli, "bad.bin", bad);
    err = run_trace(cli, "bad.bin --csv e.csv", code);
    CHECK(code == 2);
    CHECK(err.find("offset 56: a group does not start with a FULL token") != std::string::npos);
    // Not an image at all.
    save(cli, "junk.bin", {1, 2, 3});
    err = run_trace(cli, "junk.bin", code);
    CHECK(code == 2);
    CHECK(err.find("offset 0: truncated header") != std::string::npos);
}
