// End to end: buffers of sub-word and 64-bit element types loaded, copied by a kernel and
// checked by vgpu-sim, and host.dump_buffers (none | checked | all) writing
// OUTDIR/buffers/<name>.bin after the run, also when a check fails, in both timing modes and
// with either host.load, without changing simulated time. The expected bytes are built here
// with the C++ element types. See docs/outputs.md ("Buffer dumps").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

template <class T> std::string native(const std::vector<T>& v)
{
    std::string b(v.size() * sizeof(T), '\0');
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

struct run_result {
    int code = -1;
    std::string out;      ///< standard output and error
    std::string sim_line; ///< the "simulated ..." line without its host seconds
};

/// Runs vgpu-sim on w.yaml of dir with the settings, outputs in dir/out.
run_result run(const fs::path& dir, const std::string& settings)
{
    fs::remove_all(dir / "out");
    const std::string cmd = "cd '" + dir.string() + "' && '" VGPU_SIM_PATH "' -w w.yaml -o out " +
                            settings + " >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    run_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.out = slurp(dir / "log.txt");
    const auto at = r.out.find("simulated ");
    if (at != std::string::npos)
        r.sim_line = r.out.substr(at, r.out.find(" in ", at) - at);
    return r;
}

// src: 13 u8 (not a whole number of words), copied word by word to dst by 4 threads; w (u64)
// and d (f64) are not written by the kernel.
const std::string workload = R"(name: types
buffers:
  - {name: src, type: u8, elements: 13, init: {iota: {start: 250, step: 1}}}
  - {name: dst, type: u8, elements: 16}
  - {name: w, type: u64, elements: 3, init: {values: [18446744073709551615, 9007199254740993, 1]}}
  - {name: d, type: f64, elements: 2, init: {values: [0.1, -2.5]}}
  - {name: h, type: i16, elements: 3, init: {values: [-32768, -1, 7]}}
kernels:
  - name: copy
    params:
      - {name: src, buffer: src}
      - {name: dst, buffer: dst}
    grid: 1
    block: 4
    program: |
            S2R  R0, SR_TID_X
            LDP  R1, src
            LDP  R2, dst
            SHL  R3, R0, 2
            IADD R4, R1, R3
            LD   R5, [R4]
            IADD R4, R2, R3
            ST   [R4], R5
            EXIT
checks:
  - {buffer: dst, expect: [250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0]}
  - {buffer: w, expect: [18446744073709551615, 9007199254740993, 1]}
  - {buffer: d, expect: [0.1, -2.5000001], tolerance: {relative: 1e-6}}
)";

const std::string src_bytes =
    native<std::uint8_t>({250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6});
const std::string dst_bytes =
    native<std::uint8_t>({250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0});
const std::string w_bytes = native<std::uint64_t>({~0ull, 9007199254740993ull, 1});
const std::string d_bytes = native<double>({0.1, -2.5});
const std::string h_bytes = native<std::int16_t>({-32768, -1, 7});

fs::path scratch(const std::string& tag)
{
    const fs::path dir =
        fs::temp_directory_path() / ("vgpu_dump_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST_CASE("buffers of u8, u64, f64 and i16 elements run, pass their checks and are dumped",
          "[dump]")
{
    const fs::path dir = scratch("types");
    std::ofstream(dir / "w.yaml") << workload;
    for (const char* mode : {"fast", "accurate"}) {
        for (const char* load : {"backdoor", "dma"}) {
            const std::string common =
                std::string("-s platform.timing.mode=") + mode + " -s host.load=" + load;
            INFO(mode << " " << load);
            const run_result none = run(dir, common);
            INFO(none.out);
            CHECK(none.code == 0);
            CHECK_FALSE(fs::exists(dir / "out" / "buffers"));
            const run_result all = run(dir, common + " -s host.dump_buffers=all");
            INFO(all.out);
            REQUIRE(all.code == 0);
            // A dump takes no simulated time and changes no other output.
            CHECK(all.sim_line == none.sim_line);
            CHECK_FALSE(all.sim_line.empty());
            CHECK(slurp(dir / "out" / "buffers" / "src.bin") == src_bytes);
            CHECK(slurp(dir / "out" / "buffers" / "dst.bin") == dst_bytes);
            CHECK(slurp(dir / "out" / "buffers" / "w.bin") == w_bytes);
            CHECK(slurp(dir / "out" / "buffers" / "d.bin") == d_bytes);
            CHECK(slurp(dir / "out" / "buffers" / "h.bin") == h_bytes);
            const run_result checked = run(dir, common + " -s host.dump_buffers=checked");
            REQUIRE(checked.code == 0);
            std::vector<std::string> files;
            for (const auto& e : fs::directory_iterator(dir / "out" / "buffers"))
                files.push_back(e.path().filename().string());
            std::sort(files.begin(), files.end());
            CHECK(files == std::vector<std::string>{"d.bin", "dst.bin", "w.bin"});
        }
    }
    fs::remove_all(dir);
}

TEST_CASE("a failing check still dumps its buffer, an unwritable dump fails the run", "[dump]")
{
    const fs::path dir = scratch("fail");
    std::string text = workload;
    // One element of dst expected wrong: the run fails (exit 1) with the dump written.
    text.replace(text.find("5, 6, 0, 0, 0]"), 14, "5, 7, 0, 0, 0]");
    std::ofstream(dir / "w.yaml") << text;
    const run_result r = run(dir, "-s host.dump_buffers=checked");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("check 0 of buffer 'dst' (expect): 1 of 16 elements differ; [12] expected "
                     "7 got 6") != std::string::npos);
    CHECK(slurp(dir / "out" / "buffers" / "dst.bin") == dst_bytes);
    // OUTDIR/buffers is a file: the dump cannot be written, the run fails naming it.
    std::ofstream(dir / "w.yaml") << workload;
    fs::remove_all(dir / "out2");
    fs::create_directories(dir / "out2");
    std::ofstream(dir / "out2" / "buffers") << "not a folder";
    const std::string cmd = "cd '" + dir.string() +
                            "' && '" VGPU_SIM_PATH
                            "' -w w.yaml -o out2 -s host.dump_buffers=all >log.txt 2>&1";
    const int status = std::system(cmd.c_str());
    const std::string log = slurp(dir / "log.txt");
    INFO(log);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(log.find("vgpu-sim: error: cannot write 'out2/buffers/") != std::string::npos);
    // A bad value of the setting is a usage error (exit 2) that names the choices.
    const run_result bad = run(dir, "-s host.dump_buffers=some");
    CHECK(bad.code == 2);
    CHECK(bad.out.find("host.dump_buffers") != std::string::npos);
    CHECK(bad.out.find("none|checked|all") != std::string::npos);
    fs::remove_all(dir);
}
