// Unit tests of vgpu::sm::stall_classifier: which reason a cycle without issue is charged to.
// See models/sm/README.md.
#include "models/sm/core/stall_classifier.h"

#include <catch2/catch.hpp>

#include <initializer_list>

using namespace vgpu::sm;

namespace {

wait_reason classify(std::initializer_list<wait_reason> waits)
{
    stall_classifier c;
    for (auto w : waits)
        c.add(w);
    return c.classify();
}

} // namespace

TEST_CASE("stall_classifier charges the reason of most waiting warps")
{
    using r = wait_reason;
    REQUIRE(classify({r::scoreboard}) == r::scoreboard);
    REQUIRE(classify({r::barrier}) == r::barrier);
    REQUIRE(classify({r::memory}) == r::memory);
    REQUIRE(classify({r::scoreboard, r::scoreboard, r::memory}) == r::scoreboard);
    REQUIRE(classify({r::barrier, r::barrier, r::scoreboard, r::memory}) == r::barrier);
    REQUIRE(classify({r::memory, r::memory, r::barrier, r::scoreboard}) == r::memory);
}

TEST_CASE("stall_classifier breaks ties memory, then barrier, then scoreboard")
{
    using r = wait_reason;
    REQUIRE(classify({r::memory, r::barrier, r::scoreboard}) == r::memory);
    REQUIRE(classify({r::memory, r::scoreboard}) == r::memory);
    REQUIRE(classify({r::barrier, r::memory}) == r::memory);
    REQUIRE(classify({r::barrier, r::scoreboard}) == r::barrier);
    REQUIRE(classify({r::barrier, r::barrier, r::scoreboard, r::scoreboard, r::memory}) ==
            r::barrier);
    // Nothing waiting (only requests in flight): memory.
    REQUIRE(classify({}) == r::memory);
}

TEST_CASE("stall_classifier counts per reason and starts afresh after clear")
{
    stall_classifier c;
    c.add(wait_reason::scoreboard);
    c.add(wait_reason::scoreboard);
    c.add(wait_reason::barrier);
    REQUIRE(c.count(wait_reason::scoreboard) == 2);
    REQUIRE(c.count(wait_reason::barrier) == 1);
    REQUIRE(c.count(wait_reason::memory) == 0);
    REQUIRE(c.classify() == wait_reason::scoreboard);
    c.clear();
    REQUIRE(c.count(wait_reason::scoreboard) == 0);
    c.add(wait_reason::barrier);
    REQUIRE(c.classify() == wait_reason::barrier);
}

TEST_CASE("stall_classifier counts up to its maximum per reason without touching the others")
{
    stall_classifier c;
    for (unsigned i = 0; i < stall_classifier::max_count; ++i)
        c.add(wait_reason::barrier);
    c.add(wait_reason::scoreboard);
    REQUIRE(c.count(wait_reason::barrier) == stall_classifier::max_count);
    REQUIRE(c.count(wait_reason::scoreboard) == 1);
    REQUIRE(c.count(wait_reason::memory) == 0);
    REQUIRE(c.count(wait_reason::none) == 0);
    REQUIRE(c.classify() == wait_reason::barrier);
}

TEST_CASE("stall_classifier takes a warp out of the reason it was counted with")
{
    stall_classifier c;
    c.add(wait_reason::memory);
    c.add(wait_reason::memory);
    c.add(wait_reason::scoreboard);
    c.remove(wait_reason::memory);
    REQUIRE(c.count(wait_reason::memory) == 1);
    REQUIRE(c.count(wait_reason::scoreboard) == 1);
    REQUIRE(c.classify() == wait_reason::memory); // a tie goes to memory
    c.remove(wait_reason::memory);
    REQUIRE(c.count(wait_reason::memory) == 0);
    REQUIRE(c.classify() == wait_reason::scoreboard);
}
