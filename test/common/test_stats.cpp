// Unit tests of the statistics registry. See models/common/stats.h.
#include "models/common/stats.h"
#include "test/seed.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <random>

using namespace vgpu::stats;

TEST_CASE("stats are named by group path, sorted, and derived values computed at dump time")
{
    group b("top.b");
    counter hits(b, "hits", "count", "hits");
    counter misses(b, "misses", "count", "misses");
    formula rate(b, "hit_rate", "ratio", "hits / accesses",
                 [&] { return double(hits.value()) / double(hits.value() + misses.value()); });
    group a("top.a");
    average lat(a, "latency", "ns", "latency");
    histogram h(a, "sizes", "bytes", "sizes", 10, 3);
    hits += 3;
    ++misses;
    lat.sample(10);
    lat.sample(20);
    for (double v : {0.0, 5.0, 15.0, 25.0, 1000.0})
        h.sample(v);

    auto entries = collect_all();
    auto j = to_json(entries);
    CHECK(j["top.b.hits"] == 3);
    CHECK(j["top.b.hit_rate"] == Approx(0.75));
    CHECK(j["top.a.latency"] == Approx(15.0));
    CHECK(j["top.a.latency.samples"] == 2);
    CHECK(j["top.a.latency.max"] == Approx(20.0));
    CHECK(j["top.a.sizes"] == nlohmann::json::array({2, 1, 2}));
    for (std::size_t i = 1; i < entries.size(); ++i)
        CHECK(entries[i - 1].name < entries[i].name);
    CHECK(to_text(entries).find("top.b.hits") != std::string::npos);
}

TEST_CASE("the numbers snapshot holds exactly the numeric entries of the dump")
{
    group g("top.g");
    counter c(g, "count", "count", "a count");
    average lat(g, "latency", "ns", "latency");
    histogram h(g, "sizes", "bytes", "sizes", 10, 3);
    formula f(g, "ratio", "ratio", "c / 4", [&] { return double(c.value()) / 4.0; });
    formula nan(g, "nan", "ratio", "0/0", [] { return 0.0 / 0.0; });
    c += 7;
    lat.sample(3);
    lat.sample(8);
    for (double v : {1.0, 12.0, 99.0})
        h.sample(v);

    std::vector<std::pair<std::string, double>> expected, got;
    for (const entry& e : collect_all())
        if (e.value.is_number())
            expected.emplace_back(e.name, e.value.get<double>());
    for (const number& n : collect_numbers())
        got.emplace_back(n.name, n.value);
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    CHECK(got == expected);
    CHECK(got.size() == 8); // count, 3 of latency, 2 of sizes (not its buckets), ratio, nan
}

TEST_CASE("the values snapshot is the numbers snapshot's values, in its order")
{
    group g("top.g");
    counter c(g, "count", "count", "a count");
    average lat(g, "latency", "ns", "latency");
    histogram h(g, "sizes", "bytes", "sizes", 10, 3);
    formula f(g, "ratio", "ratio", "c / 4", [&] { return double(c.value()) / 4.0; });
    group g2("top.h");
    formula nan(g2, "nan", "ratio", "0/0", [] { return 0.0 / 0.0; });
    const std::uint64_t layout = layout_version();
    c += 7;
    lat.sample(3);
    lat.sample(8);
    h.sample(12);
    std::vector<double> expected;
    for (const number& n : collect_numbers())
        expected.push_back(n.value);
    CHECK(collect_values() == expected);
    CHECK(expected == std::vector<double>{7, 2, 8, 5.5, 1, 12, 1.75, 0});
    // Values change, the layout does not; a new group or statistic changes it, and so does a
    // group that is gone.
    CHECK(layout_version() == layout);
    std::uint64_t before = layout;
    {
        group more("top.more");
        CHECK(layout_version() != before);
        before = layout_version();
        counter one(more, "one", "count", "one more");
        CHECK(layout_version() != before);
        CHECK(collect_values().size() == expected.size() + 1);
        before = layout_version();
    }
    CHECK(layout_version() != before);
    CHECK(collect_values() == expected);
}

TEST_CASE("a destroyed group leaves the registry")
{
    {
        group g("gone");
        counter c(g, "c", "count", "c");
        CHECK(collect_all().size() == 1);
    }
    CHECK(collect_all().empty());
}

TEST_CASE("a formula that divides by zero dumps 0, not NaN")
{
    group g("g");
    formula f(g, "ratio", "ratio", "0/0", [] { return 0.0 / 0.0; });
    CHECK(to_json(collect_all())["g.ratio"] == 0.0);
}

TEST_CASE("natural order compares runs of digits as numbers")
{
    const std::vector<std::string> expected = {
        "a.in01",
        "a.in1",
        "a.in2",
        "a.in10",
        "gpu.m0.c0.sm1.instructions",
        "gpu.m0.c0.sm1.w2.instructions",
        "gpu.m0.c0.sm1.w10.instructions",
        "gpu.m0.c0.sm1_l1.hits",
        "gpu.m0.c0.sm9.instructions",
        "gpu.m0.c0.sm10.instructions",
        "gpu.m0.c1.sm2.instructions",
        "gpu.m10.c0.sm0.instructions",
        "x",
        "x9y",
        "x10",
    };
    std::vector<std::string> names(expected.rbegin(), expected.rend());
    std::swap(names[2], names[9]);
    std::sort(names.begin(), names.end(), natural_less);
    CHECK(names == expected);
    for (const auto& n : expected)
        CHECK_FALSE(natural_less(n, n));
    CHECK(natural_less("w2", "w10"));
    CHECK_FALSE(natural_less("w10", "w2"));
    CHECK(natural_less("sm9", "sm10"));
    CHECK(natural_less("in2.x", "in10"));
    CHECK(natural_less("a1", "a1b"));
    CHECK_FALSE(natural_less("a1b", "a1"));
}

TEST_CASE("sorting by natural_key and name is natural order, on random names")
{
    const auto seed = static_cast<std::uint32_t>(vgpu::test::seed_or(20250101));
    CAPTURE(seed);
    std::mt19937 rng(seed);
    // Digits (zeros often, for leading zeros), characters below and above the digits, and
    // bytes that compare differently signed and unsigned.
    const std::string alphabet =
        std::string("00000123456789.._/ az~") + '\0' + '\x7f' + '\xc3' + '\xff';
    const auto random_name = [&] {
        std::string s;
        for (unsigned n = rng() % 12; n > 0; --n)
            s += alphabet[rng() % alphabet.size()];
        return s;
    };
    const auto keyed_less = [](const std::string& a, const std::string& b) {
        std::string ka, kb;
        REQUIRE(natural_key(a, ka));
        REQUIRE(natural_key(b, kb));
        return ka != kb ? ka < kb : a < b;
    };
    std::vector<std::string> names = {"",    "0",    "00",   "1",   "01",   "10",
                                      "a",   "a0",   "a00",  "0a",  "a.b",  "9",
                                      "sm9", "sm09", "sm10", "x1y", "x01y", "x1z"};
    for (int i = 0; i < 3000; ++i)
        names.push_back(random_name());
    for (std::size_t i = 0; i < names.size(); ++i)
        for (std::size_t j : {i, (i + 1) % names.size(), std::size_t(rng() % names.size()),
                              std::size_t(rng() % names.size())}) {
            CAPTURE(names[i], names[j]);
            CHECK(keyed_less(names[i], names[j]) == natural_less(names[i], names[j]));
        }
    // A long run of digits sets the key apart, digit by digit.
    std::string ka, kb, kc;
    CHECK(natural_key(std::string(300, '9'), ka));
    CHECK(natural_key("1" + std::string(300, '0'), kb));
    CHECK(ka < kb);
    CHECK_FALSE(natural_key(std::string(70000, '1'), kc));

    // to_text sorts that way (entries of one name keep their order), as natural_less sorts.
    std::vector<entry> entries;
    for (int i = 0; i < 500; ++i) {
        std::string n = random_name();
        n.erase(std::remove_if(n.begin(), n.end(), [](char c) { return c == ' ' || c == '\0'; }),
                n.end());
        entries.push_back({n, i, "count", "d"});
    }
    entries.push_back(entries[7]);
    entries.back().value = -1;
    std::vector<const entry*> expected;
    for (const entry& e : entries)
        expected.push_back(&e);
    std::stable_sort(expected.begin(), expected.end(),
                     [](const entry* a, const entry* b) { return natural_less(a->name, b->name); });
    std::string text;
    for (const entry* e : expected) {
        std::vector<entry> one = {*e};
        text += to_text(one);
    }
    // Single lines are padded to their own name; compare names and values only.
    const auto strip = [](const std::string& t) {
        std::string r;
        std::size_t pos = 0;
        while (pos < t.size()) {
            const std::size_t nl = t.find('\n', pos);
            const std::string line = t.substr(pos, nl - pos);
            const std::size_t sp = line.find(' ');
            const std::size_t v = line.find_first_not_of(' ', sp);
            r += line.substr(0, sp) + "=" + line.substr(v, line.find(' ', v) - v) + "\n";
            pos = nl + 1;
        }
        return r;
    };
    CHECK(strip(to_text(entries)) == strip(text));
}

TEST_CASE("stats.txt values: integers exactly, other numbers to 6 significant digits")
{
    using nlohmann::json;
    CHECK(format_value(json(42)) == "42");
    CHECK(format_value(json(std::uint64_t{18446744073709551615ull})) == "18446744073709551615");
    CHECK(format_value(json(-7)) == "-7");
    CHECK(format_value(json(42.0)) == "42");
    CHECK(format_value(json(6030.000000000001)) == "6030");
    CHECK(format_value(json(0.1 + 0.2)) == "0.3");
    CHECK(format_value(json(100.10000000000001)) == "100.1");
    CHECK(format_value(json(0.75)) == "0.75");
    CHECK(format_value(json(1.0 / 3.0)) == "0.333333");
    CHECK(format_value(json(2.0 / 3.0)) == "0.666667");
    CHECK(format_value(json(-2.5)) == "-2.5");
    CHECK(format_value(json(-0.0)) == "0");
    CHECK(format_value(json(123456.789)) == "123457");
    CHECK(format_value(json(999999.7)) == "1000000");
    CHECK(format_value(json(1234567.891)) == "1234568");
    CHECK(format_value(json(3e15)) == "3000000000000000");
    CHECK(format_value(json(1e20)) == "1e+20");
    CHECK(format_value(json(1e-7)) == "1e-07");
    CHECK(format_value(json(0.000123456789)) == "0.000123457");
    CHECK(format_value(json::array({2, 1, 2})) == "[2,1,2]");
}

TEST_CASE("stats.txt is in natural order with rounded values while the JSON keeps full precision")
{
    group g("g");
    counter w10(g, "w10.n", "count", "c");
    counter w2(g, "w2.n", "count", "c");
    formula f(g, "f", "ns", "d", [] { return 6030.000000000001; });
    w10 += 3;
    ++w2;
    const auto entries = collect_all();
    CHECK(to_text(entries) == "g.f      6030             # ns: d\n"
                              "g.w2.n   1                # count: c\n"
                              "g.w10.n  3                # count: c\n");
    CHECK(to_json(entries)["g.f"].get<double>() == 6030.000000000001);
}

TEST_CASE("units_json maps every statistic to its unit")
{
    group g("g");
    counter c(g, "hits", "count", "hits");
    average lat(g, "latency", "ns", "latency");
    histogram h(g, "sizes", "bytes", "sizes", 10, 2);
    const auto j = units_json(collect_all());
    CHECK(j == nlohmann::json{{"g.hits", "count"},
                              {"g.latency", "ns"},
                              {"g.latency.samples", "count"},
                              {"g.latency.max", "ns"},
                              {"g.sizes", "count"},
                              {"g.sizes.samples", "count"},
                              {"g.sizes.mean", "bytes"}});
}

TEST_CASE("json_member_text writes what dump(2) writes for to_json and units_json")
{
    std::vector<entry> entries = {
        {"b.count", 3, "count", "d"},
        {"a.ratio", 0.1 + 0.2, "ratio", "d"},
        {"a.hist", nlohmann::json::array({1, 2, nlohmann::json::array({3.5, -0.0})}), "bytes", "d"},
        {"a.empty", nlohmann::json::array(), "count", "d"},
        {"c\"quoted\\name\u00e9", 1e-300, "ns", "d"},
        {"b.count", 7, "cycles", "a later entry of one name replaces the earlier"},
        {"a.big", 1.7976931348623157e308, "ns", "d"},
        {"a.int", std::uint64_t{18446744073709551615ull}, "count", "d"},
        {"a.neg", -42, "count", "d"},
        {"a.zero", 0, "u\"q\\", "d"},
        {"a\x01ctl\x7f\n", std::int64_t{-9223372036854775807 - 1}, "\x1f", "d"},
        {"a.plain ~name!", true, "", "d"},
        {"a.null", nullptr, "count", "d"},
        {"a.obj", nlohmann::json{{"k", 1}}, "count", "d"},
        {"a.str", "text", "count", "d"},
        {"a.nan", std::nan(""), "count", "d"},
    };
    // Unsorted (with a duplicate name), then already sorted, as collect_all() leaves them.
    std::vector<entry> sorted = entries;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const entry& a, const entry& b) { return a.name < b.name; });
    for (const auto* list : {&entries, &sorted})
        for (bool units : {false, true}) {
            nlohmann::json doc;
            doc["m"] = units ? units_json(*list) : to_json(*list);
            CHECK("{\n  \"m\": " + json_member_text(*list, units) + "\n}" == doc.dump(2));
        }
    nlohmann::json empty;
    empty["m"] = to_json({});
    CHECK("{\n  \"m\": " + json_member_text({}, false) + "\n}" == empty.dump(2));
}
