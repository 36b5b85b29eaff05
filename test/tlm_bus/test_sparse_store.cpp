// Unit tests of the sparse backing store. See tlm_bus/sparse_store.h.
#include "tlm_bus/sparse_store.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

using vgpu::tlm_bus::sparse_store;

TEST_CASE("sparse store: unwritten bytes read zero, pages count on first write")
{
    sparse_store s;
    std::vector<std::uint8_t> buf(10000, 0xaa);
    s.read(0x123456789, buf.data(), buf.size());
    for (auto b : buf)
        REQUIRE(b == 0);
    CHECK(s.pages() == 0);
    // A write across a 2 MiB boundary: the last page below it and the first above.
    const std::uint64_t edge = 2 * 1024 * 1024;
    const std::uint32_t v = 0x11223344;
    s.write(edge - 2, &v, 4);
    CHECK(s.pages() == 2);
    std::uint32_t got = 0;
    s.read(edge - 2, &got, 4);
    CHECK(got == v);
    // Its neighbours on the same pages are still zero; so is a page beside them.
    std::uint8_t z[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    s.read(edge + 2, z, 8);
    for (auto b : z)
        CHECK(b == 0);
    s.read(edge + 4096, z, 8);
    for (auto b : z)
        CHECK(b == 0);
    s.write(edge + 10, &v, 4); // same page again: no new page
    CHECK(s.pages() == 2);
    // page() hands out zeroed storage, counts it once and keeps what is written through it.
    std::uint8_t* p = s.page(5 * 4096 + 7);
    CHECK(s.pages() == 3);
    for (int i = 0; i < 4096; ++i)
        REQUIRE(p[i] == 0);
    p[7] = 0x5a;
    std::uint8_t one = 0;
    s.read(5 * 4096 + 7, &one, 1);
    CHECK(one == 0x5a);
    CHECK(s.page(5 * 4096) == p);
    CHECK(s.pages() == 3);
}

TEST_CASE("sparse store: random writes and reads match a byte map")
{
    const unsigned seed = 7;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    sparse_store s;
    std::map<std::uint64_t, std::uint8_t> ref;
    const std::uint64_t span = 64ull << 20; // 64 MiB: many chunks
    for (int i = 0; i < 3000; ++i) {
        // Low addresses (the directly indexed chunks) and above 1 TiB (the mapped ones).
        const std::uint64_t base = rng() % 2 ? 0 : std::uint64_t{1} << 40;
        const std::uint64_t addr = base + rng() % span, len = 1 + rng() % 9000;
        std::vector<std::uint8_t> data(len);
        if (rng() % 2) {
            for (auto& b : data)
                b = static_cast<std::uint8_t>(rng());
            s.write(addr, data.data(), len);
            for (std::uint64_t k = 0; k < len; ++k)
                ref[addr + k] = data[k];
        } else {
            s.read(addr, data.data(), len);
            for (std::uint64_t k = 0; k < len; ++k) {
                auto it = ref.find(addr + k);
                REQUIRE(data[k] == (it == ref.end() ? 0 : it->second));
            }
        }
    }
    std::map<std::uint64_t, bool> pages;
    for (const auto& [a, b] : ref)
        pages[a / 4096] = true;
    CHECK(s.pages() == pages.size());
}

TEST_CASE("sparse store: a buffer written in address order reads back whole across chunks")
{
    // The driver's load: 5 MiB in address order from an unaligned start, so the chunks after
    // the first are taken once the one before is dense (huge pages where the host has them);
    // then sparse writes into the chunks past the buffer.
    sparse_store s;
    const std::uint64_t start = 0x1234, bytes = 5ull << 20;
    std::vector<std::uint8_t> data(bytes);
    for (std::uint64_t k = 0; k < bytes; ++k)
        data[k] = static_cast<std::uint8_t>(k * 7 + k / 4096);
    for (std::uint64_t k = 0; k < bytes; k += 128)
        s.write(start + k, data.data() + k, std::min<std::uint64_t>(128, bytes - k));
    const std::uint64_t end = start + bytes;
    const std::uint32_t v = 0xcafe0001;
    s.write(end + 4096, &v, 4);      // a page after the buffer, in its last chunk
    s.write(end + (3 << 20), &v, 4); // a chunk past it
    std::vector<std::uint8_t> got(bytes);
    s.read(start, got.data(), bytes);
    CHECK(got == data);
    std::uint32_t w = 0;
    s.read(end + (3 << 20), &w, 4);
    CHECK(w == v);
    std::uint8_t z[64] = {1};
    s.read(end + (3 << 20) + 4096, z, sizeof z); // unwritten: zero
    for (auto b : z)
        CHECK(b == 0);
    CHECK(s.pages() == (start + bytes - 1) / 4096 - start / 4096 + 1 + 2);
}

TEST_CASE("sparse store: a prefetch allocates nothing and changes no byte")
{
    sparse_store s;
    s.prefetch(0x40000, 128); // no page there: nothing to bring in, and none is made
    CHECK(s.pages() == 0);
    const std::uint64_t v = 0x0102030405060708;
    s.write(0x40000 + 4090, &v, 8);  // across a page boundary
    s.prefetch(0x40000 + 4000, 200); // to the page's end only
    s.prefetch(0x40000 + 4096, 0);
    CHECK(s.pages() == 2);
    std::uint64_t got = 0;
    s.read(0x40000 + 4090, &got, 8);
    CHECK(got == v);
}
