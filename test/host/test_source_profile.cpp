// OUTDIR/source_profile.csv (docs/outputs.md, "Source profile"): the aggregation per CUDA line
// (models/sm/core/source_profile.h) on counters given by hand, and vgpu-sim runs of
// testbenches/cuda/ffma_chain.yaml whose per-line counts are known by hand: the loop body
// `x = fmaf(x, a, b)` issues exactly warps x count FFMAs, the load and the store one line
// request per warp, in both timing modes; a hand-written workload writes no profile.
#include "models/sm/core/source_profile.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace vgpu::sm;

namespace {

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// One CSV row's numbers: issued, 4 stall columns, line requests, L1 misses.
struct row {
    std::uint64_t issued = 0, stalls = 0, lines = 0, l1_misses = 0;
};

/// The rows of a profile by CUDA line number (the file column ends with `file`).
std::map<long, row> rows_of(const std::string& csv, const std::string& file)
{
    std::map<long, row> out;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        for (std::string x; std::getline(ls, x, ',');)
            f.push_back(x);
        REQUIRE(f.size() == 10);
        if (f[1].size() < file.size() || f[1].compare(f[1].size() - file.size(), file.size(), file))
            continue;
        row r;
        r.issued = std::stoull(f[3]);
        for (int s = 4; s < 8; ++s)
            r.stalls += std::stoull(f[s]);
        r.lines = std::stoull(f[8]);
        r.l1_misses = std::stoull(f[9]);
        out[std::stol(f[2])] = r;
    }
    return out;
}

/// gpu.instructions of a run's stats.txt.
std::uint64_t instructions(const fs::path& out)
{
    std::istringstream in(slurp(out / "stats.txt"));
    for (std::string name, value; in >> name >> value;) {
        if (name == "gpu.instructions")
            return std::stoull(value);
        std::string rest;
        std::getline(in, rest);
    }
    return 0;
}

} // namespace

TEST_CASE("source profile: PCs summed per CUDA line, lines in order, unmapped PCs apart",
          "[profile]")
{
    source_profile p;
    p.add_program(0x1000, 5);
    CHECK(p.find(0x2000, 0) == nullptr);
    pc_counters* c = p.find(0x1000, 0);
    pc_counters* d = p.find(0x1000, 3); // another SM's copy: counters() adds them up
    REQUIRE(c != nullptr);
    REQUIRE(d != nullptr);
    CHECK(p.find(0x1000, 0) == c);
    c[0].issued = 7;                                             // no line
    c[1].issued = 2, c[1].stall[1] = 30, c[1].line_requests = 4; // k.cu:12
    c[2].issued = 2, c[2].stall[0] = 5, d[2].issued = 1;         // k.cu:9
    c[3].issued = 1, c[3].stall[3] = 2, c[3].line_requests = 1;  // k.cu:12
    c[1].l1_misses = 3, c[3].l1_misses = 1;
    c[4].issued = 0; // k.cu:10 (never issued)
    const std::vector<std::string> lines = {"", "k.cu:12", "k.cu:9", "k.cu:12", "k.cu:10"};
    const std::string csv = source_profile_csv({{"k", &lines, p.counters(0x1000)}});
    CHECK(csv == "kernel,file,line,warp_instructions,stall_scoreboard,stall_memory,stall_barrier,"
                 "stall_structural,line_requests,l1_misses\n"
                 "k,,0,7,0,0,0,0,0,0\n"
                 "k,k.cu,9,3,5,0,0,0,0,0\n"
                 "k,k.cu,10,0,0,0,0,0,0,0\n"
                 "k,k.cu,12,3,0,30,0,2,5,4\n");
}

TEST_CASE("source profile of ffma_chain.cu: exact per-line counts in both timing modes",
          "[profile]")
{
    const fs::path dir = fs::temp_directory_path() / ("vgpu_profile_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string wl = std::string(VGPU_SOURCE_DIR) + "/testbenches/cuda/ffma_chain.yaml";
    std::map<std::string, std::map<long, row>> by_mode;
    for (const char* mode : {"fast", "accurate"})
        for (const unsigned count : {100u, 37u}) {
            const unsigned ctas = 8, warps = ctas * 8;
            const fs::path out = dir / (std::string(mode) + std::to_string(count));
            const std::string cmd =
                "'" VGPU_SIM_PATH "' -w '" + wl + "' -D ctas=" + std::to_string(ctas) +
                " -D count=" + std::to_string(count) + " -s platform.timing.mode=" + mode +
                " -o '" + out.string() + "' >'" + dir.string() + "/log.txt' 2>&1";
            const int status = std::system(cmd.c_str());
            INFO(mode << " count " << count << "\n" << slurp(dir / "log.txt"));
            REQUIRE(WIFEXITED(status));
            REQUIRE(WEXITSTATUS(status) == 0);
            const std::string csv = slurp(out / "source_profile.csv");
            const auto rows = rows_of(csv, "fma_chain.cu");
            INFO(csv);
            // fma_chain.cu: line 8 `float x = in[i];`, 10 `x = fmaf(x, a, b);`,
            // 11 `out[i] = x;` (test/ptx/kernels/fma_chain.cu).
            REQUIRE(rows.count(8));
            REQUIRE(rows.count(10));
            REQUIRE(rows.count(11));
            CHECK(rows.at(10).issued == std::uint64_t{warps} * count); // one FFMA per fmaf
            CHECK(rows.at(10).lines == 0);
            CHECK(rows.at(8).lines == warps);     // 32 consecutive floats: one line per warp
            CHECK(rows.at(11).lines == warps);    // the same for the store
            CHECK(rows.at(8).l1_misses == warps); // each line read once: all miss
            CHECK(rows.at(11).l1_misses == 0);    // stores do not look up to read
            CHECK(rows.at(10).l1_misses == 0);
            // Every issued warp-instruction is on some row (those of no line included).
            std::uint64_t issued = 0;
            std::istringstream in(csv);
            std::string line;
            std::getline(in, line);
            while (std::getline(in, line)) {
                std::vector<std::string> f;
                std::stringstream ls(line);
                for (std::string x; std::getline(ls, x, ',');)
                    f.push_back(x);
                issued += std::stoull(f[3]);
            }
            CHECK(issued == instructions(out));
            std::uint64_t stalls = 0;
            for (const auto& [l, r] : rows)
                stalls += r.stalls;
            CHECK(stalls > 0);
            if (count == 100)
                by_mode[mode] = rows;
        }
    // The same issued counts and line requests in both modes (stall cycles differ with timing).
    REQUIRE(by_mode.size() == 2);
    for (const auto& [l, r] : by_mode["fast"]) {
        INFO("line " << l);
        CHECK(by_mode["accurate"][l].issued == r.issued);
        CHECK(by_mode["accurate"][l].lines == r.lines);
        CHECK(by_mode["accurate"][l].l1_misses == r.l1_misses);
    }
    // A hand-written kernel has no line map: no profile, nothing counted.
    const fs::path out = dir / "hand";
    const std::string cmd = "'" VGPU_SIM_PATH "' -w '" + std::string(VGPU_SOURCE_DIR) +
                            "/testbenches/workloads/vector_add.yaml' -o '" + out.string() +
                            "' >/dev/null 2>&1";
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(fs::exists(out / "stats.json"));
    CHECK_FALSE(fs::exists(out / "source_profile.csv"));
    fs::remove_all(dir);
}

namespace {

/// The sum of the statistics of stats.txt whose names end with `tail`, and how many are > 0.
std::pair<std::uint64_t, unsigned> sum_of(const fs::path& out, const std::string& tail)
{
    std::istringstream in(slurp(out / "stats.txt"));
    std::uint64_t sum = 0;
    unsigned nonzero = 0;
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string key;
        double v = 0;
        f >> key >> v;
        if (key.size() > tail.size() &&
            key.compare(key.size() - tail.size(), tail.size(), tail) == 0) {
            sum += static_cast<std::uint64_t>(v);
            nonzero += v > 0;
        }
    }
    return {sum, nonzero};
}

} // namespace

TEST_CASE("source profile: L1 misses per CUDA line, streaming against re-reading, both modes",
          "[profile]")
{
    // test/ptx/kernels/l1_reuse.cu: line 9 `s = in[i]` reads one new 128-byte line per warp
    // (all misses); line 11 `s += tab[(threadIdx.x + r) & 31]` reads tab's one line reps times
    // per warp: each SM misses it once, its later reads hit (or merge with the fill in flight,
    // which the L1 does not count as a miss). The column's sum is the L1s' own data_misses.
    const fs::path dir = fs::temp_directory_path() / ("vgpu_l1prof_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const unsigned ctas = 8, threads = 256, warps = ctas * threads / 32, reps = 24;
    const unsigned n = ctas * threads;
    std::ofstream(dir / "w.yaml")
        << "buffers:\n  - {name: in, type: f32, elements: " << n
        << ", init: {random: {seed: 3, min: 0, max: 1}}}\n"
           "  - {name: tab, type: f32, elements: 32, init: {random: {seed: 4, min: 0, max: 1}}}\n"
           "  - {name: out, type: f32, elements: "
        << n << ", init: zero}\nkernels:\n  - name: l1_reuse\n    cuda: '" << VGPU_SOURCE_DIR
        << "/test/ptx/kernels/l1_reuse.cu'\n    entry: l1_reuse\n    params:\n"
           "      - {name: in, buffer: in}\n      - {name: tab, buffer: tab}\n"
           "      - {name: out, buffer: out}\n      - {name: reps, value: "
        << reps << "}\n      - {name: n, value: " << n << "}\n    grid: [" << ctas
        << ", 1]\n    block: [" << threads << ", 1]\n";
    std::map<std::string, std::map<long, row>> by_mode;
    for (const char* mode : {"fast", "accurate"}) {
        const fs::path out = dir / mode;
        const std::string cmd = "'" VGPU_SIM_PATH "' -w '" + (dir / "w.yaml").string() +
                                "' -s platform.timing.mode=" + mode + " -o '" + out.string() +
                                "' >'" + dir.string() + "/log.txt' 2>&1";
        const int status = std::system(cmd.c_str());
        INFO(mode << "\n" << slurp(dir / "log.txt"));
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        const std::string csv = slurp(out / "source_profile.csv");
        INFO(csv);
        const auto rows = rows_of(csv, "l1_reuse.cu");
        REQUIRE(rows.count(9));
        REQUIRE(rows.count(11));
        const auto [data_misses, sms] = sum_of(out, ".data_misses");
        CHECK(sms >= 1);
        CHECK(rows.at(9).lines == warps);
        CHECK(rows.at(9).l1_misses == warps);
        CHECK(rows.at(11).lines == std::uint64_t{warps} * reps);
        CHECK(rows.at(11).l1_misses == sms); // one per SM that ran warps (each has misses)
        std::uint64_t column = 0;
        for (const auto& [l, r] : rows_of(csv, ""))
            column += r.l1_misses;
        CHECK(column == data_misses);
        CHECK(column == warps + sms);
        by_mode[mode] = rows;
    }
    CHECK(by_mode["fast"][11].l1_misses == by_mode["accurate"][11].l1_misses);
    fs::remove_all(dir);
}
