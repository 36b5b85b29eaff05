// Unit tests of vgpu::sm::ready_set: the issue loop's view of an SM's warp slots, against a
// scan of every live slot. See models/sm/README.md ("Cores").
#include "models/sm/core/ready_set.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <iostream>
#include <random>

using namespace vgpu::sm;

namespace {

/// The reference: what the issue loop scanned every cycle before the ready set kept it.
struct scan {
    std::uint64_t ready = 0;
    std::uint64_t earliest = ready_set::never;
    std::array<unsigned, 4> counts{}; // by wait_reason
};

scan reference(const std::array<std::uint64_t, 64>& next, const std::array<wait_reason, 64>& reason,
               std::uint64_t live, std::uint64_t cycle)
{
    scan r;
    for (unsigned s = 0; s < 64; ++s) {
        if (!(live >> s & 1))
            continue;
        if (next[s] <= cycle) {
            r.ready |= std::uint64_t{1} << s;
        } else {
            r.earliest = std::min(r.earliest, next[s]);
            ++r.counts[static_cast<unsigned>(reason[s])];
        }
    }
    return r;
}

void require_matches(const ready_set& rs, const scan& want)
{
    REQUIRE(rs.ready() == want.ready);
    REQUIRE(rs.earliest() == want.earliest);
    for (unsigned k = 0; k < 4; ++k)
        REQUIRE(rs.waiting().count(static_cast<wait_reason>(k)) == want.counts[k]);
}

} // namespace

TEST_CASE("ready_set answers a small SM's cycles as a scan would")
{
    ready_set rs;
    rs.set(0, 10, wait_reason::memory);
    rs.set(1, 3, wait_reason::scoreboard);
    rs.set(2, 0, wait_reason::none);
    rs.update(0b111, 0);
    REQUIRE(rs.ready() == 0b100);
    REQUIRE(rs.earliest() == 3);
    REQUIRE(rs.waiting().count(wait_reason::memory) == 1);
    REQUIRE(rs.waiting().count(wait_reason::scoreboard) == 1);

    rs.set(2, 5, wait_reason::scoreboard); // slot 2 issued: its next instruction waits
    rs.update(0b111, 1);
    REQUIRE(rs.ready() == 0);
    REQUIRE(rs.earliest() == 3);
    REQUIRE(rs.waiting().count(wait_reason::scoreboard) == 2);

    rs.update(0b111, 3); // slot 1's cycle has come
    REQUIRE(rs.ready() == 0b010);
    REQUIRE(rs.earliest() == 5);
    REQUIRE(rs.waiting().count(wait_reason::scoreboard) == 1);

    rs.set(0, 4, wait_reason::memory); // a load returned earlier than slot 0 first waited for
    rs.update(0b111, 3);
    REQUIRE(rs.earliest() == 4);

    rs.update(0b101, 3); // slot 1 exits
    REQUIRE(rs.ready() == 0);
    rs.set(2, ready_set::never, wait_reason::barrier);
    rs.update(0b101, 4);
    REQUIRE(rs.ready() == 0b001);
    REQUIRE(rs.earliest() == ready_set::never);
    REQUIRE(rs.waiting().classify() == wait_reason::barrier);
}

TEST_CASE("ready_set matches a scan of every live slot on random SMs")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261124);
    std::cout << "ready_set random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int sm = 0; sm < 200; ++sm) {
        ready_set rs;
        std::array<std::uint64_t, 64> next{};
        std::array<wait_reason, 64> reason{};
        const unsigned slots = 1 + static_cast<unsigned>(rng() % 64);
        const std::uint64_t all = slots == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << slots) - 1;
        std::uint64_t live = rng() & all;
        std::uint64_t cycle = 0;
        for (int step = 0; step < 500; ++step) {
            INFO("SM " << sm << ", step " << step);
            // A few slots set (issued, woken, at a barrier), some near, some far, some never.
            const unsigned sets = static_cast<unsigned>(rng() % 4);
            for (unsigned k = 0; k < sets; ++k) {
                const unsigned s = static_cast<unsigned>(rng() % slots);
                const unsigned pick = static_cast<unsigned>(rng() % 8);
                next[s] = pick == 0   ? ready_set::never
                          : pick == 1 ? cycle - std::min<std::uint64_t>(cycle, rng() % 3)
                                      : cycle + rng() % (pick < 6 ? 8 : 400);
                reason[s] = static_cast<wait_reason>(1 + rng() % 3);
                rs.set(s, next[s], reason[s]);
            }
            // Warps launch and exit.
            if (rng() % 5 == 0)
                live ^= (std::uint64_t{1} << (rng() % slots)) & all;
            // The clock: a cycle, a jump, or none.
            const unsigned tick = static_cast<unsigned>(rng() % 4);
            cycle += tick == 0 ? 0 : tick == 1 ? 1 : rng() % 50;
            rs.update(live, cycle);
            require_matches(rs, reference(next, reason, live, cycle));
        }
    }
}
