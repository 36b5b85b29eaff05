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

/// One CSV row's numbers: issued, 4 stall columns, line requests.
struct row {
    std::uint64_t issued = 0, stalls = 0, lines = 0;
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
        REQUIRE(f.size() == 9);
        if (f[1].size() < file.size() || f[1].compare(f[1].size() - file.size(), file.size(), file))
            continue;
        row r;
        r.issued = std::stoull(f[3]);
        for (int s = 4; s < 8; ++s)
            r.stalls += std::stoull(f[s]);
        r.lines = std::stoull(f[8]);
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
    CHECK(p.find(0x2000) == nullptr);
    pc_counters* c = p.find(0x1000);
    REQUIRE(c != nullptr);
    c[0].issued = 7;                                             // no line
    c[1].issued = 2, c[1].stall[1] = 30, c[1].line_requests = 4; // k.cu:12
    c[2].issued = 3, c[2].stall[0] = 5;                          // k.cu:9
    c[3].issued = 1, c[3].stall[3] = 2, c[3].line_requests = 1;  // k.cu:12
    c[4].issued = 0;                                             // k.cu:10 (never issued)
    const std::vector<std::string> lines = {"", "k.cu:12", "k.cu:9", "k.cu:12", "k.cu:10"};
    const std::string csv = source_profile_csv({{"k", &lines, p.counters(0x1000)}});
    CHECK(csv == "kernel,file,line,warp_instructions,stall_scoreboard,stall_memory,stall_barrier,"
                 "stall_structural,line_requests\n"
                 "k,,0,7,0,0,0,0,0\n"
                 "k,k.cu,9,3,5,0,0,0,0\n"
                 "k,k.cu,10,0,0,0,0,0,0\n"
                 "k,k.cu,12,3,0,30,0,2,5\n");
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
            CHECK(rows.at(8).lines == warps);  // 32 consecutive floats: one line per warp
            CHECK(rows.at(11).lines == warps); // the same for the store
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
