// End to end: CUDA kernels of issue 36 named in workloads by `cuda:` (or `ptx:`) and `entry:`,
// compiled, translated and run by vgpu-sim in fast and accurate mode; the workload's checks
// compare with host references (models/host/reference.cpp, or values computed here with the
// host's fmaf), written apart from the translator. Also: the shipped testbenches/cuda
// workloads on default and mcm4 (fast within 5 % of accurate), a run's record repeated with
// neither the .cu file nor the compiler, and the catalogue of workload errors (exit 2).
#include "models/sm/ptx/compile.h"
#include "ptx_test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace vgpu::ptx;
namespace fs = std::filesystem;

namespace {

const std::string source_root = std::string(VGPU_PTX_TEST_DIR) + "/../..";

/// Absolute path of a kernel source under test/ptx/kernels.
std::string kernel_path(const std::string& name)
{
    return fs::canonical(test::path("kernels/" + name + ".cu")).string();
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A fresh scratch folder for one run.
fs::path scratch(const std::string& tag)
{
    const fs::path dir =
        fs::temp_directory_path() / ("vgpu_ptx_e2e_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

struct run_result {
    int code = -1;
    std::string out; ///< standard output and error
};

/// Runs `env vgpu-sim args` in folder dir (output in dir/log.txt).
run_result run_in(const fs::path& dir, const std::string& args, const std::string& env = "")
{
    const std::string cmd = "cd '" + dir.string() + "' && " + env + " '" VGPU_SIM_PATH "' " + args +
                            " >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    run_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.out = slurp(dir / "log.txt");
    return r;
}

/// Runs vgpu-sim on workload text (w.yaml in a scratch folder) in the timing mode.
run_result run_sim(const std::string& tag, const std::string& yaml, const std::string& mode)
{
    const fs::path dir = scratch(tag + "_" + mode);
    std::ofstream(dir / "w.yaml") << yaml;
    run_result r = run_in(dir, "-w w.yaml -s platform.timing.mode=" + mode + " -o out");
    fs::remove_all(dir);
    return r;
}

/// Sum of the kernels' windows (end_ns - start_ns) in a run's stats.json.
double kernel_ns(const fs::path& outdir)
{
    const nlohmann::json j = nlohmann::json::parse(slurp(outdir / "stats.json"));
    double ns = 0;
    for (const auto& k : j.at("kernels"))
        ns += k.at("end_ns").get<double>() - k.at("start_ns").get<double>();
    return ns;
}

std::string vector_add_yaml(const std::string& code)
{
    // vector_add.yaml's buffers and params; one element per thread, so ceil(n / 256) CTAs.
    return "name: vector_add_cuda\n"
           "vars: {n: 16000}\n"
           "buffers:\n"
           "  - {name: a, type: f32, elements: \"${n}\", init: {iota: {start: 0, step: 0.5}}}\n"
           "  - {name: b, type: f32, elements: \"${n}\", init: {random: {seed: 1, min: -1, "
           "max: 1}}}\n"
           "  - {name: c, type: f32, elements: \"${n}\", init: zero}\n"
           "kernels:\n"
           "  - name: vector_add\n" +
           code +
           "    entry: vector_add\n"
           "    params:\n"
           "      - {name: a, buffer: a}\n"
           "      - {name: b, buffer: b}\n"
           "      - {name: c, buffer: c}\n"
           "      - {name: n, value: \"${n}\"}\n"
           "    grid: [63, 1]\n"
           "    block: [256, 1]\n"
           "checks:\n"
           "  - buffer: c\n"
           "    reference: vector_add\n"
           "    args: {a: a, b: b, n: vector_add.n}\n";
}

} // namespace

TEST_CASE("vector_add.cu runs from cuda: on vgpu-sim in both modes and matches the reference")
{
    const std::string yaml = vector_add_yaml("    cuda: " + kernel_path("vector_add") + "\n");
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("vector_add", yaml, mode);
        INFO(mode << "\n" << r.out);
        CHECK(r.code == 0);
    }
    // The check can fail: the same PTX with sub.f32 for add.f32, given by `ptx:`, is caught.
    compile_request req;
    req.source = kernel_path("vector_add");
    req.kernel = "vector_add";
    const compile_result c = compile_cuda(req);
    REQUIRE(c.ok());
    std::string wrong = c.ptx;
    const auto at = wrong.find("add.f32");
    REQUIRE(at != std::string::npos);
    wrong.replace(at, 7, "sub.f32");
    const fs::path dir = scratch("vector_add_wrong");
    std::ofstream(dir / "k.ptx") << wrong;
    std::ofstream(dir / "w.yaml") << vector_add_yaml("    ptx: k.ptx\n");
    const run_result r = run_in(dir, "-w w.yaml -o out");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("expected") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("ffma_chain.cu runs from cuda: on vgpu-sim in both modes, bit-exact to host fmaf")
{
    // The kernel computes in place: data[i] = x + y after `iters` FMAs on each of x and y.
    // 37 iterations run both the 8-way unrolled loop and its remainder loop.
    const unsigned n = 2048, iters = 37;
    const float a = 0.999f, b = 0.001f;
    std::string init, expect;
    for (unsigned i = 0; i < n; ++i) {
        const float d = static_cast<float>(i % 1000) / 1024.0f; // exact in decimal
        float x = d, y = d * 0.5f;
        for (unsigned k = 0; k < iters; ++k) {
            x = std::fmaf(x, a, b);
            y = std::fmaf(y, b, a);
        }
        char buf[40];
        std::snprintf(buf, sizeof buf, "%s%.10g", i ? ", " : "", static_cast<double>(d));
        init += buf;
        std::snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "", static_cast<double>(x + y));
        expect += buf;
    }
    const std::string yaml = "name: ffma_chain_cuda\n"
                             "buffers:\n"
                             "  - {name: data, type: f32, elements: " +
                             std::to_string(n) + ", init: {values: [" + init +
                             "]}}\n"
                             "kernels:\n"
                             "  - name: ffma_chain\n"
                             "    cuda: " +
                             kernel_path("ffma_chain") +
                             "\n"
                             "    entry: ffma_chain\n"
                             "    params:\n"
                             "      - {name: data, buffer: data}\n"
                             "      - {name: a, value: 0.999}\n"
                             "      - {name: b, value: 0.001}\n"
                             "      - {name: iters, value: " +
                             std::to_string(iters) +
                             "}\n"
                             "    grid: [8, 1]\n"
                             "    block: [256, 1]\n"
                             "checks:\n"
                             "  - buffer: data\n"
                             "    expect: [" +
                             expect +
                             "]\n"
                             "    tolerance: {relative: 0, absolute: 0}\n";
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("ffma_chain", yaml, mode);
        INFO(mode << "\n" << r.out);
        CHECK(r.code == 0);
    }
}

// ---- testbenches/cuda: each workload on default and mcm4, both modes, fast within 5 % ----

namespace {

void run_testbench(const std::string& name)
{
    const fs::path dir = scratch("tb_" + name);
    for (const char* plat : {"default", "mcm4"}) {
        double ns[2] = {};
        for (int m = 0; m < 2; ++m) {
            const std::string mode = m ? "accurate" : "fast";
            const std::string out = std::string(plat) + "_" + mode;
            const run_result r =
                run_in(dir, "-c " + source_root + "/platforms/" + plat + ".yaml -w " + source_root +
                                "/testbenches/cuda/" + name +
                                ".yaml -s platform.timing.mode=" + mode + " -o " + out);
            INFO(name << " on " << plat << ", " << mode << "\n" << r.out);
            REQUIRE(r.code == 0);
            REQUIRE(r.out.find("verdict: pass") != std::string::npos);
            ns[m] = kernel_ns(dir / out);
        }
        const double gap = (ns[0] - ns[1]) / ns[1];
        INFO(name << " on " << plat << ": kernel " << ns[0] << " ns fast, " << ns[1]
                  << " ns accurate, gap " << 100 * gap << " %");
        CHECK(std::fabs(gap) <= 0.05);
        CHECK(ns[1] > 0);
    }
    fs::remove_all(dir);
}

} // namespace

TEST_CASE("testbenches/cuda/vector_add.yaml passes on default and mcm4, fast within 5 %")
{
    run_testbench("vector_add");
}

TEST_CASE("testbenches/cuda/gather.yaml passes on default and mcm4, fast within 5 %")
{
    run_testbench("gather");
}

TEST_CASE("testbenches/cuda/ffma_chain.yaml passes on default and mcm4, fast within 5 %")
{
    run_testbench("ffma_chain");
}

// ---- a run's record repeats the run without the .cu file and without the compiler ----

TEST_CASE("OUTDIR/config.yaml of a cuda: run repeats it with neither the .cu file nor clang")
{
    const fs::path dir = scratch("repeat");
    fs::create_directories(dir / "src");
    fs::copy_file(kernel_path("vector_add"), dir / "src" / "vector_add.cu");
    std::string yaml = vector_add_yaml("    cuda: src/vector_add.cu\n");
    std::ofstream(dir / "w.yaml") << yaml;
    const run_result first = run_in(dir, "-w w.yaml -o out1");
    INFO(first.out);
    REQUIRE(first.code == 0);
    // The record: the PTX and the translated program, and a workload naming the PTX.
    CHECK(slurp(dir / "out1" / "kernels" / "vector_add.ptx").find(".entry") != std::string::npos);
    const std::string vasm = slurp(dir / "out1" / "kernels" / "vector_add.vasm");
    CHECK(vasm.find("FADD") != std::string::npos);
    CHECK(vasm.find("vector_add.cu:6") != std::string::npos); // c[i] = a[i] + b[i]
    const std::string record = slurp(dir / "out1" / "workload.yaml");
    CHECK(record.find("ptx: kernels/vector_add.ptx") != std::string::npos);

    // Elsewhere, with the source gone and no compiler in PATH.
    fs::copy(dir / "out1", dir / "moved", fs::copy_options::recursive);
    fs::remove_all(dir / "src");
    fs::create_directories(dir / "empty_path");
    const std::string no_clang = "env PATH='" + (dir / "empty_path").string() + "'";
    const run_result again = run_in(dir, "-c moved/config.yaml -o out2", no_clang);
    INFO(again.out);
    REQUIRE(again.code == 0);
    const auto a = nlohmann::json::parse(slurp(dir / "out1" / "stats.json"));
    const auto b = nlohmann::json::parse(slurp(dir / "out2" / "stats.json"));
    CHECK(a.at("stats") == b.at("stats"));
    CHECK(a.at("kernels") == b.at("kernels"));
    CHECK(a.at("meta").at("sim_time_ns") == b.at("meta").at("sim_time_ns"));
    // The record of the repeat names the same PTX, and repeats too (a record of a record).
    CHECK(slurp(dir / "out2" / "kernels" / "vector_add.ptx") ==
          slurp(dir / "out1" / "kernels" / "vector_add.ptx"));
    const run_result third = run_in(dir, "-c out2/config.yaml -o out3", no_clang);
    INFO(third.out);
    CHECK(third.code == 0);
    CHECK(nlohmann::json::parse(slurp(dir / "out3" / "stats.json")).at("stats") == a.at("stats"));

    // Without the record the compiler is needed: the same PATH fails, naming the package.
    fs::create_directories(dir / "src");
    fs::copy_file(kernel_path("vector_add"), dir / "src" / "vector_add.cu");
    const run_result missing = run_in(dir, "-w w.yaml -o out4", no_clang);
    CHECK(missing.code == 2);
    CHECK(missing.out.find("install the Debian package clang-14") != std::string::npos);
    fs::remove_all(dir);
}
