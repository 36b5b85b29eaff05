// End to end: CUDA kernels of issue 36 named in workloads by `cuda:` (or `ptx:`) and `entry:`,
// compiled, translated and run by vgpu-sim in fast and accurate mode; the workload's checks
// compare with host references (models/host/references/, or values computed here with the
// host's fmaf), written apart from the translator. Also: the shipped testbenches/cuda
// workloads on default and mcm4 (fast within 5 % of accurate), a run's record repeated with
// neither the .cu file nor the compiler, and the catalogue of workload errors (exit 2).
#include "models/sm/ptx/compile.h"
#include "ptx_test_util.h"
#include "suite_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;
using namespace vgpu::ptx::test;
namespace fs = std::filesystem;

namespace {

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
// (suite_util.h). histogram on mcm4 meets module 0's atomics and module 1's remote reads at one
// LLC bank: it checks that the bank serves its two queues by one rule in both modes (oldest
// first, models/llc/README.md "Queues"; +8.6 % with round-robin in accurate mode).

TEST_CASE("testbenches/cuda/vector_add.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("vector_add");
}

TEST_CASE("testbenches/cuda/gather.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("gather");
}

TEST_CASE("testbenches/cuda/ffma_chain.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("ffma_chain");
}

TEST_CASE("testbenches/cuda/stencil3.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("stencil3");
}

TEST_CASE("testbenches/cuda/matmul_tiled.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("matmul_tiled");
}

TEST_CASE("testbenches/cuda/histogram.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("histogram");
}

TEST_CASE("testbenches/cuda/softmax_row.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("softmax_row");
}

TEST_CASE("testbenches/cuda/reduce_shfl.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("reduce_shfl");
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

// ---- catalogue: malformed CUDA/PTX kernel keys, each with its exact message and exit 2 ----

namespace {

/// A workload with one kernel `k` whose code keys are `keys` (indented four spaces).
std::string catalogue_yaml(const std::string& keys)
{
    return "name: cat\n"
           "buffers:\n"
           "  - {name: a, type: f32, elements: 64}\n"
           "kernels:\n"
           "  - name: k\n" +
           keys +
           "    grid: 1\n"
           "    block: 64\n";
}

const std::string va_params = "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 64}]\n";

} // namespace

TEST_CASE("catalogue: CUDA/PTX kernel keys in a workload, exact messages, exit 2")
{
    struct error_case {
        const char* what;
        std::string keys;
        std::string message;
        std::string env = "";
        std::string extra = "";
    };
    const std::string sig = "(const float*, const float*, float*, int)";
    const std::vector<error_case> cases = {
        {"unknown entry with a did-you-mean",
         "    cuda: vector_add.cu\n    entry: vectoradd\n" + va_params,
         "w.yaml:7:12: error: kernels[0].entry: no kernel 'vectoradd' in vector_add.cu; did you "
         "mean 'vector_add'? (kernels: vector_add" +
             sig + " [_Z10vector_addPKfS0_Pfi])"},
        {"an overloaded entry lists the candidates", "    cuda: over.cu\n    entry: k\n",
         "w.yaml:7:12: error: kernels[0].entry: 'k' is ambiguous in over.cu: it names 2 kernels: "
         "k(int*) [_Z1kPi], k(float*) [_Z1kPf]; give the mangled name of one"},
        {"parameter count",
         "    cuda: vector_add.cu\n    entry: vector_add\n"
         "    params: [{buffer: a}, {buffer: a}, {value: 64}]\n",
         "w.yaml:8:5: error: kernels[0].params: entry 'vector_add' takes 4 parameters " + sig +
             " but 3 are given"},
        {"a value for a pointer",
         "    cuda: vector_add.cu\n    entry: vector_add\n"
         "    params: [{buffer: a}, {value: 5}, {buffer: a}, {value: 64}]\n",
         "w.yaml:8:35: error: kernels[0].params[1]: parameter 1 of 'vector_add' (const float*) is "
         "a pointer: give a buffer, not a value"},
        {"a buffer for an int",
         "    cuda: vector_add.cu\n    entry: vector_add\n"
         "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {buffer: a}]\n",
         "w.yaml:8:53: error: kernels[0].params[3]: parameter 3 of 'vector_add' (int) is not a "
         "pointer: give a value, not a buffer"},
        {"a value out of the parameter's range",
         "    cuda: vector_add.cu\n    entry: vector_add\n"
         "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 2147483648}]\n",
         "w.yaml:8:61: error: kernels[0].params[3]: parameter 3 of 'vector_add' (int): value out "
         "of range (expected -2147483648..2147483647, got 2147483648)"},
        {"a decimal for an int",
         "    cuda: vector_add.cu\n    entry: vector_add\n"
         "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 2.5}]\n",
         "w.yaml:8:61: error: kernels[0].params[3]: parameter 3 of 'vector_add' (int): expected an "
         "integer, got '2.5'"},
        {"a missing CUDA file", "    cuda: nothere.cu\n    entry: vector_add\n",
         "w.yaml:6:11: error: kernels[0].cuda: cannot read CUDA source 'nothere.cu': No such file "
         "or directory (compiling 'nothere.cu' for kernel 'k' of w.yaml)"},
        {"a missing PTX file", "    ptx: nothere.ptx\n    entry: vector_add\n",
         "w.yaml:6:10: error: kernels[0].ptx: cannot open PTX file 'nothere.ptx' (kernel 'k' of "
         "w.yaml)"},
        {"a compile error", "    cuda: bad.cu\n    entry: bad\n    params: [{buffer: a}]\n",
         "bad.cu:1:38: error: use of undeclared identifier 'undeclared' (compiling 'bad.cu' for "
         "kernel 'k' of w.yaml)"},
        {"a missing compiler", "    cuda: vector_add.cu\n    entry: vector_add\n" + va_params,
         "w.yaml:6:11: error: kernels[0].cuda: the CUDA compiler 'clang-14' is not installed "
         "(install the Debian package clang-14) (compiling 'vector_add.cu' for kernel 'k' of "
         "w.yaml)",
         "env PATH=/nonexistent"},
        {"an unknown include folder",
         "    cuda: vector_add.cu\n    entry: vector_add\n    includes: [inc]\n" + va_params,
         "w.yaml:8:16: error: kernels[0].includes[0]: no folder 'inc' (paths are relative to the "
         "workload file)"},
        {"defines with ptx:",
         "    ptx: k.ptx\n    entry: vector_add\n    defines: {N: 1}\n" + va_params,
         "w.yaml:8:5: error: kernels[0].defines: is only used with 'cuda:' (the PTX of 'ptx:' is "
         "already compiled)"},
        {"program: and cuda:", "    cuda: vector_add.cu\n    program: EXIT\n    entry: x\n",
         "w.yaml:7:5: error: kernels[0].program: a kernel has 'program:' or 'cuda:', not both"},
        {"cuda: without entry:", "    cuda: vector_add.cu\n",
         "w.yaml:5:5: error: kernels[0]: missing required key 'entry' (the __global__ function of "
         "the CUDA file)"},
        {"constants: for an entry without __constant__ variables",
         "    cuda: vector_add.cu\n    entry: vector_add\n    constants: {c: 1}\n" + va_params,
         "w.yaml:8:5: error: kernels[0].constants: entry 'vector_add' has no __constant__ (.const) "
         "variables"},
    };
    const fs::path dir = scratch("catalogue");
    fs::copy_file(kernel_path("vector_add"), dir / "vector_add.cu");
    std::ofstream(dir / "bad.cu") << "__global__ void bad(int* p) { p[0] = undeclared; }\n";
    std::ofstream(dir / "over.cu") << "__global__ void k(int* p) { p[0] = 1; }\n"
                                      "__global__ void k(float* p) { p[0] = 1.0f; }\n";
    std::ofstream(dir / "k.ptx") << "// not read: defines: is refused first\n";
    for (const error_case& c : cases) {
        std::ofstream(dir / "w.yaml") << catalogue_yaml(c.keys);
        const run_result r = run_in(dir, "-w w.yaml " + c.extra + " -o out", c.env);
        INFO(c.what << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK(r.out == c.message + "\n");
    }
    {
        // The kernel is translated for sm.regs_per_thread (it spills above it): 4 registers
        // are too few even with spilling, which the translator says at the PTX line.
        std::ofstream(dir / "w.yaml")
            << catalogue_yaml("    cuda: vector_add.cu\n    entry: vector_add\n" + va_params);
        const run_result r = run_in(dir, "-w w.yaml -s sm.regs_per_thread=4 -o out");
        INFO(r.out);
        CHECK(r.code == 2);
        CHECK(r.out == "kernels/k.ptx:26:2: error: unsupported: the kernel needs more than 4 "
                       "registers per thread here (even with spilling to local memory) (CUDA "
                       "source " +
                           dir.string() + "/vector_add.cu:3) (kernel 'k' of w.yaml)\n");
    }
    fs::remove_all(dir);
}

TEST_CASE("defines: and includes: reach the compiler (-D, -I), paths relative to the workload")
{
    const fs::path dir = scratch("defines");
    fs::create_directories(dir / "sub" / "inc");
    std::ofstream(dir / "sub" / "inc" / "factor.h") << "#define FACTOR 2.0f\n";
    std::ofstream(dir / "sub" / "scale.cu")
        << "#include \"factor.h\"\n"
           "__global__ void scale(float* x, int n)\n"
           "{\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n)\n"
           "        x[i] = x[i] * FACTOR + OFFSET;\n"
           "}\n";
    std::string expect;
    for (int i = 0; i < 200; ++i)
        expect += (i ? ", " : "") + std::to_string(i < 150 ? 2 * i + 3 : i);
    const std::string yaml = "name: scale\n"
                             "buffers:\n"
                             "  - {name: x, type: f32, elements: 200, init: iota}\n"
                             "kernels:\n"
                             "  - name: scale\n"
                             "    cuda: scale.cu\n"
                             "    entry: scale\n"
                             "    defines: {OFFSET: 3}\n"
                             "    includes: [inc]\n"
                             "    params: [{buffer: x}, {value: 150}]\n"
                             "    grid: 2\n"
                             "    block: 128\n"
                             "checks:\n"
                             "  - {buffer: x, expect: [" +
                             expect + "], tolerance: 0}\n";
    std::ofstream(dir / "sub" / "w.yaml") << yaml;
    const run_result r = run_in(dir, "-w sub/w.yaml -o out");
    INFO(r.out);
    CHECK(r.code == 0);
    // Without the define the compiler's error reaches the user, naming the workload's kernel.
    std::string no_define = yaml;
    no_define.replace(no_define.find("    defines: {OFFSET: 3}\n"), 25, "");
    std::ofstream(dir / "sub" / "w.yaml") << no_define;
    const run_result e = run_in(dir, "-w sub/w.yaml -o out");
    INFO(e.out);
    CHECK(e.code == 2);
    CHECK(e.out.find("sub/scale.cu:6:32: error: use of undeclared identifier 'OFFSET' (compiling "
                     "'sub/scale.cu' for kernel 'scale' of sub/w.yaml)") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("init: {file:} and expect_file: read raw little-endian elements, the record keeps copies")
{
    const fs::path dir = scratch("files");
    fs::create_directories(dir / "w" / "data");
    const unsigned n = 1000;
    auto write_f32 = [](const fs::path& p, const std::vector<float>& v) {
        std::ofstream out(p, std::ios::binary);
        for (float f : v) {
            std::uint32_t w = 0;
            std::memcpy(&w, &f, 4);
            for (int b = 0; b < 4; ++b)
                out.put(static_cast<char>((w >> (8 * b)) & 0xff)); // little-endian
        }
    };
    std::vector<float> a(n), b(n), c(n);
    for (unsigned i = 0; i < n; ++i) {
        a[i] = 0.25f * static_cast<float>(i) - 7.0f;
        b[i] = 1.0f / static_cast<float>(i + 3);
        c[i] = a[i] + b[i]; // the host's own sum
    }
    write_f32(dir / "w" / "data" / "a.bin", a);
    write_f32(dir / "w" / "data" / "b.bin", b);
    write_f32(dir / "w" / "data" / "c.bin", c);
    const std::string yaml = "name: files\n"
                             "buffers:\n"
                             "  - {name: a, type: f32, elements: 1000, init: {file: data/a.bin}}\n"
                             "  - {name: b, type: f32, elements: 1000, init: {file: data/b.bin}}\n"
                             "  - {name: c, type: f32, elements: 1000}\n"
                             "kernels:\n"
                             "  - name: vector_add\n"
                             "    cuda: " +
                             kernel_path("vector_add") +
                             "\n"
                             "    entry: vector_add\n"
                             "    params: [{buffer: a}, {buffer: b}, {buffer: c}, {value: 1000}]\n"
                             "    grid: 4\n"
                             "    block: 256\n"
                             "checks:\n"
                             "  - {buffer: c, expect_file: data/c.bin, tolerance: 0}\n";
    std::ofstream(dir / "w" / "w.yaml") << yaml;
    const run_result r = run_in(dir, "-w w/w.yaml -o out");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(slurp(dir / "out" / "inputs" / "a.bin") == slurp(dir / "w" / "data" / "a.bin"));
    CHECK(slurp(dir / "out" / "expected" / "0.bin") == slurp(dir / "w" / "data" / "c.bin"));
    // The record runs from a copy, with the data files gone.
    fs::copy(dir / "out", dir / "moved", fs::copy_options::recursive);
    fs::remove_all(dir / "w");
    const run_result again = run_in(dir, "-c moved/config.yaml -o out2");
    INFO(again.out);
    CHECK(again.code == 0);
    // The check can fail: one element changed in the expected file is caught (exit 1).
    std::string wrong = slurp(dir / "moved" / "expected" / "0.bin");
    wrong[400] = static_cast<char>(wrong[400] ^ 1);
    std::ofstream(dir / "moved" / "expected" / "0.bin", std::ios::binary) << wrong;
    const run_result bad = run_in(dir, "-c moved/config.yaml -o out3");
    INFO(bad.out);
    CHECK(bad.code == 1);
    // A file of the wrong size is a located error (exit 2).
    fs::create_directories(dir / "w" / "data");
    std::ofstream(dir / "w" / "data" / "a.bin") << "abc";
    write_f32(dir / "w" / "data" / "b.bin", b);
    write_f32(dir / "w" / "data" / "c.bin", c);
    std::ofstream(dir / "w" / "w.yaml") << yaml;
    const run_result size = run_in(dir, "-w w/w.yaml -o out4");
    CHECK(size.code == 2);
    CHECK(size.out == "w/w.yaml:3:55: error: buffers[0].init.file: 'w/data/a.bin' has 3 bytes but "
                      "the buffer's 1000 elements take 4000 (raw little-endian f32 elements)\n");
    fs::remove_all(dir);
}

TEST_CASE("catalogue: what the front end refuses is located at the PTX and CUDA lines, exit 2")
{
    const fs::path dir = scratch("refused");
    fs::copy_file(test::path("kernels/unsupported.cu"), dir / "unsupported.cu");
    std::ofstream(dir / "w.yaml") << catalogue_yaml(
        "    cuda: unsupported.cu\n    entry: uses_texture\n    params: [{buffer: a}]\n");
    const run_result r = run_in(dir, "-w w.yaml -o out");
    CHECK(r.code == 2);
    CHECK(r.out == "kernels/k.ptx:31:2: error: unsupported texture fetch (tex1Dfetch, tex1D, tex2D "
                   "read a texture) (CUDA source " +
                       dir.string() + "/unsupported.cu:6) (kernel 'k' of w.yaml)\n");
    fs::remove_all(dir);
}

TEST_CASE("warp_math.cu (division, SFU, rounding, shuffles, votes) runs on vgpu-sim in both modes")
{
    // Host reference, written from CUDA's definitions: one warp of 32 consecutive threads at
    // a time; a shuffle whose source lane is out of range returns the lane's own value.
    const unsigned n = 1000, threads = 1024;
    std::vector<float> x(n);
    for (unsigned i = 0; i < n; ++i)
        x[i] = static_cast<float>(static_cast<int>((i * 37) % 161) - 80) / 10.0f;
    std::vector<float> f(4 * n);
    std::vector<std::uint32_t> u(4 * n);
    for (unsigned w = 0; w < threads / 32; ++w) {
        float v[32], s[32];
        for (unsigned l = 0; l < 32; ++l)
            v[l] = s[l] = 32 * w + l < n ? x[32 * w + l] : 0.0f;
        for (unsigned o = 16; o > 0; o >>= 1) {
            float next[32];
            for (unsigned l = 0; l < 32; ++l)
                next[l] = s[l] + (l + o < 32 ? s[l + o] : s[l]);
            std::copy(next, next + 32, s);
        }
        std::uint32_t positive = 0;
        bool small = true, big = false;
        for (unsigned l = 0; l < 32; ++l) {
            positive |= static_cast<std::uint32_t>(v[l] > 0.0f) << l;
            small = small && v[l] < 4.0f;
            big = big || v[l] > 7.5f;
        }
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned i = 32 * w + l;
            if (i >= n)
                continue;
            const float left = l >= 1 ? v[l - 1] : v[l];
            f[4 * i] = v[l] / (s[0] + 100.0f);
            f[4 * i + 1] = static_cast<float>(std::exp2(static_cast<double>(v[l])));
            f[4 * i + 2] = std::nearbyint(v[l] * 3.0f) + left;
            f[4 * i + 3] = static_cast<float>(static_cast<std::uint32_t>(i * 2654435761u));
            u[4 * i] = positive;
            u[4 * i + 1] = i / 7 + i % 7;
            u[4 * i + 2] = (small ? 2u : 0u) + (big ? 1u : 0u);
            u[4 * i + 3] = static_cast<std::uint32_t>(static_cast<int>(std::floor(v[l] * 10.0f))) +
                           static_cast<std::uint32_t>((static_cast<int>(i) - 500) / -3);
        }
    }
    auto list = [](const auto& values) {
        std::string s;
        char buf[40];
        for (std::size_t k = 0; k < values.size(); ++k) {
            if constexpr (std::is_same_v<std::decay_t<decltype(values[0])>, float>)
                std::snprintf(buf, sizeof buf, "%s%.9g", k ? ", " : "",
                              static_cast<double>(values[k]));
            else
                std::snprintf(buf, sizeof buf, "%s%u", k ? ", " : "",
                              static_cast<unsigned>(values[k]));
            s += buf;
        }
        return s;
    };
    const std::string yaml = "name: warp_math_cuda\n"
                             "buffers:\n"
                             "  - {name: x, type: f32, elements: 1000, init: {values: [" +
                             list(x) +
                             "]}}\n"
                             "  - {name: f, type: f32, elements: 4000, init: zero}\n"
                             "  - {name: u, type: u32, elements: 4000, init: zero}\n"
                             "kernels:\n"
                             "  - name: warp_math\n"
                             "    ptx: k.ptx\n"
                             "    entry: warp_math\n"
                             "    params:\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: f, buffer: f}\n"
                             "      - {name: u, buffer: u}\n"
                             "      - {name: n, value: 1000}\n"
                             "    grid: [4, 1]\n"
                             "    block: [256, 1]\n"
                             "checks:\n"
                             "  - buffer: f\n"
                             "    expect: [" +
                             list(f) +
                             "]\n"
                             "    tolerance: {relative: 1.0e-6, absolute: 0}\n" // ex2.approx: 2 ulp
                             "  - buffer: u\n"
                             "    expect: [" +
                             list(u) + "]\n";
    compile_request req;
    req.source = kernel_path("warp_math");
    req.kernel = "warp_math";
    const compile_result c = compile_cuda(req);
    REQUIRE(c.ok());
    auto run_ptx = [&](const std::string& tag, const std::string& ptx, const std::string& mode) {
        const fs::path dir = scratch(tag + "_" + mode);
        std::ofstream(dir / "k.ptx") << ptx;
        std::ofstream(dir / "w.yaml") << yaml;
        run_result r = run_in(dir, "-w w.yaml -s platform.timing.mode=" + mode + " -o out");
        fs::remove_all(dir);
        return r;
    };
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_ptx("warp_math", c.ptx, mode);
        INFO(mode << "\n" << r.out.substr(0, 4000));
        CHECK(r.code == 0);
    }
    // The checks can fail: a shuffle in the wrong direction or an unsigned division is caught.
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"shfl.sync.down", "shfl.sync.up"},
          {"div.s32", "div.u32"}}) {
        std::string wrong = c.ptx;
        const auto at = wrong.find(from);
        REQUIRE(at != std::string::npos);
        wrong.replace(at, from.size(), to);
        const run_result r = run_ptx("warp_math_wrong", wrong, "fast");
        INFO(from << " -> " << to << "\n" << r.out.substr(0, 2000));
        CHECK(r.code == 1);
    }
}
