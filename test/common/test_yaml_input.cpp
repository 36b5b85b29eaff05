// Unit tests of the located-YAML layer shared by the configuration and workload readers.
// See models/common/yaml_input.h.
#include "models/common/yaml_input.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace vgpu::config;

namespace {

/// The errors of parsing text as a document called d.yaml.
std::vector<std::string> problems(const std::string& text)
{
    errors errs;
    yaml_document doc(text, "d.yaml", errs);
    CHECK(doc.ok() == errs.empty());
    return errs.messages();
}

/// Line and column of each character of the value of key `k` in text, as the layer traces it.
std::vector<std::pair<int, int>> places(const std::string& text, const std::string& k)
{
    errors errs;
    yaml_document doc(text, "d.yaml", errs);
    REQUIRE(doc.ok());
    const YAML::Node v = doc.root()[k];
    const auto runs = doc.runs(v);
    std::vector<std::pair<int, int>> out;
    if (runs.empty())
        return out;
    std::size_t r = 0;
    for (std::size_t i = 0; i < v.Scalar().size(); ++i) {
        while (r + 1 < runs.size() && runs[r + 1].at <= i)
            ++r;
        out.emplace_back(runs[r].line, runs[r].col + static_cast<int>(i - runs[r].at));
    }
    return out;
}

/// Where the first occurrence of `what` is in text (1-based line and column).
std::pair<int, int> find_in(const std::string& text, const std::string& what)
{
    const std::size_t off = text.find(what);
    REQUIRE(off != std::string::npos);
    const std::size_t line_start =
        text.rfind('\n', off) == std::string::npos ? 0 : text.rfind('\n', off) + 1;
    return {static_cast<int>(std::count(text.begin(), text.begin() + off, '\n')) + 1,
            static_cast<int>(off - line_start) + 1};
}

} // namespace

TEST_CASE("a document with what a reader would silently drop is rejected, with a position")
{
    CHECK(
        problems("a: 1\n---\nb: 2\n") ==
        std::vector<std::string>{
            "d.yaml:2:1: error: a second YAML document (after '---'); a file holds one document"});
    CHECK(
        problems("a: 1\n---\n# nothing more\n").empty()); // an empty second document drops nothing
    CHECK(
        problems(std::string("a: 1\nb: x\0y\n", 12)) ==
        std::vector<std::string>{"d.yaml:2:5: error: a NUL character is not allowed in YAML text"});
    CHECK(problems("a: \"x\\0y\"\n") ==
          std::vector<std::string>{
              "d.yaml:1:4: error: a NUL character (\"\\0\") is not allowed in a value"});
    CHECK(problems("a:\n  b: 1\n \tc: 2\n") ==
          std::vector<std::string>{"d.yaml:3:2: error: a tab character is not allowed in "
                                   "indentation (indent with spaces)"});
    CHECK(problems("a:\tb\n").empty()); // a tab that is not indentation is fine
    // Text yaml-cpp's single-document load skips: a stray flow end, a stray ',' (on which
    // YAML::LoadAll would return empty documents until memory runs out).
    CHECK(problems("a: 1\n]\n") ==
          std::vector<std::string>{"d.yaml:2:1: error: YAML syntax error: illegal flow end"});
    CHECK(problems(",p:z|\n  MO R1, 1[ EXIT\n") ==
          std::vector<std::string>{"d.yaml:1:1: error: YAML syntax error: unexpected ','"});
    CHECK(problems("- \n,- 'b\n, c'\n") ==
          std::vector<std::string>{"d.yaml:2:1: error: YAML syntax error: unexpected ','"});
}

TEST_CASE("text that is not UTF-8 is a located error, not a hang in yaml-cpp")
{
    const std::vector<std::string> at_1_2{
        "d.yaml:1:2: error: YAML text must be UTF-8 (a byte here is not)"};
    CHECK(problems(",\xcbp") == at_1_2); // the first fuzzing input (yaml-cpp never returned)
    CHECK(problems("a: \xc3\xa9\nb: \xe2\x82\xac \xf0\x9f\x98\x80\n")
              .empty());                                 // e acute, euro, emoji
    CHECK(problems("a\xc0\xaf: 1\n") == at_1_2);         // overlong '/'
    CHECK(problems("a\xed\xa0\x80: 1\n") == at_1_2);     // a surrogate
    CHECK(problems("a\xf4\x90\x80\x80: 1\n") == at_1_2); // past U+10FFFF
    CHECK(problems("a: 1\nb: \xe2\x82") ==
          std::vector<std::string>{
              "d.yaml:2:4: error: YAML text must be UTF-8 (a byte here is not)"});
}

TEST_CASE("nesting is limited to max_nesting levels, aliases are followed once")
{
    // The top mapping is level 1, so 63 brackets reach level 64.
    CHECK(problems("a: " + std::string(63, '[') + std::string(63, ']') + "\n").empty());
    CHECK(problems("a: " + std::string(64, '[') + std::string(64, ']') + "\n") ==
          std::vector<std::string>{"d.yaml:1:67: error: nesting deeper than 64 levels"});
    // Deeper than yaml-cpp's own guard: its exception becomes the same message.
    const auto deep = problems("a: " + std::string(3000, '[') + std::string(3000, ']') + "\n");
    REQUIRE(deep.size() == 1);
    CHECK(deep[0].find(": error: nesting deeper than 64 levels") != std::string::npos);
    CHECK(problems("a: &x [1, *x]\n") ==
          std::vector<std::string>{
              "d.yaml:1:4: error: an alias inside the node its anchor names (a cycle)"});
    // A node named by many aliases is checked once: nesting through 16 levels of aliases.
    std::string text = "l0: &l0 [1, 2]\n";
    for (int i = 1; i <= 16; ++i)
        text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [*l" +
                std::to_string(i - 1) + ", *l" + std::to_string(i - 1) + "]\n";
    CHECK(problems(text).empty());
}

namespace {
/// n levels of lists of 2 aliases to the level before: 2^(n+2) - 1 nodes under the last one.
std::string doubling(int n)
{
    std::string text = "l0: &l0 [1, 2]\n";
    for (int i = 1; i <= n; ++i)
        text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [*l" +
                std::to_string(i - 1) + ", *l" + std::to_string(i - 1) + "]\n";
    return text;
}
} // namespace

TEST_CASE("nodes reached through aliases are limited, nodes written out are not")
{
    // Level i's two aliases reach 2 x (2^(i+1) - 1) nodes: 2^(n+3) - 8 - 2n in all after n
    // levels, 524248 after 16 and 1048534 after 17, past max_alias_nodes at level 17's second
    // alias (line 18, column 18).
    REQUIRE(max_alias_nodes == 1000000);
    CHECK(problems(doubling(16)).empty());
    const std::vector<std::string> bomb{
        "d.yaml:18:18: error: aliases reach more than 1000000 nodes (the limit of nodes reached "
        "through aliases; write the values out)"};
    CHECK(problems(doubling(17)) == bomb);
    // "Billion laughs": 2^41 nodes from 41 lines, refused at once, at the same alias.
    const auto start = std::chrono::steady_clock::now();
    CHECK(problems(doubling(40)) == bomb);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
    // Aliases inside an anchor count what they reach each time the anchor is named: lists of 9
    // aliases to the list before. Lists a..f reach 672588 nodes, g's first alias 597871 more.
    std::string laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        const std::string prev(1, static_cast<char>(c - 1));
        laughs += std::string(1, c) + ": &" + c + " [";
        for (int k = 0; k < 9; ++k)
            laughs += (k ? ", *" : "*") + prev;
        laughs += "]\n";
    }
    CHECK(problems(laughs) == std::vector<std::string>{
                                  "d.yaml:7:8: error: aliases reach more than 1000000 nodes (the "
                                  "limit of nodes reached through aliases; write the values out)"});
    // 100,000 values written out, and an anchor named often (each alias reaches 3 nodes).
    std::string big = "values: [";
    for (int i = 0; i < 100000; ++i)
        big += (i ? ", " : "") + std::to_string(i);
    big += "]\nshared: &s {a: 1}\nuses:\n";
    for (int i = 0; i < 1000; ++i)
        big += "  - *s\n";
    CHECK(problems(big).empty());
}

TEST_CASE("input files are read with a size cap, folders and missing files are errors")
{
    errors errs;
    CHECK_FALSE(read_input_file("/nonexistent/x.yaml", "workload file", errs));
    CHECK_FALSE(read_input_file("/tmp", "configuration file", errs));
    CHECK_FALSE(read_input_file("/dev/zero", "workload file", errs));
    CHECK(errs.messages() ==
          std::vector<std::string>{
              "/nonexistent/x.yaml: error: cannot open workload file",
              "/tmp: error: is a directory, not a configuration file",
              "/dev/zero: error: the workload file is larger than 64 MiB (the limit of an input "
              "file)"});
    const auto file = std::filesystem::temp_directory_path() /
                      ("vgpu_yaml_input_" + std::to_string(::getpid()) + ".yaml");
    std::ofstream(file) << "a: 1\n";
    errors ok;
    CHECK(read_input_file(file.string(), "workload file", ok) == std::string("a: 1\n"));
    CHECK(ok.empty());
    std::filesystem::remove(file);
}

TEST_CASE("scalars convert by one set of number rules")
{
    CHECK(to_uint("0x10").value == 16u);
    CHECK(to_uint("010").problem == "wrong type (expected an unsigned integer, got '010')");
    CHECK(to_uint("-1").problem == "wrong type (expected an unsigned integer, got '-1')");
    CHECK(to_uint("18446744073709551616").problem ==
          "value out of range (expected 0..18446744073709551615, got 18446744073709551616)");
    CHECK(to_uint("18446744073709551616").out_of_range);
    CHECK(to_uint("5", 1, 4).problem == "value out of range (expected 1..4, got 5)");
    CHECK(to_int("-9223372036854775809").problem ==
          "value out of range (expected -9223372036854775808..9223372036854775807, got "
          "-9223372036854775809)");
    CHECK(to_number("2.5").value == 2.5);
    CHECK(to_number("0x10").value == 16.0);
    for (const char* bad : {"0x1p4", "0X1.8P3", "inf", "-nan", "1e", "1.5.2", "00.5", ""})
        CHECK(to_number(bad).problem ==
              std::string("wrong type (expected a number, got '") + bad + "')");
    CHECK(to_choice("fastt", {"fast", "accurate"}).problem ==
          "invalid choice (expected one of fast|accurate, got 'fastt'; did you mean 'fast'?)");
}

TEST_CASE("mappings: duplicates and unknown keys in file order, with suggestions")
{
    errors errs;
    yaml_document doc("modles: 1\nmodules: 2\nmodules: 3\nzzz: 4\n", "d.yaml", errs);
    REQUIRE(doc.ok());
    yaml_input in(doc, errs);
    const fields f = in.open(doc.root(), "top", {"modules", "mode"});
    CHECK(f.get("modules")->value.Scalar() == "2"); // the first one counts
    CHECK(f.get("zzz") == nullptr);                 // only known keys are kept
    CHECK(errs.messages() ==
          std::vector<std::string>{
              "d.yaml:1:1: error: top.modles: unknown key (did you mean 'modules'?)",
              "d.yaml:3:1: error: top.modules: duplicate key",
              "d.yaml:4:1: error: top.zzz: unknown key"});
}

TEST_CASE("each character of a scalar is traced to its place in the file")
{
    // A literal block: line k of the value is a line of the file.
    const std::string lit = "p: |\n  MOV R1, 1\n    EXIT\n";
    const auto l = places(lit, "p");
    REQUIRE(l.size() == std::string("MOV R1, 1\n  EXIT\n").size());
    CHECK(l[0] == find_in(lit, "MOV"));
    CHECK(l[10] == std::pair<int, int>{3, 3}); // the two spaces kept from the indentation
    CHECK(l[12] == find_in(lit, "EXIT"));
    // An indentation indicator: the text keeps the spaces beyond it.
    const std::string ind = "p: |2\n     MOV\n   EXIT\n";
    const auto in = places(ind, "p");
    REQUIRE(in.size() == std::string("   MOV\n EXIT\n").size());
    CHECK(in[0] == std::pair<int, int>{2, 3});
    CHECK(in[3] == find_in(ind, "MOV"));
    CHECK(in[8] == find_in(ind, "EXIT"));
    // A one-line double-quoted scalar with \n escapes: every line is on the file's line 1.
    const std::string dq = "p: \"MOV R1, 1\\nFADD R1, R2\\tX\\nEXIT\"\n";
    const auto d = places(dq, "p");
    REQUIRE(d.size() == std::string("MOV R1, 1\nFADD R1, R2\tX\nEXIT").size());
    CHECK(d[0] == find_in(dq, "MOV"));
    CHECK(d[9] == find_in(dq, "\\n")); // the newline comes from the escape
    CHECK(d[10] == find_in(dq, "FADD"));
    CHECK(d[22] == find_in(dq, "X"));
    CHECK(d[24] == find_in(dq, "EXIT"));
    // Folded lines of a quoted scalar: one break is a space, two are a newline.
    const std::string fold = "p: \"MOV R1, 1\n\n    FADD R1\n    EXIT\"\n";
    const auto f = places(fold, "p");
    REQUIRE(f.size() == std::string("MOV R1, 1\nFADD R1 EXIT").size());
    CHECK(f[10] == find_in(fold, "FADD"));
    CHECK(f[18] == find_in(fold, "EXIT"));
    // Single quotes: '' is one quote.
    const std::string sq = "p: 'it''s here'\n";
    const auto s = places(sq, "p");
    REQUIRE(s.size() == std::string("it's here").size());
    CHECK(s[5] == find_in(sq, "here"));
    // A plain scalar over two lines.
    const std::string plain = "p: MOV\n  EXIT\nq: 1\n";
    const auto pl = places(plain, "p");
    REQUIRE(pl.size() == std::string("MOV EXIT").size());
    CHECK(pl[4] == find_in(plain, "EXIT"));
}
