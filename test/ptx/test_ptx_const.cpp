// __constant__ / .const data through the CDL block (issue 36 items 1 and 4): the constant bank
// and its CDLs in the translator's text, CUDA kernels with `constants:` run by vgpu-sim in both
// timing modes against host references computed here, the bulk CDL in the .vasm and in the
// CDL block's statistics, two kernels with their own banks side by side, and the catalogue of
// refused forms and workload errors with their exact messages. Also converge_loop.cu (issue 36
// item 3: a diverged shfl.sync and __syncthreads in a loop) run by vgpu-sim in both modes.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;
using namespace vgpu::ptx::test;
namespace fs = std::filesystem;

namespace {

/// Sum over the SMs of a CDL statistic ("controller.bulk": gpu.m0.c0.sm0_cdl.controller.bulk
/// and the other SMs') in a run's stats.json.
double cdl_stat(const fs::path& outdir, const std::string& name)
{
    const nlohmann::json j = nlohmann::json::parse(slurp(outdir / "stats.json"));
    const std::string tail = "_cdl." + name;
    double sum = 0;
    for (auto it = j.at("stats").begin(); it != j.at("stats").end(); ++it) {
        const std::string& k = it.key();
        if (k.size() > tail.size() && k.compare(k.size() - tail.size(), tail.size(), tail) == 0 &&
            it.value().is_number())
            sum += it.value().get<double>();
    }
    return sum;
}

/// The translation of the last function of PTX text (the entry).
translation translate_last(const std::string& ptx)
{
    const parse_result p = parse(ptx, "k.ptx");
    INFO((p.errors.empty() ? std::string() : p.errors[0]));
    REQUIRE(p.ok());
    return translate(p.mod, static_cast<int>(p.mod.functions.size()) - 1);
}

const std::string head = ".version 6.0\n.target sm_70\n.address_size 64\n";

// conv1d_const: n inputs in[i] = ((37 i) mod 17 - 8) / 8, seven dyadic taps: every product and
// sum is exact in f32, so the kernel's result is the host's whatever the FMA contraction.
const unsigned conv_n = 1000;
const std::vector<float> taps = {0.125f, -0.25f, 0.5f, 1.0f, 0.5f, -0.25f, 0.125f};

std::vector<float> conv_input()
{
    std::vector<float> in(conv_n);
    for (unsigned i = 0; i < conv_n; ++i)
        in[i] = static_cast<float>(static_cast<int>((37 * i) % 17) - 8) / 8.0f;
    return in;
}

std::vector<float> conv_reference(const std::vector<float>& in, const std::vector<float>& c)
{
    std::vector<float> out(conv_n);
    for (int i = 0; i < static_cast<int>(conv_n); ++i) {
        double s = 0; // exact: the values are dyadic and small
        for (int k = 0; k < 7; ++k) {
            const int j = i + k - 3;
            if (j >= 0 && j < static_cast<int>(conv_n))
                s += static_cast<double>(c[static_cast<std::size_t>(k)]) *
                     static_cast<double>(in[static_cast<std::size_t>(j)]);
        }
        out[static_cast<std::size_t>(i)] = static_cast<float>(s);
    }
    return out;
}

std::string conv_kernel(const std::string& name, const std::string& code,
                        const std::string& constants)
{
    return "  - name: " + name + "\n" + code +
           "    entry: conv1d_const\n    constants: " + constants +
           "\n    params: [{buffer: in}, {buffer: out}, {value: 1000}]\n"
           "    grid: 4\n    block: 256\n";
}

// const_mix: lut4 = iota 1, 0.5 (16 floats), offsets = its initialiser {0,1,2,3,5,8,13,21}.
std::vector<float> mix_reference(unsigned n, float lut_start)
{
    auto lut = [&](int k) { return lut_start + 0.5f * static_cast<float>(k); };
    const int offsets[8] = {0, 1, 2, 3, 5, 8, 13, 21};
    std::vector<float> out(n);
    for (unsigned i = 0; i < n; ++i) {
        float acc = static_cast<float>(offsets[i & 7]);
        if (i % 3 == 0)
            acc += lut(4) + 2.0f * lut(5) + 3.0f * lut(6) + 4.0f * lut(7); // lut4[1]
        else
            acc += lut(4 * static_cast<int>(i & 3)) - lut(4 * static_cast<int>(i & 3) + 3);
        out[i] = acc;
    }
    return out;
}

} // namespace

TEST_CASE("const: the bank, legacy CDLs at immediate and register offsets, a bulk CDL for v4")
{
    const translation t = translate_last(
        head + ".const .align 4 .f32 a[3] = {0f3F800000, 0f40000000, 0f40400000};\n"
               ".const .align 16 .b8 v[32];\n"
               ".visible .entry k(.param .u64 p)\n{\n"
               "  .reg .b32 %r<4>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<4>;\n"
               "  ld.const.f32 %f1, [a+8];\n"
               "  mov.u64 %rd1, v;\n"
               "  mov.u32 %r1, %tid.x;\n"
               "  mul.wide.u32 %rd2, %r1, 4;\n"
               "  add.s64 %rd3, %rd1, %rd2;\n"
               "  ld.const.f32 %f2, [%rd3+4];\n"
               "  ld.const.v4.f32 {%f3, %f4, _, %f5}, [v+16];\n"
               "  add.f32 %f6, %f1, %f2;\n  add.f32 %f6, %f6, %f3;\n  add.f32 %f6, %f6, %f4;\n"
               "  add.f32 %f7, %f6, %f5;\n"
               "  ld.param.u64 %rd1, [p];\n"
               "  st.global.f32 [%rd1], %f7;\n"
               "  ret;\n}\n");
    INFO((t.errors.empty() ? t.text : t.errors[0]));
    REQUIRE(t.ok());
    // a at 0 (12 bytes), v at 16 (its .align); the initialiser's words, zero elsewhere.
    REQUIRE(t.const_vars.size() == 2);
    CHECK(t.const_vars[0].name == "a");
    CHECK(t.const_vars[0].offset == 0);
    CHECK(t.const_vars[0].bytes == 12);
    CHECK(t.const_vars[1].offset == 16);
    CHECK(t.const_vars[1].bytes == 32);
    REQUIRE(t.const_bank.size() == 48);
    const std::vector<std::uint8_t> first = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40};
    CHECK(std::vector<std::uint8_t>(t.const_bank.begin(), t.const_bank.begin() + 12) == first);
    CHECK(std::all_of(t.const_bank.begin() + 12, t.const_bank.end(), [](auto b) { return !b; }));
    // The CDLs: a+8 immediate; v + 4 tid + 4 through an IADD; v+16 bulk (4 dwords) and one
    // SHFL.IDX per element that is not a sink.
    auto has = [&](const std::string& s) { return t.text.find(s) != std::string::npos; };
    CHECK(has(", 8, cbv[0] "));     // a[2]
    CHECK(has(", 32, cbv[0], 4 ")); // v[16..31]
    CHECK(has("IADD R"));
    CHECK(has("0x00000003, 0x0000001f")); // .w from lane 3
    std::size_t cdls = 0, bulk = 0, shfl = 0;
    std::istringstream lines(t.text);
    for (std::string l; std::getline(lines, l);) {
        cdls += l.find(" CDL ") != std::string::npos;
        bulk += l.find("cbv[0], 4 ") != std::string::npos;
        shfl += l.find("SHFL.IDX") != std::string::npos;
    }
    CHECK(cdls == 3);
    CHECK(bulk == 1);
    CHECK(shfl == 3);
}

TEST_CASE("const: refused forms and bank limits are located errors")
{
    struct error_case {
        const char* what;
        std::string ptx;
        std::string message;
    };
    const std::string entry = ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n";
    const std::vector<error_case> cases = {
        {"a bank over 64 KiB",
         ".const .align 4 .b8 a[65532];\n.const .align 4 .b8 b[8];\n" + entry + "  ret;\n}\n",
         "k.ptx:5:21: error: the constant bank of 'k' needs 65540 bytes with .const variable 'b' "
         "(at most 65536, as CUDA's constant memory)"},
        {"an extern .const", ".extern .const .align 4 .b8 e[16];\n" + entry + "  ret;\n}\n",
         "k.ptx:4:29: error: unsupported .extern .const variable 'e' (its contents are defined in "
         "another module)"},
        {"an address in an initialiser",
         ".global .align 4 .u32 g;\n.const .align 8 .u64 p = g;\n" + entry + "  ret;\n}\n",
         "k.ptx:5:22: error: unsupported: the initialiser of .const variable 'p' holds the address "
         "of 'g' (addresses in constant memory are not supported)"},
        {"a half-word load at an odd byte",
         ".const .align 4 .b8 c[8];\n" + entry + "  ld.const.u16 %r1, [c+1];\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'ld.const.u16': a constant load at byte 1 (not a "
         "multiple of 2)"},
        {"a 16-bit float load",
         ".const .align 4 .b8 c[8];\n" + entry + "  ld.const.f16 %r1, [c];\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'ld.const.f16': constant loads are of integer and "
         "floating-point elements of 8 to 64 bits: CDL reads dwords"},
        {"a double outside the bank",
         ".const .align 8 .b8 c[8];\n" + entry +
             "  .reg .f64 %fd<2>;\n  ld.const.f64 %fd1, [c+4];\n  ret;\n}\n",
         "k.ptx:10:3: error: unsupported 'ld.const.f64': bytes 4..11 are outside the constant "
         "bank (8 bytes)"},
        {"a generic pointer into constant memory",
         ".const .align 4 .b8 c[8];\n" + entry +
             "  mov.u64 %rd1, c;\n  cvta.const.u64 %rd1, %rd1;\n  ret;\n}\n",
         "k.ptx:10:3: error: unsupported 'cvta.const.u64': a generic pointer into constant "
         "memory (constant data is read by ld.const, through the CDL)"},
        {"outside the bank",
         ".const .align 4 .b8 c[8];\n" + entry + "  ld.const.u32 %r1, [c+8];\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'ld.const.u32': bytes 8..11 are outside the constant "
         "bank (8 bytes)"},
        {"a misaligned immediate",
         ".const .align 4 .b8 c[8];\n" + entry + "  ld.const.u32 %r1, [c+2];\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'ld.const.u32': a constant load at byte 2 (not a "
         "multiple of 4)"},
        {"a generic load of a .const variable",
         ".const .align 4 .b8 c[8];\n" + entry + "  ld.u32 %r1, [c];\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'ld.u32': the address of variable 'c'"},
        {"a global variable's address is refused, not moved as 0xffffffff",
         ".global .align 4 .u32 g;\n" + entry +
             "  mov.u64 %rd1, g;\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n",
         "k.ptx:9:3: error: unsupported 'mov.u64': the address of variable 'g'"},
    };
    for (const error_case& c : cases) {
        const translation t = translate_last(head + c.ptx);
        INFO(c.what << "\n" << (t.errors.empty() ? t.text : t.errors[0]));
        REQUIRE(t.errors.size() >= 1);
        CHECK(t.errors[0] == c.message);
        CHECK(t.text.empty());
    }
}

TEST_CASE(
    "const: const_widths.cu: 8- 16- 64-bit and f64 constant loads in both modes exact to the host")
{
    // The tables of const_widths.cu, restated, and its computation per thread.
    const std::uint8_t cu8[8] = {1, 200, 3, 255, 5, 128, 7, 127};
    const std::int8_t cs8[8] = {-1, 100, -128, 127, 0, -7, 9, -100};
    const std::uint16_t cu16[4] = {1, 65535, 32768, 12345};
    const std::int16_t cs16[4] = {-1, 32767, -32768, -12345};
    const std::int64_t c64[4] = {-1, 0x123456789abcdefLL, -0x7000000000000000LL, 42};
    const double cf64[4] = {1.5, -0.1, 1e300, -3.25};
    const int n = 200;
    std::string ei, el, ed;
    char buf[40];
    for (int i = 0; i < n; ++i) {
        const int v[4] = {cu8[i & 7] + cu8[3], cs8[i & 7] * 3 + cs8[2], cu16[i & 3] + cu16[1],
                          cs16[i & 3] - cs16[2]};
        for (const int x : v)
            ei += (ei.empty() ? "" : ", ") + std::to_string(x);
        const auto l = static_cast<std::int64_t>(static_cast<std::uint64_t>(c64[i & 3]) * 3 +
                                                 static_cast<std::uint64_t>(c64[1]));
        el += (el.empty() ? "" : ", ") + std::to_string(l);
        std::snprintf(buf, sizeof buf, "%s%.17g", ed.empty() ? "" : ", ", cf64[i & 3] - cf64[1]);
        ed += buf;
    }
    const std::string yaml =
        "name: widths\nbuffers:\n"
        "  - {name: oi, type: i32, elements: 800, init: zero}\n"
        "  - {name: ol, type: i64, elements: 200, init: zero}\n"
        "  - {name: od, type: f64, elements: 200, init: zero}\n"
        "kernels:\n  - name: widths\n    cuda: " +
        kernel_path("const_widths") +
        "\n    entry: const_widths\n"
        "    params: [{buffer: oi}, {buffer: ol}, {buffer: od}, {value: 200}]\n"
        "    grid: 1\n    block: 256\n"
        "checks:\n"
        "  - {buffer: oi, expect: [" +
        ei + "]}\n  - {buffer: ol, expect: [" + el + "]}\n  - {buffer: od, expect: [" + ed +
        "], tolerance: {relative: 0, absolute: 0}}\n";
    const fs::path dir = scratch("widths");
    std::ofstream(dir / "w.yaml") << yaml;
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        const std::string vasm = slurp(dir / mode / "kernels" / "widths.vasm");
        CHECK(vasm.find("BFX.S") != std::string::npos); // the signed bytes and half-words
        CHECK(vasm.find("BFX.U") != std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("const: conv1d_const.cu with constants: runs in both modes, exact to the host")
{
    const std::vector<float> in = conv_input();
    const std::vector<float> want = conv_reference(in, taps);
    auto yaml = [&](const std::vector<float>& expect) {
        return "name: conv\nbuffers:\n"
               "  - {name: in, type: f32, elements: 1000, init: {values: [" +
               list(in) +
               "]}}\n"
               "  - {name: out, type: f32, elements: 1000, init: zero}\n"
               "kernels:\n" +
               conv_kernel("conv", "    cuda: " + kernel_path("conv1d_const") + "\n",
                           "{coeffs: {f32: [" + list(taps) + "]}}") +
               "checks:\n  - buffer: out\n    expect: [" + list(expect) +
               "]\n    tolerance: {relative: 0, absolute: 0}\n";
    };
    const fs::path dir = scratch("conv");
    std::ofstream(dir / "w.yaml") << yaml(want);
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        CHECK(cdl_stat(dir / mode, "controller.legacy") > 0);
    }
    // The check can fail: a reference with the taps reversed in their middle is caught (the
    // filter is symmetric but for its sign pattern, so use a changed tap instead).
    std::vector<float> other = taps;
    other[1] = 0.25f;
    std::ofstream(dir / "w.yaml") << yaml(conv_reference(in, other));
    const run_result r = run_in(dir, "-w w.yaml -o wrong");
    INFO(r.out.substr(0, 2000));
    CHECK(r.code == 1);
    fs::remove_all(dir);
}

TEST_CASE("const: const_mix.cu: a bulk CDL in the .vasm and the CDL stats, divergent, both modes")
{
    const unsigned n = 1000;
    auto yaml = [&](float start) {
        return "name: mix\nbuffers:\n"
               "  - {name: lut, type: f32, elements: 16, init: {iota: {start: 1, step: 0.5}}}\n"
               "  - {name: out, type: f32, elements: 1000, init: zero}\n"
               "kernels:\n"
               "  - name: mix\n    ptx: k.ptx\n    entry: const_mix\n"
               "    constants: {lut4: {buffer: lut}}\n"
               "    params: [{buffer: out}, {value: 1000}]\n    grid: 4\n    block: 256\n"
               "checks:\n  - buffer: out\n    expect: [" +
               list(mix_reference(n, start)) + "]\n    tolerance: {relative: 0, absolute: 0}\n";
    };
    compile_request req;
    req.source = kernel_path("const_mix");
    req.kernel = "mix";
    const compile_result c = compile_cuda(req);
    REQUIRE(c.ok());
    const fs::path dir = scratch("mix");
    std::ofstream(dir / "k.ptx") << c.ptx;
    std::ofstream(dir / "w.yaml") << yaml(1.0f);
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        const std::string vasm = slurp(dir / mode / "kernels" / "mix.vasm");
        CHECK(vasm.find(", 16, cbv[0], 4 ") != std::string::npos); // lut4[1]: one bulk CDL
        // 32 warps: the 11 of every 33 threads with i % 3 == 0 are in every warp, so each warp
        // issues the bulk CDL once; the legacy ones: offsets[i & 7] and lut4[i & 3].x, .w.
        CHECK(cdl_stat(dir / mode, "controller.bulk") == 32);
        CHECK(cdl_stat(dir / mode, "controller.legacy") == 96);
        CHECK(cdl_stat(dir / mode, "core.registers_written") == 32);
    }
    // The check can fail: the bulk CDL of lut4[2] instead of lut4[1] is caught.
    std::string wrong = c.ptx;
    const auto at = wrong.find("[lut4+16]");
    REQUIRE(at != std::string::npos);
    wrong.replace(at, 9, "[lut4+32]");
    std::ofstream(dir / "k.ptx") << wrong;
    const run_result r = run_in(dir, "-w w.yaml -o wrong");
    INFO(r.out.substr(0, 2000));
    CHECK(r.code == 1);
    fs::remove_all(dir);
}

TEST_CASE("const: conv3_const.cu: three scalar loads in one block become one bulk CDL (three "
          "legacy ones under cdl.bulk_loads false)")
{
    // out[i] = w0 in[i] + w1 in[i+1] + w2 in[i+2], dyadic values: exact in f32.
    const unsigned n = 1000;
    std::vector<float> in(n + 2), out(n);
    const float w[3] = {0.5f, -0.25f, 2.0f};
    for (unsigned i = 0; i < n + 2; ++i)
        in[i] = static_cast<float>(static_cast<int>((29 * i) % 23) - 11) / 4.0f;
    for (unsigned i = 0; i < n; ++i)
        out[i] = static_cast<float>(static_cast<double>(w[0]) * in[i] +
                                    static_cast<double>(w[1]) * in[i + 1] +
                                    static_cast<double>(w[2]) * in[i + 2]);
    const std::string yaml =
        "name: conv3\nbuffers:\n"
        "  - {name: in, type: f32, elements: 1002, init: {values: [" +
        list(in) +
        "]}}\n"
        "  - {name: out, type: f32, elements: 1000, init: zero}\n"
        "kernels:\n  - name: k\n    cuda: " +
        kernel_path("conv3_const") +
        "\n    entry: conv3_const\n    constants: {w3: {f32: [0.5, -0.25, 2]}}\n"
        "    params: [{buffer: in}, {buffer: out}, {value: 1000}]\n"
        "    grid: 4\n    block: 256\n"
        "checks:\n  - buffer: out\n    expect: [" +
        list(out) + "]\n    tolerance: {relative: 0, absolute: 0}\n";
    const fs::path dir = scratch("conv3");
    std::ofstream(dir / "w.yaml") << yaml;
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        const std::string vasm = slurp(dir / mode / "kernels" / "k.vasm");
        INFO(vasm);
        CHECK(vasm.find(", 0, cbv[0], 3 ") != std::string::npos);
        CHECK(cdl_stat(dir / mode, "controller.bulk") == 32); // one per warp (32 warps)
        CHECK(cdl_stat(dir / mode, "controller.legacy") == 0);
    }
    // cdl.bulk_loads false (the CDL block's baseline): three legacy CDLs per warp, same result.
    for (const char* mode : {"fast", "accurate"}) {
        const std::string out = std::string("legacy_") + mode;
        const run_result r = run_in(dir, std::string("-w w.yaml -s cdl.bulk_loads=false -s "
                                                     "platform.timing.mode=") +
                                             mode + " -o " + out);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        CHECK(slurp(dir / out / "kernels" / "k.vasm").find("cbv[0], 3 ") == std::string::npos);
        CHECK(cdl_stat(dir / out, "controller.bulk") == 0);
        CHECK(cdl_stat(dir / out, "controller.legacy") == 96);
    }
    fs::remove_all(dir);
}

TEST_CASE("const: two kernels with their own banks side by side read their own slots")
{
    // conv with the taps of `constants:` on SM 0 and const_mix on SM 1 in one phase: banks in
    // CBV slots 0 and 1, both bound for the whole phase.
    const std::vector<float> in = conv_input();
    const std::string yaml =
        "name: two\nbuffers:\n"
        "  - {name: in, type: f32, elements: 1000, init: {values: [" +
        list(in) +
        "]}}\n"
        "  - {name: out, type: f32, elements: 1000, init: zero}\n"
        "  - {name: lut, type: f32, elements: 16, init: {iota: {start: 3, step: 0.5}}}\n"
        "  - {name: mixed, type: f32, elements: 1000, init: zero}\n"
        "kernels:\n" +
        conv_kernel("conv", "    cuda: " + kernel_path("conv1d_const") + "\n",
                    "{coeffs: {f32: [" + list(taps) + "]}}") +
        "    sms: {first: 0, count: 1}\n"
        "  - name: mix\n    cuda: " +
        kernel_path("const_mix") +
        "\n    entry: const_mix\n    constants: {lut4: {buffer: lut}}\n"
        "    params: [{buffer: mixed}, {value: 1000}]\n    grid: 4\n    block: 256\n"
        "    sms: {first: 1, count: 1}\n"
        "schedule:\n  - [conv, mix]\n"
        "checks:\n  - buffer: out\n    expect: [" +
        list(conv_reference(in, taps)) +
        "]\n    tolerance: {relative: 0, absolute: 0}\n"
        "  - buffer: mixed\n    expect: [" +
        list(mix_reference(1000, 3.0f)) + "]\n    tolerance: {relative: 0, absolute: 0}\n";
    const fs::path dir = scratch("two");
    std::ofstream(dir / "w.yaml") << yaml;
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
        CHECK(slurp(dir / mode / "kernels" / "mix.vasm").find("cbv[1]") != std::string::npos);
        CHECK(slurp(dir / mode / "kernels" / "conv.vasm").find("cbv[0]") != std::string::npos);
    }
    fs::remove_all(dir);
}

TEST_CASE("const: catalogue of constants: errors, exact messages, exit 2")
{
    struct error_case {
        const char* what;
        std::string keys;
        std::string message;
    };
    const std::string conv = "    cuda: conv.cu\n    entry: conv1d_const\n"
                             "    params: [{buffer: a}, {buffer: a}, {value: 64}]\n";
    const std::vector<error_case> cases = {
        {"on a program: kernel", "    program: EXIT\n    constants: {c: 1}\n",
         "w.yaml:7:5: error: kernels[0].constants: is only used with 'cuda:' or 'ptx:' (it sets a "
         "translated kernel's __constant__ variables)"},
        {"an entry without __constant__",
         "    cuda: va.cu\n    entry: vector_add\n    constants: {c: 1}\n"
         "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 64}]\n",
         "w.yaml:8:5: error: kernels[0].constants: entry 'vector_add' has no __constant__ (.const) "
         "variables"},
        {"an unknown name", conv + "    constants: {coefs: {f32: 1}}\n",
         "w.yaml:9:17: error: kernels[0].constants.coefs: entry 'conv1d_const' has no "
         "__constant__ variable 'coefs' (did you mean 'coeffs'?) (it has coeffs)"},
        {"a .b8 variable without a type", conv + "    constants: {coeffs: [1, 2]}\n",
         "w.yaml:9:25: error: kernels[0].constants.coeffs: 'coeffs' is declared .b8 in the PTX "
         "(clang declares every __constant__ so), so its element type is unknown: give it as "
         "{f32: ...}, {i32: ...} or {u32: ...}"},
        {"too many values", conv + "    constants: {coeffs: {f32: [1, 2, 3, 4, 5, 6, 7, 8]}}\n",
         "w.yaml:9:25: error: kernels[0].constants.coeffs: 'coeffs' has 28 bytes (7 words) but 8 "
         "words are given"},
        {"a buffer too large", conv + "    constants: {coeffs: {buffer: a}}\n",
         "w.yaml:9:25: error: kernels[0].constants.coeffs: 'coeffs' has 28 bytes (7 words) but 64 "
         "words are in buffer 'a'"},
        {"an undefined buffer", conv + "    constants: {coeffs: {buffer: b}}\n",
         "w.yaml:9:34: error: kernels[0].constants.coeffs.buffer: undefined buffer 'b' (did "
         "you mean 'a'?)"},
        {"a bad number", conv + "    constants: {coeffs: {f32: [1, x]}}\n",
         "w.yaml:9:35: error: kernels[0].constants.coeffs.f32[1]: expected an f32 number, got 'x'"},
        {"an i32 out of range", conv + "    constants: {coeffs: {i32: 2147483648}}\n",
         "w.yaml:9:31: error: kernels[0].constants.coeffs.i32: expected an i32 integer "
         "(-2147483648..2147483647), got '2147483648'"},
        {"two keys", conv + "    constants: {coeffs: {f32: 1, u32: 2}}\n",
         "w.yaml:9:25: error: kernels[0].constants.coeffs: expected one key of buffer, f32, i32, "
         "u32 (got 2)"},
        {"a program: kernel binding the bank's slot to another buffer",
         conv + "    constants: {coeffs: {f32: 1}}\n    grid: 1\n    block: 64\n"
                "  - name: h\n    program: EXIT\n    cbvs: [{slot: 0, buffer: a}]\n",
         "w.yaml:14:12: error: kernels[1].cbvs[0]: CBV slot 0 holds the constant bank of kernel "
         "'k' (banks take slots 0, 1, ... in kernel order): bind another slot"},
        {"not a mapping", conv + "    constants: [1]\n",
         "w.yaml:9:16: error: kernels[0].constants: wrong type (expected a mapping {NAME: value, "
         "[values] or {buffer: B}}, got a list)"},
    };
    const fs::path dir = scratch("catalogue");
    fs::copy_file(kernel_path("conv1d_const"), dir / "conv.cu");
    fs::copy_file(kernel_path("vector_add"), dir / "va.cu");
    for (const error_case& c : cases) {
        std::ofstream(dir / "w.yaml") << "name: cat\nbuffers:\n"
                                         "  - {name: a, type: f32, elements: 64}\n"
                                         "kernels:\n  - name: k\n" +
                                             c.keys + "    grid: 1\n    block: 64\n";
        const run_result r = run_in(dir, "-w w.yaml -o out");
        INFO(c.what << "\n" << r.out);
        CHECK(r.code == 2);
        CHECK(r.out == c.message + "\n");
    }
    fs::remove_all(dir);
}

TEST_CASE(
    "converge_loop.cu: shfl.sync and __syncthreads reached in different iterations, both modes")
{
    // 2 CTAs of 128 threads, 2 iterations: every thread shuffles once, with all the lanes of
    // its warp (the odd ones from iteration 0, the even ones from iteration 1), and reads
    // thread tid ^ 1's v = 10 (tid ^ 1).
    std::string expect;
    for (unsigned i = 0; i < 256; ++i)
        expect += (i ? ", " : "") + std::to_string(10 * ((i % 128) ^ 1));
    const std::string yaml =
        "name: converge\nbuffers:\n"
        "  - {name: out, type: i32, elements: 256, init: zero}\n"
        "kernels:\n  - name: k\n    cuda: " +
        kernel_path("converge_loop") +
        "\n    entry: converge_loop\n"
        "    params: [{buffer: out}, {value: 2}]\n    grid: 2\n    block: 128\n"
        "checks:\n  - buffer: out\n    expect: [" +
        expect + "]\n";
    const fs::path dir = scratch("converge");
    std::ofstream(dir / "w.yaml") << yaml;
    for (const char* mode : {"fast", "accurate"}) {
        const run_result r =
            run_in(dir, std::string("-w w.yaml -s platform.timing.mode=") + mode + " -o " + mode);
        INFO(mode << "\n" << r.out.substr(0, 3000));
        CHECK(r.code == 0);
    }
    fs::remove_all(dir);
}
