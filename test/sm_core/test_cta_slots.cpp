// Unit tests of vgpu::sm::cta_slots: warp-mask allocation, refusals, the life cycle of a slot
// and the pending list. See models/sm/README.md.
#include "models/sm/core/cta_slots.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using namespace vgpu::sm;

TEST_CASE("cta_slots checks its geometry")
{
    REQUIRE_THROWS_AS(cta_slots(0, 8), std::invalid_argument);
    REQUIRE_THROWS_AS(cta_slots(2, 0), std::invalid_argument);
    REQUIRE_THROWS_WITH(cta_slots(2, 65), Catch::Contains("1..64"));
    const cta_slots all(4, 64);
    REQUIRE(all.free_warps() == 64);
    REQUIRE(all.free_warp_mask() == ~0ull);
    const cta_slots s(3, 10);
    REQUIRE(s.size() == 3);
    REQUIRE(s.free_warps() == 10);
    REQUIRE(s.free_warp_mask() == 0x3ff);
    REQUIRE(s.resident() == 0);
    REQUIRE_FALSE(s.active());
    REQUIRE(s.state(0) == cta_state::free);
}

TEST_CASE("cta_slots gives the lowest free CTA slot and the lowest free warp slots")
{
    cta_slots s(4, 16);
    const auto a = s.allocate(3); // warps 0..2
    REQUIRE(a.refused == nullptr);
    REQUIRE(a.cta == 0);
    REQUIRE(a.warp_mask == 0x7);
    const auto b = s.allocate(5); // warps 3..7
    REQUIRE(b.cta == 1);
    REQUIRE(b.warp_mask == 0xf8);
    REQUIRE(s.free_warps() == 8);
    REQUIRE(s.free_warp_mask() == 0xff00);
    REQUIRE(s.state(0) == cta_state::pending);
    REQUIRE(s.warps(1) == 5);
    REQUIRE(s.warp_mask(1) == 0xf8);
    REQUIRE(s.pending() == std::vector<int>{0, 1});
    REQUIRE(s.resident() == 2);
    REQUIRE_FALSE(s.active()); // pending CTAs are not active yet

    // CTA 0 ends: its slot and warps 0..2 are reused; the next CTA takes warps 0,1,2,8.
    s.start(0);
    s.start(1);
    s.clear_pending();
    REQUIRE(s.active());
    s.release(0);
    REQUIRE(s.state(0) == cta_state::free);
    REQUIRE(s.free_warp_mask() == 0xff07);
    const auto c = s.allocate(4);
    REQUIRE(c.cta == 0);
    REQUIRE(c.warp_mask == 0x107);
    REQUIRE(s.free_warp_mask() == 0xfe00);
    REQUIRE(s.pending() == std::vector<int>{0});
}

TEST_CASE("cta_slots refuses without a free CTA slot or enough warp slots, changing nothing")
{
    cta_slots s(2, 8);
    REQUIRE(s.allocate(2).cta == 0);
    REQUIRE(s.allocate(3).cta == 1); // warps 2..4; 3 left (5..7)
    const auto full = s.allocate(1);
    REQUIRE(full.cta == -1);
    REQUIRE(full.warp_mask == 0);
    REQUIRE(std::string(full.refused) == "no free CTA slot");
    s.release(0); // warps 0,1 free again: 5 free warp slots
    REQUIRE(s.free_warps() == 5);
    const auto big = s.allocate(6);
    REQUIRE(big.cta == -1);
    REQUIRE(std::string(big.refused) == "not enough free warp slots");
    REQUIRE(s.free_warps() == 5);
    REQUIRE(s.state(0) == cta_state::free);
    REQUIRE(s.pending() == std::vector<int>{0, 1});
    REQUIRE(std::string(s.allocate(0).refused) == "no warps");
    // Exactly the free ones: warps 0,1,5,6,7.
    const auto fit = s.allocate(5);
    REQUIRE(fit.refused == nullptr);
    REQUIRE(fit.cta == 0);
    REQUIRE(fit.warp_mask == 0xe3);
    REQUIRE(s.free_warps() == 0);
}

TEST_CASE("cta_slots: a CTA goes pending, running, ending, free")
{
    cta_slots s(1, 64);
    const auto g = s.allocate(64);
    REQUIRE(g.warp_mask == ~0ull);
    REQUIRE(s.free_warps() == 0);
    s.start(0);
    REQUIRE(s.state(0) == cta_state::running);
    s.stop(0);
    REQUIRE(s.state(0) == cta_state::ending);
    REQUIRE(s.active());
    REQUIRE(s.resident() == 1);
    s.release(0);
    REQUIRE(s.state(0) == cta_state::free);
    REQUIRE(s.warp_mask(0) == 0);
    REQUIRE(s.free_warps() == 64);
    REQUIRE(s.resident() == 0);
    REQUIRE_THROWS_AS(s.start(1), std::out_of_range);
}
