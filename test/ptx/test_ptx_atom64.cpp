// 64-bit atomics (ATOM.op.B64, CAS.B64 on register pairs; docs/isa.md "Atomics", docs/cuda.md
// "Atomics"): every PTX form translated and run by vgpu-sim on global and shared memory in
// both timing modes, one warp whose lanes share four doublewords (so that lanes contend and
// the old values follow the lane order), checked against a serial reference computed here on
// the host (written apart from the simulator: its own 64-bit and double arithmetic); many
// warps of many SMs adding to one doubleword; atomics.cu (atomicAdd on unsigned long long and
// double, atomicCAS, atomicExch, atomicMin/Max on long long) end to end; misaligned faults.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;

namespace {

std::uint64_t bits(double d)
{
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

double dbl(std::uint64_t b)
{
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

std::uint32_t seed_or(std::uint32_t fallback)
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    return s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : fallback;
}

std::string block(const std::string& text)
{
    std::string out = "      # translated from PTX by vgpu's translator\n";
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        out += "      " + line + "\n";
    return out;
}

/// Runs vgpu-sim on workload text in a scratch folder; exit code and output.
std::pair<int, std::string> run_sim(const std::string& tag, const std::string& yaml,
                                    const std::string& mode, const std::string& extra = "")
{
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vgpu_ptx_atom64_" + tag + "_" + mode + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "w.yaml") << yaml;
    const std::string cmd = "cd '" + dir.string() +
                            "' && '" VGPU_SIM_PATH "' -w w.yaml -s platform.timing.mode=" + mode +
                            " " + extra + " -o out >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "log.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    std::filesystem::remove_all(dir);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, ss.str()};
}

/// 64-bit values as a YAML list of 32-bit words (low word first).
std::string words(const std::vector<std::uint64_t>& v)
{
    std::string s;
    for (const std::uint64_t b : v)
        s += (s.empty() ? "" : ", ") + std::to_string(static_cast<std::uint32_t>(b)) + ", " +
             std::to_string(static_cast<std::uint32_t>(b >> 32));
    return s;
}

/// One PTX form: atom/red.SPACE.OP.TYPE.
struct form {
    const char* op;   ///< add min max exch and or xor cas
    const char* type; ///< u64 s64 b64 f64
    bool red;         ///< red (no old value)
};

/// The host's own reference of one PTX atomic on old with operand b (cas: compare b, new c).
std::uint64_t reference(const form& f, std::uint64_t old, std::uint64_t b, std::uint64_t c)
{
    const std::string op = f.op, type = f.type;
    const auto s = [](std::uint64_t v) { return static_cast<long long>(v); };
    if (op == "add" && type == "f64") {
        const double r = dbl(old) + dbl(b); // IEEE double, round to nearest even
        return std::isnan(r) ? 0x7fffffffffffffffull : bits(r);
    }
    if (op == "add")
        return old + b;
    if (op == "min")
        return type == "s64" ? (s(b) < s(old) ? b : old) : std::min(old, b);
    if (op == "max")
        return type == "s64" ? (s(b) > s(old) ? b : old) : std::max(old, b);
    if (op == "exch")
        return b;
    if (op == "and")
        return old & b;
    if (op == "or")
        return old | b;
    if (op == "xor")
        return old ^ b;
    return old == b ? c : old; // cas
}

/// Operands of a form: integers spread over the whole range (negatives, carries across the
/// word boundary), doubles with NaN, infinities, zeros, subnormals and overflowing values.
std::uint64_t operand(std::mt19937_64& rng, const form& f, unsigned i)
{
    if (std::string(f.type) == "f64") {
        static const double special[] = {NAN,    INFINITY, -INFINITY, 0.0,      -0.0,
                                         5e-324, -3e-310,  2.2e-308,  1.7e308,  1.5e308,
                                         -1e-5,  0.1,      1.0,       -1.0e300, 4.9e-324};
        if (i < std::size(special) && rng() % 2)
            return bits(special[i]);
        return bits(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                               static_cast<int>(rng() % 64) - 32));
    }
    switch (rng() % 4) {
    case 0:
        return rng();
    case 1:
        return 0xffffffffull + rng() % 7; // around the carry into the high word
    case 2:
        return static_cast<std::uint64_t>(-static_cast<long long>(rng() % 1000));
    default:
        return rng() % 1000;
    }
}

/// The PTX kernel: thread l does OP on doubleword t[l % 4] (global, or a shared copy loaded
/// from t and written back after a barrier) with b[l] (cas: compare b[l], new c[l]) and
/// stores the old value to old[l].
std::string kernel(const form& f, bool shared)
{
    const std::string type = f.type;
    const bool fp = type == "f64";
    const std::string reg = fp ? "%fd" : "%rd";
    const std::string space = shared ? "shared" : "global";
    std::string k = ".version 6.0\n.target sm_70\n.address_size 64\n"
                    ".visible .entry k(.param .u64 k_t, .param .u64 k_b, .param .u64 k_c,\n"
                    "  .param .u64 k_old)\n{\n"
                    ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<40>;\n"
                    ".reg .f64 %fd<8>;\n";
    if (shared)
        k += ".shared .align 8 .b64 s[4];\n";
    k += "ld.param.u64 %rd1, [k_t];\ncvta.to.global.u64 %rd1, %rd1;\n"
         "ld.param.u64 %rd2, [k_b];\ncvta.to.global.u64 %rd2, %rd2;\n"
         "ld.param.u64 %rd3, [k_c];\ncvta.to.global.u64 %rd3, %rd3;\n"
         "ld.param.u64 %rd4, [k_old];\ncvta.to.global.u64 %rd4, %rd4;\n"
         "mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 3;\n"
         "mul.wide.u32 %rd5, %r2, 8;\nmul.wide.u32 %rd6, %r1, 8;\n"
         "add.s64 %rd7, %rd2, %rd6;\nadd.s64 %rd8, %rd3, %rd6;\n"
         "add.s64 %rd9, %rd4, %rd6;\nadd.s64 %rd10, %rd1, %rd5;\n"
         "ld.global." +
         type + " " + reg + "1, [%rd7];\nld.global." + type + " " + reg + "2, [%rd8];\n";
    std::string at = "%rd10";
    if (shared) {
        k += "mov.u64 %rd11, s;\nadd.s64 %rd12, %rd11, %rd5;\n"
             "setp.lt.u32 %p1, %r1, 4;\n"
             "@%p1 ld.global.u64 %rd20, [%rd10];\n@%p1 st.shared.u64 [%rd12], %rd20;\n"
             "bar.sync 0;\n";
        at = "%rd12";
    }
    const std::string op = f.op;
    if (f.red)
        k += "red." + space + "." + op + "." + type + " [" + at + "], " + reg + "1;\n";
    else if (op == "cas")
        k += "atom." + space + ".cas." + type + " " + reg + "3, [" + at + "], " + reg + "1, " +
             reg + "2;\n";
    else
        k += "atom." + space + "." + op + "." + type + " " + reg + "3, [" + at + "], " + reg +
             "1;\n";
    if (!f.red)
        k += "st.global." + type + " [%rd9], " + reg + "3;\n";
    if (shared)
        k += "bar.sync 0;\n@%p1 ld.shared.u64 %rd21, [%rd12];\n"
             "@%p1 st.global.u64 [%rd10], %rd21;\n";
    return k + "ret;\n}\n";
}

/// Runs form f on `space` in both modes and checks t and the old values against the host.
void check_form(const form& f, bool shared, std::uint32_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> t(4), b(32), c(32), old(32, 0);
    for (unsigned i = 0; i < 4; ++i)
        t[i] = operand(rng, f, i + 10);
    for (unsigned l = 0; l < 32; ++l) {
        b[l] = operand(rng, f, l);
        c[l] = operand(rng, f, l + 3);
    }
    // The serial reference: the lanes in lane order (docs/isa.md, "Atomics"). A CAS lane
    // compares with the value it will find half of the time, so that both outcomes occur.
    std::vector<std::uint64_t> now = t;
    for (unsigned l = 0; l < 32; ++l) {
        std::uint64_t& w = now[l % 4];
        if (std::string(f.op) == "cas" && l % 2 == 0)
            b[l] = w;
        old[l] = w;
        w = reference(f, w, b[l], c[l]);
    }
    const translation tr = test::translate_text(kernel(f, shared));
    for (const std::string& e : tr.errors)
        UNSCOPED_INFO(e);
    REQUIRE(tr.ok());
    const std::string yaml =
        "buffers:\n"
        "  - {name: t, type: u32, elements: 8, init: {values: [" +
        words(t) +
        "]}}\n"
        "  - {name: b, type: u32, elements: 64, init: {values: [" +
        words(b) +
        "]}}\n"
        "  - {name: c, type: u32, elements: 64, init: {values: [" +
        words(c) +
        "]}}\n"
        "  - {name: old, type: u32, elements: 64, init: zero}\n"
        "kernels:\n"
        "  - name: k\n"
        "    params: [{name: t, buffer: t}, {name: b, buffer: b}, {name: c, buffer: c},\n"
        "             {name: old, buffer: old}, {name: h0, value: 0}, {name: h1, value: 0},\n"
        "             {name: h2, value: 0}, {name: h3, value: 0}]\n"
        "    grid: 1\n"
        "    block: 32\n" +
        (shared ? "    shared_bytes: " + std::to_string(tr.shared_bytes) + "\n" : "") +
        "    program: |\n" + block(tr.text) + "checks:\n  - {buffer: t, expect: [" + words(now) +
        "]}\n" + (f.red ? "" : "  - {buffer: old, expect: [" + words(old) + "]}\n");
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(std::string(f.op) + f.type, yaml, mode);
        INFO(mode << "\n" << log << "\n" << tr.text);
        CHECK(code == 0);
    }
}

const form forms[] = {
    {"add", "u64", false}, {"add", "s64", false}, {"add", "f64", false}, {"min", "s64", false},
    {"min", "u64", false}, {"max", "s64", false}, {"max", "u64", false}, {"exch", "b64", false},
    {"and", "b64", false}, {"or", "b64", false},  {"xor", "b64", false}, {"cas", "b64", false},
    {"add", "u64", true},  {"add", "f64", true},  {"max", "s64", true},  {"xor", "b64", true},
};

} // namespace

TEST_CASE("64-bit atomics of every form on global memory match the host in both modes", "[atom64]")
{
    const std::uint32_t seed = seed_or(3660);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    unsigned i = 0;
    for (const form& f : forms) {
        INFO((f.red ? "red." : "atom.") << "global." << f.op << "." << f.type);
        check_form(f, false, seed + i++);
    }
}

TEST_CASE("64-bit atomics of every form on shared memory match the host in both modes", "[atom64]")
{
    const std::uint32_t seed = seed_or(3661);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    unsigned i = 0;
    for (const form& f : forms) {
        INFO((f.red ? "red." : "atom.") << "shared." << f.op << "." << f.type);
        check_form(f, true, seed + i++);
    }
}

namespace {

template <typename V> std::string list(const std::vector<V>& v)
{
    std::string s;
    for (const V& x : v) {
        std::ostringstream o;
        o.precision(17);
        o << x;
        s += (s.empty() ? "" : ", ") + o.str();
    }
    return s;
}

} // namespace

TEST_CASE("atomics64.cu: atomicAdd on unsigned long long and double, shared and global, many "
          "SMs on one doubleword",
          "[atom64]")
{
    const std::uint32_t seed = seed_or(3662);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    const std::string src = std::filesystem::canonical(test::path("kernels/atomics64.cu"));
    const int n = 2000 + static_cast<int>(rng() % 500);
    std::vector<std::uint64_t> x(static_cast<std::size_t>(n));
    std::vector<double> y(x.size());
    std::uint64_t usum = 0;
    long double dsum = 0; // wider than the kernel's doubles: its order-dependent rounding
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = rng() >> (rng() % 40); // sums carry into the high word and wrap modulo 2^64
        y[i] = std::uniform_real_distribution<double>(0, 1)(rng);
        usum += x[i];
        dsum += y[i];
    }
    // n positive terms summed in any order: the relative error is below n * 2^-53 < 1e-12.
    const std::vector<double> dexpect = {static_cast<double>(dsum), static_cast<double>(dsum)};
    const std::string yaml = "buffers:\n"
                             "  - {name: x, type: u64, elements: " +
                             std::to_string(n) + ", init: {values: [" + list(x) +
                             "]}}\n"
                             "  - {name: y, type: f64, elements: " +
                             std::to_string(n) + ", init: {values: [" + list(y) +
                             "]}}\n"
                             "  - {name: usum, type: u64, elements: 2, init: zero}\n"
                             "  - {name: dsum, type: f64, elements: 2, init: zero}\n"
                             "kernels:\n"
                             "  - name: sum64\n"
                             "    cuda: " +
                             src +
                             "\n"
                             "    entry: sum64\n"
                             "    params:\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: y, buffer: y}\n"
                             "      - {name: usum, buffer: usum}\n"
                             "      - {name: dsum, buffer: dsum}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "    grid: [" +
                             std::to_string((n + 255) / 256) +
                             ", 1]\n"
                             "    block: [256, 1]\n"
                             "checks:\n"
                             "  - {buffer: usum, expect: [" +
                             std::to_string(usum) + ", " + std::to_string(usum) +
                             "]}\n"
                             "  - {buffer: dsum, expect: [" +
                             list(dexpect) + "], tolerance: {relative: 1.0e-12, absolute: 0}}\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim("sum64", yaml, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
}

TEST_CASE("atomics64.cu: atomicMin/Max on long long, atomicExch and an atomicCAS loop", "[atom64]")
{
    const std::uint32_t seed = seed_or(3663);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    const std::string src = std::filesystem::canonical(test::path("kernels/atomics64.cu"));
    const int n = 300 + static_cast<int>(rng() % 100);
    std::vector<long long> x(static_cast<std::size_t>(n));
    std::vector<std::uint64_t> slot(x.size()), prev(x.size()), slot_after(x.size());
    const std::vector<long long> init = {std::numeric_limits<long long>::max(),
                                         std::numeric_limits<long long>::min(),
                                         static_cast<long long>(rng())};
    std::vector<long long> out = init;
    std::uint64_t total = static_cast<std::uint64_t>(init[2]);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<long long>(rng()) >> (rng() % 60);
        out[0] = std::min(out[0], x[i]);
        out[1] = std::max(out[1], x[i]);
        total += static_cast<std::uint64_t>(x[i]);
        slot[i] = 3 * i + (std::uint64_t{1} << 40);
        prev[i] = slot[i];
        slot_after[i] = static_cast<std::uint64_t>(x[i]);
    }
    out[2] = static_cast<long long>(total);
    const std::string yaml = "buffers:\n"
                             "  - {name: x, type: i64, elements: " +
                             std::to_string(n) + ", init: {values: [" + list(x) +
                             "]}}\n"
                             "  - {name: out, type: i64, elements: 3, init: {values: [" +
                             list(init) +
                             "]}}\n"
                             "  - {name: slot, type: u64, elements: " +
                             std::to_string(n) + ", init: {values: [" + list(slot) +
                             "]}}\n"
                             "  - {name: prev, type: u64, elements: " +
                             std::to_string(n) +
                             ", init: zero}\n"
                             "kernels:\n"
                             "  - name: minmax64\n"
                             "    cuda: " +
                             src +
                             "\n"
                             "    entry: minmax64\n"
                             "    params:\n"
                             "      - {name: x, buffer: x}\n"
                             "      - {name: out, buffer: out}\n"
                             "      - {name: slot, buffer: slot}\n"
                             "      - {name: prev, buffer: prev}\n"
                             "      - {name: n, value: " +
                             std::to_string(n) +
                             "}\n"
                             "    grid: [" +
                             std::to_string((n + 127) / 128) +
                             ", 1]\n"
                             "    block: [128, 1]\n"
                             "checks:\n"
                             "  - {buffer: out, expect: [" +
                             list(out) +
                             "]}\n"
                             "  - {buffer: slot, expect: [" +
                             list(slot_after) +
                             "]}\n"
                             "  - {buffer: prev, expect: [" +
                             list(prev) + "]}\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim("minmax64", yaml, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
}

TEST_CASE("ATOM.B64 and CAS.B64 at an address that is not 8-byte aligned fault", "[atom64]")
{
    for (const char* space : {"global", "shared"}) {
        const std::string sp = space;
        const std::string ptx =
            ".version 6.0\n.target sm_70\n.address_size 64\n"
            ".visible .entry k(.param .u64 k_t)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n" +
            (sp == "shared" ? std::string(".shared .align 8 .b64 s[4];\nmov.u64 %rd1, s;\n")
                            : std::string("ld.param.u64 %rd1, [k_t];\n"
                                          "cvta.to.global.u64 %rd1, %rd1;\n")) +
            "mov.u64 %rd2, 5;\natom." + sp + ".add.u64 %rd3, [%rd1+4], %rd2;\nret;\n}\n";
        const translation tr = test::translate_text(ptx);
        REQUIRE(tr.ok());
        const std::string yaml =
            "buffers:\n  - {name: t, type: u32, elements: 8, init: zero}\n"
            "kernels:\n  - name: k\n"
            "    params: [{name: t, buffer: t}, {name: h, value: 0}]\n"
            "    grid: 1\n    block: 32\n" +
            (sp == "shared" ? "    shared_bytes: " + std::to_string(tr.shared_bytes) + "\n"
                            : std::string()) +
            "    program: |\n" + block(tr.text);
        for (const char* mode : {"fast", "accurate"}) {
            const auto [code, log] = run_sim("misaligned", yaml, mode);
            INFO(space << " " << mode << "\n" << log << "\n" << tr.text);
            CHECK(code == 1);
            CHECK(log.find("misaligned address") != std::string::npos);
            CHECK(log.find("ATOM needs 8-byte alignment") != std::string::npos);
        }
    }
}
