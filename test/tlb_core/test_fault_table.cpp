// Unit tests of the fault-coalescing table. See models/tlb/core/fault_table.h.
#include "models/tlb/core/fault_table.h"

#include <catch2/catch.hpp>

using namespace vgpu::tlb;

TEST_CASE("256 warps faulting on one page make one record, and all replay when it is serviced")
{
    fault_table f;
    std::vector<std::uint64_t> expected;
    for (std::uint64_t w = 0; w < 256; ++w) {
        CHECK(f.add(7, w) == (w == 0));
        expected.push_back(w);
    }
    CHECK(f.add(9, 1000)); // another page: its own record
    CHECK(f.pages() == 2);
    CHECK(f.waiting() == 257);
    CHECK(f.records() == 2);
    CHECK(f.coalesced() == 255);
    CHECK(f.complete(7) == expected); // in arrival order
    CHECK_FALSE(f.pending(7));
    CHECK(f.pending(9));
    CHECK(f.waiting() == 1);
    CHECK(f.complete(7).empty()); // nothing pending any more
    // A page faulting again after its service (evicted, say) is a new record.
    CHECK(f.add(7, 5));
    CHECK(f.records() == 3);
    CHECK(f.complete(9) == std::vector<std::uint64_t>{1000});
    CHECK(f.complete(7) == std::vector<std::uint64_t>{5});
    CHECK(f.pages() == 0);
    CHECK(f.waiting() == 0);
}
