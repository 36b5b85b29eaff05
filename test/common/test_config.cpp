// Unit tests of the configuration framework. See models/common/config.h.
#include "models/common/config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace vgpu;
using namespace vgpu::config;

namespace {
enum class color { red, green };
} // namespace

template <> struct vgpu::enum_names<color> {
    static constexpr std::pair<std::string_view, color> table[] = {{"red", color::red},
                                                                   {"green", color::green}};
};

namespace {

struct inner {
    unsigned ways = 4;
    duration latency{2000};
    void declare(visitor& v)
    {
        v.value("ways", ways, spec("ways").range(1, 16).pow2());
        v.value("latency", latency, spec("latency").range(0, 100));
    }
};

struct root {
    std::uint64_t count = 1;
    double ratio = 0.5;
    bool on = false;
    byte_size size{1024};
    color c = color::red;
    std::string name = "x";
    inner cache;
    void declare(visitor& v)
    {
        v.enter("top", "the top section");
        v.value("count", count, spec("count").range(1, 100));
        v.value("ratio", ratio, spec("ratio").range(0, 1));
        v.value("on", on, spec("flag"));
        v.value("size", size, spec("size"));
        v.choice("color", c, spec("colour"));
        v.value("name", name, spec("name"));
        v.section("cache", cache, "a cache");
        v.leave();
    }
    void validate(checker& chk) const
    {
        if (count > 50 && on)
            chk.error("top.count", "must be <= 50 when top.on is true");
    }
};

std::vector<std::string> load(std::initializer_list<std::string> texts,
                              std::initializer_list<std::string> overrides, root& r)
{
    loader l;
    int i = 0;
    for (const auto& t : texts)
        l.add_text(t, "f" + std::to_string(i++) + ".yaml");
    for (const auto& o : overrides)
        l.add_override(o);
    l.apply(r);
    return l.errs().messages();
}
} // namespace

TEST_CASE("values are read from YAML, later layers win, overrides apply last")
{
    root r;
    auto errs = load({"top: {count: 7, ratio: 0.25, on: true, size: 2 KiB, color: green}",
                      "top:\n  count: 9\n  cache:\n    ways: 8\n    latency: 3 ns\n"},
                     {"top.name=hello", "top.cache.ways=2"}, r);
    REQUIRE(errs.empty());
    CHECK(r.count == 9);
    CHECK(r.ratio == 0.25);
    CHECK(r.on);
    CHECK(r.size.bytes == 2048);
    CHECK(r.c == color::green);
    CHECK(r.name == "hello");
    CHECK(r.cache.ways == 2);
    CHECK(r.cache.latency.ps == 3000);
}

TEST_CASE("errors carry file, line, column, key path and are all collected")
{
    root r;
    auto errs =
        load({"top:\n  count: 0\n  colour: red\n  ratio: high\n  cache:\n    ways: 3\n"}, {}, r);
    REQUIRE(errs.size() == 4);
    CHECK(errs[0] == "f0.yaml:2:10: error: top.count: value out of range (expected 1..100, got 0)");
    CHECK(errs[1] == "f0.yaml:4:10: error: top.ratio: wrong type (expected a number, got 'high')");
    CHECK(errs[2] == "f0.yaml:6:11: error: top.cache.ways: value out of range (expected 1..16, "
                     "power of two, got 3)");
    CHECK(errs[3] == "f0.yaml:3:3: error: top.colour: unknown key (did you mean 'color'?)");
}

TEST_CASE("cross-field validation points at the layer that set the key")
{
    root r;
    auto errs = load({"top: {on: true}", "top:\n  count: 60\n"}, {}, r);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0] == "f1.yaml:2:10: error: top.count: must be <= 50 when top.on is true");
}

namespace {
/// Two keys that must agree, checked with checker::conflict.
struct pair_cfg {
    unsigned a = 1, b = 1;
    void declare(visitor& v)
    {
        v.enter("p", "two keys that must be equal");
        v.value("a", a, spec("a"));
        v.value("b", b, spec("b"));
        v.leave();
    }
    void validate(checker& c) const
    {
        if (a != b)
            c.conflict({{"p.a", std::to_string(a)}, {"p.b", std::to_string(b)}}, "must be equal",
                       "set p.a and p.b to the same value");
    }
};

std::vector<std::string> conflict_errors(std::initializer_list<std::string> texts,
                                         std::initializer_list<std::string> overrides)
{
    pair_cfg cfg;
    loader l;
    l.add_defaults("p: {a: 2, b: 2}\n", "default.yaml");
    int i = 0;
    for (const auto& t : texts)
        l.add_text(t, "f" + std::to_string(i++) + ".yaml");
    for (const auto& o : overrides)
        l.add_override(o);
    l.apply(cfg);
    return l.errs().messages();
}
} // namespace

TEST_CASE("a conflict of keys names the one a later layer set, and where the others come from")
{
    const std::string fix = "; set p.a and p.b to the same value";
    // The user set b: the default layer's a is not the mistake, and is called a default.
    CHECK(conflict_errors({}, {"p.b=4"}) ==
          std::vector<std::string>{"-s p.b=4: error: p.b: must be equal (p.b is 4; p.a is 2, the "
                                   "default)" +
                                   fix});
    CHECK(conflict_errors({}, {"p.a=4"}) ==
          std::vector<std::string>{"-s p.a=4: error: p.a: must be equal (p.a is 4; p.b is 2, the "
                                   "default)" +
                                   fix});
    // Both set by users: the later layer's key; the other is named with its place.
    CHECK(conflict_errors({"p:\n  b: 3\n"}, {"p.a=4"}) ==
          std::vector<std::string>{"-s p.a=4: error: p.a: must be equal (p.a is 4; p.b is 3, set "
                                   "at f0.yaml:2:6)" +
                                   fix});
    CHECK(conflict_errors({"p:\n  a: 3\n"}, {"p.b=4"}) ==
          std::vector<std::string>{"-s p.b=4: error: p.b: must be equal (p.b is 4; p.a is 3, set "
                                   "at f0.yaml:2:6)" +
                                   fix});
    // Both in one layer: the first key, at its line.
    CHECK(conflict_errors({"p:\n  a: 3\n  b: 4\n"}, {}) ==
          std::vector<std::string>{"f0.yaml:2:6: error: p.a: must be equal (p.a is 3; p.b is 4, "
                                   "set at f0.yaml:3:6)" +
                                   fix});
    // Neither set: the first key, from the declarations' defaults.
    pair_cfg odd;
    odd.b = 2;
    loader none;
    none.apply(odd);
    CHECK(none.errs().messages() ==
          std::vector<std::string>{"(default configuration): error: p.a: must be equal (p.a is "
                                   "1; p.b is 2, the default)" +
                                   fix});
}

TEST_CASE("an override's key path is limited to max_nesting names")
{
    root r;
    std::string deep = "top";
    for (int i = 0; i < 64; ++i)
        deep += ".x";
    auto errs = load({}, {deep + "=1"}, r);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0] == "-s " + deep + "=1: error: malformed key path (more than 64 names)");
    errs = load({}, {"top.count=18446744073709551616", "top.ratio=0x1p-1"}, r);
    CHECK(errs == std::vector<std::string>{
                      "-s top.count=18446744073709551616: error: top.count: value out of range "
                      "(expected 1..100, got 18446744073709551616)",
                      "-s top.ratio=0x1p-1: error: top.ratio: wrong type (expected a number, got "
                      "'0x1p-1')"});
}

TEST_CASE("overrides are validated like files and name the override")
{
    root r;
    auto errs = load({}, {"top.color=blue", "top.nope=1", "=3", "top..x=1"}, r);
    REQUIRE(errs.size() == 4);
    CHECK(errs[0] == "-s =3: error: malformed override (expected key.path=value)");
    CHECK(errs[1] ==
          "-s top..x=1: error: top..x: malformed key path (expected names joined by '.')");
    CHECK(errs[2] == "-s top.color=blue: error: top.color: invalid choice (expected one of "
                     "red|green, got 'blue')");
    CHECK(errs[3] == "-s top.nope=1: error: top.nope: unknown key");
}

TEST_CASE("syntax errors, duplicates and wrong shapes are reported")
{
    root r;
    auto errs = load(
        {"top: [1, 2", "top:\n  count: 1\n  count: 2\n", "top: 5", "top:\n  cache: 3\n"}, {}, r);
    REQUIRE(errs.size() == 4);
    CHECK(errs[0].rfind("f0.yaml:1:", 0) == 0);
    CHECK(errs[0].find("YAML syntax error") != std::string::npos);
    CHECK(errs[1] == "f1.yaml:3:3: error: top.count: duplicate key");
    CHECK(errs[2] == "f2.yaml:1:6: error: top: wrong type (expected a section of keys, got '5')");
    CHECK(errs[3] ==
          "f3.yaml:2:10: error: top.cache: wrong type (expected a section of keys, got '3')");
}

TEST_CASE("the lister and the writer see every declared parameter")
{
    root r;
    param_lister l;
    r.declare(l);
    REQUIRE(l.rows.size() == 8);
    CHECK(l.rows[0].path == "top.count");
    CHECK(l.rows[0].range == "1..100");
    CHECK(l.rows[4].range == "red \\| green");
    CHECK(l.rows[7].path == "top.cache.latency");
    CHECK(l.rows[7].default_value == "2 ns");
    std::string yaml = to_yaml([&](visitor& v) { r.declare(v); });
    root back;
    loader ld;
    ld.add_text(yaml, "dump");
    REQUIRE(ld.apply(back));
    CHECK(to_yaml([&](visitor& v) { back.declare(v); }) == yaml);
}

TEST_CASE("suggestions pick the closest candidate only when it is close")
{
    CHECK(suggest("modles", {"modules", "mode"}) == "modules");
    CHECK(suggest("zzzzzz", {"modules", "mode"}).empty());
}

TEST_CASE("enum names: one table gives both directions")
{
    CHECK(name_of(color::green) == "green");
    CHECK(enum_from_name<color>("red") == color::red);
    CHECK_FALSE(enum_from_name<color>("blue").has_value());
}

namespace {
struct with_map {
    string_map vars;
    std::string file;
    void declare(visitor& v)
    {
        v.enter("w", "a section with a map and a file name");
        v.value("vars", vars, spec("names to values"));
        v.value("file", file, spec("a file").file());
        v.leave();
    }
    void validate(checker&) const {}
};
} // namespace

TEST_CASE("a map parameter merges per name across layers and records where each was set")
{
    with_map m;
    loader l;
    l.add_text("w:\n  vars: {a: 1, b: x}\n", "f0.yaml");
    l.add_text("w:\n  vars:\n    b: 2\n    c: 3.5\n", "f1.yaml");
    l.add_override("w.vars.a=7", "-D a=7");
    REQUIRE(l.apply(m));
    CHECK(m.vars == string_map{{"a", "7"}, {"b", "2"}, {"c", "3.5"}});
    CHECK(l.sources().at("w.vars.a").str() == "-D a=7");
    CHECK(l.sources().at("w.vars.b").str() == "f1.yaml:3:8");
    CHECK(l.sources().at("w.vars.c").str() == "f1.yaml:4:8");
    const std::string yaml = to_yaml([&](visitor& v) { m.declare(v); });
    CHECK(yaml == "w:\n  vars:\n    a: 7\n    b: 2\n    c: 3.5\n  file: \"\"\n");
    param_lister pl;
    m.declare(pl);
    CHECK(pl.rows[0].type == "map");
    CHECK(pl.rows[0].default_value == "{a: 7, b: 2, c: 3.5}");
    with_map empty;
    CHECK(to_yaml([&](visitor& v) { empty.declare(v); }) == "w:\n  vars: {}\n  file: \"\"\n");
    loader back;
    back.add_text(to_yaml([&](visitor& v) { empty.declare(v); }), "dump");
    REQUIRE(back.apply(empty));
    CHECK(empty.vars.empty());
}

TEST_CASE("a map parameter rejects values that are not scalars, and duplicates")
{
    with_map m;
    loader l;
    l.add_text("w:\n  vars: {a: [1], b: 2, b: 3, c: }\n", "f.yaml");
    l.add_text("w:\n  vars: 5\n", "g.yaml");
    CHECK_FALSE(l.apply(m));
    CHECK(l.errs().messages() ==
          std::vector<std::string>{
              "f.yaml:2:13: error: w.vars.a: wrong type (expected a value, got a list)",
              "f.yaml:2:24: error: w.vars.b: duplicate key",
              "f.yaml:2:30: error: w.vars.c: wrong type (expected a value, got nothing)",
              "g.yaml:2:9: error: w.vars: wrong type (expected a mapping of names to values, got "
              "'5')"});
}

TEST_CASE("a file parameter from a config file is relative to that file's folder")
{
    const auto dir =
        std::filesystem::temp_directory_path() / ("vgpu_config_file_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "sub");
    std::ofstream(dir / "sub" / "c.yaml") << "w:\n  file: ../data/w.yaml\n";
    std::ofstream(dir / "abs.yaml") << "w:\n  file: /abs/w.yaml\n";
    with_map m;
    loader l;
    l.add_file((dir / "sub" / "c.yaml").string());
    REQUIRE(l.apply(m));
    CHECK(m.file == (dir / "data" / "w.yaml").string());
    loader a;
    a.add_file((dir / "abs.yaml").string());
    REQUIRE(a.apply(m));
    CHECK(m.file == "/abs/w.yaml");
    // Text layers and overrides have no folder: the name stays as written.
    loader t;
    t.add_text("w:\n  file: x/w.yaml\n", "text");
    t.add_override("w.file=../y.yaml");
    REQUIRE(t.apply(m));
    CHECK(m.file == "../y.yaml");
    std::filesystem::remove_all(dir);
}

TEST_CASE("a check after loading tells the user's settings from the defaults and warns at them")
{
    pair_cfg cfg;
    loader l;
    l.add_defaults("p: {a: 2, b: 2}\n", "default.yaml");
    l.add_text("p:\n  b: 2\n", "user.yaml"); // its default value: still the user's setting
    REQUIRE(l.apply(cfg));
    std::vector<std::string> users;
    CHECK(l.check([&](checker& c) {
        for (const auto& [path, where] : c.sources())
            if (c.set_by_user(path)) {
                users.push_back(path);
                c.warn(path, "has no effect");
            }
    }));
    CHECK(users == std::vector<std::string>{"p.b"});
    CHECK(l.warnings() == std::vector<std::string>{"user.yaml:2:6: warning: p.b: has no effect"});
    CHECK(l.errs().messages().empty());
    // An error of a check is an error of the loader.
    CHECK_FALSE(l.check([](checker& c) { c.error("p.a", "wrong"); }));
    CHECK(l.errs().size() == 1);
}
