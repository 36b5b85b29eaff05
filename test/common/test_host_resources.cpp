// The budget of optional SystemC threads a host's memory mappings allow.
// See docs/architecture.md ("Host limits").
#include "models/common/host_resources.h"

#include <catch2/catch.hpp>

using namespace vgpu::host_resources;

TEST_CASE("threads available: two mappings each, after those in use and a reserve",
          "[host_resources]")
{
    // Linux's default vm.max_map_count with 1000 mappings in use: (65530 - 1000 - 4096) / 2.
    CHECK(threads_available(65530, 1000) == 30217);
    CHECK(threads_available(65530, 61434) == 0);
    CHECK(threads_available(65530, 61432) == 1);
    CHECK(threads_available(65530, 70000) == 0); // more in use than allowed: none, no wrap
    CHECK(threads_available(0, 0) == 0);
}

TEST_CASE("take_thread: a process far from the host's limit gets threads", "[host_resources]")
{
    // This process holds far fewer mappings than any host allows: the first takes succeed.
    for (int i = 0; i < 100; ++i)
        REQUIRE(take_thread());
}
