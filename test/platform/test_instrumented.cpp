// Seed 002 on the GPU: a kernel run with `instrument: [control, memory]`. The buffer sizes
// equal the closed-form sum over the blocks each thread executes, nothing is refused, the
// merged OUTDIR/instrumented_trace.csv equals every thread's executed order (computed here from
// the program's semantics), the kernel's own results are right (in both timing modes and with
// the firmware host), and an undersized buffer is reported with the exact count. See
// models/shader_trace/README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
constexpr unsigned ctas = 2, threads = 64, n = ctas * threads;

/// The kernel of testbenches/workloads/instrumented.yaml with the input given explicitly.
/// Blocks (leaders 0, 9, 11, 17, 20, 21): 0 entry (LD in[i]), 1 loop test, 2 loop body (LD
/// in[i+j]), 3 after the loop, 4 doubling (odd trips), 5 store (ST out[i]).
std::string workload(const std::vector<std::uint32_t>& in, const std::vector<std::uint32_t>& out)
{
    std::ostringstream w;
    w << "name: instrumented_case\nbuffers:\n  - {name: in, type: u32, elements: " << in.size()
      << ", init: {values: [";
    for (std::size_t i = 0; i < in.size(); ++i)
        w << (i ? ", " : "") << in[i];
    w << "]}}\n  - {name: out, type: u32, elements: " << n << ", init: zero}\n"
      << "kernels:\n  - name: loops\n    instrument: [control, memory]\n"
      << "    params: [{name: in, buffer: in}, {name: out, buffer: out}]\n"
      << "    grid: [" << ctas << ", 1]\n    block: [" << threads << ", 1]\n"
      << "    program: |\n"
      << "      # see testbenches/workloads/instrumented.yaml\n"
      << "              S2R  R0, SR_GLOBAL_TID_X\n"
      << "              LDP  R1, in\n"
      << "              LDP  R2, out\n"
      << "              SHL  R3, R0, 2\n"
      << "              IADD R4, R1, R3\n"
      << "              LD   R5, [R4]\n"
      << "              AND  R6, R5, 3\n"
      << "              MOV  R7, 0\n"
      << "              MOV  R8, 0\n"
      << "      loop:   ISETP.GE P0, R7, R6\n"
      << "      @P0     BRA  done\n"
      << "              SHL  R9, R7, 2\n"
      << "              IADD R9, R4, R9\n"
      << "              LD   R10, [R9]\n"
      << "              IADD R8, R8, R10\n"
      << "              IADD R7, R7, 1\n"
      << "              BRA  loop\n"
      << "      done:   AND  R11, R6, 1\n"
      << "              ISETP.EQ P1, R11, 0\n"
      << "      @P1     BRA  store\n"
      << "              SHL  R8, R8, 1\n"
      << "      store:  IADD R12, R2, R3\n"
      << "              ST   [R12], R8\n"
      << "              EXIT\n"
      << "checks:\n  - buffer: out\n    expect: [";
    for (std::size_t i = 0; i < out.size(); ++i)
        w << (i ? ", " : "") << out[i];
    w << "]\n";
    return w.str();
}

std::string hex(std::uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}
} // namespace

TEST_CASE("instrumented kernel: exact sizes, nothing refused, the trace is the executed order")
{
    const std::uint32_t seed = 4711;
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    std::vector<std::uint32_t> in(n + 4), out(n);
    for (auto& v : in)
        v = rng() % 100;
    std::uint64_t control = 0, memory = 0;
    for (unsigned i = 0; i < n; ++i) {
        const unsigned trips = in[i] % 4;
        std::uint32_t sum = 0;
        for (unsigned j = 0; j < trips; ++j)
            sum += in[i + j];
        out[i] = trips % 2 ? 2 * sum : sum;
        control += 1 + (trips + 1) + trips + 1 + (trips % 2) + 1; // blocks executed
        memory += 1 + trips + 1;                                  // LDs and the ST
    }
    // Both timing modes, and the firmware host (docs/firmware.md) when it was built.
    std::vector<std::string> runs = {"fast", "accurate"};
    if (!std::string(VGPU_FIRMWARE_ELF).empty())
        runs.push_back("riscv");
    for (const std::string& run : runs) {
        CAPTURE(run);
        cli_runner cli("instr_" + run);
        cli.write("w.yaml", workload(in, out));
        const auto r = vgpu::test::run_with_stats(
            cli, "-w w.yaml " + (run == "riscv" ? std::string("-s host.kind=riscv")
                                                : "-s platform.timing.mode=" + run));
        INFO(r.r.err);
        REQUIRE(r.r.code == 0); // the kernel's results match `expect` too
        CHECK(r.stat("gpu.host.instrument.control.bytes") == 16.0 * control);
        CHECK(r.stat("gpu.host.instrument.memory.bytes") == 24.0 * memory);
        CHECK(r.stat("gpu.host.instrument.control.records") == control);
        CHECK(r.stat("gpu.host.instrument.memory.records") == memory);
        CHECK(r.stat("gpu.host.instrument.control.refused") == 0);
        CHECK(r.stat("gpu.host.instrument.memory.refused") == 0);
        CHECK(r.stat("gpu.host.kernel_time.loops.profile.samples") == 1);
        // The expected CSV: per thread, its blocks in execution order with its memory records
        // before each access; the buffer addresses from thread 0's first load and its store.
        const std::string csv = cli.read("out/instrumented_trace.csv");
        std::istringstream lines(csv);
        std::string header, row;
        std::getline(lines, header);
        CHECK(header == "thread,seq,type,block,address,size");
        std::vector<std::string> rows;
        while (std::getline(lines, row))
            rows.push_back(row);
        REQUIRE(rows.size() == control + memory);
        const auto field = [](const std::string& s, int k) {
            std::size_t a = 0;
            for (int i = 0; i < k; ++i)
                a = s.find(',', a) + 1;
            return s.substr(a, s.find(',', a) - a);
        };
        const std::uint64_t in_base = std::stoull(field(rows[1], 4), nullptr, 16);
        std::uint64_t out_base = 0;
        for (const auto& x : rows)
            if (field(x, 0) == "0" && field(x, 3) == "5" && field(x, 2) == "memory")
                out_base = std::stoull(field(x, 4), nullptr, 16);
        REQUIRE(out_base != 0);
        std::vector<std::string> want;
        for (unsigned i = 0; i < n; ++i) {
            unsigned seq = 0;
            const auto ctl = [&](unsigned b) {
                want.push_back(std::to_string(i) + "," + std::to_string(seq++) + ",control," +
                               std::to_string(b) + ",,");
            };
            const auto mem = [&](unsigned b, std::uint64_t a) {
                want.push_back(std::to_string(i) + "," + std::to_string(seq++) + ",memory," +
                               std::to_string(b) + "," + hex(a) + ",4");
            };
            const unsigned trips = in[i] % 4;
            ctl(0);
            mem(0, in_base + 4 * i);
            for (unsigned j = 0; j < trips; ++j) {
                ctl(1);
                ctl(2);
                mem(2, in_base + 4 * (i + j));
            }
            ctl(1);
            ctl(3);
            if (trips % 2)
                ctl(4);
            ctl(5);
            mem(5, out_base + 4 * i);
        }
        REQUIRE(want.size() == rows.size());
        for (std::size_t k = 0; k < rows.size(); ++k) {
            INFO("row " << k);
            REQUIRE(rows[k] == want[k]);
        }
    }
}

TEST_CASE("instrumented kernel: an undersized buffer refuses the exact count and fails the run")
{
    std::vector<std::uint32_t> in(n + 4, 2), out(n, 2 * 2); // every thread: 2 trips
    cli_runner cli("instr_small");
    cli.write("w.yaml", workload(in, out));
    const auto r = vgpu::test::run_with_stats(cli, "-w w.yaml -s host.instrument_undersize=5");
    CHECK(r.r.code == 1);
    CHECK(r.r.err.find("5 control records did not fit") != std::string::npos);
    CHECK(r.r.err.find("5 memory records did not fit") != std::string::npos);
    CHECK(r.stat("gpu.host.instrument.control.refused") == 5);
    CHECK(r.stat("gpu.host.instrument.memory.refused") == 5);
    // Every record that fitted is in the trace: the sizes minus the 5 refused of each type.
    const std::string csv = cli.read("out/instrumented_trace.csv");
    const auto rows = static_cast<std::uint64_t>(std::count(csv.begin(), csv.end(), '\n')) - 1;
    const std::uint64_t control = n * (1 + 3 + 2 + 1 + 0 + 1), memory = n * (1 + 2 + 1);
    CHECK(rows == control + memory - 10);
}

TEST_CASE("instrument: bad lists and kernels that cannot be instrumented are workload errors")
{
    cli_runner cli("instr_bad");
    std::vector<std::uint32_t> in(n + 4, 1), out(n, 1);
    const std::string good = workload(in, out);
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string w = good;
        w.replace(w.find(from), from.size(), to);
        return w;
    };
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {with("[control, memory]", "[control, memroy]"), "did you mean 'memory'"},
             {with("[control, memory]", "[control, control]"), "listed twice"},
             {with("[control, memory]", "[]"), "the list is empty"},
             {with("instrument: [control, memory]", "instrument: control"), "instrument"}}) {
        cli.write("bad.yaml", text);
        const auto r = cli.run("-w bad.yaml");
        CAPTURE(message);
        CHECK(r.code == 2);
        CHECK(r.err.find(message) != std::string::npos);
    }
    // Too few registers for the inserted code (R0..R12 used, 16 per thread).
    cli.write("ok.yaml", good);
    const auto r = cli.run("-w ok.yaml -s sm.regs_per_thread=16");
    CHECK(r.code == 2);
    CHECK(r.err.find("cannot be instrumented") != std::string::npos);
}
