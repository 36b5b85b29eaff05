// End to end: CUDA kernels of issue 36 compiled with the compile driver, translated, put as
// `program:` into a workload with the hand-written workload's params and buffers, and run by
// vgpu-sim in fast and accurate mode; the workload's checks compare with host references
// (models/host/reference.cpp, or values computed here with the host's fmaf), written apart
// from the translator.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;

namespace {

translation translate_kernel(const std::string& name)
{
    compile_request req;
    req.source = test::path("kernels/" + name + ".cu");
    req.kernel = name;
    const compile_result c = compile_cuda(req);
    for (const std::string& e : c.errors)
        UNSCOPED_INFO(e);
    REQUIRE(c.ok());
    const parse_result p = parse(c.ptx, name + ".ptx");
    REQUIRE(p.ok());
    const entry_lookup e = find_entry(p.mod, name, {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    REQUIRE(check_entry(p.mod, e.index).empty());
    translation t = translate(p.mod, e.index);
    for (const std::string& m : t.errors)
        UNSCOPED_INFO(m);
    REQUIRE(t.ok());
    return t;
}

/// The program as a YAML block scalar under `program: |` (six spaces of indentation).
std::string block(const std::string& text)
{
    std::string out = "      # translated from PTX by vgpu's translator\n";
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        out += "      " + line + "\n";
    return out;
}

struct run_result {
    int code = -1;
    std::string out;
};

/// Runs vgpu-sim on workload text in a scratch folder with the timing mode.
run_result run_sim(const std::string& tag, const std::string& yaml, const std::string& mode)
{
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vgpu_ptx_e2e_" + tag + "_" + mode + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "w.yaml") << yaml;
    const std::string cmd = "cd '" + dir.string() +
                            "' && '" VGPU_SIM_PATH "' -w w.yaml -s platform.timing.mode=" + mode +
                            " -o out >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    run_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    std::ifstream in(dir / "log.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    r.out = ss.str();
    std::filesystem::remove_all(dir);
    return r;
}

std::string vector_add_yaml(const std::string& program)
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
           "  - name: vector_add\n"
           "    params:\n"
           "      - {name: a, buffer: a}\n"
           "      - {name: b, buffer: b}\n"
           "      - {name: c, buffer: c}\n"
           "      - {name: n, value: \"${n}\"}\n"
           "    grid: [63, 1]\n"
           "    block: [256, 1]\n"
           "    program: |\n" +
           block(program) +
           "checks:\n"
           "  - buffer: c\n"
           "    reference: vector_add\n"
           "    args: {a: a, b: b, n: vector_add.n}\n";
}

} // namespace

TEST_CASE("vector_add.cu runs translated on vgpu-sim in both modes and matches the reference")
{
    const translation t = translate_kernel("vector_add");
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("vector_add", vector_add_yaml(t.text), mode);
        INFO(mode << "\n" << r.out << "\n" << t.text);
        CHECK(r.code == 0);
    }
    // The check can fail: a translation with FSUB for FADD is caught.
    std::string wrong = t.text;
    const auto at = wrong.find("FADD");
    REQUIRE(at != std::string::npos);
    wrong.replace(at, 4, "FSUB");
    const run_result r = run_sim("vector_add_wrong", vector_add_yaml(wrong), "fast");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("expected") != std::string::npos);
}

TEST_CASE("gather.cu runs translated on vgpu-sim in both modes and matches the reference")
{
    const translation t = translate_kernel("gather");
    // random_gather.yaml's buffers and params (a smaller table), one element per thread.
    const std::string yaml =
        "name: gather_cuda\n"
        "vars: {n: 8000, src: 65536}\n"
        "buffers:\n"
        "  - {name: src, type: u32, elements: \"${src}\", init: {iota: {start: 100, step: 3}}}\n"
        "  - {name: idx, type: u32, elements: \"${n}\", init: {random: {seed: 42, min: 0, max: "
        "\"${src - 1}\"}}}\n"
        "  - {name: out, type: u32, elements: \"${n}\", init: zero}\n"
        "kernels:\n"
        "  - name: gather\n"
        "    params:\n"
        "      - {name: src, buffer: src}\n"
        "      - {name: idx, buffer: idx}\n"
        "      - {name: out, buffer: out}\n"
        "      - {name: n, value: \"${n}\"}\n"
        "    grid: [32, 1]\n"
        "    block: [250, 1]\n"
        "    program: |\n" +
        block(t.text) +
        "checks:\n"
        "  - buffer: out\n"
        "    reference: gather\n"
        "    args: {src: src, idx: idx, n: gather.n}\n";
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("gather", yaml, mode);
        INFO(mode << "\n" << r.out << "\n" << t.text);
        CHECK(r.code == 0);
    }
}

TEST_CASE("ffma_chain.cu runs translated on vgpu-sim in both modes, bit-exact to host fmaf")
{
    const translation t = translate_kernel("ffma_chain");
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
                             "    params:\n"
                             "      - {name: data, buffer: data}\n"
                             "      - {name: a, value: 0.999}\n"
                             "      - {name: b, value: 0.001}\n"
                             "      - {name: iters, value: " +
                             std::to_string(iters) +
                             "}\n"
                             "    grid: [8, 1]\n"
                             "    block: [256, 1]\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: data\n"
                             "    expect: [" +
                             expect +
                             "]\n"
                             "    tolerance: {relative: 0, absolute: 0}\n";
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("ffma_chain", yaml, mode);
        INFO(mode << "\n" << r.out << "\n" << t.text);
        CHECK(r.code == 0);
    }
}

TEST_CASE("warp_math.cu (division, SFU, rounding, shuffles, votes) runs on vgpu-sim in both modes")
{
    const translation t = translate_kernel("warp_math");
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
                             "    params:\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: f, buffer: f}\n"
                             "      - {name: u, buffer: u}\n"
                             "      - {name: n, value: 1000}\n"
                             "    grid: [4, 1]\n"
                             "    block: [256, 1]\n"
                             "    program: |\n" +
                             block(t.text) +
                             "checks:\n"
                             "  - buffer: f\n"
                             "    expect: [" +
                             list(f) +
                             "]\n"
                             "    tolerance: {relative: 1.0e-6, absolute: 0}\n" // ex2.approx: 2 ulp
                             "  - buffer: u\n"
                             "    expect: [" +
                             list(u) + "]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r = run_sim("warp_math", yaml, mode);
        INFO(mode << "\n" << r.out.substr(0, 4000) << "\n" << t.text);
        CHECK(r.code == 0);
    }
    // The checks can fail: a shuffle in the wrong direction or a truncating division is caught.
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"SHFL.DOWN", "SHFL.UP"}, {"IDIV.S", "IDIV.U"}}) {
        std::string wrong = yaml;
        const auto at = wrong.find(from);
        REQUIRE(at != std::string::npos);
        wrong.replace(at, from.size(), to);
        const run_result r = run_sim("warp_math_wrong", wrong, "fast");
        INFO(from << " -> " << to << "\n" << r.out.substr(0, 2000));
        CHECK(r.code == 1);
    }
}
