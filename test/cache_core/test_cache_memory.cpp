// Host memory of cache_array and zeroed_pages: what a run touches costs memory, nothing else,
// and a fully used array takes what platforms/host_memory.h counts. See models/cache/README.md.
#include "models/cache/core/cache_array.h"
#include "models/cache/core/zeroed_pages.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

using vgpu::cache::cache_array;
using vgpu::cache::zeroed_pages;

namespace {
/// This process's resident memory now (VmRSS of /proc/self/status), in bytes.
std::uint64_t resident_bytes()
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoull(line.substr(6)) * 1024; // "VmRSS:   1234 kB"
    FAIL("no VmRSS in /proc/self/status");
    return 0;
}

// Sanitized builds keep shadow memory besides what the array uses.
#if defined(__SANITIZE_ADDRESS__)
constexpr double shadow_factor = 1.2;
#else
constexpr double shadow_factor = 1.0;
#endif
} // namespace

TEST_CASE("zeroed_pages: a large block reads zero, costs nothing until written, and moves")
{
    const std::size_t bytes = std::size_t{1} << 32; // 4 GiB of address space
    const std::uint64_t before = resident_bytes();
    zeroed_pages z(bytes);
    REQUIRE(z.size() == bytes);
    // Reading untouched pages maps the shared zero page, not memory of this process.
    std::uint64_t sum = 0;
    for (std::size_t off = 0; off < bytes; off += std::size_t{1} << 20)
        sum += z.data()[off];
    CHECK(sum == 0);
    for (std::size_t off = 0; off < bytes; off += std::size_t{1} << 24)
        z.data()[off] = 1; // 256 pages written
    CHECK(resident_bytes() < before + (16ull << 20));
    zeroed_pages moved(std::move(z));
    CHECK(z.empty());
    CHECK(z.data() == nullptr);
    CHECK(moved.data()[std::size_t{1} << 24] == 1);
    CHECK(moved.data()[(std::size_t{1} << 24) + 1] == 0);

    zeroed_pages small(100); // from the heap
    CHECK(small.data()[99] == 0);
    small = std::move(moved);
    CHECK(small.size() == bytes);
}

TEST_CASE("cache_array: a 4 GiB array costs memory only for the lines used, walks and all")
{
    const std::uint64_t before = resident_bytes();
    // 1 Mi sets x 16 ways x 256 B = 4 GiB of data, 640 MiB of line state.
    cache_array a(1u << 20, 16, 256, {}, 32);
    const std::vector<std::uint8_t> line(256, 0xab);
    // 2000 lines in sets 8193 apart (one per page of tags), and a full set at the top.
    for (std::uint64_t i = 0; i < 2000; ++i) {
        const std::uint64_t addr = i * (std::uint64_t{2} << 20) + i * 256;
        a.allocate(addr);
        a.fill(addr, line.data());
        a.set_ready(addr, a.all_sectors(), i + 1);
    }
    for (std::uint64_t w = 0; w < 16; ++w) {
        const std::uint64_t addr =
            ((std::uint64_t{1} << 20) - 1) * 256 + w * (std::uint64_t{1} << 28);
        a.allocate(addr);
        a.write_valid(addr, line.data(), 256, true);
    }
    CHECK(a.valid_count() == 2016);
    CHECK(a.entries_used() == 2016);
    CHECK(a.touched_sets() == 2001);
    unsigned visited = 0;
    a.for_each_valid(
        [&](std::uint64_t, vgpu::cache::sector_mask, const std::uint8_t*) { ++visited; });
    CHECK(visited == 2016);
    a.flush([](std::uint64_t, const std::uint8_t*, vgpu::cache::sector_mask) {});
    a.invalidate_all([](std::uint64_t, const std::uint8_t*, vgpu::cache::sector_mask) {});
    CHECK(a.valid_count() == 0);
    CHECK(a.touched_sets() == 0);
    // 2016 lines of 256 B with their state and arrival times, plus a page of tags per set: a
    // few MiB, nowhere near the array's 4.6 GiB.
    CHECK(resident_bytes() < before + static_cast<std::uint64_t>(shadow_factor * (32 << 20)));
}

TEST_CASE("cache_array: a way keeps its memory after invalidation and comes back zeroed")
{
    cache_array a(4, 2, 64, {}, 16);
    const std::vector<std::uint8_t> line(64, 0x5a);
    a.allocate(0x40);
    a.fill(0x40, line.data());
    a.set_ready(0x40, a.all_sectors(), 77);
    CHECK(a.entries_used() == 1);
    a.invalidate(0x40);
    CHECK(a.valid_count() == 0);
    // The same way (first invalid of set 1) takes the next line of the set, its bytes zeroed
    // and its arrival times cleared; no new memory is taken.
    a.allocate(0x140);
    CHECK(a.entries_used() == 1);
    CHECK(a.ready(0x140, a.all_sectors()) == 0);
    a.set_valid(0x140, a.all_sectors());
    std::uint8_t got[64];
    a.read(0x140, got, 64);
    CHECK(std::vector<std::uint8_t>(got, got + 64) == std::vector<std::uint8_t>(64, 0));
    // invalidate_all keeps the entries too.
    a.allocate(0x40);
    a.fill(0x40, line.data());
    CHECK(a.entries_used() == 2);
    a.invalidate_all([](std::uint64_t, const std::uint8_t*, vgpu::cache::sector_mask) {});
    CHECK(a.touched_sets() == 0);
    a.allocate(0x40);
    a.allocate(0x140);
    CHECK(a.entries_used() == 2);
    CHECK(a.valid_sectors(0x40) == 0);
    CHECK(a.ready(0x40, a.all_sectors()) == 0);
}

TEST_CASE("cache_array: every line used takes what the host-memory estimate counts per line")
{
    // platforms/host_memory.h counts line_bytes + state_bytes_per_line() per line, and in fast
    // mode ready_bytes_per_sector per sector: 128 + 40 + 4 x 8 = 200 B here.
    CHECK(cache_array::state_bytes_per_line() == 40);
    CHECK(cache_array::ready_bytes_per_sector == 8);
    const unsigned sets = 16384, ways = 8; // 131072 lines
    const double estimate = double(sets) * ways * (128 + 40 + 4 * 8);
    const std::uint64_t before = resident_bytes();
    cache_array a(sets, ways, 128, {}, 32);
    const std::vector<std::uint8_t> line(128, 1);
    for (std::uint64_t i = 0; i < std::uint64_t{sets} * ways; ++i) {
        a.allocate(i * 128);
        a.fill(i * 128, line.data());
        a.set_ready(i * 128, a.all_sectors(), i + 1);
    }
    CHECK(a.valid_count() == sets * ways);
    const double grown = double(resident_bytes() - before);
    INFO("estimate " << estimate << " B, grown " << grown << " B");
    // Within a few pages and the set bitmap of the estimate, and not far below it.
    CHECK(grown <= shadow_factor * estimate + (1 << 20));
    CHECK(grown >= 0.9 * estimate);
}

TEST_CASE("cache_array: prefetch_victim takes no entry and changes neither the victim nor a line")
{
    cache_array a(2, 2, 64, {}, 16);
    const std::vector<std::uint8_t> line(64, 0x3c);
    // Set 0 holds 0x00 (older) and 0x80 (newer); set 1 is empty.
    a.allocate(0x00);
    a.fill(0x00, line.data());
    a.allocate(0x80);
    a.fill(0x80, line.data());
    a.set_ready(0x80, a.all_sectors(), 9);
    a.prefetch_victim(0x100); // set 0: the LRU line 0x00
    a.prefetch_victim(0x40);  // set 1: the pool's next entry, not taken
    CHECK(a.entries_used() == 2);
    CHECK(a.valid_count() == 2);
    CHECK(a.ready(0x80, a.all_sectors()) == 9);
    // The LRU line is still the one replaced.
    const cache_array::victim v = a.allocate(0x100);
    CHECK(v.valid);
    CHECK(v.line_addr == 0x00);
    CHECK(std::vector<std::uint8_t>(v.data, v.data + 64) == line);
    a.allocate(0x40);
    CHECK(a.entries_used() == 3);
}
