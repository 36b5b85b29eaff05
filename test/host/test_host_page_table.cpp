// The host's page table and the shadow thread's decision per fault record (seed 003, steps 52
// and 54): every branch, each written from the patent's flow chart. See models/host/README.md
// ("Page faults").
#include "models/host/host_page_table.h"

#include <catch2/catch.hpp>

using namespace vgpu::host;

TEST_CASE("host page table: the type decides first, then the repeated access (steps 52, 54)")
{
    host_page_table t;
    t.declare(10, true, false);  // a writable page, never brought in
    t.declare(11, false, false); // read-only
    t.declare(12, true, true);   // copy-on-write
    // 52 -> 58: an other exception never looks at the table, declared page or not.
    CHECK(t.decide(record_type::other, 10, false) == fault_step::other_exception);
    CHECK(t.decide(record_type::other, 99, true) == fault_step::other_exception);
    // 54: no allocation holds page 99.
    CHECK(t.decide(record_type::not_present, 99, false) == fault_step::not_mapped);
    // Absent pages are allocated; a store to a read-only page is refused even before it is in.
    CHECK(t.decide(record_type::not_present, 10, true) == fault_step::allocate);
    CHECK(t.decide(record_type::not_present, 11, false) == fault_step::allocate);
    CHECK(t.decide(record_type::not_present, 11, true) == fault_step::protection);
    CHECK(t.decide(record_type::not_present, 12, true) == fault_step::allocate);
    // Present: the repeated access succeeds (another shadow thread brought the page in), a
    // store to a copy-on-write page copies it, a store to a read-only one is refused.
    t.present(10);
    t.present(11);
    t.present(12);
    CHECK(t.decide(record_type::not_present, 10, true) == fault_step::resolved);
    CHECK(t.decide(record_type::protection, 11, false) == fault_step::resolved);
    CHECK(t.decide(record_type::protection, 11, true) == fault_step::protection);
    CHECK(t.decide(record_type::protection, 12, false) == fault_step::resolved);
    CHECK(t.decide(record_type::protection, 12, true) == fault_step::copy_on_write);
    t.copied(12);
    CHECK(t.decide(record_type::protection, 12, true) == fault_step::resolved);
    // Swapped out: brought back (swap in), for loads and stores alike.
    t.swap_out(10);
    CHECK(t.decide(record_type::not_present, 10, false) == fault_step::swap_in);
    CHECK(t.find(10)->state == host_page_state::swapped);
    CHECK(t.size() == 3);
    // Only the handler's steps cost host.fault_latency.
    CHECK(runs_handler(fault_step::allocate));
    CHECK(runs_handler(fault_step::swap_in));
    CHECK(runs_handler(fault_step::copy_on_write));
    CHECK(runs_handler(fault_step::protection));
    CHECK_FALSE(runs_handler(fault_step::resolved));
    CHECK_FALSE(runs_handler(fault_step::other_exception));
    CHECK_FALSE(runs_handler(fault_step::not_mapped));
}
