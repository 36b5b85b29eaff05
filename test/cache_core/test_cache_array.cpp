// Unit tests of vgpu::cache::cache_array, including a randomized check against a reference LRU.
// See models/cache/README.md.
#include "models/cache/core/cache_array.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

using vgpu::cache::cache_array;

// Defined in test_mshr_table.cpp: counts global operator new calls of this test executable.
extern std::uint64_t g_test_allocations;

namespace {

std::vector<std::uint8_t> pattern(unsigned bytes, std::uint8_t first)
{
    std::vector<std::uint8_t> v(bytes);
    for (unsigned i = 0; i < bytes; ++i)
        v[i] = static_cast<std::uint8_t>(first + i);
    return v;
}

} // namespace

TEST_CASE("cache_array rejects bad geometry with a clear message")
{
    REQUIRE_THROWS_WITH(cache_array(3, 4, 64), Catch::Contains("sets must be a power of two"));
    REQUIRE_THROWS_WITH(cache_array(0, 4, 64), Catch::Contains("sets must be a power of two"));
    REQUIRE_THROWS_WITH(cache_array(4, 0, 64), Catch::Contains("ways must be at least 1"));
    REQUIRE_THROWS_WITH(cache_array(4, 4, 96), Catch::Contains("line_bytes must be a power"));
    REQUIRE_NOTHROW(cache_array(1, 3, 1));
}

TEST_CASE("cache_array line address and default and custom set index")
{
    cache_array c(8, 2, 64);
    REQUIRE(c.sets() == 8);
    REQUIRE(c.ways() == 2);
    REQUIRE(c.line_bytes() == 64);
    REQUIRE(c.line_addr(0x1234) == 0x1200);
    REQUIRE(c.set_of(0x1234) == (0x1200 / 64) % 8);
    REQUIRE(c.set_of(0x40) == 1);
    REQUIRE(c.set_of(0x200) == 0);

    // The index function sees the line address; its result is reduced modulo sets.
    std::vector<std::uint64_t> seen;
    cache_array x(4, 1, 64, [&](std::uint64_t line) {
        seen.push_back(line);
        return static_cast<unsigned>((line >> 6) ^ (line >> 8)) + 4;
    });
    REQUIRE(x.set_of(0x1ff) == ((0x1c0 >> 6) ^ (0x1c0 >> 8)) % 4);
    REQUIRE(seen.back() == 0x1c0);
    // Two lines that collide under modulo live side by side under the XOR index.
    x.allocate(0x000);
    x.allocate(0x100);
    REQUIRE(x.probe(0x000));
    REQUIRE(x.probe(0x100));
}

TEST_CASE("cache_array allocate, write, read, fill and access errors")
{
    cache_array c(4, 2, 32);
    REQUIRE_FALSE(c.lookup(0x100));
    REQUIRE_FALSE(c.probe(0x100));
    const auto v = c.allocate(0x108);
    REQUIRE_FALSE(v.valid);
    REQUIRE(v.data == nullptr);
    REQUIRE(c.probe(0x100));
    REQUIRE(c.probe(0x11f));
    REQUIRE_FALSE(c.probe(0x120));
    REQUIRE(c.valid_count() == 1);
    REQUIRE(c.dirty_count() == 0);

    // A freshly allocated line holds no data (one sector of 32 bytes, not valid) until a fill
    // or set_valid; then it reads as zeros.
    std::uint8_t line[32];
    REQUIRE(c.sectors() == 1);
    REQUIRE(c.valid_sectors(0x100) == 0);
    REQUIRE_THROWS_WITH(c.read(0x100, line, 32), Catch::Contains("holds no data"));
    c.set_valid(0x100, 1);
    c.read(0x100, line, 32);
    for (auto b : line)
        REQUIRE(b == 0);

    const std::uint32_t word = 0xdeadbeef;
    c.write(0x104, &word, 4, true);
    REQUIRE(c.is_dirty(0x100));
    REQUIRE(c.dirty_count() == 1);
    std::uint32_t back = 0;
    c.read(0x104, &back, 4);
    REQUIRE(back == word);
    c.write(0x108, &word, 4, true);
    REQUIRE(c.dirty_count() == 1);

    // A write that does not mark dirty (e.g. a write-through update) leaves the line clean.
    c.allocate(0x200);
    c.set_valid(0x200, c.all_sectors());
    c.write(0x200, &word, 4, false);
    REQUIRE_FALSE(c.is_dirty(0x200));

    const auto p = pattern(32, 7);
    c.fill(0x110, p.data());
    REQUIRE_FALSE(c.is_dirty(0x100));
    REQUIRE(c.dirty_count() == 0);
    c.read(0x100, line, 32);
    REQUIRE(std::memcmp(line, p.data(), 32) == 0);

    REQUIRE_THROWS_AS(c.read(0x11e, line, 4), std::out_of_range);
    REQUIRE_THROWS_AS(c.write(0x11e, line, 4, true), std::out_of_range);
    REQUIRE_THROWS_WITH(c.read(0x300, line, 4), Catch::Contains("0x300 is not resident"));
    REQUIRE_THROWS_AS(c.write(0x300, line, 4, true), std::logic_error);
    REQUIRE_THROWS_AS(c.fill(0x300, line), std::logic_error);
    REQUIRE_THROWS_WITH(c.allocate(0x104), Catch::Contains("already resident"));
}

TEST_CASE("cache_array replaces invalid ways first, then the true LRU way")
{
    cache_array c(1, 4, 16);
    for (std::uint64_t a : {0x00, 0x10, 0x20, 0x30})
        REQUIRE_FALSE(c.allocate(a).valid);
    REQUIRE(c.lookup(0x00) == 0u);
    REQUIRE(c.lookup(0x30) == 3u);
    // Recency now: 0x10 (LRU), 0x20, 0x00, 0x30 (MRU).
    REQUIRE(c.allocate(0x40).line_addr == 0x10);
    // probe and an untouched lookup change nothing: 0x20 stays LRU.
    REQUIRE(c.probe(0x20));
    REQUIRE(c.lookup(0x20, false));
    REQUIRE(c.allocate(0x50).line_addr == 0x20);
    // Recency: 0x00, 0x30, 0x40, 0x50. A hole left by invalidate is filled before any eviction.
    REQUIRE(c.invalidate(0x40).valid);
    REQUIRE_FALSE(c.invalidate(0x40).valid);
    REQUIRE(c.valid_count() == 3);
    REQUIRE_FALSE(c.allocate(0x60).valid);
    REQUIRE(c.lookup(0x60) == 1u); // the way 0x40 left
    REQUIRE(c.allocate(0x70).line_addr == 0x00);
    REQUIRE(c.allocate(0x80).line_addr == 0x30);
}

TEST_CASE("cache_array hands out dirty data on eviction, invalidate, flush and invalidate_all")
{
    cache_array c(2, 2, 16);
    const auto p = pattern(16, 0x40);
    const std::vector<std::uint8_t> zeros(16, 0);
    c.allocate(0x000);
    c.fill(0x000, zeros.data());
    c.write(0x000, p.data(), 16, true);
    c.allocate(0x020);
    c.fill(0x020, zeros.data());
    c.allocate(0x010);
    c.fill(0x010, zeros.data());
    c.write(0x014, p.data(), 4, true);

    // Set 0 holds 0x000 (dirty, LRU) and 0x020: allocating 0x040 evicts 0x000 with its data.
    const auto v = c.allocate(0x040);
    REQUIRE(v.valid);
    REQUIRE(v.dirty);
    REQUIRE(v.line_addr == 0x000);
    REQUIRE(std::memcmp(v.data, p.data(), 16) == 0);
    REQUIRE(c.dirty_count() == 1);

    const auto clean = c.invalidate(0x020);
    REQUIRE(clean.valid);
    REQUIRE_FALSE(clean.dirty);

    c.fill(0x040, zeros.data());
    c.write(0x040, p.data(), 8, true);
    std::map<std::uint64_t, std::vector<std::uint8_t>> written;
    auto record = [&](std::uint64_t line, const std::uint8_t* data,
                      vgpu::cache::sector_mask dirty) {
        REQUIRE(written.count(line) == 0);
        REQUIRE(dirty == 1);
        written[line].assign(data, data + 16);
    };
    c.flush(record);
    REQUIRE(written.size() == 2);
    REQUIRE(std::memcmp(written[0x040].data(), p.data(), 8) == 0);
    REQUIRE(std::memcmp(written[0x010].data() + 4, p.data(), 4) == 0);
    REQUIRE(c.dirty_count() == 0);
    REQUIRE(c.valid_count() == 2);

    written.clear();
    c.flush(record);
    REQUIRE(written.empty());

    c.write(0x010, p.data(), 1, true);
    unsigned visited = 0;
    c.for_each_valid([&](std::uint64_t line, bool dirty, const std::uint8_t*) {
        ++visited;
        REQUIRE(dirty == (line == 0x010));
    });
    REQUIRE(visited == 2);
    c.invalidate_all(record);
    REQUIRE(written.size() == 1);
    REQUIRE(written.count(0x010) == 1);
    REQUIRE(c.valid_count() == 0);
    REQUIRE(c.dirty_count() == 0);
    REQUIRE_FALSE(c.probe(0x040));
}

TEST_CASE("cache_array sectors: valid and dirty per sector, partial fills, skipped writes")
{
    // 2 sets x 2 ways of 128-byte lines in 4 sectors of 32 bytes.
    cache_array c(2, 2, 128, {}, 32);
    REQUIRE(c.sectors() == 4);
    REQUIRE(c.sector_bytes() == 32);
    REQUIRE(c.all_sectors() == 0xf);
    // sectors_of: which sectors [addr, addr + size) touches.
    CHECK(c.sectors_of(0x100, 4) == 0x1);
    CHECK(c.sectors_of(0x11c, 8) == 0x3);  // bytes 28..35: sectors 0 and 1
    CHECK(c.sectors_of(0x160, 32) == 0x8); // bytes 96..127: sector 3
    CHECK(c.sectors_of(0x13f, 65) == 0xe); // bytes 63..127: sectors 1, 2 and 3
    CHECK(c.sectors_of(0x100, 128) == 0xf);
    CHECK_THROWS_AS(c.sectors_of(0x170, 32), std::out_of_range);

    c.allocate(0x100);
    auto img = pattern(128, 1);     // byte i of the line image is 1 + i
    c.fill(0x100, img.data(), 0x5); // sectors 0 and 2 arrive
    CHECK(c.valid_sectors(0x100) == 0x5);
    CHECK(c.dirty_sectors(0x100) == 0);
    std::uint8_t b = 0;
    c.read(0x140, &b, 1);
    CHECK(b == 1 + 0x40);
    CHECK_THROWS_WITH(c.read(0x120, &b, 1), Catch::Contains("holds no data"));
    CHECK_THROWS_WITH(c.read(0x11f, &b, 2), Catch::Contains("holds no data")); // into sector 1
    CHECK_THROWS_AS(c.write(0x160, &b, 1, true), std::logic_error);

    // write_valid writes the bytes in valid sectors and skips the rest: 4 bytes at 0x11e touch
    // sector 0 (bytes 30, 31) and sector 1 (32, 33, not valid).
    const std::uint8_t w[4] = {0xa0, 0xa1, 0xa2, 0xa3};
    c.write_valid(0x11e, w, 4, true);
    CHECK(c.dirty_sectors(0x100) == 0x1);
    CHECK(c.is_dirty(0x100));
    CHECK(c.dirty_count() == 1);
    std::uint8_t two[2];
    c.read(0x11e, two, 2);
    CHECK(two[0] == 0xa0);
    CHECK(two[1] == 0xa1);
    CHECK(c.valid_sectors(0x100) == 0x5);

    // A sector written whole: made valid first, then written, then dirty.
    const auto whole = pattern(32, 0x80);
    c.set_valid(0x120, 0x2);
    c.write(0x120, whole.data(), 32, true);
    CHECK(c.valid_sectors(0x100) == 0x7);
    CHECK(c.dirty_sectors(0x100) == 0x3);

    // A later fill of sector 3 leaves the dirty sectors alone; filling a sector marks it clean.
    auto img2 = pattern(128, 0x30);
    c.fill(0x100, img2.data(), 0x8);
    CHECK(c.valid_sectors(0x100) == 0xf);
    CHECK(c.dirty_sectors(0x100) == 0x3);
    c.read(0x17f, &b, 1);
    CHECK(b == static_cast<std::uint8_t>(0x30 + 127));
    c.read(0x11e, two, 2);
    CHECK(two[0] == 0xa0); // the dirty sector kept its write

    // The victim reports its valid and dirty sectors and its data.
    c.allocate(0x200); // set 0, way 1
    c.lookup(0x200);
    const auto v = c.allocate(0x300); // set 0 again: 0x100 is LRU
    REQUIRE(v.valid);
    CHECK(v.line_addr == 0x100);
    CHECK(v.dirty);
    CHECK(v.valid_sectors == 0xf);
    CHECK(v.dirty_sectors == 0x3);
    CHECK(v.data[0x1e] == 0xa0);
    CHECK(v.data[0x20] == 0x80);
    CHECK(c.dirty_count() == 0);

    // flush hands out the dirty mask.
    c.set_valid(0x300, 0x8);
    c.write(0x364, w, 4, true);
    std::vector<vgpu::cache::sector_mask> masks;
    c.flush([&](std::uint64_t line, const std::uint8_t*, vgpu::cache::sector_mask d) {
        CHECK(line == 0x300);
        masks.push_back(d);
    });
    CHECK(masks == std::vector<vgpu::cache::sector_mask>{0x8});

    CHECK_THROWS_AS(cache_array(2, 2, 128, {}, 48), std::invalid_argument);
    CHECK_THROWS_AS(cache_array(2, 2, 128, {}, 256), std::invalid_argument);
    CHECK_THROWS_WITH(cache_array(2, 2, 4096, {}, 32), Catch::Contains("at most 64 sectors"));
    CHECK(cache_array(2, 2, 4096, {}, 64).all_sectors() == ~vgpu::cache::sector_mask{0});
}

TEST_CASE("cache_array pinned lines are never replaced, arrival times per sector")
{
    cache_array c(1, 2, 64, {}, 16);
    c.allocate(0x000);
    c.allocate(0x040);
    c.lookup(0x000); // 0x040 is LRU
    c.set_valid(0x040, 0x1);
    const std::uint8_t one = 1;
    c.write(0x040, &one, 1, true);
    CHECK(c.victim_dirty(0x080));
    c.pin(0x040, true);
    CHECK_FALSE(c.victim_dirty(0x080)); // the choice moves to 0x000 (clean)
    CHECK(c.can_allocate(0x080));
    CHECK(c.allocate(0x080).line_addr == 0x000);
    c.pin(0x080, true);
    CHECK_FALSE(c.can_allocate(0x0c0));
    CHECK_THROWS_WITH(c.allocate(0x0c0), Catch::Contains("pinned"));
    c.pin(0x040, false);
    CHECK(c.allocate(0x0c0).line_addr == 0x040);
    CHECK_THROWS_AS(c.pin(0x040, true), std::logic_error); // no longer resident

    // Arrival times: the latest of the sectors asked, 0 for none, cleared by a new allocation.
    CHECK(c.ready(0x080, 0xf) == 0);
    c.set_ready(0x080, 0x3, 100);
    c.set_ready(0x080, 0x2, 150);
    c.set_ready(0x080, 0x8, 120);
    CHECK(c.ready(0x080, 0x1) == 100);
    CHECK(c.ready(0x080, 0x3) == 150);
    CHECK(c.ready(0x080, 0x9) == 120);
    CHECK(c.ready(0x080, 0x4) == 0);
    CHECK(c.ready(0x100, 0xf) == 0); // absent
    c.pin(0x080, false);
    c.lookup(0x0c0);
    c.allocate(0x100); // replaces 0x080 (LRU)
    CHECK(c.ready(0x100, 0xf) == 0);
}

TEST_CASE("cache_array hot path does not allocate")
{
    cache_array c(16, 4, 64);
    std::uint64_t word = 0;
    const std::uint64_t before = g_test_allocations;
    for (std::uint64_t i = 0; i < 10000; ++i) {
        const std::uint64_t a = (i * 2654435761u) % (1u << 16) & ~7ull;
        if (!c.lookup(a)) {
            c.allocate(a);
            c.set_valid(a, c.all_sectors());
        }
        c.write(a, &i, 8, true);
        c.read(a, &word, 8);
    }
    c.invalidate(0);
    REQUIRE(g_test_allocations == before);
}

namespace {

/// Reference: per set a std::list of resident lines, most recently used first.
struct reference_cache {
    struct line {
        std::uint64_t addr;
        bool dirty;
    };
    std::vector<std::list<line>> sets;
    unsigned ways;

    reference_cache(unsigned n_sets, unsigned n_ways) : sets(n_sets), ways(n_ways) {}

    std::list<line>::iterator find(unsigned set, std::uint64_t addr)
    {
        for (auto it = sets[set].begin(); it != sets[set].end(); ++it) {
            if (it->addr == addr)
                return it;
        }
        return sets[set].end();
    }
};

void random_against_reference(unsigned n_sets, unsigned n_ways, unsigned line_bytes,
                              vgpu::cache::index_fn index, std::uint64_t seed)
{
    std::cout << "cache_array random test: sets " << n_sets << " ways " << n_ways << " seed "
              << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    cache_array c(n_sets, n_ways, line_bytes, index);
    reference_cache ref(n_sets, n_ways);

    // Lines drawn from 4x the capacity, so hits, misses, evictions and conflicts all occur.
    const std::uint64_t lines = 4ull * n_sets * n_ways;
    std::map<std::uint64_t, std::uint8_t> golden;  // last value written to each byte
    std::map<std::uint64_t, std::uint8_t> backing; // what the next level holds
    auto mem = [](const std::map<std::uint64_t, std::uint8_t>& m, std::uint64_t a) {
        auto it = m.find(a);
        return it == m.end() ? std::uint8_t{0} : it->second;
    };
    auto check_victim = [&](const cache_array::victim& v, const reference_cache::line& r) {
        REQUIRE(v.valid);
        REQUIRE(v.line_addr == r.addr);
        REQUIRE(v.dirty == r.dirty);
        // Each line lives in one place, so a victim (dirty or clean) holds the last write.
        bool same = true;
        for (unsigned i = 0; i < line_bytes; ++i)
            same = same && v.data[i] == mem(golden, r.addr + i);
        REQUIRE(same);
    };
    auto write_back = [&](const cache_array::victim& v) {
        if (v.dirty) {
            for (unsigned i = 0; i < line_bytes; ++i)
                backing[v.line_addr + i] = v.data[i];
        }
    };

    std::vector<std::uint8_t> buf(line_bytes);
    std::uint64_t hits = 0, evictions = 0, dirty_evictions = 0;
    for (int op = 0; op < 100000; ++op) {
        // Victim questions about a random line (the array remembers its last victim choice;
        // every change of a set must make it choose again).
        if (rng() % 2) {
            const std::uint64_t q = (rng() % lines) * line_bytes;
            const auto& qs = ref.sets[c.set_of(q)];
            if (rng() % 2)
                c.prefetch_victim(q);
            REQUIRE(c.can_allocate(q));
            REQUIRE(c.victim_dirty(q) == (qs.size() == n_ways && qs.back().dirty));
        }
        const std::uint64_t line = (rng() % lines) * line_bytes;
        const unsigned set = c.set_of(line);
        auto it = ref.find(set, line);
        const unsigned r = static_cast<unsigned>(rng() % 100);

        if (r < 3) { // invalidate
            const auto v = c.invalidate(line);
            REQUIRE(v.valid == (it != ref.sets[set].end()));
            if (v.valid) {
                write_back(v);
                check_victim(v, *it);
                ref.sets[set].erase(it);
            }
            continue;
        }

        const bool touch = r >= 5; // a few lookups that must not change the LRU order
        const auto way = c.lookup(line, touch);
        REQUIRE(way.has_value() == (it != ref.sets[set].end()));
        if (way) {
            ++hits;
            if (touch)
                ref.sets[set].splice(ref.sets[set].begin(), ref.sets[set], it);
        } else {
            if (ref.sets[set].size() == n_ways) {
                const auto v = c.allocate(line);
                ++evictions;
                dirty_evictions += v.dirty;
                write_back(v);
                check_victim(v, ref.sets[set].back());
                ref.sets[set].pop_back();
            } else {
                REQUIRE_FALSE(c.allocate(line).valid);
            }
            for (unsigned i = 0; i < line_bytes; ++i)
                buf[i] = mem(backing, line + i);
            c.fill(line, buf.data());
            ref.sets[set].push_front({line, false});
            it = ref.sets[set].begin();
        }

        const unsigned size = 1u << (rng() % 4);
        const std::uint64_t addr = line + (rng() % (line_bytes / size)) * size;
        if (rng() % 2) {
            for (unsigned i = 0; i < size; ++i) {
                buf[i] = static_cast<std::uint8_t>(rng());
                golden[addr + i] = buf[i];
            }
            c.write(addr, buf.data(), size, true);
            it->dirty = true;
        } else {
            c.read(addr, buf.data(), size);
            bool same = true;
            for (unsigned i = 0; i < size; ++i)
                same = same && buf[i] == mem(golden, addr + i);
            REQUIRE(same);
        }
    }

    unsigned valid = 0, dirty = 0;
    for (auto& s : ref.sets) {
        valid += static_cast<unsigned>(s.size());
        for (auto& l : s)
            dirty += l.dirty;
    }
    REQUIRE(c.valid_count() == valid);
    REQUIRE(c.dirty_count() == dirty);

    // After the kernel-boundary write-back, the next level holds every write.
    c.invalidate_all([&](std::uint64_t l, const std::uint8_t* data, vgpu::cache::sector_mask) {
        for (unsigned i = 0; i < line_bytes; ++i)
            backing[l + i] = data[i];
    });
    bool all_written_back = true;
    for (auto& [a, b] : golden)
        all_written_back = all_written_back && mem(backing, a) == b;
    REQUIRE(all_written_back);
    REQUIRE(hits > 10000);
    REQUIRE(dirty_evictions > 1000);
    REQUIRE(evictions > dirty_evictions);
}

} // namespace

TEST_CASE("cache_array matches a reference LRU model over 100k random accesses (modulo index)")
{
    random_against_reference(16, 4, 32, {}, vgpu::test::seed_or(20240601));
}

TEST_CASE("cache_array matches a reference LRU model over 100k random accesses (XOR index)")
{
    const auto xor_index = [](std::uint64_t line) {
        const std::uint64_t n = line >> 5;
        return static_cast<unsigned>(n ^ (n >> 3) ^ (n >> 6));
    };
    random_against_reference(8, 3, 32, xor_index, vgpu::test::seed_or(20240601) + 1);
}

TEST_CASE("cache_array repeated lookups of a line agree with a reference after every change")
{
    // find() remembers the slot it found last and the line it missed last: look the same
    // lines up again and again between allocations, invalidations and LRU touches.
    const std::uint64_t seed = vgpu::test::seed_or(20240601) + 2;
    std::cout << "cache_array repeated-lookup test: seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const unsigned sets = 4, ways = 3, line_bytes = 64;
    cache_array c(sets, ways, line_bytes, {}, 16);
    std::vector<std::list<std::uint64_t>> ref(sets); // resident lines, most recent first
    auto find = [&](std::uint64_t line) {
        auto& s = ref[(line / line_bytes) % sets];
        return std::find(s.begin(), s.end(), line);
    };
    const std::uint64_t pool = 5 * sets * ways; // lines drawn, so sets overflow
    unsigned allocations = 0, hits = 0;
    for (int op = 0; op < 50000; ++op) {
        const std::uint64_t line = (rng() % pool) * line_bytes;
        auto& set = ref[(line / line_bytes) % sets];
        const auto it = find(line);
        const bool resident = it != set.end();
        switch (rng() % 6) {
        case 0: // invalidate
            REQUIRE(c.invalidate(line + rng() % line_bytes).valid == resident);
            if (resident)
                set.erase(it);
            break;
        case 1:
        case 2: // lookup (touching or not), allocating on a miss
        {
            const bool touch = rng() % 4 != 0;
            REQUIRE(c.lookup(line, touch).has_value() == resident);
            if (resident) {
                ++hits;
                if (touch)
                    set.splice(set.begin(), set, it);
            } else {
                REQUIRE_FALSE(c.probe(line)); // looked up again right after the miss
                const auto v = c.allocate(line);
                ++allocations;
                REQUIRE(v.valid == (set.size() == ways));
                if (v.valid) {
                    REQUIRE(v.line_addr == set.back());
                    set.pop_back();
                }
                set.push_front(line);
                c.fill(line, pattern(line_bytes, 1).data(), 0x3);
            }
            break;
        }
        default: // state queries, several times over
            for (int k = 0; k < 3; ++k) {
                REQUIRE(c.probe(line + rng() % line_bytes) == resident);
                REQUIRE((c.valid_sectors(line) != 0) == resident);
            }
            break;
        }
        // Every line of the pool, in an order that alternates sets.
        if (op % 64 == 0) {
            for (std::uint64_t l = 0; l < pool; ++l) {
                const std::uint64_t a = ((l * 7) % pool) * line_bytes;
                REQUIRE(c.probe(a) == (find(a) != ref[(a / line_bytes) % sets].end()));
            }
        }
    }
    CHECK(allocations > 5000);
    CHECK(hits > 2000);
}
