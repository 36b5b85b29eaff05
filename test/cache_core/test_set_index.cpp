// Unit tests of the set-index functions (vgpu::cache::make_index and friends) with indices
// computed by hand. See models/cache/README.md.
#include "models/cache/core/cache_array.h"
#include "models/cache/core/set_index.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>

using vgpu::cache::index_kind;
using vgpu::cache::index_spec;
using vgpu::cache::make_index;

namespace {
index_spec spec(index_kind kind, std::uint64_t count, unsigned shift, unsigned first_bit = 0)
{
    index_spec s;
    s.kind = kind;
    s.count = count;
    s.shift = shift;
    s.first_bit = first_bit;
    return s;
}
} // namespace

TEST_CASE("modulo index: the low line-number bits, or n mod count for any count")
{
    // 8 sets of 64-byte lines: the index is address bits 6..8.
    const auto f = make_index(spec(index_kind::modulo, 8, 6));
    CHECK(f(0x0000) == 0);
    CHECK(f(0x01c0) == 7); // line 7
    CHECK(f(0x1234) == 0); // line 0x48 = 72 = 9 * 8
    CHECK(f(0x2040) == 1); // line 0x81 = 129
    CHECK(f(0x203f) == 0); // line 0x80, offset bits ignored
    // A count that is not a power of two (e.g. 6 home SMs, 128-byte lines).
    const auto g = make_index(spec(index_kind::modulo, 6, 7));
    CHECK(g(0x1000) == 2);  // line 32 = 5 * 6 + 2
    CHECK(g(0x0280) == 5);  // line 5
    CHECK(g(0x0300) == 0);  // line 6
    CHECK(g(0x12345) == 0); // line 0x246 = 582 = 97 * 6
    CHECK(g(0x12445) == 2); // line 0x248 = 584
    // A TLB indexed by virtual page number directly (shift 0).
    const auto t = make_index(spec(index_kind::modulo, 16, 0));
    CHECK(t(0x10003) == 3);
    CHECK(t(0x1001f) == 15);
    // One set: always 0.
    CHECK(make_index(spec(index_kind::modulo, 1, 6))(0xdeadbeef) == 0);
    CHECK(vgpu::cache::modulo_index(100, 7) == 2);
}

TEST_CASE("bit-select index: a field of line-number bits starting at a chosen bit")
{
    // 4 values (2 bits) from line-number bits 3..4 of 64-byte lines = address bits 9..10.
    const auto f = make_index(spec(index_kind::bit_select, 4, 6, 3));
    CHECK(f(0x1234) == 1); // line 0x48 = 0b1001000: bits 3..4 = 0b01
    CHECK(f(0x0600) == 3); // line 0x18 = 0b11000: bits 3..4 = 0b11
    CHECK(f(0x01ff) == 0); // line 7: bits 3..4 clear
    CHECK(f(0x0800) == 0); // line 0x20: bit 5 is outside the field
    // With shift 0 the field is counted in the key itself: address bits 12..15 (a 4 KiB page
    // number's low nibble).
    const auto p = make_index(spec(index_kind::bit_select, 16, 0, 12));
    CHECK(p(0xabcd1234) == 1);
    CHECK(p(0x0000f000) == 15);
    // first_bit 0 is the modulo index.
    const auto m = make_index(spec(index_kind::modulo, 32, 7));
    const auto b = make_index(spec(index_kind::bit_select, 32, 7, 0));
    for (std::uint64_t a = 0; a < 1 << 14; a += 0x80)
        REQUIRE(m(a) == b(a));
    CHECK(vgpu::cache::bit_select_index(0xf0, 4, 4) == 0xf);
    CHECK(vgpu::cache::bit_select_index(0xf0, 4, 0) == 0);
}

TEST_CASE("XOR-fold index: bit i is the XOR of line-number bits i, i+n, i+2n, ...")
{
    // 8 sets (n = 3) of 64-byte lines.
    const auto f = make_index(spec(index_kind::xor_fold, 8, 6));
    CHECK(f(std::uint64_t{0x173} << 6) == 0); // 101 ^ 110 ^ 011 = 000
    CHECK(f(std::uint64_t{0x047} << 6) == 6); // 001 ^ 000 ^ 111 = 110
    CHECK(f(std::uint64_t{0x005} << 6) == 5); // one group: the value itself
    CHECK(f((std::uint64_t{0x005} << 6) + 0x3f) == 5);
    // Bits far up fold down: address bit 63 is line-number bit 57 = 0 + 19 * 3.
    CHECK(f(std::uint64_t{1} << 63) == 1);
    // Two lines that collide under modulo (same low bits) are told apart.
    const auto m = make_index(spec(index_kind::modulo, 8, 6));
    CHECK(m(0x000) == m(0x200));
    CHECK(f(0x000) == 0);
    CHECK(f(0x200) == 1); // line 8 = 001 000
    // 16 sets (n = 4) of 128-byte lines.
    const auto g = make_index(spec(index_kind::xor_fold, 16, 7));
    CHECK(g(std::uint64_t{0xabcd} << 7) == (0xa ^ 0xb ^ 0xc ^ 0xd));
    // One set: always 0.
    CHECK(make_index(spec(index_kind::xor_fold, 1, 7))(0xffffffff) == 0);
}

TEST_CASE("XOR-fold index equals the LLC's former folded_index on random line addresses")
{
    // The function the LLC used before the index functions were shared, copied verbatim, so
    // the LLC's set mapping (and every result) is unchanged.
    auto folded_index = [](unsigned sets, unsigned line_bytes) {
        auto log2u = [](unsigned v) {
            unsigned n = 0;
            while ((1u << n) < v)
                ++n;
            return n;
        };
        const unsigned bits = log2u(sets), shift = log2u(line_bytes);
        return [bits, shift](std::uint64_t line_addr) -> unsigned {
            if (bits == 0)
                return 0;
            std::uint64_t n = line_addr >> shift, h = 0;
            for (; n != 0; n >>= bits)
                h ^= n;
            return static_cast<unsigned>(h);
        };
    };
    const std::uint64_t seed = 20240607;
    std::cout << "xor-fold comparison seed " << seed << "\n";
    std::mt19937_64 rng(seed);
    for (unsigned sets : {1u, 2u, 8u, 256u, 1u << 20}) {
        for (unsigned line : {16u, 128u, 4096u}) {
            const auto old_fn = folded_index(sets, line);
            const auto new_fn =
                make_index(vgpu::cache::line_index(index_kind::xor_fold, sets, line));
            for (int i = 0; i < 2000; ++i) {
                const std::uint64_t a = rng() & ~std::uint64_t{line - 1};
                INFO("sets " << sets << " line " << line << " addr " << a);
                REQUIRE((old_fn(a) & (sets - 1)) == new_fn(a));
            }
        }
    }
}

TEST_CASE("index descriptions are checked with a clear message")
{
    CHECK_THROWS_WITH(make_index(spec(index_kind::modulo, 0, 6)),
                      Catch::Contains("count must be at least 1"));
    CHECK_THROWS_WITH(make_index(spec(index_kind::xor_fold, 6, 6)),
                      Catch::Contains("power of two for bit-select and XOR fold, got 6"));
    CHECK_THROWS_WITH(make_index(spec(index_kind::bit_select, 12, 6)),
                      Catch::Contains("power of two"));
    CHECK_THROWS_WITH(make_index(spec(index_kind::bit_select, 16, 6, 56)),
                      Catch::Contains("beyond the 58 bits left"));
    CHECK_THROWS_WITH(make_index(spec(index_kind::modulo, 8, 6, 3)),
                      Catch::Contains("first_bit applies to bit-select only"));
    CHECK_THROWS_WITH(make_index(spec(index_kind::modulo, 8, 64)),
                      Catch::Contains("shift must be below 64"));
    CHECK_THROWS_AS(vgpu::cache::line_index(index_kind::modulo, 8, 96), std::invalid_argument);
    CHECK(vgpu::cache::index_spec_error(spec(index_kind::bit_select, 16, 6, 54)).empty());
    CHECK_NOTHROW(make_index(spec(index_kind::modulo, 6, 7)));
}

TEST_CASE("line_index describes a cache's sets, cache_array uses it like its default")
{
    const index_spec s = vgpu::cache::line_index(index_kind::modulo, 64, 128);
    CHECK(s.kind == index_kind::modulo);
    CHECK(s.count == 64);
    CHECK(s.shift == 7);
    vgpu::cache::cache_array by_default(64, 2, 128);
    vgpu::cache::cache_array by_spec(64, 2, 128, make_index(s));
    for (std::uint64_t a = 0; a < 1 << 16; a += 0x40)
        REQUIRE(by_default.set_of(a) == by_spec.set_of(a));
    CHECK(by_spec.set_of(0x1f80) == 63);
}

TEST_CASE("index functions made from specs match their formulas on random keys and specs")
{
    // make_index returns a spec_index that cache_array evaluates inline: it must give what the
    // formulas give, alone and through cache_array::set_of.
    const std::uint64_t seed = vgpu::test::seed_or(20241124);
    std::cout << "spec_index random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int n = 0; n < 400; ++n) {
        index_spec s;
        const unsigned bits = static_cast<unsigned>(rng() % 13);
        s.kind = static_cast<index_kind>(rng() % 3);
        s.count = std::uint64_t{1} << bits;
        if (s.kind == index_kind::modulo && rng() % 2)
            s.count = 1 + rng() % 1000; // any count
        s.shift = static_cast<unsigned>(rng() % 13);
        if (s.kind == index_kind::bit_select)
            s.first_bit = static_cast<unsigned>(rng() % (64 - s.shift - bits + 1));
        REQUIRE(vgpu::cache::index_spec_error(s).empty());
        auto formula = [&](std::uint64_t key) {
            const std::uint64_t k = key >> s.shift;
            switch (s.kind) {
            case index_kind::modulo:
                return static_cast<unsigned>(k % s.count);
            case index_kind::bit_select:
                return static_cast<unsigned>((k >> s.first_bit) % s.count);
            case index_kind::xor_fold:
                break;
            }
            std::uint64_t h = 0;
            for (unsigned b = 0; b < 64; ++b) // bit b goes to bit b mod log2(count)
                if (bits != 0 && ((k >> b) & 1))
                    h ^= std::uint64_t{1} << (b % bits);
            return static_cast<unsigned>(h);
        };
        const auto f = make_index(s);
        const bool as_sets = s.count <= (1u << 12) && (s.count & (s.count - 1)) == 0;
        const vgpu::cache::cache_array by_spec(as_sets ? static_cast<unsigned>(s.count) : 1, 1,
                                               1u << s.shift, f);
        for (int i = 0; i < 200; ++i) {
            const std::uint64_t key = rng() >> (rng() % 64);
            INFO("kind " << static_cast<int>(s.kind) << " count " << s.count << " shift " << s.shift
                         << " first_bit " << s.first_bit << " key " << key);
            REQUIRE(f(key) == formula(key));
            if (as_sets)
                REQUIRE(by_spec.set_of(key) == formula(key & ~((std::uint64_t{1} << s.shift) - 1)));
        }
    }
}
