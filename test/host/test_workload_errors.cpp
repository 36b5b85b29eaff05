// Unit tests of the workload reader's errors: a catalogue of bad workloads with exact messages
// (position, key path, problem). See docs/workloads.md.
#include "test/host/workload_cases.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

TEST_CASE("the base of the bad-workload catalogue is valid", "[workload]")
{
    CHECK(errors_of(base_head + base_kernel).empty());
}

TEST_CASE("bad workloads: each error with position, key path and problem", "[workload]")
{
    struct bad_case {
        std::string text;
        std::vector<std::string> errors;
    };
    const std::vector<bad_case> cases = {
        // 1 YAML syntax error
        {"buffers: [\n", {"w.yaml:2:1: error: YAML syntax error: end of sequence flow not found"}},
        // 2 unknown top-level key with a suggestion
        {base_head + base_kernel + "chekcs: []\n",
         {"w.yaml:13:1: error: chekcs: unknown key (did you mean 'checks'?)"}},
        // 3 duplicate key
        {"name: t\nname: u\n" + base_head.substr(8) + base_kernel,
         {"w.yaml:2:1: error: name: duplicate key"}},
        // 4 missing required key
        {base_head, {"w.yaml:1:1: error: missing required key 'kernels'"}},
        // 5 wrong type
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: lots}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: wrong type (expected an unsigned integer, "
          "got 'lots')"}},
        // 6 bad enum with suggestion
        {"name: t\nbuffers:\n  - {name: a, type: f16, elements: 4}\n" + base_kernel,
         {"w.yaml:3:21: error: buffers[0].type: invalid choice (expected one of "
          "u8|i8|u16|i16|u32|i32|u64|i64|f32|f64, got 'f16'; did you mean 'u16'?)"}},
        // 7 elements = 0
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 0}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: value out of range (expected 1..268435456, "
          "got 0)"}},
        // 8 total size above 1 GiB
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 200000000}\n  - {name: b, type: "
         "u32, elements: 200000000}\n" +
             base_kernel,
         {"w.yaml:2:1: error: buffers: the buffers need 1600000000 bytes (at most 1073741824, 1 "
          "GiB)"}},
        // 9 duplicate buffer name
        {base_head + "  - {name: a, type: f32, elements: 2}\n" + base_kernel,
         {"w.yaml:4:12: error: buffers[1].name: duplicate buffer name 'a' (first defined on line "
          "3)"}},
        // 10 random without max (a missing seed is the run's), and a negative seed
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {random: {min: 0}}}\n"
         "  - {name: b, type: u32, elements: 4, init: {random: {seed: -1, min: 0, max: 9}}}\n" +
             base_kernel,
         {"w.yaml:3:54: error: buffers[0].init.random: missing required key 'max'",
          "w.yaml:4:61: error: buffers[1].init.random.seed: wrong type (expected an unsigned "
          "integer, got '-1')"}},
        // 11 random max below min, out-of-type fill value
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {random: {seed: 1, min: "
         "5, max: 2}}}\n  - {name: b, type: u32, elements: 4, init: {fill: -1}}\n" +
             base_kernel,
         {"w.yaml:3:77: error: buffers[0].init.random.max: max (2) is below min (5)",
          "w.yaml:4:52: error: buffers[1].init.fill: value out of range (expected 0..4294967295 "
          "for a u32 buffer, got -1)"}},
        // 12 values count differs from elements
        {"name: t\nbuffers:\n  - {name: a, type: i32, elements: 4, init: {values: [1, 2.5]}}\n" +
             base_kernel,
         {"w.yaml:3:58: error: buffers[0].init.values[1]: wrong type (expected an integer for a "
          "i32 buffer, got 2.5)",
          "w.yaml:3:54: error: buffers[0].init.values: has 2 values, the buffer has 4 elements"}},
        // 13 unknown init kind
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {randon: {seed: 1}}}\n" +
             base_kernel,
         {"w.yaml:3:46: error: buffers[0].init: invalid choice (expected one of "
          "zero|iota|fill|values|random, got 'randon'; did you mean 'random'?)"}},
        // 14 unknown instruction (assembler, with the file line of the program)
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      "
                     "LDP R0, 0\n      FADDD R1, R0, R0\n      EXIT\n",
         {"w.yaml:10:7: error: kernels[0].program: unknown instruction 'FADDD' (did you mean "
          "'FADD'?)"}},
        // 15 unknown parameter in the program
        {base_head + "kernels:\n  - name: k\n    params: [{name: a, buffer: a}]\n    grid: 1\n  "
                     "  block: 32\n    program: |\n      LDP R0, b\n      EXIT\n",
         {"w.yaml:10:15: error: kernels[0].program: undefined parameter 'b'"}},
        // 16 register out of range
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      MOV "
                     "R64, 1\n      EXIT\n",
         {"w.yaml:9:11: error: kernels[0].program: register R64 out of range (R0..R63)"}},
        // 17 undefined label
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      BRA "
                     "nowhere\n      EXIT\n",
         {"w.yaml:9:11: error: kernels[0].program: undefined label 'nowhere'"}},
        // 18 undefined buffer in params
        {base_head + "kernels:\n  - name: k\n    params: [{name: p, buffer: aa}]\n    grid: 1\n  "
                     "  block: 32\n    program: EXIT\n",
         {"w.yaml:6:32: error: kernels[0].params[0].buffer: undefined buffer 'aa' (did you mean "
          "'a'?)"}},
        // 19 grid beyond the limit
        {base_head + "kernels:\n  - name: k\n    grid: [70000, 1]\n    block: 32\n    program: "
                     "EXIT\n",
         {"w.yaml:6:12: error: kernels[0].grid[0]: value out of range (expected 1..65535, got "
          "70000)"}},
        // 20 block with too many threads, and a zero dimension
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: [64, 32]\n    program: "
                     "EXIT\n  - name: k2\n    grid: 1\n    block: [0, 4]\n    program: EXIT\n",
         {"w.yaml:7:12: error: kernels[0].block: block has 2048 threads (expected 1..1024)",
          "w.yaml:11:13: error: kernels[1].block[0]: value out of range (expected 1..1024, got "
          "0)"}},
        // 21 duplicate kernel name, duplicate parameter name
        {base_head + "kernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\n  - {name: k, "
                     "grid: 1, block: 32, program: EXIT, params: [{name: p, value: 1}, {name: p, "
                     "value: 2}]}\n",
         {"w.yaml:6:12: error: kernels[1].name: duplicate kernel name 'k' (first defined on line "
          "5)",
          "w.yaml:6:87: error: kernels[1].params[1].name: duplicate parameter name 'p'"}},
        // 22 param with both value and buffer; with a non-number value
        {base_head + "kernels:\n  - name: k\n    params:\n      - {name: p, value: 1, buffer: a}\n "
                     "     - {name: q, value: abc}\n    grid: 1\n    block: 32\n    program: "
                     "EXIT\n",
         {"w.yaml:7:9: error: kernels[0].params[0]: has both 'value' and 'buffer' (expected one)",
          "w.yaml:8:26: error: kernels[0].params[1].value: wrong type (expected a number "
          "(integer, or decimal for f32), got 'abc')"}},
        // 23 undefined kernel in the schedule
        {base_head + base_kernel + "schedule: [[k], [kk]]\n",
         {"w.yaml:13:18: error: schedule[1][0]: undefined kernel 'kk' (did you mean 'k'?)"}},
        // 24 overlapping SM ranges in one phase
        {base_head + "kernels:\n  - {name: k1, grid: 1, block: 32, sms: {first: 0, count: 4}, "
                     "program: EXIT}\n  - {name: k2, grid: 1, block: 32, sms: {first: 3, count: "
                     "2}, program: EXIT}\nschedule: [[k1, k2]]\n",
         {"w.yaml:7:17: error: schedule[0][1]: kernels 'k1' (SMs 0..3) and 'k2' (SMs 3..4) share "
          "SMs in one phase"}},
        // 25 undefined buffer in a check, unknown reference
        {base_head + base_kernel +
             "checks:\n  - {buffer: b, expect: [1]}\n  - {buffer: a, reference: vector_ad}\n",
         {"w.yaml:14:14: error: checks[0].buffer: undefined buffer 'b' (did you mean 'a'?)",
          "w.yaml:15:28: error: checks[1].reference: unknown reference 'vector_ad' (expected one "
          "of "
          "vector_add|saxpy|stream|axpby|fma_chain|compute_bound|strided_sum|reduce_sum|"
          "table_sum|sum_f32|histogram8|gather|owned_rmw|stencil3|stencil3_f32|matmul|gemm|"
          "softmax_rows|kmeans|nbody_step) "
          "(did you mean 'vector_add'?)"}},
        // 26 reference arguments: unknown, missing, wrong buffer type, bad kernel.param
        {base_head + "  - {name: f, type: f32, elements: 4}\n" + base_kernel +
             "checks:\n  - buffer: a\n    reference: stream\n    args: {in: f, k: k.kk, cc: "
             "1}\n",
         {"w.yaml:17:28: error: checks[0].args.cc: unknown key (did you mean 'c'?)",
          "w.yaml:17:16: error: checks[0].args.in: buffer 'f' is f32 (expected u32|i32)",
          "w.yaml:17:22: error: checks[0].args.k: kernel 'k' has no parameter 'kk'",
          "w.yaml:17:5: error: checks[0].args: missing argument 'c' of reference 'stream'"}},
        // 27 expect with the wrong count; tolerance on an integer buffer
        {base_head + base_kernel + "checks:\n  - {buffer: a, expect: [1, 2, 3], tolerance: 0.1}\n",
         {"w.yaml:14:25: error: checks[0].expect: has 3 values, buffer 'a' has 4 elements",
          "w.yaml:14:36: error: checks[0].tolerance: a tolerance applies only to f32 and f64 "
          "buffers "
          "('a' is u32)"}},
        // 28 leading zero (octal in yaml-cpp) is rejected
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 010}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: wrong type (expected an unsigned integer, "
          "got '010')"}},
        // 29 empty value points at the key
        {"name: t\nbuffers:\n  - name: a\n    type: u32\n    elements:\n" + base_kernel,
         {"w.yaml:5:5: error: buffers[0].elements: wrong type (expected an unsigned integer, got "
          "nothing)"}},
        // 30 too many parameters
        {base_head +
             "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: EXIT\n    params: "
             "[{name: p0, value: 0}, {name: p1, value: 0}, {name: p2, value: 0}, {name: p3, "
             "value: 0}, {name: p4, value: 0}, {name: p5, value: 0}, {name: p6, value: 0}, "
             "{name: p7, value: 0}, {name: p8, value: 0}, {name: p9, value: 0}, {name: p10, "
             "value: 0}, {name: p11, value: 0}, {name: p12, value: 0}, {name: p13, value: 0}, "
             "{name: p14, value: 0}, {name: p15, value: 0}, {name: p16, value: 0}]\n",
         {"w.yaml:9:13: error: kernels[0].params: has 17 parameters (at most 16)"}},
    };
    REQUIRE(cases.size() >= 20);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i + 1 << ":\n" << cases[i].text);
        CHECK(errors_of(cases[i].text) == cases[i].errors);
    }
}

TEST_CASE("a missing workload file is an error", "[workload]")
{
    const auto r = parse_workload("/nonexistent/w.yaml");
    CHECK(r.errors ==
          std::vector<std::string>{"/nonexistent/w.yaml: error: cannot open workload file"});
}

namespace {
/// The 1-based line and column of the first `what` in text.
std::string place_of(const std::string& text, const std::string& what)
{
    const std::size_t off = text.find(what);
    REQUIRE(off != std::string::npos);
    const std::size_t start = text.rfind('\n', off);
    const std::size_t col = off - (start == std::string::npos ? 0 : start + 1) + 1;
    const auto line = std::count(text.begin(), text.begin() + static_cast<long>(off), '\n') + 1;
    return std::to_string(line) + ":" + std::to_string(col);
}

const std::string quoted_head = "name: t\nvars: {wide: 123456}\nbuffers:\n"
                                "  - {name: a, type: u32, elements: 4}\n"
                                "kernels:\n  - name: k\n    grid: 1\n    block: 32\n";
} // namespace

TEST_CASE("assembler errors in quoted programs point at the file's line and column", "[workload]")
{
    struct quoted {
        std::string program; ///< the `program:` line(s)
        std::string culprit; ///< the text the error points at
        std::string problem;
    };
    const std::vector<quoted> cases = {
        // one line, "\n" escapes: every instruction is on the same file line
        {"    program: \"MOV R1, 1\\nFADDD R1, R2, R3\\nEXIT\"\n", "FADDD",
         "unknown instruction 'FADDD' (did you mean 'FADD'?)"},
        // folded lines: a blank line is a newline
        {"    program: \"MOV R1, 1\n\n      FADDD R1, R2, R3\n\n      EXIT\"\n", "FADDD",
         "unknown instruction 'FADDD' (did you mean 'FADD'?)"},
        // single quotes, with '' before the error on the same line
        {"    program: 'MOV R1, 1\n\n      BRA nowhere # it''s gone\n\n      EXIT'\n", "nowhere",
         "undefined label 'nowhere'"},
        // a variable replaced before the error on an escaped line
        {"    program: \"MOV R1, ${wide}\\nIADD R1, ${wide}, R99\\nEXIT\"\n", "R99",
         "register R99 out of range (R0..R63)"},
        // an escape earlier on the line ("\t" is one character in the text, two in the file)
        {"    program: \"MOV R1, 1\\n\\tIADD R1, R1, R99\\nEXIT\"\n", "R99",
         "register R99 out of range (R0..R63)"},
    };
    for (const auto& c : cases) {
        const std::string text = quoted_head + c.program;
        INFO(text);
        CHECK(errors_of(text) ==
              std::vector<std::string>{"w.yaml:" + place_of(text, c.culprit) +
                                       ": error: kernels[0].program: " + c.problem});
    }
    // The instructions' file lines (used in fault reports) follow the file too.
    const std::string text = quoted_head + "    program: \"MOV R1, 1\n\n      MOV R2, 2\\nEXIT\"\n";
    const parse_result r = parse_workload_text(text, "w.yaml");
    REQUIRE(r.ok());
    CHECK(r.wl.kernels[0].lines == std::vector<int>{9, 11, 11});
}

TEST_CASE("a declared kernel that no phase runs is an error", "[workload]")
{
    const std::string head = base_head +
                             "kernels:\n  - {name: k1, grid: 1, block: 32, program: "
                             "EXIT}\n  - {name: k2, grid: 1, block: 32, program: "
                             "EXIT}\n  - {name: k3, grid: 1, block: 32, program: EXIT}\n";
    CHECK(errors_of(head + "schedule: [[k2]]\n") ==
          std::vector<std::string>{
              "w.yaml:5:5: error: kernels[0]: kernel 'k1' is in no phase of the schedule, so it "
              "would never run",
              "w.yaml:7:5: error: kernels[2]: kernel 'k3' is in no phase of the schedule, so it "
              "would never run"});
    CHECK(errors_of(head + "schedule: [k3, k1, [k2]]\n").empty());
    // A misspelt name in the schedule is reported once, not also as a kernel never run.
    CHECK(errors_of(head + "schedule: [k3, k1, [k22]]\n") ==
          std::vector<std::string>{
              "w.yaml:8:21: error: schedule[2][0]: undefined kernel 'k22' (did you mean 'k2'?)"});
}

TEST_CASE("hostile YAML in a workload is an error, not a crash", "[workload]")
{
    // An unknown key is reported as such; its value is not read (no variable error from it).
    CHECK(errors_of(base_head + base_kernel + "chekcs: \"${zz}\"\n") ==
          std::vector<std::string>{
              "w.yaml:13:1: error: chekcs: unknown key (did you mean 'checks'?)"});
    CHECK(errors_of("name: t\ndescription: &d [1, *d]\n" + base_head.substr(8) + base_kernel) ==
          std::vector<std::string>{
              "w.yaml:2:14: error: an alias inside the node its anchor names (a cycle)"});
    CHECK(errors_of(base_head + base_kernel + "---\nname: u\n") ==
          std::vector<std::string>{"w.yaml:13:1: error: a second YAML document (after '---'); a "
                                   "file holds one document"});
    CHECK(
        errors_of(std::string("name: t\0\n", 9) + base_head.substr(8) + base_kernel) ==
        std::vector<std::string>{"w.yaml:1:8: error: a NUL character is not allowed in YAML text"});
}

TEST_CASE("bad page-fault and CBV keys: each error located", "[workload]")
{
    const std::string kernel = "kernels:\n"
                               "  - name: k\n"
                               "    params: [{name: d, buffer: d}]\n"
                               "    grid: [1, 1]\n"
                               "    block: [32, 1]\n"
                               "    program: \"EXIT\"\n";
    auto errors = [&](const std::string& bufs, const std::string& kernel_extra,
                      const std::string& tail) {
        std::string k = kernel;
        k.insert(k.find("    grid"), kernel_extra);
        return errors_of("name: t\nbuffers:\n" + bufs + k + tail);
    };
    const std::string d = "  - {name: d, type: u32, elements: 64}\n";
    auto has = [](const std::vector<std::string>& e, const std::string& what) {
        for (const auto& s : e)
            if (s.find(what) != std::string::npos)
                return true;
        return false;
    };
    CHECK(errors(d, "", "").empty());
    CHECK(
        has(errors("  - {name: d, type: u32, elements: 64, alloc: lazy}\n", "", ""), "w.yaml:3:"));
    CHECK(has(errors(d, "", "evict: [{buffer: x, after_ns: 5}]\n"), "no buffer named 'x'"));
    CHECK(has(errors(d, "", "evict: [{buffer: d}]\n"), "after_ns"));
    CHECK(has(errors(d, "", "evict: [{buffer: d, phase: 3, after_ns: 5}]\n"),
              "phase 3 does not exist"));
    // A CBV's buffer may be on_demand (CDL reads wait for page faults and replay).
    CHECK(errors("  - {name: d, type: u32, elements: 64, alloc: on_demand}\n",
                 "    cbvs: [{slot: 0, buffer: d}]\n", "")
              .empty());
    CHECK(has(errors(d, "    cbvs: [{slot: 1, buffer: d}, {slot: 1, buffer: d}]\n", ""),
              "CBV slot 1 is bound twice"));
    CHECK(has(errors(d, "    cbvs: [{slot: 0, buffer: q}]\n", ""), "no buffer named 'q'"));
    // ... and may be evicted (the CDL reads after it fault and replay).
    CHECK(errors(d, "    cbvs: [{slot: 0, buffer: d}]\n", "evict: [{buffer: d, after_ns: 5}]\n")
              .empty());
}
