// Unit tests of the inline time helpers against the SystemC library's own functions. See
// tlm_bus/sim_time.h.
#include "test/seed.h"
#include "tlm_bus/sim_time.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>

using vgpu::tlm_bus::ps_time;
using vgpu::tlm_bus::seconds;
using vgpu::tlm_bus::sim_now;
using vgpu::tlm_bus::sim_now_ps;

TEST_CASE("ps_time is sc_time::from_value for every value")
{
    const std::uint64_t edges[] = {0,
                                   1,
                                   2,
                                   999,
                                   1000,
                                   1250,
                                   (std::uint64_t{1} << 32) + 1,
                                   (std::uint64_t{1} << 52) - 1,
                                   std::uint64_t{1} << 52,
                                   (std::uint64_t{1} << 52) + 1,
                                   (std::uint64_t{1} << 53) + 1,
                                   ~std::uint64_t{0} - 1,
                                   ~std::uint64_t{0}};
    for (const std::uint64_t v : edges) {
        INFO("value " << v);
        CHECK(ps_time(v).value() == sc_core::sc_time::from_value(v).value());
    }
    const std::uint64_t seed = vgpu::test::seed_or(40);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 100000; ++i) {
        // Every magnitude: a random value shifted right by a random amount.
        const std::uint64_t v = rng() >> (rng() % 64);
        INFO("value " << v);
        REQUIRE(ps_time(v).value() == sc_core::sc_time::from_value(v).value());
    }
}

TEST_CASE("sim_now is the member sc_time_stamp reads")
{
    // The same object, so the same value at every time (starting the simulation here would
    // end the elaboration of the other tests of this executable).
    CHECK(&sim_now() == &sc_core::sc_time_stamp());
    CHECK(sim_now_ps() == sc_core::sc_time_stamp().value());
}

TEST_CASE("seconds is sc_time::to_seconds for every value, to the bit")
{
    const std::uint64_t edges[] = {0,
                                   1,
                                   3,
                                   999,
                                   1000,
                                   1001,
                                   123456789,
                                   (std::uint64_t{1} << 52) - 1,
                                   (std::uint64_t{1} << 53) + 1,
                                   ~std::uint64_t{0}};
    for (const std::uint64_t v : edges) {
        INFO("value " << v);
        const sc_core::sc_time t = sc_core::sc_time::from_value(v);
        CHECK(seconds(t) == t.to_seconds());
        CHECK(seconds(t) * 1e9 == t.to_seconds() * 1e9);
    }
    const std::uint64_t seed = vgpu::test::seed_or(41);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t v = rng() >> (rng() % 64);
        INFO("value " << v);
        const sc_core::sc_time t = sc_core::sc_time::from_value(v);
        REQUIRE(seconds(t) == t.to_seconds());
    }
}
