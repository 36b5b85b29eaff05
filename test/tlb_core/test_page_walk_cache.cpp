// Unit tests of the page-walk cache and the translation context. See models/tlb/core/.
#include "models/tlb/core/context.h"
#include "models/tlb/core/page_walk_cache.h"

#include <catch2/catch.hpp>

using namespace vgpu::tlb;

TEST_CASE("page-walk cache: entries by level and prefix, LRU replacement, shootdown")
{
    page_walk_cache c(2);
    CHECK_FALSE(c.lookup(0, 5));
    c.insert(0, 5, 0x1000);
    c.insert(1, 5, 0x2000); // same prefix value, another level: another entry
    CHECK(c.lookup(0, 5) == std::optional<std::uint64_t>(0x1000));
    c.insert(0, 6, 0x3000); // full: replaces (1, 5), the least recently used
    CHECK_FALSE(c.lookup(1, 5));
    CHECK(c.lookup(0, 6) == std::optional<std::uint64_t>(0x3000));
    c.insert(0, 6, 0x4000); // an update in place
    CHECK(c.lookup(0, 6) == std::optional<std::uint64_t>(0x4000));
    CHECK(c.lookup(0, 5) == std::optional<std::uint64_t>(0x1000));
    CHECK(c.hits() == 4);
    CHECK(c.misses() == 2);
    CHECK(c.invalidate_all() == 2);
    CHECK_FALSE(c.lookup(0, 5));
}

TEST_CASE("page-walk cache of 0 entries: every lookup misses")
{
    page_walk_cache c(0);
    c.insert(0, 1, 0x1000);
    CHECK_FALSE(c.lookup(0, 1));
    CHECK(c.misses() == 1);
    CHECK(c.invalidate_all() == 0);
}

TEST_CASE("translation context: the first request, a newer epoch or another table flush")
{
    vgpu::tlb::context c;
    CHECK(c.changes(1, 0x1000));       // first
    CHECK_FALSE(c.changes(1, 0x1000)); // same
    CHECK_FALSE(c.changes(0, 0x1000)); // an older kernel still running: no flush
    CHECK(c.changes(2, 0x1000));       // a newer kernel
    CHECK(c.changes(2, 0x2000));       // another table
    CHECK_FALSE(c.changes(1, 0x2000));
}
