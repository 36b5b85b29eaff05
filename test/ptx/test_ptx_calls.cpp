// Device functions and launch bounds (docs/cuda.md, "Device functions", "Launch bounds"):
// `.func` calls through `.param` inlined (nested, twice, with a guarded early `ret`) and run on
// a functional warp against values computed here; a call of an undefined function refused
// with its exact message (printf: test_ptx_printf.cpp); the
// register caps of .maxnreg and .minnctapersm; device_calls.cu (__noinline__ functions, a
// pointer to a local array passed to a function, __launch_bounds__(128, 2)) run by vgpu-sim
// from `cuda:` in both timing modes against a host reference, and a block over .maxntid
// refused with its exact message (exit 2).
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu;
using namespace vgpu::ptx;
using namespace vgpu::ptx::test;

namespace {

// clamp3(v) = min(v, 3) by a guarded early ret; twice(v) = clamp3(v) + clamp3(v + 1) + v.
const char* const funcs =
    ".version 6.0\n.target sm_70\n.address_size 64\n"
    ".func (.param .b32 r) clamp3(.param .b32 a)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n"
    "ld.param.u32 %r1, [a];\nsetp.gt.u32 %p1, %r1, 3;\n"
    "@%p1 bra BIG;\nst.param.b32 [r+0], %r1;\nret;\n"
    "BIG:\nmov.u32 %r2, 3;\nst.param.b32 [r+0], %r2;\nret;\n}\n"
    ".func (.param .b32 r) twice(.param .b32 a)\n{\n.reg .b32 %r<6>;\n"
    "ld.param.u32 %r1, [a];\n"
    "{\n.param .b32 p0;\nst.param.b32 [p0+0], %r1;\n.param .b32 q0;\n"
    "call.uni (q0), clamp3, (p0);\nld.param.b32 %r2, [q0+0];\n}\n"
    "add.s32 %r3, %r1, 1;\n"
    "{\n.param .b32 p0;\nst.param.b32 [p0+0], %r3;\n.param .b32 q0;\n"
    "call.uni (q0), clamp3, (p0);\nld.param.b32 %r4, [q0+0];\n}\n"
    "add.s32 %r5, %r2, %r4;\nadd.s32 %r5, %r5, %r1;\nst.param.b32 [r+0], %r5;\nret;\n}\n";

} // namespace

TEST_CASE("device functions are inlined: nested calls, two calls, guarded early returns")
{
    const std::string text =
        std::string(funcs) +
        ".visible .entry k(.param .u64 k_p0)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [k_p0];\nmov.u32 %r1, %tid.x;\n"
        "{\n.param .b32 p0;\nst.param.b32 [p0+0], %r1;\n.param .b32 q0;\n"
        "call.uni (q0), twice, (p0);\nld.param.b32 %r2, [q0+0];\n}\n"
        "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r2;\n"
        "ret;\n}\n";
    const parse_result p = parse(text, "t.ptx");
    for (const std::string& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    const translation t = translate(p.mod, p.mod.find_function("k"));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    INFO(t.text);
    const warp_run r = run_warp(t, {0x1000}, {});
    REQUIRE(r.error.empty());
    for (std::uint32_t l = 0; l < 32; ++l) {
        const std::uint32_t want = std::min(l, 3u) + std::min(l + 1, 3u) + l;
        INFO("lane " << l);
        CHECK(r.mem.at(0x1000 + 4 * l) == want);
    }
}

TEST_CASE("calls that cannot be inlined are located errors")
{
    // (printf: test_ptx_printf.cpp)
    const std::string text = ".version 6.0\n.target sm_70\n.address_size 64\n"
                             ".extern .func (.param .b32 r) ext_fn(.param .b64 f, .param .b64 a);\n"
                             ".global .align 1 .b8 fmt[4] = {104, 105, 10, 0};\n"
                             ".visible .entry k()\n{\n.reg .b64 %rd<2>;\n"
                             "mov.u64 %rd1, fmt;\n"
                             "{\n.param .b64 p0;\nst.param.b64 [p0+0], %rd1;\n.param .b64 p1;\n"
                             "st.param.b64 [p1+0], 0;\n.param .b32 q0;\n"
                             "call.uni (q0), ext_fn, (p0, p1);\n}\nret;\n}\n";
    const parse_result p = parse(text, "t.ptx");
    REQUIRE(p.ok());
    const translation t = translate(p.mod, p.mod.find_function("k"));
    REQUIRE_FALSE(t.ok());
    CHECK(t.errors.back() ==
          "t.ptx:16:1: error: unsupported 'call.uni': a call of 'ext_fn', which the module does "
          "not define");
}

TEST_CASE("launch bounds cap the registers and check the block")
{
    // 20 values live at once: more than .maxnreg 8 allows (the same address in every lane).
    std::string body = "ld.param.u64 %rd1, [k_p0];\n";
    for (int i = 1; i <= 20; ++i)
        body +=
            "ld.global.u32 %r" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) + "];\n";
    for (int i = 2; i <= 20; ++i)
        body += "add.s32 %r1, %r1, %r" + std::to_string(i) + ";\n";
    body += "st.global.u32 [%rd1], %r1;\nret;";
    std::string text = entry_text(body);
    const std::string head = "  .param .u32 k_p3, .param .f32 k_p4)\n";
    SECTION(".maxnreg 8: the values that do not fit are spilled and the sum is exact")
    {
        text.replace(text.find(head), head.size(), head + ".maxnreg 8\n");
        const translation t = translate_text(text);
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        CHECK(t.register_cap == 8);
        CHECK(t.registers <= 8);
        CHECK(t.local_bytes > 0); // spill slots
        std::map<std::uint32_t, std::uint32_t> mem;
        std::uint32_t want = 0;
        for (std::uint32_t i = 1; i <= 20; ++i) {
            mem[0x1000 + 4 * i] = i * 7919u + (i << 20);
            want += i * 7919u + (i << 20);
        }
        // The local area's base goes after the parameters and their 64-bit high words.
        std::vector<std::uint32_t> params{0x1000, 0, 0, 0, 0};
        params.resize(t.local_param, 0);
        params.push_back(0x40000000);
        const warp_run r = run_warp(t, params, mem);
        REQUIRE(r.error.empty());
        CHECK(r.mem.at(0x1000) == want);
        std::size_t spill_words = 0;
        for (const auto& [a, v] : r.mem)
            spill_words += a >= 0x40000000;
        CHECK(spill_words == 32 * t.local_bytes / 4); // every slot of every lane written
    }
    SECTION("guarded writes of spilled values keep the other lanes' values")
    {
        // Odd lanes add i to value i (a guarded write of each, spilled or not), then the sum.
        std::string g = "ld.param.u64 %rd1, [k_p0];\nmov.u32 %r40, %laneid;\n"
                        "and.b32 %r41, %r40, 1;\nsetp.ne.u32 %p1, %r41, 0;\n";
        for (int i = 1; i <= 20; ++i)
            g += "ld.global.u32 %r" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) +
                 "];\n";
        for (int i = 1; i <= 20; ++i)
            g += "@%p1 add.s32 %r" + std::to_string(i) + ", %r" + std::to_string(i) + ", " +
                 std::to_string(i) + ";\n";
        for (int i = 2; i <= 20; ++i)
            g += "add.s32 %r1, %r1, %r" + std::to_string(i) + ";\n";
        g += "mul.wide.u32 %rd2, %r40, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
             "st.global.u32 [%rd3+128], %r1;\nret;";
        std::string gt = entry_text(g);
        gt.replace(gt.find(head), head.size(), head + ".maxnreg 8\n");
        const translation t = translate_text(gt);
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        CHECK(t.registers <= 8);
        CHECK(t.local_bytes > 0);
        std::map<std::uint32_t, std::uint32_t> mem;
        std::uint32_t sum = 0;
        for (std::uint32_t i = 1; i <= 20; ++i) {
            mem[0x1000 + 4 * i] = 1000 * i;
            sum += 1000 * i;
        }
        // The local area's base goes after the parameters and their 64-bit high words.
        std::vector<std::uint32_t> params{0x1000, 0, 0, 0, 0};
        params.resize(t.local_param, 0);
        params.push_back(0x40000000);
        const warp_run r = run_warp(t, params, mem);
        REQUIRE(r.error.empty());
        for (std::uint32_t l = 0; l < 32; ++l) {
            INFO("lane " << l);
            CHECK(r.mem.at(0x1000 + 128 + 4 * l) == sum + ((l & 1) ? 210u : 0u)); // 1+..+20
        }
    }
    SECTION(".maxntid 200 (7 warps) and .minnctapersm 4: 65536 / (4 * 224) = 73 registers")
    {
        text.replace(text.find(head), head.size(), head + ".maxntid 200, 1, 1\n.minnctapersm 4\n");
        const translation t = translate_text(text);
        REQUIRE(t.ok());
        CHECK(t.register_cap == 73);
    }
    SECTION("a CTA over .maxntid, or not .reqntid")
    {
        translation t;
        t.maxntid = {128, 1, 1};
        CHECK(launch_bounds_problem(t, 128, 1, 1).empty());
        CHECK(launch_bounds_problem(t, 64, 2, 1).empty());
        CHECK(launch_bounds_problem(t, 256, 1, 1) ==
              "block [256, 1, 1] has 256 threads, more than the 128 of the kernel's .maxntid "
              "128, 1, 1 (__launch_bounds__)");
        t.maxntid.clear();
        t.reqntid = {32, 4};
        CHECK(launch_bounds_problem(t, 32, 4, 1).empty());
        CHECK(launch_bounds_problem(t, 64, 2, 1) ==
              "block [64, 2, 1] is not the kernel's .reqntid 32, 4 (__launch_bounds__ or "
              "__reqntid__)");
    }
}

namespace {

std::pair<int, std::string> run_sim(const std::filesystem::path& dir, const std::string& mode)
{
    const std::string cmd = "cd '" + dir.string() +
                            "' && '" VGPU_SIM_PATH "' -w w.yaml -s platform.timing.mode=" + mode +
                            " -o out-" + mode + " >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "log.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, ss.str()};
}

} // namespace

TEST_CASE("device_calls.cu (__noinline__ functions, __launch_bounds__) runs in both modes")
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 3642;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const int n = 700 + static_cast<int>(rng() % 300);
    std::vector<float> x(static_cast<std::size_t>(n)), y(x.size());
    std::vector<std::uint32_t> u(x.size()), z(x.size());
    for (int t = 0; t < n; ++t) { // the kernel's computation, written from its source
        const auto i = static_cast<std::size_t>(t);
        x[i] = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 16.0f;
        u[i] = rng();
        const int k = t & 3;
        y[i] = k > 0 ? std::fma(x[i], 2.0f, static_cast<float>(k)) : x[i] - 2.0f;
        std::uint32_t a[6];
        for (std::uint32_t j = 0; j < 6; ++j)
            a[j] = u[i] + j * j;
        z[i] = a[u[i] % 6] + a[(u[i] >> 3) % 6];
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_ptx_calls_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(path("kernels/device_calls.cu"), dir / "device_calls.cu");
    auto workload = [&](unsigned block) {
        std::ofstream(dir / "w.yaml")
            << "buffers:\n"
            << "  - {name: x, type: f32, elements: " << n << ", init: {values: [" << list(x)
            << "]}}\n  - {name: u, type: u32, elements: " << n << ", init: {values: [" << list(u)
            << "]}}\n  - {name: y, type: f32, elements: " << n
            << ", init: zero}\n  - {name: z, type: u32, elements: " << n
            << ", init: zero}\nkernels:\n  - name: calls\n    cuda: device_calls.cu\n"
            << "    entry: device_calls\n    params:\n      - {name: x, buffer: x}\n"
            << "      - {name: u, buffer: u}\n      - {name: y, buffer: y}\n"
            << "      - {name: z, buffer: z}\n      - {name: n, value: " << n << "}\n    grid: ["
            << (n + block - 1) / block << ", 1]\n    block: [" << block
            << ", 1]\nchecks:\n  - buffer: y\n    expect: [" << list(y)
            << "]\n    tolerance: {relative: 0, absolute: 0}\n  - buffer: z\n    expect: ["
            << list(z) << "]\n";
    };
    workload(128);
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(dir, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
    workload(256); // over __launch_bounds__(128): refused at the block key
    const auto [code, log] = run_sim(dir, "fast");
    INFO(log);
    CHECK(code == 2);
    CHECK(log.find("w.yaml:17:12: error: kernels[0].block: block [256, 1, 1] has 256 threads, "
                   "more than the 128 of the kernel's .maxntid 128, 1, 1 (__launch_bounds__)") !=
          std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("spill_heavy.cu (40 live values, 32 registers by __launch_bounds__) spills and matches")
{
    compile_request req;
    req.source = path("kernels/spill_heavy.cu");
    req.kernel = "spill_heavy";
    const compile_result c = compile_cuda(req);
    REQUIRE(c.ok());
    const parse_result p = parse(c.ptx, "spill_heavy.ptx");
    REQUIRE(p.ok());
    const translation t = translate(p.mod, p.mod.find_function("_Z11spill_heavyPKjPji"));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    CHECK(t.register_cap == 32); // 65536 / (8 CTAs * 256 threads)
    CHECK(t.registers <= 32);
    CHECK(t.local_bytes >= 4); // some values live in local memory
    std::printf("spill_heavy: %u registers, %u bytes of spill slots per thread\n", t.registers,
                t.local_bytes);

    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 3643;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const int n = 600 + static_cast<int>(rng() % 200);
    std::vector<std::uint32_t> x(static_cast<std::size_t>(n) * 40), y(static_cast<std::size_t>(n));
    for (auto& v : x)
        v = rng();
    for (int t = 0; t < n; ++t) { // the kernel's computation, written from its source
        std::uint32_t v[40], a = 0;
        for (int i = 0; i < 40; ++i)
            v[i] = x[static_cast<std::size_t>(t + i * n)];
        for (int i = 0; i < 40; ++i)
            a = a * 31u + v[i];
        std::uint32_t r = a;
        for (int i = 0; i < 40; ++i)
            r = (r ^ (v[39 - i] * (a | 1u))) + static_cast<std::uint32_t>(i);
        y[static_cast<std::size_t>(t)] = r;
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_ptx_spill_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(path("kernels/spill_heavy.cu"), dir / "spill_heavy.cu");
    std::ofstream(dir / "w.yaml") << "buffers:\n  - {name: x, type: u32, elements: " << x.size()
                                  << ", init: {values: [" << list(x)
                                  << "]}}\n  - {name: y, type: u32, elements: " << n
                                  << ", init: zero}\nkernels:\n  - name: spill_heavy\n"
                                  << "    cuda: spill_heavy.cu\n    entry: spill_heavy\n"
                                  << "    params:\n      - {name: x, buffer: x}\n"
                                  << "      - {name: y, buffer: y}\n      - {name: n, value: " << n
                                  << "}\n    grid: [" << (n + 255) / 256
                                  << ", 1]\n    block: [256, 1]\nchecks:\n  - buffer: y\n"
                                  << "    expect: [" << list(y) << "]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(dir, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
    std::filesystem::remove_all(dir);
}
