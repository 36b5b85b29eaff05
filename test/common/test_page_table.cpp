// Unit tests of the page-table format (models/common/page_table.h) with hand-computed entries.
// See docs/architecture.md ("Address spaces").
#include "models/common/page_table.h"

#include <catch2/catch.hpp>

#include <cstdint>

namespace pt = vgpu::page_table;

TEST_CASE("page-table entries: bit 0 present, bit 1 writable, bits 12..63 the frame")
{
    CHECK(pt::encode(0x12345000, true) == 0x12345003);
    CHECK(pt::encode(0x12345000, false) == 0x12345001);
    CHECK(pt::encode(0xabc00000000, true) == 0xabc00000003);
    CHECK(pt::entry_bytes == 8);

    const pt::entry rw = pt::decode(0x12345003, 4096);
    CHECK(rw.present);
    CHECK(rw.writable);
    CHECK(rw.frame == 0x12345000);
    const pt::entry ro = pt::decode(0x7000001, 4096);
    CHECK(ro.present);
    CHECK_FALSE(ro.writable);
    CHECK(ro.frame == 0x7000000);
    CHECK_FALSE(pt::decode(0, 4096).present);
    CHECK_FALSE(pt::decode(0x12345002, 4096).present); // writable alone is not mapped
    // With 64 KiB pages, frame bits below the page size are ignored.
    CHECK(pt::decode(0x12345003, 65536).frame == 0x12340000);
}

TEST_CASE("page-table layout: entry at ptbr + vpn * 8, the whole 32-bit space covered")
{
    CHECK(pt::vpn_of(0x10003abc, 4096) == 0x10003);
    CHECK(pt::entry_address(0, 0x10003) == 0x80018);
    CHECK(pt::entry_address(0x400000, 1) == 0x400008);
    CHECK(pt::table_bytes(4096) == 8u << 20); // 2^20 pages x 8 bytes = 8 MiB
    CHECK(pt::table_bytes(65536) == 512u << 10);
    CHECK(pt::covers(0xffffffff));
    CHECK_FALSE(pt::covers(0x100000000));
    CHECK(pt::physical(pt::decode(0x12345003, 4096), 0x10003abc, 4096) == 0x12345abc);
    CHECK(pt::valid_page_bytes(4096));
    CHECK(pt::valid_page_bytes(1 << 21));
    CHECK_FALSE(pt::valid_page_bytes(2048));
    CHECK_FALSE(pt::valid_page_bytes(12288));
}
