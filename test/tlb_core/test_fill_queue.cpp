// The fill queue: fills enter a TLB array in time order, so a lookup sees the TLB of its time.
#include "models/tlb/core/fill_queue.h"
#include "models/tlb/core/xor_index.h"

#include <catch2/catch.hpp>

using namespace vgpu::tlb;

namespace {
pending_fill at(std::uint64_t ready, std::uint64_t pfn)
{
    return pending_fill{pfn << 12 | 1, translation{pfn, true, false, 0}, ready};
}
} // namespace

TEST_CASE("fill queue: fills enter in ready order, and only once their time has come")
{
    tlb_array a(1, 2, make_index(index_kind::modulo, 1, 0, 20)); // one set of 2 ways
    a.insert(100, translation{1, true, false, 0});
    a.insert(101, translation{2, true, false, 0});
    fill_queue q;
    q.push(7, at(500, 70)); // pushed first, ready last
    q.push(8, at(300, 80));
    REQUIRE(q.find(7) != nullptr);
    CHECK(q.find(7)->ready_ps == 500);
    // At 299 nothing has arrived: the old entries still hit.
    q.apply_until(299, &a);
    CHECK(a.probe(100).has_value());
    CHECK(a.probe(101).has_value());
    CHECK(q.size() == 2);
    // At 300 page 8 arrives and evicts the LRU entry (100); 7 is still on its way.
    q.apply_until(300, &a);
    CHECK_FALSE(a.probe(100).has_value());
    CHECK(a.probe(101).has_value());
    CHECK(a.probe(8).has_value());
    CHECK(q.find(8) == nullptr);
    CHECK(q.find(7) != nullptr);
    // At 1000 page 7 arrives and evicts 101 (8 is the newer entry).
    q.apply_until(1000, &a);
    CHECK(a.probe(7).has_value());
    CHECK(a.probe(8).has_value());
    CHECK_FALSE(a.probe(101).has_value());
    CHECK(q.size() == 0);
}

TEST_CASE("fill queue: a later push replaces a pending fill, and dropped fills never enter")
{
    tlb_array a(4, 4, make_index(index_kind::modulo, 4, 0, 20));
    fill_queue q;
    q.push(5, at(100, 50));
    q.push(5, at(200, 51)); // the page was walked again: the later result counts
    q.push(6, at(100, 60));
    q.push(9, at(100, 90));
    q.drop(6, 8); // a shootdown of pages 6..8
    q.apply_until(150, &a);
    CHECK_FALSE(a.probe(5).has_value()); // its fill is now due at 200
    CHECK_FALSE(a.probe(6).has_value());
    CHECK(a.probe(9).has_value());
    q.apply_until(200, &a);
    REQUIRE(a.probe(5).has_value());
    CHECK(a.lookup(5)->pfn == 51);
    q.push(1, at(10, 1));
    q.clear();
    q.apply_until(1000, nullptr);
    CHECK_FALSE(a.probe(1).has_value());
}
