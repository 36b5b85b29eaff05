// Unit tests of the page-table format (models/common/page_table.h) with hand-computed entries
// and layouts. See docs/architecture.md ("Address spaces").
#include "models/common/page_table.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>

namespace pt = vgpu::page_table;

TEST_CASE("leaf entries: bit 0 present, 1 writable, 2 read-only hint, 3..8 home, 12..63 frame")
{
    CHECK(pt::encode(0x12345000, true) == 0x12345003);
    CHECK(pt::encode(0x12345000, false) == 0x12345001);
    CHECK(pt::encode(0xabc00000000, true) == 0xabc00000003);
    CHECK(pt::encode(0x7000, false, true, 5) == 0x7000 + 1 + 4 + (5 << 3));
    CHECK(pt::entry_bytes == 8);

    const pt::entry rw = pt::decode(0x12345003, 4096);
    CHECK(rw.present);
    CHECK(rw.writable);
    CHECK_FALSE(rw.read_only);
    CHECK(rw.home == 0);
    CHECK(rw.frame == 0x12345000);
    const pt::entry ro = pt::decode(0x7000000 + 1 + 4 + (63 << 3), 4096);
    CHECK(ro.present);
    CHECK_FALSE(ro.writable);
    CHECK(ro.read_only);
    CHECK(ro.home == 63);
    CHECK(ro.frame == 0x7000000);
    CHECK_FALSE(pt::decode(0, 4096).present);
    CHECK_FALSE(pt::decode(0x12345002, 4096).present); // writable alone is not mapped
    // With 64 KiB pages, frame bits below the page size are ignored.
    CHECK(pt::decode(0x12345003, 65536).frame == 0x12340000);
}

TEST_CASE("radix layout: 4 KiB nodes of 512 entries, the root decodes what is left")
{
    CHECK(pt::levels(4096) == 3);    // 20 VPN bits: 2 + 9 + 9
    CHECK(pt::levels(65536) == 2);   // 16: 7 + 9
    CHECK(pt::levels(1 << 21) == 2); // 11: 2 + 9
    CHECK(pt::level_shift(0, 4096) == 30);
    CHECK(pt::level_shift(1, 4096) == 21);
    CHECK(pt::level_shift(2, 4096) == 12);
    CHECK(pt::level_shift(0, 65536) == 25);
    CHECK(pt::level_shift(1, 65536) == 16);
    // VA 0x10003abc, 4 KiB pages: indices 0, 0x080 (bits 21..29), 0x003 (bits 12..20).
    CHECK(pt::entry_address(0x1000, 0x10003abc, 0, 4096) == 0x1000);
    CHECK(pt::entry_address(0x2000, 0x10003abc, 1, 4096) == 0x2000 + 0x80 * 8);
    CHECK(pt::entry_address(0x3000, 0x10003abc, 2, 4096) == 0x3000 + 3 * 8);
    CHECK(pt::entry_address(0, 0xc0000000, 0, 4096) == 3 * 8);
    CHECK(pt::prefix(0x10003abc, 1, 4096) == 0x080);
    CHECK(pt::prefix(0x10003abc, 2, 4096) == 0x10003);
    CHECK(pt::vpn_of(0x10003abc, 4096) == 0x10003);
    CHECK(pt::covers(0xffffffff));
    CHECK_FALSE(pt::covers(0x100000000));
    CHECK(pt::physical(pt::decode(0x12345003, 4096), 0x10003abc, 4096) == 0x12345abc);
    CHECK(pt::valid_page_bytes(4096));
    CHECK(pt::valid_page_bytes(1 << 21));
    CHECK_FALSE(pt::valid_page_bytes(2048));
    CHECK_FALSE(pt::valid_page_bytes(12288));
    CHECK_FALSE(pt::valid_page_bytes(1ull << 32));
}

TEST_CASE("builder: nodes from the pool in order of need, entries a hand walk finds")
{
    pt::builder b(0x10000, 4096);
    b.map(0x10003000, pt::encode(0x500000, true));
    b.map(0x10004000, pt::encode(0x501000, false)); // same leaf node
    b.map(0xc0000000, pt::encode(0x502000, true));  // another root entry: two more nodes
    CHECK(b.root() == 0x10000);
    CHECK(b.bytes() == 5 * 4096);
    const std::map<std::uint64_t, std::uint64_t> expected = {
        {0x10000 + 0 * 8, 0x11000 | 1},    // root[0] -> node 1 (level 1)
        {0x11000 + 0x80 * 8, 0x12000 | 1}, // node 1 [0x80] -> node 2 (leaf)
        {0x12000 + 3 * 8, 0x500000 | 3},   // leaf [3]
        {0x12000 + 4 * 8, 0x501000 | 1},   // leaf [4]
        {0x10000 + 3 * 8, 0x13000 | 1},    // root[3] -> node 3
        {0x13000 + 0 * 8, 0x14000 | 1},    // node 3 [0] -> node 4
        {0x14000 + 0 * 8, 0x502000 | 3},   // leaf [0]
    };
    CHECK(b.entries() == expected);
    std::map<std::uint64_t, std::uint64_t> vpns = {{0x10003, 0}, {0x10004, 0}, {0xc0000, 0}};
    CHECK(pt::builder::bytes_for(vpns, 4096) == b.bytes());
}

TEST_CASE("walk: a random set of pages is found, unmapped pages are not, reads counted")
{
    const unsigned seed = Catch::rngSeed() != 0 ? Catch::rngSeed() : 7u;
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (std::uint64_t page : {4096ull, 65536ull, 1ull << 21}) {
        pt::builder b(0x40000000, page);
        std::map<std::uint64_t, std::uint64_t> mapped; // vpn -> raw
        for (unsigned i = 0; i < 300; ++i) {
            const std::uint64_t vpn = rng() % (pt::va_limit / page);
            const std::uint64_t raw = pt::encode((rng() % 1000000) * page, rng() % 2 == 0);
            mapped[vpn] = raw;
            b.map(vpn * page, raw);
        }
        CHECK(pt::builder::bytes_for(mapped, page) == b.bytes());
        const auto read = [&](std::uint64_t pa, std::uint64_t& raw) {
            auto it = b.entries().find(pa);
            raw = it == b.entries().end() ? 0 : it->second;
            return true;
        };
        for (unsigned i = 0; i < 2000; ++i) {
            const std::uint64_t vpn = rng() % (pt::va_limit / page);
            const std::uint64_t va = vpn * page + rng() % page;
            unsigned reads = 0;
            const auto leaf = pt::walk(b.root(), va, page, read, &reads);
            auto it = mapped.find(vpn);
            INFO("page " << page << " va " << va);
            REQUIRE(leaf.has_value() == (it != mapped.end()));
            if (leaf) {
                CHECK(*leaf == it->second);
                CHECK(reads == pt::levels(page));
            }
        }
        for (const auto& [vpn, raw] : mapped)
            REQUIRE(pt::walk(b.root(), vpn * page, page, read) ==
                    std::optional<std::uint64_t>(raw));
    }
    // A read that fails ends the walk.
    CHECK_FALSE(pt::walk(0, 0, 4096, [](std::uint64_t, std::uint64_t&) { return false; }));
}
