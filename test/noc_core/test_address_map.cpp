// The physical memory map: home modules and LLC slices by hand-computed addresses.
#include "models/noc/core/address_map.h"

#include <catch2/catch.hpp>
#include <stdexcept>

using vgpu::noc::address_map;

TEST_CASE("address_map: home module by 1 GiB windows, slice by 128-byte line interleave")
{
    const address_map m(4, 1ull << 30, 4, 128);
    CHECK(m.home(0) == 0u);
    CHECK(m.home((1ull << 30) - 1) == 0u);
    CHECK(m.home(1ull << 30) == 1u);
    CHECK(m.home(3 * (1ull << 30) + 5) == 3u);
    CHECK_FALSE(m.home(4ull << 30).has_value());
    CHECK(m.slice(0) == 0u);
    CHECK(m.slice(127) == 0u);
    CHECK(m.slice(128) == 1u);
    CHECK(m.slice(3 * 128 + 1) == 3u);
    CHECK(m.slice(4 * 128) == 0u);
    // The interleave continues across modules: 1 GiB is a multiple of 4 lines.
    CHECK(m.slice((1ull << 30) + 128) == 1u);
}

TEST_CASE("address_map: a zero dimension is rejected")
{
    CHECK_THROWS_AS(address_map(0, 1, 1, 1), std::invalid_argument);
    CHECK_THROWS_AS(address_map(1, 1, 0, 1), std::invalid_argument);
}
