// test/support/coverage.h: cover points, crosses, undeclared bins refused, coverage.json.
#include "test/support/coverage.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using vgpu::test::coverage;

TEST_CASE("coverage: bins and crosses count their hits, an undeclared bin is refused")
{
    coverage cov("demo", 7);
    cov.point("reason", {"rotation", "priority"});
    cov.point("depth", {"0", "1+"});
    cov.cross("reason", "depth");
    cov.hit("reason", "priority");
    cov.hit("reason", "priority", 2);
    cov.hit_cross("reason", "priority", "depth", "1+");
    CHECK(cov.hits("reason", "priority") == 3);
    CHECK(cov.hits("reason", "rotation") == 0);
    CHECK(cov.hits("reason x depth", "priority x 1+") == 1);
    CHECK_THROWS_WITH(cov.hit("reason", "age"), Catch::Contains("no bin 'age'"));
    CHECK_THROWS_WITH(cov.hit("nope", "x"), Catch::Contains("no cover point 'nope'"));
    const auto j = cov.to_json();
    CHECK(j["block"] == "demo");
    CHECK(j["seed"] == 7);
    // bins in declaration order, zeros included (they are the holes)
    CHECK(j["points"]["reason"] ==
          nlohmann::json::parse(R"([{"bin":"rotation","hits":0},{"bin":"priority","hits":3}])"));
    CHECK(j["points"]["reason x depth"].size() == 4);
}

TEST_CASE("coverage: write() puts <block>.<seed>.json in VGPU_COVERAGE_DIR, or nothing")
{
    const auto dir = std::filesystem::temp_directory_path() / "vgpu-coverage-test" / "sub";
    std::filesystem::remove_all(dir.parent_path());
    coverage cov("demo", 3);
    cov.point("p", {"a"});
    cov.hit("p", "a");
    ::unsetenv("VGPU_COVERAGE_DIR");
    CHECK(cov.write().empty());
    ::setenv("VGPU_COVERAGE_DIR", dir.c_str(), 1);
    const std::string path = cov.write();
    ::unsetenv("VGPU_COVERAGE_DIR");
    REQUIRE(path == (dir / "demo.3.json").string());
    std::ifstream in(path);
    CHECK(nlohmann::json::parse(in) == cov.to_json());
    std::filesystem::remove_all(dir.parent_path());
}
