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

TEST_CASE("default budget: Linux's default limit after the platform's own threads",
          "[host_resources]")
{
    // (65530 - 1024 base mappings - 2 x 1896 threads - 4096 reserved) / 2: the V100 platform in
    // accurate mode, which has 1,896 threads before its first optional one. Its process then
    // held 3,870 mappings (measured), so its host allows (65530 - 3870 - 4096) / 2 = 28782,
    // more than the budget.
    CHECK(default_budget(1896) == 28309);
    CHECK(default_budget(1896) < threads_available(default_max_maps, 3870));
    CHECK(default_budget(0) == 30205);
    CHECK(default_budget(40000) == 0); // a platform beyond the default limit: no optional ones
}

TEST_CASE("next_grant: the budget first, then the host's limit", "[host_resources]")
{
    CHECK(next_grant(0, 10, 100) == grant::thread);
    CHECK(next_grant(9, 10, 100) == grant::thread);
    CHECK(next_grant(10, 10, 100) == grant::budget_spent); // the same on every host
    CHECK(next_grant(10, 10, 5) == grant::budget_spent);
    CHECK(next_grant(4, 10, 5) == grant::thread);
    CHECK(next_grant(5, 10, 5) == grant::host_spent); // the host runs out within the budget
    CHECK(next_grant(0, 0, 100) == grant::budget_spent);
    CHECK(next_grant(0, 10, 0) == grant::host_spent);
}

TEST_CASE("take_thread: the configured budget, not the host, ends the threads", "[host_resources]")
{
    CHECK(thread_budget() == default_budget(0));
    // This process holds far fewer mappings than any host allows: within the budget every
    // take succeeds, and the one past it is refused without asking the host.
    set_thread_budget(threads_taken() + 100);
    for (int i = 0; i < 100; ++i)
        REQUIRE(take_thread() == grant::thread);
    CHECK(take_thread() == grant::budget_spent);
    CHECK(take_thread() == grant::budget_spent);
    set_thread_budget(threads_taken() + 1); // raised: one more
    CHECK(take_thread() == grant::thread);
    CHECK(take_thread() == grant::budget_spent);
}
