// The SM's limit on line requests in flight (sm.max_line_requests). See models/sm/README.md
// ("Line requests in flight").
#include "models/sm/core/line_limit.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <iostream>
#include <random>
#include <vector>

using namespace vgpu::sm;

TEST_CASE("line_limit: no limit sends every request when it is due")
{
    line_limit l(0);
    for (std::uint64_t at : {0u, 0u, 3u, 3u, 10u}) {
        CHECK(*l.take(at) == at);
        l.release(at + 1000);
    }
    CHECK(l.held() == 0);
}

TEST_CASE("line_limit: by hand, two in flight")
{
    line_limit l(2);
    CHECK(*l.take(0) == 0); // in flight: ends 100
    l.release(100);
    CHECK(*l.take(1) == 1); // ends 100, 50
    l.release(50);
    CHECK(*l.take(2) == 50); // full: waits for the first end (50)
    l.release(80);
    CHECK(*l.take(3) == 80); // full (100, 80): waits for 80
    l.release(300);
    CHECK(*l.take(120) == 120); // 100 ended by then: one in flight (300)
    l.release(130);
    CHECK(*l.take(121) == 130);
    l.release(200);
}

TEST_CASE("line_limit: a request that completes where it is sent frees its place at once")
{
    line_limit l(1);
    CHECK(*l.take(5) == 5);
    l.release(5);
    CHECK(*l.take(5) == 5);
    l.release(9);
    CHECK(*l.take(6) == 9);
}

TEST_CASE("line_limit: a request waits while every place is held by one not yet complete")
{
    line_limit l(2);
    CHECK(l.take(0) == std::optional<std::uint64_t>(0));
    CHECK(l.take(1) == std::optional<std::uint64_t>(1));
    CHECK(l.held() == 2);
    CHECK_FALSE(l.take(2).has_value()); // both in flight, completions unknown
    l.release(40);
    CHECK(l.take(2) == std::optional<std::uint64_t>(40));
    l.release(30); // the second completes first; the place taken at 40 is still held
    CHECK(l.take(3) == std::optional<std::uint64_t>(30));
    CHECK_FALSE(l.take(4).has_value());
    CHECK(l.held() == 2);
}

TEST_CASE("line_limit: randomized against the rule, request by request")
{
    // The rule: requests go in order, none before the one before it or before it is due, and
    // a request goes at the first cycle at which fewer than `limit` earlier ones are still in
    // flight (completed at a later cycle).
    const std::uint64_t seed = vgpu::test::seed_or(20261124);
    std::cout << "line_limit random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned limit : {1u, 2u, 3u, 8u, 64u}) {
        line_limit l(limit);
        std::vector<std::uint64_t> sends, ends;
        std::uint64_t due = 0;
        for (unsigned i = 0; i < 2000; ++i) {
            due += rng() % 4;
            std::uint64_t t = std::max(due, sends.empty() ? 0 : sends.back());
            for (;;) {
                unsigned in_flight = 0;
                std::uint64_t first_end = UINT64_MAX;
                for (std::uint64_t e : ends)
                    if (e > t) {
                        ++in_flight;
                        first_end = std::min(first_end, e);
                    }
                if (in_flight < limit)
                    break;
                t = first_end;
            }
            INFO("limit " << limit << ", request " << i);
            const auto at = l.take(due);
            REQUIRE(at.has_value());
            REQUIRE(*at == t);
            const std::uint64_t end = t + (rng() % 3 == 0 ? 0 : 20 + rng() % 400);
            l.release(end);
            sends.push_back(t);
            ends.push_back(end);
            CHECK(l.held() == 0);
        }
    }
}
