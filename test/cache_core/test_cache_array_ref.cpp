// Randomized test of vgpu::cache::cache_array (lookups through per-set tag fingerprints) against
// the array that scans every way of a set (scan_cache_array.h): the same calls must give the
// same answers, victims and bytes (seed printed). See models/cache/README.md.
#include "models/cache/core/cache_array.h"
#include "test/cache_core/scan_cache_array.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

using vgpu::cache::cache_array;
using vgpu::cache::sector_mask;
using vgpu::cache::reference::scan_cache_array;

namespace {
template <class V, class W> void require_same_victim(const V& a, const W& b, unsigned line_bytes)
{
    REQUIRE(a.valid == b.valid);
    if (!a.valid)
        return;
    REQUIRE(a.dirty == b.dirty);
    REQUIRE(a.line_addr == b.line_addr);
    REQUIRE(a.valid_sectors == b.valid_sectors);
    REQUIRE(a.dirty_sectors == b.dirty_sectors);
    REQUIRE(std::memcmp(a.data, b.data, line_bytes) == 0);
}
} // namespace

TEST_CASE("cache_array: every answer equals the way-scanning array's")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261204);
    std::cout << "cache_array reference test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    struct geometry {
        unsigned sets, ways;
        bool custom_index;
    };
    // Way counts below, at and above a multiple of 8 (the fingerprints are compared 8 at a
    // time), the LLC's 24 among them.
    for (const geometry g : {geometry{4, 1, false}, geometry{8, 4, false}, geometry{4, 7, true},
                             geometry{2, 8, false}, geometry{4, 9, false}, geometry{32, 24, false},
                             geometry{8, 24, true}, geometry{1, 40, false}}) {
        INFO("sets " << g.sets << " ways " << g.ways);
        const unsigned line = 128, sector = 32;
        vgpu::cache::index_fn index;
        if (g.custom_index)
            index = [](std::uint64_t l) { return static_cast<unsigned>((l >> 7) ^ (l >> 11)); };
        cache_array a(g.sets, g.ways, line, index, sector);
        scan_cache_array b(g.sets, g.ways, line, index, sector);
        // Three times as many lines as the array holds, plus addresses whose tags differ in
        // high bits only (fingerprints collide more often than for nearby lines).
        const std::uint64_t lines = std::uint64_t{3} * g.sets * g.ways;
        const auto pick = [&] {
            const std::uint64_t l = rng() % lines;
            const std::uint64_t high = rng() % 4 == 0 ? (rng() % 8) << 40 : 0;
            return (l * line + high) | (rng() % line);
        };
        std::vector<std::uint8_t> buf(line), out_a(line), out_b(line);
        for (int n = 0; n < 40000; ++n) {
            INFO("step " << n);
            const std::uint64_t addr = pick();
            switch (rng() % 10) {
            case 0:
            case 1: {
                const bool touch = rng() % 2;
                REQUIRE(a.lookup(addr, touch) == b.lookup(addr, touch));
                break;
            }
            case 2:
            case 3: { // a miss allocates, if a way can be taken
                REQUIRE(a.probe(addr) == b.probe(addr));
                REQUIRE(a.can_allocate(addr) == b.can_allocate(addr));
                if (a.probe(addr) || !a.can_allocate(addr))
                    break;
                a.prefetch_victim(addr);
                REQUIRE(a.victim_dirty(addr) == b.victim_dirty(addr));
                require_same_victim(a.allocate(addr), b.allocate(addr), line);
                break;
            }
            case 4: { // data arrives
                if (!b.probe(addr))
                    break;
                for (auto& x : buf)
                    x = static_cast<std::uint8_t>(rng());
                const sector_mask m = rng() % a.all_sectors() + 1;
                a.fill(addr, buf.data(), m);
                b.fill(addr, buf.data(), m);
                break;
            }
            case 5: { // a store into the valid sectors
                if (!b.probe(addr))
                    break;
                const std::size_t off = addr % line;
                const std::size_t size = 1 + rng() % (line - off);
                for (std::size_t k = 0; k < size; ++k)
                    buf[k] = static_cast<std::uint8_t>(rng());
                const bool dirty = rng() % 2;
                a.write_valid(addr, buf.data(), size, dirty);
                b.write_valid(addr, buf.data(), size, dirty);
                break;
            }
            case 6: {
                if (!b.probe(addr))
                    break;
                const bool pinned = rng() % 3 != 0;
                a.pin(addr, pinned);
                b.pin(addr, pinned);
                break;
            }
            case 7: {
                if (rng() % 4 == 0)
                    require_same_victim(a.invalidate(addr), b.invalidate(addr), line);
                break;
            }
            case 8: { // reads of valid sectors
                REQUIRE(a.valid_sectors(addr) == b.valid_sectors(addr));
                REQUIRE(a.dirty_sectors(addr) == b.dirty_sectors(addr));
                REQUIRE(a.is_dirty(addr) == b.is_dirty(addr));
                const sector_mask v = b.valid_sectors(addr);
                if (v == a.all_sectors()) {
                    a.read(a.line_addr(addr), out_a.data(), line);
                    b.read(b.line_addr(addr), out_b.data(), line);
                    REQUIRE(out_a == out_b);
                }
                break;
            }
            default: {
                if (rng() % 2000 == 0) {
                    std::vector<std::uint64_t> wa, wb;
                    a.invalidate_all([&](std::uint64_t l, const std::uint8_t*, sector_mask) {
                        wa.push_back(l);
                    });
                    b.invalidate_all([&](std::uint64_t l, const std::uint8_t*, sector_mask) {
                        wb.push_back(l);
                    });
                    REQUIRE(wa == wb);
                }
                break;
            }
            }
            REQUIRE(a.valid_count() == b.valid_count());
            REQUIRE(a.dirty_count() == b.dirty_count());
        }
    }
}
