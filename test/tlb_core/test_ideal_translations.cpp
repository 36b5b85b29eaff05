// Unit tests of the ideal model's shared translations. See models/tlb/core/ideal_translations.h.
#include "models/tlb/core/ideal_translations.h"

#include <catch2/catch.hpp>

using vgpu::tlb::ideal_translations;

TEST_CASE("ideal translations: kept per page until a newer epoch, another table or a shootdown")
{
    ideal_translations t;
    CHECK(t.find(1, 0x1000, 7) == 0); // nothing known yet
    t.insert(7, 0x70001);
    t.insert(8, 0x80001);
    t.insert(9, 0x90001);
    CHECK(t.find(1, 0x1000, 7) == 0x70001);
    // An SM still in an older epoch of the same table sees the same entries.
    CHECK(t.find(0, 0x1000, 8) == 0x80001);
    // A shootdown of pages 8..9 drops those two only.
    t.invalidate(8, 9, false);
    CHECK(t.find(1, 0x1000, 7) == 0x70001);
    CHECK(t.find(1, 0x1000, 8) == 0);
    CHECK(t.find(1, 0x1000, 9) == 0);
    CHECK(t.size() == 1);
    // A newer epoch drops everything (the driver may have remapped between kernels).
    CHECK(t.find(2, 0x1000, 7) == 0);
    t.insert(7, 0x70003);
    CHECK(t.find(2, 0x1000, 7) == 0x70003);
    // Another page table drops everything too.
    CHECK(t.find(2, 0x2000, 7) == 0);
    t.insert(7, 0x71001);
    t.insert(5, 0x51001);
    // A shootdown of every page.
    t.invalidate(0, 0, true);
    CHECK(t.size() == 0);
    CHECK(t.find(2, 0x2000, 5) == 0);
}
