// Unit tests of workload variables: `vars:`, "${...}", values given by -D and the recorded text.
// See docs/workloads.md ("Variables").
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

namespace {
/// splitmix64 as docs/workloads.md states it ("Random contents"), written out independently.
std::vector<std::uint32_t> splitmix_words(std::uint64_t seed, std::size_t n)
{
    std::vector<std::uint32_t> out;
    std::uint64_t s = seed;
    for (std::size_t i = 0; i < n; ++i) {
        s += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        out.push_back(static_cast<std::uint32_t>(z)); // min 0, max 2^32-1: z mod 2^32
    }
    return out;
}

/// A workload using variables everywhere: typed values, arithmetic, text and a program.
const std::string vars_workload = R"(# uses vars
vars: {n: 96, half: 48, twice: "${n*2}", mask: "${twice - 1}", a: 2.5}
description: "n is ${n} and a is ${a}"
buffers:
  - {name: x, type: u32, elements: "${n}", init: {random: {min: 0, max: "${mask}"}}}
  - {name: y, type: f32, elements: "${twice}", init: {fill: "${a}"}}
kernels:
  - name: k
    params:
      - {name: x, buffer: x}
      - {name: n, value: "${n}"}
      - {name: a, value: "${a}"}
    grid: ["${n - half - 47}", 1]
    block: "${half + half}"
    program: |
      # ${n} elements
              MOV  R1, ${mask}
              IADD R2, R1, ${n * 3 + 1}
              EXIT
)";
} // namespace

TEST_CASE("workload variables: whole values typed as numbers, text substituted", "[workload][vars]")
{
    const auto r = parse_workload_text(vars_workload, "v.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    const workload& wl = r.wl;
    CHECK(wl.vars ==
          std::map<std::string, std::string>{
              {"n", "96"}, {"half", "48"}, {"twice", "192"}, {"mask", "191"}, {"a", "2.5"}});
    CHECK(wl.description == "n is 96 and a is 2.5");
    CHECK(wl.buffers[0].elements == 96);
    CHECK(wl.buffers[0].init.max == 191);
    CHECK(wl.buffers[1].elements == 192);
    CHECK(initial_words(wl.buffers[1]) == std::vector<std::uint32_t>(192, f32_bits(2.5f)));
    const kernel_decl& k = wl.kernels[0];
    CHECK(k.params[1].bits == 96);
    CHECK(k.params[2].bits == f32_bits(2.5f)); // a decimal stays a decimal (f32 bits)
    CHECK(k.grid_x == 1);
    CHECK(k.block_x == 96);
    CHECK(k.source ==
          "# 96 elements\n        MOV  R1, 191\n        IADD R2, R1, 289\n        EXIT\n");
    // The same program written with the numbers assembles to the same instructions.
    std::string literal = vars_workload;
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"# ${n} elements", "# 96 elements"},
                                                          {"MOV  R1, ${mask}", "MOV  R1, 191"},
                                                          {"R1, ${n * 3 + 1}", "R1, 289"}})
        literal.replace(literal.find(from), from.size(), to);
    const auto lit = parse_workload_text(literal, "l.yaml");
    REQUIRE(lit.ok());
    CHECK(k.image() == lit.wl.kernels[0].image());
    CHECK(k.lines == lit.wl.kernels[0].lines);
}

TEST_CASE("workload variables: given values replace declared ones and are recorded in the text",
          "[workload][vars]")
{
    workload_options o;
    o.vars.push_back({"n", "200", {"-D n=200"}});
    o.vars.push_back({"a", "-1.5", {"-D a=-1.5"}});
    const auto r = parse_workload_text(vars_workload, "v.yaml", o);
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    CHECK(r.wl.vars.at("n") == "200");
    CHECK(r.wl.vars.at("twice") == "400"); // derived from the given n
    CHECK(r.wl.buffers[0].elements == 200);
    CHECK(r.wl.buffers[1].elements == 400);
    CHECK(r.wl.kernels[0].params[2].bits == f32_bits(-1.5f));
    // The text as used: the vars line rewritten, and the default name written out.
    std::string expected = vars_workload;
    const std::string decl =
        "vars: {n: 96, half: 48, twice: \"${n*2}\", mask: \"${twice - 1}\", a: 2.5}";
    expected.replace(
        expected.find(decl), decl.size(),
        "name: \"v\"   # default name\n"
        "vars: {n: 200, half: 48, twice: \"${n*2}\", mask: \"${twice - 1}\", a: -1.5}");
    CHECK(r.wl.text == expected);
    // Read again without the values, the text is the same workload.
    const auto again = parse_workload_text(r.wl.text, "workload.yaml");
    REQUIRE(again.ok());
    CHECK(again.wl.name == "v");
    CHECK(again.wl.vars == r.wl.vars);
    CHECK(again.wl.buffers[1].elements == 400);
    CHECK(again.wl.kernels[0].image() == r.wl.kernels[0].image());
    // A workload with a name and no given values is recorded exactly as written.
    const std::string named = "name: t\n" + vars_workload;
    CHECK(parse_workload_text(named, "v.yaml").wl.text == named);
}

TEST_CASE("workload variables: block-style declarations and quoted values are rewritten too",
          "[workload][vars]")
{
    const std::string text = "name: t\nvars:\n  n: 0x20   # hex\n  m: '7'\nbuffers:\n"
                             "  - {name: a, type: u32, elements: \"${n}\"}\n" +
                             base_kernel;
    workload_options o;
    o.vars = {{"n", "64", {"-D n=64"}}, {"m", "9", {"-D m=9"}}};
    const auto r = parse_workload_text(text, "b.yaml", o);
    REQUIRE(r.ok());
    CHECK(r.wl.buffers[0].elements == 64);
    CHECK(r.wl.text == "name: t\nvars:\n  n: 64   # hex\n  m: 9\nbuffers:\n"
                       "  - {name: a, type: u32, elements: \"${n}\"}\n" +
                           base_kernel);
}

TEST_CASE("a random initialiser without a seed takes the run's seed plus its buffer index",
          "[workload][seed]")
{
    const std::string text = "name: t\nbuffers:\n"
                             "  - {name: a, type: u32, elements: 64, init: {random: {min: 0, max: "
                             "4294967295}}}\n"
                             "  - {name: b, type: u32, elements: 64, init: {random: {seed: 77, "
                             "min: 0, max: 4294967295}}}\n"
                             "  - {name: c, type: u32, elements: 64, init: {random: {min: 0, max: "
                             "4294967295}}}\n" +
                             base_kernel;
    workload_options s5, s6;
    s5.seed = 5;
    s6.seed = 6;
    const auto r5 = parse_workload_text(text, "s.yaml", s5);
    const auto r6 = parse_workload_text(text, "s.yaml", s6);
    REQUIRE(r5.ok());
    REQUIRE(r6.ok());
    CHECK(initial_words(r5.wl.buffers[0]) == splitmix_words(5, 64));
    CHECK(initial_words(r5.wl.buffers[2]) == splitmix_words(7, 64));
    CHECK(initial_words(r6.wl.buffers[0]) == splitmix_words(6, 64));
    CHECK(initial_words(r6.wl.buffers[0]) != initial_words(r5.wl.buffers[0]));
    CHECK(r5.wl.buffers[0].init.run_seed);
    // A buffer with its own seed keeps it whatever the run's seed.
    CHECK_FALSE(r5.wl.buffers[1].init.run_seed);
    CHECK(initial_words(r5.wl.buffers[1]) == splitmix_words(77, 64));
    CHECK(initial_words(r6.wl.buffers[1]) == splitmix_words(77, 64));
}

TEST_CASE("workload variables: each mistake with its position and a suggestion", "[workload][vars]")
{
    struct bad_case {
        std::string text;
        std::vector<var_setting> given;
        std::vector<std::string> errors;
    };
    const std::string k = base_kernel;
    const std::vector<bad_case> cases = {
        // 1 unknown variable in a whole value, with a suggestion
        {"name: t\nvars: {n: 4}\nbuffers:\n  - {name: a, type: u32, elements: \"${m}\"}\n" + k,
         {},
         {"w.yaml:4:37: error: buffers[0].elements: unknown variable 'm' (did you mean 'n'?)"}},
        // 2 unknown variable inside a program line: the line and column in the file
        {"name: t\nvars: {count: 4}\nbuffers:\n  - {name: a, type: u32, elements: 4}\n"
         "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      # k\n"
         "      MOV R1, ${count}\n      MOV R2, ${coumt}\n      EXIT\n",
         {},
         {"w.yaml:12:15: error: kernels[0].program: unknown variable 'coumt' (did you mean "
          "'count'?)"}},
        // 3 no vars at all
        {base_head.substr(0, 8) + "description: \"${x}\"\n" + base_head.substr(8) + k,
         {},
         {"w.yaml:2:15: error: description: unknown variable 'x' (the workload declares no "
          "vars)"}},
        // 4 a given value for an undeclared variable, nothing close
        {"name: t\nvars: {n: 4, m: 5}\n" + base_head.substr(8) + k,
         {{"zzzz", "3", {"-D zzzz=3"}}},
         {"-D zzzz=3: error: workload.vars.zzzz: undeclared variable 'zzzz' (declared: n, m)"}},
        // 5 a given value that is not a number (from a config file line)
        {"name: t\nvars: {n: 4}\n" + base_head.substr(8) + k,
         {{"n", "many", {"c.yaml", 3, 8}}},
         {"c.yaml:3:8: error: workload.vars.n: wrong type (expected a number, got 'many')"}},
        // 6 declared values: not a number, used before its declaration, a decimal in arithmetic
        {"name: t\nvars: {n: four, m: \"${k}\", k: 2, f: 0.5, g: \"${f*2}\"}\n" +
             base_head.substr(8) + k,
         {},
         {"w.yaml:2:11: error: vars.n: wrong type (expected a number, got 'four')",
          "w.yaml:2:21: error: vars.m: variable 'k' is used before its declaration (line 2)",
          "w.yaml:2:46: error: vars.g: variable 'f' is 0.5, not an integer (arithmetic takes "
          "integers)"}},
        // 7 malformed and unterminated references, overflow
        {"name: t\nvars: {n: 4, big: 9223372036854775807}\ndescription: \"${n +} ${big*2} ${n\"\n" +
             base_head.substr(8) + k,
         {},
         {"w.yaml:3:15: error: description: malformed variable reference '${n +}' (expected "
          "${name}, or integers and names joined by +, - and *)",
          "w.yaml:3:22: error: description: '${big*2}' overflows 64-bit integers",
          "w.yaml:3:31: error: description: unterminated variable reference (expected ${name})"}},
        // 8 vars must be a mapping of names
        {"name: t\nvars: [n]\n" + base_head.substr(8) + k,
         {},
         {"w.yaml:2:7: error: vars: wrong type (expected a mapping of variable names to numbers, "
          "got a list)"}},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i + 1 << ":\n" << cases[i].text);
        workload_options o;
        o.vars = cases[i].given;
        CHECK(parse_workload_text(cases[i].text, "w.yaml", o).errors == cases[i].errors);
    }
}

TEST_CASE("an assembler error after a substituted value keeps the file's line and column",
          "[workload][vars]")
{
    const std::string text = "name: t\nvars: {wide: 123456}\nbuffers:\n"
                             "  - {name: a, type: u32, elements: 4}\n"
                             "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n"
                             "      # k\n"
                             "      IADD R1, R2, ${wide}\n"
                             "      IADD R1, ${wide}, R99\n"
                             "      EXIT\n";
    CHECK(parse_workload_text(text, "w.yaml").errors ==
          std::vector<std::string>{
              "w.yaml:12:25: error: kernels[0].program: register R99 out of range (R0..R63)"});
}
