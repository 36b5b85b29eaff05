// Helpers of the translator tests: wrap a PTX body in an entry, translate it, assemble the
// result and run it on one functional warp with a word-addressed memory; compile a kernel of
// test/ptx/kernels and translate it (with VGPU_PTX_TEST_DIR); run vgpu-sim on a workload in a
// scratch folder (with VGPU_SIM_PATH); bit views of floating-point values.
#pragma once

#include "models/sm/core/assembler.h"
#include "models/sm/core/warp.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"

#ifdef VGPU_PTX_TEST_DIR
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "test/ptx/ptx_test_util.h"
#endif

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace vgpu::test {

/// The bits of a double.
inline std::uint64_t bits(double d)
{
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

/// The double of 64 bits.
inline double dbl(std::uint64_t b)
{
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

/// The bits of a float.
inline std::uint32_t fbits(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

/// The ISA's result of a host double: NaNs are the canonical 0x7fffffffffffffff.
inline std::uint64_t canon(double d)
{
    return std::isnan(d) ? 0x7fffffffffffffffull : bits(d);
}

} // namespace vgpu::test

namespace vgpu::ptx::test {

using vgpu::test::bits;
using vgpu::test::canon;
using vgpu::test::dbl;
using vgpu::test::fbits;

/// An entry `k(.u64 k_p0, .u32 k_p1, .u32 k_p2, .u32 k_p3, .f32 k_p4)` around body, with
/// %p<8>, %r<64>, %f<32>, %rd<32>.
/// Prefix of the lowering-rule cases: %rd2 = param 0 (an address), %r1..%r3 = params 1..3,
/// %f1 = param 4, %f2 and %f3 = the bits of %r2 and %r3 as f32.
inline const char* const rule_prefix = "ld.param.u64 %rd1, [k_p0];\n"
                                       "cvta.to.global.u64 %rd2, %rd1;\n"
                                       "ld.param.u32 %r1, [k_p1];\n"
                                       "ld.param.u32 %r2, [k_p2];\n"
                                       "ld.param.u32 %r3, [k_p3];\n"
                                       "ld.param.f32 %f1, [k_p4];\n"
                                       "mov.b32 %f2, %r2;\n"
                                       "mov.b32 %f3, %r3;\n";

inline std::string entry_text(const std::string& body)
{
    return ".version 6.0\n.target sm_70\n.address_size 64\n"
           ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1, .param .u32 k_p2,\n"
           "  .param .u32 k_p3, .param .f32 k_p4)\n{\n"
           ".reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<32>;\n" +
           body + "\n}\n";
}

/// Parses text (it must parse) and translates its only entry.
inline translation translate_text(const std::string& text, const translate_options& o = {})
{
    const parse_result p = parse(text, "t.ptx");
    for (const std::string& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    return translate(p.mod, 0, o);
}

/// The instructions of translated text without labels, comments and repeated blanks.
inline std::vector<std::string> instructions(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (const auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        if (const auto c = line.find(':'); c != std::string::npos)
            line.erase(0, c + 1);
        std::istringstream w(line);
        std::string word, s;
        while (w >> word)
            s += (s.empty() ? "" : " ") + word;
        if (!s.empty())
            out.push_back(s);
    }
    return out;
}

/// Outcome of run_warp().
struct warp_run {
    std::map<std::uint32_t, std::uint32_t> mem; ///< word address -> value after the run
    std::string error;                          ///< assembler or execution error, "" if none
    unsigned barriers = 0;                      ///< BAR steps
    unsigned partial_barriers = 0;              ///< BAR steps with fewer lanes than are live
    unsigned steps = 0;                         ///< warp instructions executed
};

/// Assembles t and runs one warp of `lanes` threads (CTA = that warp) with params and mem.
inline warp_run run_warp(const translation& t, const std::vector<std::uint32_t>& params,
                         std::map<std::uint32_t, std::uint32_t> mem, unsigned lanes = 32)
{
    warp_run out;
    const sm::assembly_result a = sm::assemble(t.text, {}, {"t.vgpu", 1, 1}, t.registers);
    if (!a.ok()) {
        out.error = a.errors.front();
        return out;
    }
    sm::launch_context ctx;
    ctx.params = params;
    ctx.ntid_x = lanes;
    sm::warp w(a.code, ctx, 0, t.registers);
    while (!w.done() && out.steps < 1000000) {
        const std::uint32_t live = w.live_mask();
        const sm::step_result r = w.step();
        ++out.steps;
        switch (r.kind) {
        case sm::step_kind::load:
        case sm::step_kind::atomic: {
            sm::lane_values v{};
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1) {
                    v[l] = mem[r.access->addr[l]];
                    if (r.kind == sm::step_kind::atomic)
                        mem[r.access->addr[l]] += r.access->data[l];
                }
            w.complete_load(r.access->reg, v, r.access->lane_mask);
            break;
        }
        case sm::step_kind::store:
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1)
                    mem[r.access->addr[l]] = r.access->data[l];
            break;
        case sm::step_kind::barrier:
            ++out.barriers;
            out.partial_barriers += r.lane_mask != live;
            break;
        case sm::step_kind::error:
            out.error = std::string(r.message);
            return out;
        default:
            break;
        }
    }
    out.mem = std::move(mem);
    return out;
}

/// VGPU_TEST_SEED (decimal) if set, else fallback.
inline std::uint32_t test_seed(std::uint32_t fallback)
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    return s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : fallback;
}

/// Values as a YAML flow list's items ("%.9g" for floating point).
template <typename T> std::string list(const std::vector<T>& v)
{
    std::string s;
    char buf[40];
    for (std::size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_floating_point_v<T>)
            std::snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "", static_cast<double>(v[i]));
        else
            std::snprintf(buf, sizeof buf, "%s%llu", i ? ", " : "",
                          static_cast<unsigned long long>(v[i]));
        s += buf;
    }
    return s;
}

/// Translated text as a workload's `program: |` block (six spaces of indent).
inline std::string block(const std::string& text)
{
    std::string out = "      # translated from PTX by vgpu's translator\n";
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        out += "      " + line + "\n";
    return out;
}

/// The contents of a file ("" when missing).
inline std::string slurp(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A fresh scratch folder for one run.
inline std::filesystem::path scratch(const std::string& tag)
{
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("vgpu_ptx_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

#ifdef VGPU_PTX_TEST_DIR
/// Absolute path of a kernel source under test/ptx/kernels.
inline std::string kernel_path(const std::string& name)
{
    return std::filesystem::canonical(path("kernels/" + name + ".cu")).string();
}

/// Compiles kernels/FILE.cu with clang, parses it and translates entry (all must succeed).
inline translation translate_kernel(const std::string& file, const std::string& entry)
{
    compile_request req;
    req.source = path("kernels/" + file + ".cu");
    req.kernel = entry;
    const compile_result c = compile_cuda(req);
    for (const std::string& e : c.errors)
        UNSCOPED_INFO(e);
    REQUIRE(c.ok());
    const parse_result p = parse(c.ptx, file + ".ptx");
    REQUIRE(p.ok());
    const entry_lookup e = find_entry(p.mod, entry, {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    REQUIRE(check_entry(p.mod, e.index).empty());
    translation t = translate(p.mod, e.index);
    for (const std::string& m : t.errors)
        UNSCOPED_INFO(m);
    REQUIRE(t.ok());
    return t;
}
#endif

#ifdef VGPU_SIM_PATH
/// Exit code and output of a vgpu-sim run.
struct run_result {
    int code = -1;
    std::string out; ///< standard output and error
};

/// Runs `env vgpu-sim args` in folder dir (output in dir/log.txt).
inline run_result run_in(const std::filesystem::path& dir, const std::string& args,
                         const std::string& env = "")
{
    const std::string cmd = "cd '" + dir.string() + "' && " + env + " '" VGPU_SIM_PATH "' " + args +
                            " >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    run_result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.out = slurp(dir / "log.txt");
    return r;
}

/// Runs vgpu-sim on workload text (w.yaml in a scratch folder) in the timing mode, with extra
/// arguments.
inline run_result run_sim(const std::string& tag, const std::string& yaml, const std::string& mode,
                          const std::string& extra = "")
{
    const std::filesystem::path dir = scratch(tag + "_" + mode);
    std::ofstream(dir / "w.yaml") << yaml;
    run_result r =
        run_in(dir, "-w w.yaml -s platform.timing.mode=" + mode + " " + extra + " -o out");
    std::filesystem::remove_all(dir);
    return r;
}
#endif

} // namespace vgpu::ptx::test
