// Unit tests of the statistics registry. See models/common/stats.h.
#include "models/common/stats.h"

#include <catch2/catch.hpp>

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
