// The statistics outputs of vgpu-sim (units map, per-warp switch, stats.txt order and rounding)
// and scripts/compare on hand-written stats.json files. See docs/outputs.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <vector>

using vgpu::test::cli_runner;

namespace {
/// Names of `stats` that belong to a per-warp slot (".w<digits>.").
std::vector<std::string> per_warp_names(const nlohmann::json& stats)
{
    static const std::regex slot(R"(.*\.w[0-9]+\..*)");
    std::vector<std::string> out;
    for (const auto& kv : stats.items())
        if (std::regex_match(kv.key(), slot))
            out.push_back(kv.key());
    return out;
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

/// Index of the first line matching `re` at or after `from`; -1 if none.
long find_line(const std::vector<std::string>& lines, const std::string& re, long from = 0)
{
    const std::regex r(re);
    for (auto i = static_cast<std::size_t>(from); i < lines.size(); ++i)
        if (std::regex_match(lines[i], r))
            return static_cast<long>(i);
    return -1;
}

/// A scratch folder in which scripts/compare runs.
struct compare_runner {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("vgpu_compare_" + std::to_string(::getpid()));
    compare_runner()
    {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir / "a");
        std::filesystem::create_directories(dir / "b");
    }
    ~compare_runner() { std::filesystem::remove_all(dir); }
    void write(const std::string& name, const std::string& text) const
    {
        std::ofstream(dir / name) << text;
    }
    vgpu::test::cli_result run(const std::string& args) const
    {
        const std::string cmd = "cd '" + dir.string() +
                                "' && '" VGPU_SOURCE_DIR "/scripts/compare' " + args +
                                " >stdout.txt 2>stderr.txt </dev/null";
        const int status = std::system(cmd.c_str());
        vgpu::test::cli_result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::ifstream out(dir / "stdout.txt"), err(dir / "stderr.txt");
        std::stringstream o, e;
        o << out.rdbuf();
        e << err.rdbuf();
        r.out = o.str();
        r.err = e.str();
        return r;
    }
};
} // namespace

TEST_CASE("stats.json has a units map with one unit per statistic")
{
    cli_runner cli("units");
    REQUIRE(cli.run("").code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    REQUIRE(j.contains("units"));
    REQUIRE(j["units"].is_object());
    CHECK(j["units"].size() == j["stats"].size());
    for (const auto& kv : j["stats"].items()) {
        INFO(kv.key());
        REQUIRE(j["units"].contains(kv.key()));
        CHECK(j["units"][kv.key()].is_string());
        CHECK_FALSE(j["units"][kv.key()].get<std::string>().empty());
    }
    CHECK(j["units"]["gpu.instructions"] == "count");
    CHECK(j["units"]["gpu.kernel_time"] == "ns");
    CHECK(j["units"]["gpu.m0.c0.sm0.active_cycles"] == "cycles");
    CHECK(j["units"]["gpu.m0.c0.sm0.ipc"] == "instructions/cycle");
}

TEST_CASE("per-warp statistics exist only with stats.per_warp=true and do not change the run")
{
    cli_runner cli("per_warp");
    const std::string args = " -s sm.warp_slots=16";
    REQUIRE(cli.run("-o off" + args).code == 0);
    REQUIRE(cli.run("-o on -s stats.per_warp=true" + args).code == 0);
    auto off = nlohmann::json::parse(cli.read("off/stats.json"));
    auto on = nlohmann::json::parse(cli.read("on/stats.json"));
    CHECK(per_warp_names(off["stats"]).empty());
    CHECK(cli.read("off/stats.txt").find(".w0.") == std::string::npos);

    // 1 module x 2 clusters x 4 SMs (platforms/default.yaml), 16 slots, 3 statistics each.
    const auto names = per_warp_names(on["stats"]);
    CHECK(names.size() == 8u * 16u * 3u);
    for (unsigned sm = 0; sm < 8; ++sm) {
        const std::string path = "gpu.m0.c" + std::to_string(sm / 4) + ".sm" + std::to_string(sm);
        long sum = 0;
        for (unsigned w = 0; w < 16; ++w) {
            const std::string p = path + ".w" + std::to_string(w) + ".";
            for (const char* s : {"instructions", "barrier_wait_cycles", "stall_cycles"}) {
                INFO(p + s);
                CHECK(on["stats"].contains(p + s));
                CHECK(on["units"].contains(p + s));
            }
            sum += on["stats"].value(p + "instructions", 0L);
        }
        INFO(path);
        CHECK(sum == on["stats"][path + ".instructions"].get<long>());
        CHECK(sum > 0);
    }
    // Natural order in stats.txt: slot 2 before slot 10.
    const auto txt = cli.read("on/stats.txt");
    const auto w2 = txt.find("gpu.m0.c0.sm0.w2.instructions ");
    const auto w10 = txt.find("gpu.m0.c0.sm0.w10.instructions ");
    REQUIRE(w2 != std::string::npos);
    REQUIRE(w10 != std::string::npos);
    CHECK(w2 < w10);

    // Everything else is the same run.
    for (const auto& n : names)
        on["stats"].erase(n);
    CHECK(on["stats"] == off["stats"]);
}

TEST_CASE("stats.txt of a run: natural order, each value the JSON value rounded")
{
    cli_runner cli("stats_txt");
    REQUIRE(cli.run("-c " VGPU_SOURCE_DIR "/platforms/mcm4.yaml").code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto lines = lines_of(cli.read("out/stats.txt"));
    REQUIRE(lines.size() == j["stats"].size());
    // mcm4 has SMs numbered past 9: sm9 must come before sm10 (and after sm8).
    const long sm8 = find_line(lines, R"(gpu\.m\d+\.c\d+\.sm8\.instructions .*)");
    const long sm9 = find_line(lines, R"(gpu\.m\d+\.c\d+\.sm9\.instructions .*)");
    const long sm10 = find_line(lines, R"(gpu\.m\d+\.c\d+\.sm10\.instructions .*)");
    REQUIRE(sm8 >= 0);
    REQUIRE(sm9 >= 0);
    REQUIRE(sm10 >= 0);
    CHECK(sm8 < sm9);
    CHECK(sm9 < sm10);
    unsigned fractional = 0;
    for (const auto& l : lines) {
        std::istringstream in(l);
        std::string name, text;
        in >> name >> text;
        INFO(l);
        REQUIRE(j["stats"].contains(name));
        const auto& v = j["stats"][name];
        if (v.is_array()) {
            CHECK(text == v.dump());
            continue;
        }
        if (v.is_number_integer()) {
            CHECK(text == v.dump());
            continue;
        }
        // At most 6 significant digits, no exponent below 1e6, within rounding of the value.
        const double d = v.get<double>(), shown = std::stod(text);
        CHECK(std::fabs(shown - d) <= 5e-6 * std::fabs(d) + 1e-300);
        std::string digits;
        for (char c : text.substr(0, text.find('e')))
            if (c >= '0' && c <= '9')
                digits += c;
        digits.erase(0, digits.find_first_not_of('0'));
        if (text.find('.') != std::string::npos) {
            ++fractional;
            CHECK(digits.size() <= 6);
            CHECK(text.back() != '0');
        }
    }
    CHECK(fractional > 0); // hit rates and shares are not integers
}

TEST_CASE("compare: kernels side by side, differing stats by relative change, with markers")
{
    compare_runner c;
    c.write("a/stats.json", R"({
      "meta": {"verdict": "pass", "sim_time_ns": 1000},
      "kernels": [
        {"name": "k", "queue": 0, "phase": 0, "sms": 8, "cycles": 1000, "ipc": 1.5,
         "bound": "issue"},
        {"name": "k2", "queue": 1, "phase": 0, "sms": 8, "cycles": 10, "ipc": 1, "bound": "issue"}
      ],
      "stats": {"x.w2": 10, "x.w10": 4, "same": 7, "halved": 8, "zero_b": 3, "zero_a": 0,
                "only_a": 1, "hist": [1, 2], "rate": 0.5}
    })");
    c.write("b/stats.json", R"({
      "meta": {"verdict": "pass", "sim_time_ns": 1500},
      "kernels": [
        {"name": "k", "queue": 0, "phase": 0, "sms": 8, "cycles": 2000, "ipc": 0.75,
         "bound": "memory"}
      ],
      "phases": [{"phase": 0, "cycles": 2000}],
      "stats": {"x.w2": 15, "x.w10": 4, "same": 7, "halved": 4, "zero_b": 0, "zero_a": 5,
                "only_b": 2, "hist": [1, 3], "rate": 0.25}
    })");
    const auto r = c.run("a b");
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const auto lines = lines_of(r.out);
    CHECK(find_line(lines, R"( +sim_time_ns +1000 +1500 +1\.5)") >= 0);

    // Kernels: k matched by name and position, k2 only in A; ratio B/A per field.
    const long k = find_line(lines, R"( +#0 k \(queue 0, phase 0\))");
    REQUIRE(k >= 0);
    CHECK(find_line(lines, R"( +sms +8 +8 +1)", k) > k);
    CHECK(find_line(lines, R"( +cycles +1000 +2000 +2)", k) > k);
    CHECK(find_line(lines, R"( +ipc +1\.5 +0\.75 +0\.5)", k) > k);
    CHECK(find_line(lines, R"( +bound +issue +memory +differs)", k) > k);
    CHECK(find_line(lines, R"( +#1 k2 \(queue 1, phase 0\): only in A)", k) > k);
    // Phases: only run B has them.
    const long ph = find_line(lines, "phases:");
    REQUIRE(ph > k);
    CHECK(find_line(lines, R"( +only run B has 'phases' records)", ph) == ph + 1);

    // Stats: 6 of the 8 common ones differ. Relative change |B-A| / min(|A|,|B|):
    // zero_a, zero_b infinite; halved 1; rate 1; x.w2 0.5; hist 1/3; then the one-sided ones.
    const long head =
        find_line(lines, R"(stats: 6 of 8 common statistics differ; 1 only in A, 1 only in B)");
    REQUIRE(head > ph);
    const std::vector<std::string> order = {
        R"( +zero_a +0 +5 +A=0)",       R"( +zero_b +3 +0 +B=0)",
        R"( +halved +8 +4 +0\.5)",      R"( +rate +0\.5 +0\.25 +0\.5)",
        R"( +x\.w2 +10 +15 +1\.5)",     R"( +hist +\[1,2\] +\[1,3\] +histogram)",
        R"( +only_a +1 +- +only in A)", R"( +only_b +- +2 +only in B)",
    };
    long at = head;
    for (const auto& re : order) {
        INFO(re);
        const long next = find_line(lines, re, at + 1);
        CHECK(next > at);
        if (next > at)
            at = next;
    }
    CHECK(find_line(lines, R"( +same .*)", head) < 0);
    CHECK(find_line(lines, R"( +x\.w10 .*)", head) < 0);
}

TEST_CASE("compare: a missing, invalid or foreign stats.json is exit code 2 with the file named")
{
    compare_runner c;
    c.write("a/stats.json", R"({"stats": {"x": 1}})");
    c.write("b/stats.json", "{\"stats\": {\"x\": 1,}\n");
    c.write("other.json", R"({"traceEvents": []})");
    auto missing = c.run("a nope");
    CHECK(missing.code == 2);
    CHECK(missing.err.find("compare: error: nope/stats.json: cannot read") != std::string::npos);
    auto invalid = c.run("a b");
    CHECK(invalid.code == 2);
    CHECK(invalid.err.find("compare: error: b/stats.json:1:19: invalid JSON") != std::string::npos);
    auto foreign = c.run("other.json a");
    CHECK(foreign.code == 2);
    CHECK(foreign.err.find("compare: error: other.json: no 'stats' object") != std::string::npos);
    auto usage = c.run("a");
    CHECK(usage.code == 2);
    CHECK(usage.err.find("usage: scripts/compare OUT_A OUT_B") != std::string::npos);
    auto same = c.run("a a/stats.json");
    CHECK(same.code == 0);
    CHECK(same.out.find("stats: 0 of 1 common statistics differ; 0 only in A, 0 only in B") !=
          std::string::npos);
}

TEST_CASE("meta's rates per host second: the run's and the kernels' windows' counts over their "
          "host times, printed by the run summary")
{
    // multi_kernel (n = 8192, 32 threads of 4-byte elements to a 128-byte line): scale loads
    // and stores a line per warp-iteration (64 warps x 4 iterations), offset too (16 x 16),
    // combine loads two and stores one (128 x 2): 256 x 7 = 1792 line requests. Its
    // warp-instructions, counted from the programs (prologue + iterations x loop body + the
    // final test and EXIT): scale 64 x (7 + 4 x 10 + 2), offset 16 x (11 + 16 x 9 + 2),
    // combine 128 x (8 + 2 x 12 + 2) = 3136 + 2512 + 4352 = 10000. Every one of them is inside
    // the two phases' windows. A 2 ns core clock: cycles are not nanoseconds.
    cli_runner cli("host_rates");
    const auto r = cli.run("-w " VGPU_SOURCE_DIR "/testbenches/workloads/multi_kernel.yaml "
                           "-s platform.clocks.core=\"2 ns\" -o out");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto& meta = j.at("meta");
    const double line_requests = 8192 / 32 * 7, warp_instructions = 10000;
    REQUIRE(j.at("stats").at("gpu.mem_requests") == line_requests);
    REQUIRE(j.at("stats").at("gpu.instructions") == warp_instructions);
    const char* const keys[] = {"warp_instructions_per_host_second",
                                "line_requests_per_host_second",
                                "simulated_cycles_per_host_second"};
    REQUIRE(meta.contains("kernel_windows"));
    for (const auto* rates : {&meta, &meta.at("kernel_windows")})
        for (const char* key : keys) {
            INFO(key);
            REQUIRE(rates->contains(key));
            REQUIRE(rates->at(key).is_number());
            CHECK(std::isfinite(rates->at(key).get<double>()));
            CHECK(rates->at(key).get<double>() > 0);
        }
    // The run: rate x host_seconds gives back each count.
    const double run_s = meta.at("host_seconds").get<double>();
    const auto times = [](const nlohmann::json& rates, const char* key, double seconds) {
        return rates.at(key).get<double>() * seconds;
    };
    CHECK(times(meta, keys[0], run_s) == Approx(warp_instructions).epsilon(1e-9));
    CHECK(times(meta, keys[1], run_s) == Approx(line_requests).epsilon(1e-9));
    const double run_cycles = meta.at("sim_time_ns").get<double>() / 2;
    CHECK(meta.at("sim_cycles").get<double>() == run_cycles);
    CHECK(times(meta, keys[2], run_s) == Approx(run_cycles).epsilon(1e-9));
    // The kernels' windows: the same instructions and requests over kernel_host_seconds; their
    // cycles are the phases' windows.
    const double kernel_s = meta.at("kernel_host_seconds").get<double>();
    const auto& kw = meta.at("kernel_windows");
    double window_ns = 0;
    REQUIRE(j.at("phases").size() == 2);
    for (const auto& ph : j.at("phases"))
        window_ns += ph.at("end_ns").get<double>() - ph.at("start_ns").get<double>();
    CHECK(times(kw, keys[0], kernel_s) == Approx(warp_instructions).epsilon(1e-9));
    CHECK(times(kw, keys[1], kernel_s) == Approx(line_requests).epsilon(1e-9));
    CHECK(times(kw, keys[2], kernel_s) == Approx(window_ns / 2).epsilon(1e-9));
    // The same counts in less host time (kernel_host_seconds <= host_seconds).
    for (const char* key : {keys[0], keys[1]})
        CHECK(kw.at(key).get<double>() >= meta.at(key).get<double>());
    // The summary prints the same rates, rounded to whole numbers.
    for (const auto& [what, rates] :
         {std::pair{std::string("run"), &meta}, std::pair{std::string("kernels' windows"), &kw}}) {
        std::smatch m;
        const std::regex line("per host second, " + what +
                              ": ([0-9]+) warp-instructions, ([0-9]+) line requests, ([0-9]+) "
                              "simulated cycles\n");
        INFO(r.out);
        REQUIRE(std::regex_search(r.out, m, line));
        for (int k = 0; k < 3; ++k)
            CHECK(std::abs(std::stod(m[k + 1]) - rates->at(keys[k]).get<double>()) <= 1);
    }
}
