// Kernel printf (docs/cuda.md, "Kernel printf"): the format parser's argument layout against
// the CUDA ABI computed by hand, the host's formatting of a record against snprintf on the typed
// values, the refused formats with their exact located messages, and printf_kernel.cu run by
// vgpu-sim in both timing modes: OUTDIR/console.txt holds exactly the lines the host's snprintf
// gives for each thread's values, a warp's lines in lane order, printf's return values; a FIFO
// too small drops and counts records (statistic, warning).
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/printf_format.h"
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;
using namespace vgpu::ptx::test;
namespace fs = std::filesystem;

TEST_CASE("printf formats: argument slots as the CUDA ABI lays them out")
{
    printf_format f;
    REQUIRE(parse_printf_format("a%d %f %c %p %lld %x %hhd %5.2e %% %lu %u\n", f).empty());
    // int 0..4, double 8..16, char (int) 16..20, pointer 24..32, long long 32..40, int
    // 40..44, char promoted 44..48, double 48..56, unsigned long 56..64, unsigned 64..68.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>> want = {
        {0, 4}, {8, 8}, {16, 4}, {24, 8}, {32, 8}, {40, 4}, {44, 4}, {48, 8}, {56, 8}, {64, 4}};
    REQUIRE(f.args.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
        INFO("argument " << k << " " << f.args[k].spec);
        CHECK(f.args[k].offset == want[k].first);
        CHECK(f.args[k].bytes == want[k].second);
    }
    CHECK(f.arg_bytes == 68);
    CHECK(f.record_bytes() == 72);
    CHECK(f.args[7].spec == "%5.2e");
    for (const auto& [fmt, why] : std::vector<std::pair<std::string, std::string>>{
             {"%s", "'%s': a device string (%s) is not supported"},
             {"x%n", "'%n': %n (writing the count of characters) is not supported"},
             {"%*d", "a '*' width (the width from an argument)"},
             {"%.*f", "a '*' precision (the precision from an argument)"},
             {"%k", "'%k': an unknown conversion"},
             {"%Lf", "'%Lf': long double"},
             {"abc %-5", "the format ends inside a conversion ('%-5')"}}) {
        INFO(fmt);
        CHECK(parse_printf_format(fmt, f) == why);
    }
}

TEST_CASE("printf records are formatted as the host's snprintf formats the typed values")
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 77;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    printf_format f;
    REQUIRE(parse_printf_format("[%-6d|%+i|%08x|%#o|%c|%.1f|%12.5e|%G|%lld|%llu|%lx|%hd|%p|%%]", f)
                .empty());
    for (int round = 0; round < 200; ++round) {
        const auto i1 = static_cast<int>(rng()), i2 = static_cast<int>(rng());
        const auto u1 = static_cast<unsigned>(rng()), u2 = static_cast<unsigned>(rng());
        const int c = 32 + static_cast<int>(rng() % 90);
        double d[3];
        for (double& x : d) {
            const auto bits = rng();
            std::memcpy(&x, &bits, sizeof x);
            if (round % 3 == 0)
                x = static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000) / 7;
        }
        const auto ll = static_cast<long long>(rng()), lu = static_cast<long long>(rng()),
                   lx = static_cast<long long>(rng());
        const int h = static_cast<int>(rng());
        const std::uint64_t p = rng() >> 20;
        // The argument buffer as the kernel's code fills it (slots from the test above).
        std::vector<std::uint8_t> buf(f.arg_bytes);
        auto put = [&](std::size_t k, const void* v) {
            std::memcpy(buf.data() + f.args[k].offset, v, f.args[k].bytes);
        };
        put(0, &i1), put(1, &i2), put(2, &u1), put(3, &u2), put(4, &c), put(5, &d[0]);
        put(6, &d[1]), put(7, &d[2]), put(8, &ll), put(9, &lu), put(10, &lx), put(11, &h);
        put(12, &p);
        char want[512];
        std::snprintf(want, sizeof want,
                      "[%-6d|%+i|%08x|%#o|%c|%.1f|%12.5e|%G|%lld|%llu|%lx|%hd|%p|%%]", i1, i2, u1,
                      u2, c, d[0], d[1], d[2], ll, static_cast<unsigned long long>(lu),
                      static_cast<unsigned long>(lx), static_cast<short>(h),
                      reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)));
        REQUIRE(format_printf_record(f, buf.data()) == want);
    }
}

TEST_CASE("unsupported printf formats are located errors at the call")
{
    auto text = [](const std::string& bytes) {
        return ".version 6.0\n.target sm_70\n.address_size 64\n"
               ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
               ".global .align 1 .b8 fmt[" +
               std::to_string(std::count(bytes.begin(), bytes.end(), ',') + 1) + "] = {" + bytes +
               "};\n"
               ".visible .entry k()\n{\n.reg .b64 %rd<3>;\n"
               "mov.u64 %rd1, fmt;\ncvta.global.u64 %rd2, %rd1;\n"
               "{\n.param .b64 p0;\nst.param.b64 [p0+0], %rd2;\n.param .b64 p1;\n"
               "st.param.b64 [p1+0], 0;\n.param .b32 q0;\n"
               "call.uni (q0), vprintf, (p0, p1);\n}\nret;\n}\n";
    };
    // "hi\n": no arguments, translates.
    parse_result p = parse(text("104, 105, 10, 0"), "t.ptx");
    REQUIRE(p.ok());
    translation t = translate(p.mod, p.mod.find_function("k"));
    INFO((t.errors.empty() ? std::string() : t.errors.front()));
    REQUIRE(t.ok());
    REQUIRE(t.printf_formats.size() == 1);
    CHECK(t.printf_formats[0].text == "hi\n");
    CHECK(t.printf_formats[0].ptx_line == 17);
    CHECK(t.printf_param == 0);
    // "%n": refused at the call.
    p = parse(text("120, 37, 110, 10, 0"), "t.ptx");
    REQUIRE(p.ok());
    t = translate(p.mod, p.mod.find_function("k"));
    REQUIRE(t.errors.size() == 1);
    CHECK(t.errors[0] == "t.ptx:17:1: error: unsupported 'call.uni': printf format \"x%n\": '%n': "
                         "%n (writing the count of characters) is not supported");
    // A format that is not a string constant (a parameter).
    std::string s = text("104, 10, 0");
    s.replace(s.find("mov.u64 %rd1, fmt;"), 18, "ld.param.u64 %rd1, [k_p];");
    s.replace(s.find(".entry k()"), 10, ".entry k(.param .u64 k_p)");
    p = parse(s, "t.ptx");
    REQUIRE(p.ok());
    t = translate(p.mod, p.mod.find_function("k"));
    REQUIRE(t.errors.size() == 1);
    CHECK(t.errors[0] == "t.ptx:17:1: error: unsupported 'call.uni': the format of vprintf is not "
                         "a string constant of the module");
}

namespace {

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// A statistic of stats.txt (0 when absent).
double stat(const fs::path& out, const std::string& name)
{
    std::istringstream in(slurp(out / "stats.txt"));
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string k;
        double v = 0;
        f >> k >> v;
        if (k == name)
            return v;
    }
    return 0;
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

/// Little-endian words of a dumped buffer.
std::vector<std::int32_t> words(const fs::path& file)
{
    const std::string b = slurp(file);
    std::vector<std::int32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    return w;
}

} // namespace

TEST_CASE("printf_kernel.cu prints to OUTDIR/console.txt in both modes, and a full FIFO drops and "
          "counts records")
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 9;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const int n = 200;
    const double d = 1234.5678 + static_cast<double>(rng() % 1000) / 16;
    std::vector<float> f(n);
    for (float& x : f)
        x = static_cast<float>(static_cast<int>(rng() % 200000) - 100000) / 64.0f;
    const fs::path dir =
        fs::temp_directory_path() / ("vgpu_ptx_printf_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(path("kernels/printf_kernel.cu"), dir / "printf_kernel.cu");
    std::ostringstream fl;
    fl.precision(9);
    for (int i = 0; i < n; ++i)
        fl << (i ? ", " : "") << f[static_cast<std::size_t>(i)];
    char dtext[64];
    std::snprintf(dtext, sizeof dtext, "%.17g", d);
    std::ofstream(dir / "w.yaml")
        << "buffers:\n  - {name: ret, type: i32, elements: " << n << ", init: zero}\n"
        << "  - {name: f, type: f32, elements: " << n << ", init: {values: [" << fl.str()
        << "]}}\nkernels:\n  - name: pk\n    cuda: printf_kernel.cu\n    entry: printf_kernel\n"
           "    params:\n      - {name: ret, buffer: ret}\n      - {name: f, buffer: f}\n"
           "      - {name: d, value: "
        << dtext << "}\n      - {name: n, value: " << n
        << "}\n    grid: [4, 1]\n    block: [64, 1]\n";
    // Each thread's line, by the host's snprintf on the values the kernel computes (the
    // pointer: ret's address, read from a thread's line, + 4 i).
    auto line_of = [&](int i, std::uintptr_t ret) {
        const float fi = f[static_cast<std::size_t>(i)];
        char b[512];
        std::snprintf(
            b, sizeof b,
            "t%03d i=%i u=%u x=%#x X=%X o=%o c=%c f=%.3f e=%e g=%g d=%10.4f p=%p "
            "ll=%lld lu=%lu %%",
            i, -i, 4000000000u - static_cast<unsigned>(i), i * 255, i * 4096, i, 'A' + i % 26,
            static_cast<double>(fi), static_cast<double>(fi * 1e-3f), d / (i + 1), d * i,
            reinterpret_cast<void*>(ret + 4u * static_cast<unsigned>(i)),
            -(static_cast<long long>(i) << 35), static_cast<unsigned long>(i) * 1000000007ul);
        return std::string(b);
    };
    // ret's address, from the first thread line: its p= minus 4 i.
    auto ret_base = [](const std::vector<std::string>& lines) -> std::uintptr_t {
        for (const std::string& l : lines)
            if (l[0] == 't') {
                const auto at = l.find(" p=");
                return std::strtoull(l.c_str() + at + 3, nullptr, 16) -
                       4 * std::stoull(l.substr(1, 3));
            }
        return 0;
    };
    for (const char* mode : {"fast", "accurate"}) {
        const fs::path out = dir / ("out-" + std::string(mode));
        const std::string cmd =
            "cd '" + dir.string() +
            "' && '" VGPU_SIM_PATH "' -w w.yaml -s platform.timing.mode=" + mode +
            " -s host.dump_buffers=all -o '" + out.string() + "' >log.txt 2>&1 </dev/null";
        const int status = std::system(cmd.c_str());
        INFO(mode << "\n" << slurp(dir / "log.txt"));
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        const std::vector<std::string> got = lines_of(slurp(out / "console.txt"));
        REQUIRE(got.size() == n + 1);
        const std::uintptr_t base = ret_base(got);
        CHECK(base != 0);
        CHECK(base % 4 == 0);
        std::vector<std::string> want = {"hello from thread 0"};
        for (int i = 0; i < n; ++i)
            want.push_back(line_of(i, base));
        std::vector<std::string> sorted = got;
        std::sort(sorted.begin(), sorted.end());
        std::sort(want.begin(), want.end());
        CHECK(sorted == want);
        // Records in reservation order: a warp's lanes reserve theirs in lane order at once.
        std::map<int, std::size_t> at; // thread -> line
        for (std::size_t k = 0; k < got.size(); ++k)
            if (got[k][0] == 't')
                at[std::stoi(got[k].substr(1, 3))] = k;
        for (int i = 0; i + 1 < n; ++i)
            if ((i + 1) % 32 != 0) {
                INFO("thread " << i);
                CHECK(at[i + 1] == at[i] + 1);
            }
        // printf returns its number of arguments.
        const std::vector<std::int32_t> r = words(out / "buffers/ret.bin");
        REQUIRE(r.size() == n);
        CHECK(std::count(r.begin(), r.end(), 14) == n);
        CHECK(stat(out, "gpu.host.printf.records") == n + 1);
        CHECK(stat(out, "gpu.host.printf.dropped") == 0);
    }
    // A FIFO of 1,050 bytes: records of 92 bytes (the format id and 88 bytes of arguments) and
    // 4 (hello). The first 11 big ones fit whatever the order (1,012 bytes, the 4 of hello
    // in the slack), the 12th would end at 1,104 at least: dropped, with all reserved after.
    {
        const fs::path out = dir / "out-small";
        const std::string cmd = "cd '" + dir.string() +
                                "' && '" VGPU_SIM_PATH
                                "' -w w.yaml -s host.printf_buffer_bytes=1050 "
                                "-s host.dump_buffers=all -o '" +
                                out.string() + "' >log.txt 2>&1 </dev/null";
        const int status = std::system(cmd.c_str());
        const std::string log = slurp(dir / "log.txt");
        INFO(log);
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        const std::vector<std::string> got = lines_of(slurp(out / "console.txt"));
        const auto big =
            std::count_if(got.begin(), got.end(), [](const std::string& l) { return l[0] == 't'; });
        CHECK(big == 11);
        const std::uintptr_t base = ret_base(got);
        for (const std::string& l : got)
            if (l[0] == 't')
                CHECK(l == line_of(std::stoi(l.substr(1, 3)), base));
            else
                CHECK(l == "hello from thread 0");
        const auto dropped = static_cast<std::size_t>(n + 1) - got.size();
        CHECK(stat(out, "gpu.host.printf.records") == static_cast<double>(got.size()));
        CHECK(stat(out, "gpu.host.printf.dropped") == static_cast<double>(dropped));
        CHECK(log.find("warning: kernel 'pk': " + std::to_string(dropped) +
                       " printf records dropped: its printf FIFO of 1052 bytes "
                       "(host.printf_buffer_bytes) was full") != std::string::npos);
        const std::vector<std::int32_t> r = words(out / "buffers/ret.bin");
        CHECK(std::count(r.begin(), r.end(), 14) == 11);
        CHECK(std::count(r.begin(), r.end(), -1) == n - 11);
    }
    fs::remove_all(dir);
}
