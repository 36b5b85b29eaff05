// Unit tests of the TLB set-index functions: the XOR hash bit by bit against its definition, and
// the combinations a configuration must refuse. See models/tlb/core/xor_index.h.
#include "models/tlb/core/xor_index.h"

#include <catch2/catch.hpp>

#include <random>

using namespace vgpu::tlb;

namespace {
/// Set-index bit i = XOR of VPN bits i, i + n, i + 2n, ... below `folded`: computed one bit at
/// a time, as the patent states it.
unsigned by_definition(std::uint64_t vpn, unsigned n, unsigned folded)
{
    unsigned index = 0;
    for (unsigned i = 0; i < n; ++i) {
        unsigned bit = 0;
        for (unsigned b = i; b < folded; b += n)
            bit ^= static_cast<unsigned>((vpn >> b) & 1);
        index |= bit << i;
    }
    return index;
}
} // namespace

TEST_CASE("xor index: every set-index bit is the XOR of VPN bits n apart")
{
    const unsigned seed = Catch::rngSeed() != 0 ? Catch::rngSeed() : 20261123u;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned n : {1u, 2u, 4u, 5u, 8u}) {
        for (unsigned xor_bits : {0u, 2 * n, 2 * n + 3, 20u, 52u}) {
            const index_fn f = make_index(index_kind::xor_hash, 1ull << n, xor_bits, 52);
            for (unsigned k = 0; k < 2000; ++k) {
                const std::uint64_t vpn = rng() >> 12; // 52-bit VPNs
                INFO("n " << n << " xor_bits " << xor_bits << " vpn " << vpn);
                REQUIRE(f(vpn) == by_definition(vpn, n, xor_bits == 0 ? 52 : xor_bits));
            }
        }
    }
}

TEST_CASE("modulo index: the low VPN bits")
{
    const index_fn f = make_index(index_kind::modulo, 16, 0, 20);
    CHECK(f(0x12345) == 0x5);
    CHECK(f(16 * 7) == 0);
    CHECK(make_index(index_kind::modulo, 1, 0, 20)(12345) == 0);
}

TEST_CASE("index functions a configuration must refuse")
{
    CHECK(index_error(index_kind::modulo, 12, 0, 20) == "sets must be a power of two (got 12)");
    CHECK(index_error(index_kind::xor_hash, 0, 0, 20) == "sets must be a power of two (got 0)");
    CHECK(index_error(index_kind::xor_hash, 1, 0, 20) ==
          "the xor index needs at least 2 sets (got 1)");
    CHECK(index_error(index_kind::xor_hash, 16, 7, 20) ==
          "the xor index of 16 sets (4 index bits) must fold at least 8 VPN bits so that every "
          "index bit combines two or more, but xor_bits is 7");
    CHECK(index_error(index_kind::xor_hash, 1024, 0, 16) ==
          "the xor index of 1024 sets (10 index bits) must fold at least 20 VPN bits so that "
          "every index bit combines two or more, but a virtual page number has only 16");
    CHECK(index_error(index_kind::xor_hash, 16, 21, 20) ==
          "xor_bits (21) exceeds the 20 bits of a virtual page number");
    CHECK(index_error(index_kind::xor_hash, 16, 8, 20).empty());
    CHECK(index_error(index_kind::xor_hash, 16, 0, 20).empty());
    CHECK(index_error(index_kind::modulo, 1, 0, 20).empty());
    CHECK_THROWS_AS(make_index(index_kind::xor_hash, 16, 7, 20), std::invalid_argument);
}
