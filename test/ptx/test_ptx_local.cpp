// Local memory (docs/cuda.md, "Local memory"): the translator's layout of .local variables,
// the per-warp interleaved addresses of the local area, constant, dynamic, generic, vector and
// byte accesses on a functional warp against values computed here; the refused forms with their
// exact messages; local_bins.cu compiled from CUDA and run by vgpu-sim through the `cuda:` key
// (the driver reserves the local area) in both timing modes against a host reference.
#include "models/sm/ptx/translate.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

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

/// Runs warp `warp_in_cta` of CTA `cta` (of `ctas` in x, `threads` per CTA) on a word map.
/// `params`: the entry's parameters, then the local area's base, which goes to LDP index
/// t.local_param (after the high words of 64-bit parameters, here 0).
std::map<std::uint32_t, std::uint32_t> run_local(const translation& t,
                                                 const std::vector<std::uint32_t>& params,
                                                 unsigned threads, unsigned cta, unsigned ctas,
                                                 unsigned warp_in_cta, std::string& error)
{
    std::map<std::uint32_t, std::uint32_t> mem;
    const sm::assembly_result a = sm::assemble(t.text, {}, {"t.vgpu", 1, 1}, t.registers);
    if (!a.ok()) {
        error = a.errors.front();
        return mem;
    }
    sm::launch_context ctx;
    ctx.params.assign(params.begin(), params.end() - 1);
    ctx.params.resize(t.local_param, 0);
    ctx.params.push_back(params.back());
    ctx.ntid_x = threads;
    ctx.ctaid_x = cta;
    ctx.nctaid_x = ctas;
    sm::warp w(a.code, ctx, warp_in_cta, t.registers);
    for (unsigned steps = 0; !w.done() && steps < 100000; ++steps) {
        const sm::step_result r = w.step();
        if (r.kind == sm::step_kind::load) {
            sm::lane_values v{};
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1)
                    v[l] = mem[r.access->addr[l]];
            w.complete_load(r.access->reg, v, r.access->lane_mask);
        } else if (r.kind == sm::step_kind::store) {
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1)
                    mem[r.access->addr[l]] = r.access->data[l];
        } else if (r.kind == sm::step_kind::error) {
            error = r.message;
            return mem;
        }
    }
    return mem;
}

// A depot of 8 words: constant, dynamic (word and byte), generic (through cvta.local) and
// vector accesses. Lane l (thread tid) leaves out[tid] = 3 tid + 100 (tid even) or
// 2 tid + 207 (odd): word (tid & 1) read back, words 3 + (tid & 1) and 4 + (tid & 1).
const char* const local_body = ".local .align 8 .b8 __local_depot0[32];\n"
                               ".reg .b64 %SP;\n.reg .b64 %SPL;\n"
                               "mov.u64 %SPL, __local_depot0;\n"
                               "cvta.local.u64 %SP, %SPL;\n"
                               "ld.param.u64 %rd1, [k_p0];\n"
                               "cvta.to.global.u64 %rd2, %rd1;\n"
                               "mov.u32 %r1, %tid.x;\n"
                               "add.u64 %rd3, %SPL, 0;\n"
                               "st.local.u32 [%rd3], %r1;\n"
                               "add.s32 %r2, %r1, 100;\n"
                               "st.local.u32 [%rd3+4], %r2;\n"
                               "and.b32 %r3, %r1, 1;\n"
                               "mul.wide.u32 %rd4, %r3, 4;\n"
                               "add.u64 %rd5, %rd3, %rd4;\n"
                               "ld.local.u32 %r4, [%rd5];\n"
                               "add.u64 %rd6, %SP, 8;\n"
                               "st.u32 [%rd6], %r4;\n"
                               "st.local.v2.u32 [%rd3+12], {%r1, %r2};\n"
                               "st.local.u32 [__local_depot0+20], 7;\n"
                               "ld.u32 %r5, [%rd6];\n"
                               "ld.local.v2.u32 {%r6, %r7}, [%rd5+12];\n"
                               "st.local.u8 [%rd3+25], %r1;\n"
                               "cvt.u64.u32 %rd9, %r3;\n"
                               "add.u64 %rd10, %rd3, %rd9;\n"
                               "st.local.u8 [%rd10+28], %r2;\n"
                               "add.s32 %r8, %r5, %r6;\n"
                               "add.s32 %r8, %r8, %r7;\n"
                               "mul.wide.u32 %rd7, %r1, 4;\n"
                               "add.s64 %rd8, %rd2, %rd7;\n"
                               "st.global.u32 [%rd8], %r8;\n"
                               "ret;";

} // namespace

TEST_CASE("local variables: interleaved per warp, every access form computes as the PTX says")
{
    const translation t = translate_text(entry_text(local_body));
    INFO(t.text);
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    CHECK(t.local_bytes == 32);
    CHECK(t.local_param == 6); // after the entry's five parameters and k_p0's high word
    // 1000 CTAs of 48 threads: each has 2 warps of 8 lines of 128 bytes.
    CHECK(t.local_area_bytes(1000, 48) == 1000 * 2 * 8 * 128);
    const std::uint32_t out = 0x10000, base = 0x40000000, words = 8;
    for (const auto& [cta, warp] : {std::pair<unsigned, unsigned>{0, 0}, {3, 1}}) {
        INFO("CTA " << cta << " warp " << warp);
        std::string error;
        const auto mem = run_local(t, {out, 0, 0, 0, 0, base}, 48, cta, 5, warp, error);
        REQUIRE(error.empty());
        const unsigned gwarp = cta * 2 + warp; // CTAs of 48 threads take 2 warps each
        const unsigned lanes = warp == 0 ? 32 : 16;
        for (unsigned l = 0; l < lanes; ++l) {
            const unsigned tid = warp * 32 + l;
            const std::uint32_t tb = base + gwarp * words * 128 + 4 * l;
            auto at = [&](std::uint32_t a) {
                const auto it = mem.find(a);
                return it == mem.end() ? 0xdeadbeefu : it->second;
            };
            INFO("lane " << l);
            CHECK(at(tb + 0 * 128) == tid);                           // word 0
            CHECK(at(tb + 1 * 128) == tid + 100);                     // word 1
            CHECK(at(tb + 2 * 128) == ((tid & 1) ? tid + 100 : tid)); // generic store
            CHECK(at(tb + 3 * 128) == tid);
            CHECK(at(tb + 4 * 128) == tid + 100);
            CHECK(at(tb + 5 * 128) == 7);
            CHECK(at(tb + 6 * 128 + 1) == tid);               // byte 25: word 6, byte 1
            CHECK(at(tb + 7 * 128 + (tid & 1)) == tid + 100); // byte 28 + (tid & 1)
            CHECK(at(out + 4 * tid) == ((tid & 1) ? 2 * tid + 207 : 3 * tid + 100));
        }
        std::size_t local_words = 0;
        for (const auto& [a, v] : mem)
            local_words += a >= base;
        CHECK(local_words == lanes * 8); // nothing else of the area was written
    }
}

TEST_CASE("local memory forms vgpu does not translate are located errors")
{
    const std::string head = ".local .align 4 .b8 d[16];\n.reg .b64 %SP;\n"
                             "mov.u64 %rd3, d;\ncvta.local.u64 %SP, %rd3;\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"atom.local.add.u32 %r1, [%rd3], 1;",
         "t.ptx:15:1: error: unsupported 'atom.local.add.u32': an atomic operation on local "
         "memory"},
        {"atom.add.u32 %r1, [%SP], 1;",
         "t.ptx:15:1: error: unsupported 'atom.add.u32': an atomic operation on local memory"},
        {"st.global.u64 [%rd1], %SP;",
         "t.ptx:15:1: error: unsupported 'st.global.u64': a pointer to local memory stored to "
         "memory"},
        {"ld.local.u32 %r1, [d+16];",
         "t.ptx:15:1: error: unsupported 'ld.local.u32': a local access at byte 16 outside the "
         "16 bytes of local memory per thread"},
        {"st.local.v4.u32 [%rd3+4], {%r1, %r1, %r1, %r1};",
         "t.ptx:15:1: error: unsupported 'st.local.v4.u32': a local access at byte 4 outside "
         "the 16 bytes of local memory per thread"},
        {"ld.local.u32 %r1, [d+6];",
         "t.ptx:15:1: error: unsupported 'ld.local.u32': a misaligned 32-bit local access at "
         "byte 6"},
        {"add.u64 %rd4, %rd3, 3;\nst.local.u16 [%rd4], %r1;",
         "t.ptx:16:1: error: unsupported 'st.local.u16': a misaligned 16-bit local access at "
         "byte 3"},
        {"ld.local.u64 %rd4, [d+4];",
         "t.ptx:15:1: error: unsupported 'ld.local.u64': a misaligned 64-bit local access at "
         "byte 4"},
        {"ld.param.u64 %rd5, [k_p0];\ncvta.to.local.u64 %rd6, %rd5;",
         "t.ptx:16:1: error: unsupported 'cvta.to.local.u64': a generic address that is not "
         "known to be local"},
        {"ld.param.u64 %rd5, [k_p0];\n@%p1 mov.u64 %rd5, %SP;\nld.u32 %r1, [%rd5];",
         "t.ptx:17:1: error: unsupported 'ld.u32': a generic access through a register that "
         "holds a local address on some paths and another address on others"},
    };
    for (const auto& [body, want] : cases) {
        INFO(body);
        const translation t = translate_text(entry_text(head + body + "\nret;"));
        REQUIRE(t.errors.size() == 1);
        CHECK(t.errors[0] == want);
        CHECK(t.text.empty());
    }
}

TEST_CASE("a misaligned dynamic local access faults as a misaligned global access does")
{
    // Lane l reads the 32-bit (or 16-bit) local value at byte offset l * step: lanes whose
    // offset is not a multiple of the access size fault (CUDA faults; a wrong word is not read).
    struct form {
        const char* type;
        unsigned step;
        bool faults;
    };
    for (const form& f : {form{"u32", 4, false}, form{"u32", 1, true}, form{"u32", 2, true},
                          form{"u16", 2, false}, form{"u16", 1, true}}) {
        INFO(f.type << " step " << f.step);
        const std::string body = std::string(".local .align 4 .b8 d[160];\n"
                                             "mov.u64 %rd3, d;\n"
                                             "mov.u32 %r1, %tid.x;\n"
                                             "mul.lo.u32 %r2, %r1, ") +
                                 std::to_string(f.step) +
                                 ";\n"
                                 "cvt.u64.u32 %rd4, %r2;\n"
                                 "add.u64 %rd5, %rd3, %rd4;\n"
                                 "ld.local." +
                                 f.type + " %r3, [%rd5];\nret;";
        const translation t = translate_text(entry_text(body));
        REQUIRE(t.ok());
        std::string error;
        run_local(t, {0, 0, 0, 0, 0, 0x100000}, 32, 0, 1, 0, error);
        if (f.faults)
            CHECK(error.find("misaligned address") != std::string::npos);
        else
            CHECK(error.empty());
    }
}

TEST_CASE("a local pointer is never null: p != nullptr holds for the first local variable")
{
    // out[tid] = (generic p != 0) + 2 (local p != 0) + 4 * (the word read back through p), the
    // pointers compared after cvt.u32.u64 (the 64-bit setp: the test after this one).
    const std::string body = ".local .align 4 .b8 d[8];\n"
                             "mov.u64 %rd3, d;\n"
                             "cvta.local.u64 %rd4, %rd3;\n"
                             "mov.u32 %r1, %tid.x;\n"
                             "st.u32 [%rd4], %r1;\n"
                             "cvt.u32.u64 %r5, %rd4;\n"
                             "cvt.u32.u64 %r6, %rd3;\n"
                             "setp.ne.s32 %p1, %r5, 0;\n"
                             "setp.ne.u32 %p2, %r6, 0;\n"
                             "selp.u32 %r2, 1, 0, %p1;\n"
                             "selp.u32 %r3, 2, 0, %p2;\n"
                             "ld.local.u32 %r4, [d];\n"
                             "shl.b32 %r4, %r4, 2;\n"
                             "add.s32 %r2, %r2, %r3;\n"
                             "add.s32 %r2, %r2, %r4;\n"
                             "ld.param.u64 %rd1, [k_p0];\n"
                             "cvta.to.global.u64 %rd2, %rd1;\n"
                             "mul.wide.u32 %rd5, %r1, 4;\n"
                             "add.s64 %rd6, %rd2, %rd5;\n"
                             "st.global.u32 [%rd6], %r2;\nret;";
    const translation t = translate_text(entry_text(body));
    INFO(t.text);
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    const std::uint32_t out = 0x10000, base = 0x40000000;
    std::string error;
    auto mem = run_local(t, {out, 0, 0, 0, 0, base}, 32, 0, 1, 0, error);
    REQUIRE(error.empty());
    for (std::uint32_t l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(mem[out + 4 * l] == 3 + 4 * l);
        CHECK(mem[base + 4 * l] == l); // byte 0 of the thread's local memory: word 0
    }
}

TEST_CASE("64-bit setp on local pointers compares their offsets: a pointer loop, a null check")
{
    // p walks d[0..3] (p < end, setp.lt.u64), then out[tid] = d[3] + 100 * (p == end and d is
    // not null: setp.eq.and.s64 of a setp.ne.s64 with 0) + 1000 * (p >= d, setp.ge.s64).
    const std::string body = ".local .align 4 .b8 d[16];\n"
                             "mov.u64 %rd3, d;\n"
                             "cvta.local.u64 %rd4, %rd3;\n"
                             "add.s64 %rd5, %rd4, 16;\n"
                             "mov.u32 %r1, %tid.x;\n"
                             "mov.u64 %rd6, %rd4;\n"
                             "L1:\n"
                             "st.u32 [%rd6], %r1;\n"
                             "add.s64 %rd6, %rd6, 4;\n"
                             "add.s32 %r1, %r1, 1;\n"
                             "setp.lt.u64 %p1, %rd6, %rd5;\n"
                             "@%p1 bra L1;\n"
                             "setp.ne.s64 %p2, %rd4, 0;\n"
                             "setp.eq.and.s64 %p3, %rd6, %rd5, %p2;\n"
                             "setp.ge.s64 %p4, %rd6, %rd3;\n"
                             "ld.local.u32 %r2, [d+12];\n"
                             "selp.u32 %r3, 100, 0, %p3;\n"
                             "selp.u32 %r4, 1000, 0, %p4;\n"
                             "add.s32 %r2, %r2, %r3;\n"
                             "add.s32 %r2, %r2, %r4;\n"
                             "mov.u32 %r1, %tid.x;\n"
                             "ld.param.u64 %rd1, [k_p0];\n"
                             "cvta.to.global.u64 %rd2, %rd1;\n"
                             "mul.wide.u32 %rd7, %r1, 4;\n"
                             "add.s64 %rd8, %rd2, %rd7;\n"
                             "st.global.u32 [%rd8], %r2;\nret;";
    const translation t = translate_text(entry_text(body));
    INFO(t.text);
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    CHECK(t.text.find("I64SETP") == std::string::npos); // 32-bit offsets, no register pairs
    const std::uint32_t out = 0x10000, base = 0x40000000;
    std::string error;
    auto mem = run_local(t, {out, 0, 0, 0, 0, base}, 32, 0, 1, 0, error);
    REQUIRE(error.empty());
    for (std::uint32_t l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(mem[out + 4 * l] == l + 3 + 100 + 1000);
    }
    // What stays refused: a local pointer compared with a register that is not one.
    const translation bad =
        translate_text(entry_text(".local .align 4 .b8 d[16];\nmov.u64 %rd3, d;\n"
                                  "ld.param.u64 %rd1, [k_p0];\n"
                                  "setp.eq.u64 %p1, %rd3, %rd1;\nret;"));
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors.front() ==
          "t.ptx:14:1: error: unsupported 'setp.eq.u64': a 64-bit comparison of a local address "
          "with '%rd1', which is neither a local address nor an immediate in 0..2147483647");
}

TEST_CASE("a kernel that declares local memory but never accesses it needs no local area")
{
    const translation t = translate_text(
        entry_text(".local .align 4 .b8 d[16];\n.reg .b64 %SPL;\nmov.u64 %SPL, d;\nret;"));
    REQUIRE(t.ok());
    CHECK(t.local_bytes == 0);
}

namespace {

std::pair<int, std::string> run_sim(const std::filesystem::path& dir, const std::string& mode,
                                    const std::string& extra = "", const std::string& out = "")
{
    const std::string cmd = "cd '" + dir.string() +
                            "' && '" VGPU_SIM_PATH "' -w w.yaml -s platform.timing.mode=" + mode +
                            extra + " -o " + (out.empty() ? "out-" + mode : out) +
                            " >log.txt 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir / "log.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, ss.str()};
}

} // namespace

TEST_CASE("local_bins.cu (local arrays indexed by data) runs from cuda: in both timing modes")
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 3641;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const int n = 1500 + static_cast<int>(rng() % 500);
    std::vector<std::uint32_t> in(static_cast<std::size_t>(n)), want(in.size());
    for (auto& x : in)
        x = rng();
    for (int t = 0; t < n; ++t) { // the kernel's computation, written from its source
        std::uint32_t bins[8];
        for (std::uint32_t i = 0; i < 8; ++i)
            bins[i] = i;
        const std::uint32_t w = in[static_cast<std::size_t>(t)];
        for (int j = 0; j < 16; ++j) {
            const std::uint32_t v = in[static_cast<std::size_t>((t + j) % n)];
            bins[v & 7] += v >> 3;
        }
        want[static_cast<std::size_t>(t)] = bins[w % 8] + ((w >> (8 * ((w >> 5) & 3))) & 0xff);
    }
    auto list = [](const std::vector<std::uint32_t>& v) {
        std::string r;
        for (std::size_t i = 0; i < v.size(); ++i)
            r += (i ? ", " : "") + std::to_string(v[i]);
        return r;
    };
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_ptx_local_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(path("kernels/local_bins.cu"), dir / "local_bins.cu");
    // 80 threads per CTA: three warps, the last one partial.
    std::ofstream(dir / "w.yaml") << "buffers:\n  - {name: in, type: u32, elements: " << n
                                  << ", init: {values: [" << list(in)
                                  << "]}}\n  - {name: out, type: u32, elements: " << n
                                  << ", init: zero}\n"
                                     "kernels:\n  - name: local_bins\n    cuda: local_bins.cu\n"
                                     "    entry: local_bins\n    params:\n"
                                     "      - {name: in, buffer: in}\n"
                                     "      - {name: out, buffer: out}\n"
                                     "      - {name: n, value: "
                                  << n << "}\n    grid: [" << (n + 79) / 80
                                  << ", 1]\n    block: [80, 1]\n"
                                     "checks:\n  - buffer: out\n    expect: ["
                                  << list(want) << "]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(dir, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
        // Every warp with a thread in range runs the whole straight-line body once: the SMs'
        // local_loads/local_stores are the program's LD/ST.LOCAL times those warps.
        const auto out = dir / ("out-" + std::string(mode));
        std::ifstream vasm(out / "kernels/local_bins.vasm");
        std::uint64_t lds = 0, sts = 0;
        for (std::string line; std::getline(vasm, line);) {
            line = line.substr(0, line.find('#'));
            const bool local = line.find(".LOCAL ") != std::string::npos;
            lds += local && line.find(" LD.") != std::string::npos;
            sts += local && line.find(" ST.") != std::string::npos;
        }
        CHECK(lds > 0);
        CHECK(sts > 0);
        std::uint64_t warps = 0;
        for (int c = 0; c * 80 < n; ++c)
            for (int w = 0; w < 3; ++w)
                warps += c * 80 + w * 32 < n && w * 32 < 80;
        std::ifstream stats(out / "stats.txt");
        std::uint64_t loads = 0, stores = 0;
        for (std::string line; std::getline(stats, line);) {
            std::istringstream f(line);
            std::string key;
            std::uint64_t v = 0;
            f >> key >> v;
            const auto ends = [&](const std::string& tail) {
                return key.size() > tail.size() &&
                       key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
            };
            loads += ends(".local_loads") ? v : 0;
            stores += ends(".local_stores") ? v : 0;
        }
        CHECK(loads == lds * warps);
        CHECK(stores == sts * warps);
    }
    {
        // The platform's sm.regs_per_thread (8, under the kernel's 13 registers) is the
        // translator's cap: the kernel spills and still computes the reference.
        const auto [code, log] = run_sim(dir, "fast", " -s sm.regs_per_thread=8", "out-r8");
        INFO("sm.regs_per_thread=8\n" << log);
        CHECK(code == 0);
        std::ifstream vasm(dir / "out-r8/kernels/local_bins.vasm");
        std::string head;
        std::getline(vasm, head);
        CHECK(head.find("translated by vgpu (8 registers, 60 bytes of local memory") !=
              std::string::npos);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("two kernels of one entry side by side have their own local areas, one twice is refused")
{
    // A kernel runs at most once in a phase (a later phase starts when it ended), so two
    // launches that could share a local area are two kernels, each with its own
    // '<kernel>.local'. Both run local_bins side by side on disjoint SMs over different inputs.
    const char* s = std::getenv("VGPU_TEST_SEED");
    const std::uint32_t seed = s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : 77;
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937 rng(seed);
    const int n = 320;
    auto list = [](const std::vector<std::uint32_t>& v) {
        std::string r;
        for (std::size_t i = 0; i < v.size(); ++i)
            r += (i ? ", " : "") + std::to_string(v[i]);
        return r;
    };
    std::string bufs, kernels, checks;
    for (const char* k : {"a", "b"}) {
        std::vector<std::uint32_t> in(n), want(n);
        for (auto& x : in)
            x = rng();
        for (int t = 0; t < n; ++t) { // the kernel's computation, written from its source
            std::uint32_t bins[8];
            for (std::uint32_t i = 0; i < 8; ++i)
                bins[i] = i;
            const std::uint32_t w = in[static_cast<std::size_t>(t)];
            for (int j = 0; j < 16; ++j) {
                const std::uint32_t v = in[static_cast<std::size_t>((t + j) % n)];
                bins[v & 7] += v >> 3;
            }
            want[static_cast<std::size_t>(t)] = bins[w % 8] + ((w >> (8 * ((w >> 5) & 3))) & 0xff);
        }
        const std::string K(k);
        bufs += "  - {name: in_" + K + ", type: u32, elements: " + std::to_string(n) +
                ", init: {values: [" + list(in) + "]}}\n  - {name: out_" + K +
                ", type: u32, elements: " + std::to_string(n) + ", init: zero}\n";
        kernels += "  - name: " + K + "\n    cuda: local_bins.cu\n    entry: local_bins\n" +
                   "    params: [{buffer: in_" + K + "}, {buffer: out_" + K +
                   "}, {value: " + std::to_string(n) +
                   "}]\n    grid: [10, 1]\n    block: [32, 1]\n" +
                   "    sms: {first: " + (K == "a" ? "0" : "4") + ", count: 4}\n";
        checks += "  - buffer: out_" + K + "\n    expect: [" + list(want) + "]\n";
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_ptx_local2_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(path("kernels/local_bins.cu"), dir / "local_bins.cu");
    std::ofstream(dir / "w.yaml") << "buffers:\n"
                                  << bufs << "kernels:\n"
                                  << kernels << "schedule:\n  - [a, b]\nchecks:\n"
                                  << checks;
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(dir, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 0);
    }
    std::ofstream(dir / "w.yaml") << "buffers:\n"
                                  << bufs << "kernels:\n"
                                  << kernels << "schedule:\n  - [a, a]\n  - [b]\nchecks:\n"
                                  << checks;
    const auto [code, log] = run_sim(dir, "fast");
    INFO(log);
    CHECK(code == 2);
    // Line 22: "buffers:", 4 buffers, "kernels:", 2 kernels of 7 lines, "schedule:".
    CHECK(log.find("w.yaml:22:9: error: schedule[0][1]: kernel 'a' appears twice in the "
                   "phase") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("misaligned_local.cu: a misaligned local load fails the run (exit 1) at its PTX line")
{
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_ptx_local3_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(path("kernels/misaligned_local.cu"), dir / "m.cu");
    std::string in;
    for (int i = 0; i < 32; ++i)
        in += (i ? ", " : "") + std::to_string(i % 8);
    std::ofstream(dir / "w.yaml") << "buffers:\n  - {name: in, type: u32, elements: 32, init: "
                                     "{values: ["
                                  << in
                                  << "]}}\n  - {name: out, type: u32, elements: 32, init: zero}\n"
                                     "kernels:\n  - name: mis\n    cuda: m.cu\n"
                                     "    entry: misaligned_local\n"
                                     "    params: [{buffer: in}, {buffer: out}, {value: 32}]\n"
                                     "    grid: [1, 1]\n    block: [32, 1]\n";
    for (const char* mode : {"fast", "accurate"}) {
        const auto [code, log] = run_sim(dir, mode);
        INFO(mode << "\n" << log);
        CHECK(code == 1);
        // Lane 1 (offset 1) is the first misaligned one; the CUDA line is the load's.
        CHECK(log.find("kernel 'mis' (phase 0, queue 0) failed: CTA fault on SM 0, warp 0, PC ") !=
              std::string::npos);
        CHECK(log.find("(kernels/mis.ptx:") != std::string::npos);
        CHECK(log.find("/m.cu:10): misaligned address ") != std::string::npos);
        CHECK(log.find(" in lane 1 (LD needs 4-byte alignment)") != std::string::npos);
    }
    std::filesystem::remove_all(dir);
}
