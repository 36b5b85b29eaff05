// Shell tests of the ideal translation stage: VA -> PA, faults, PTE cache flush per epoch,
// debug transport. See models/sm/README.md.
#include "models/common/page_table.h"
#include "models/sm/xlate.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/router.h"

#include <catch2/catch.hpp>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr std::uint64_t ptbr = 0x1000;

/// initiator -> checker -> xlate -> checker -> router -> checker -> memory; walk -> router.
struct bench {
    test::test_initiator init{"init"};
    sm::xlate xl{"xl", 4096};
    tlm_bus::router bus{"bus"};
    tlm_bus::memory ram{"ram", params()};
    page_table::builder table{ptbr, 4096}; ///< nodes from ptbr on, below the test's frames
    tlm_bus::protocol_checker pc_in{"pc_in"}, pc_out{"pc_out"}, pc_walk{"pc_walk"},
        pc_ram{"pc_ram"};
    bench()
    {
        tlm_bus::bind_checked(init.mem, pc_in, xl.in);
        tlm_bus::bind_checked(xl.out, pc_out, bus.in);
        tlm_bus::bind_checked(xl.walk, pc_walk, bus.in);
        tlm_bus::bind_checked(bus.out, pc_ram, ram.in);
        bus.map({0, 1 << 20, 0, 0, "ram"});
    }
    static tlm_bus::memory_params params()
    {
        tlm_bus::memory_params p;
        p.size = 1 << 20;
        p.latency = sc_time(10, SC_NS);
        p.dmi = false;
        return p;
    }
    void map(std::uint64_t va, std::uint64_t pa, bool writable)
    {
        table.map(va, vgpu::page_table::encode(pa, writable));
        for (const auto& [at, raw] : table.entries())
            ram.store().write(at, &raw, 8);
    }
    std::size_t violations() const
    {
        return pc_in.violations() + pc_out.violations() + pc_walk.violations() +
               pc_ram.violations();
    }
};

tlm_bus::gpu_extension ctx(std::uint32_t epoch)
{
    tlm_bus::gpu_extension e;
    e.epoch = epoch;
    e.ptbr = ptbr;
    e.sm = 0;
    return e;
}

std::uint32_t peek(bench& tb, std::uint64_t pa)
{
    std::uint32_t v = 0;
    tb.ram.store().read(pa, &v, 4);
    return v;
}
} // namespace

TEST_CASE("xlate maps virtual to physical pages and faults on absent or read-only pages")
{
    bench tb;
    tb.map(0x5000, 0x20000, true);
    tb.map(0x6000, 0x31000, false);
    const std::uint32_t seed = 0xabcd1234;
    tb.ram.store().write(0x31004, &seed, 4);
    tlm::tlm_response_status st[4];
    std::uint32_t got = 0;
    tb.init.body = [&](test::test_initiator& i) {
        const auto e = ctx(1);
        sc_time d = sc_core::SC_ZERO_TIME;
        std::uint32_t v = 0x11223344;
        st[0] = i.mem.access(tlm::TLM_WRITE_COMMAND, 0x5008, &v, 4, d, &e);
        st[1] = i.mem.access(tlm::TLM_READ_COMMAND, 0x6004, &got, 4, d, &e);
        st[2] = i.mem.access(tlm::TLM_WRITE_COMMAND, 0x6000, &v, 4, d, &e);
        st[3] = i.mem.access(tlm::TLM_READ_COMMAND, 0x7000, &v, 4, d, &e);
        // Two accesses reached the memory (10 ns + 4 bytes at 16 B/ns each); translation is free.
        CHECK(d == sc_time(20.5, SC_NS));
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(st[0] == tlm::TLM_OK_RESPONSE);
    CHECK(peek(tb, 0x20008) == 0x11223344u);
    CHECK(st[1] == tlm::TLM_OK_RESPONSE);
    CHECK(got == seed);
    CHECK(st[2] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(st[3] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(tb.xl.translations() == 4);
    CHECK(tb.xl.faults() == 2);
    CHECK(tb.ram.writes() == 1);
}

TEST_CASE("xlate caches PTEs within an epoch and flushes them on a new epoch or page table")
{
    bench tb;
    tb.map(0x5000, 0x20000, true);
    const std::uint32_t old_v = 1, new_v = 2;
    tb.ram.store().write(0x20000, &old_v, 4);
    tb.ram.store().write(0x40000, &new_v, 4);
    std::uint32_t r[4] = {};
    std::uint64_t reads_after[4] = {};
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        auto e = ctx(1);
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &r[0], 4, d, &e);
        reads_after[0] = tb.xl.pte_reads();
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &r[1], 4, d, &e);
        reads_after[1] = tb.xl.pte_reads();
        tb.map(0x5000, 0x40000, true); // the driver remaps behind the cache
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &r[2], 4, d, &e);
        reads_after[2] = tb.xl.pte_reads();
        e = ctx(2);
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &r[3], 4, d, &e);
        reads_after[3] = tb.xl.pte_reads();
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(r[0] == 1u);
    CHECK(r[1] == 1u);
    CHECK(r[2] == 1u); // same epoch: the cached PTE still applies
    CHECK(r[3] == 2u); // new epoch: flushed, the new PTE is read
    // A walk reads one entry per level: 3 with 4 KiB pages.
    CHECK(reads_after[0] == 3);
    CHECK(reads_after[1] == 3);
    CHECK(reads_after[2] == 3);
    CHECK(reads_after[3] == 6);
    CHECK(tb.xl.flushes() == 2);
}

TEST_CASE("xlate translates debug accesses without side effects and clips them to the page")
{
    bench tb;
    tb.map(0x5000, 0x20000, true);
    std::uint8_t pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    tb.ram.store().write(0x20ff8, pattern, 8);
    unsigned n[3] = {};
    std::uint8_t buf[16] = {};
    tb.init.body = [&](test::test_initiator& i) {
        auto debug = [&](tlm::tlm_command cmd, std::uint64_t va, void* data, unsigned len) {
            tlm::tlm_generic_payload gp;
            auto* e = new tlm_bus::gpu_extension(ctx(1));
            gp.set_extension(e);
            gp.set_command(cmd);
            gp.set_address(va);
            gp.set_data_ptr(static_cast<unsigned char*>(data));
            gp.set_data_length(len);
            gp.set_streaming_width(len);
            return i.mem->transport_dbg(gp);
        };
        n[0] = debug(tlm::TLM_READ_COMMAND, 0x5ff8, buf, 16);
        std::uint32_t v = 0x55aa55aa;
        n[1] = debug(tlm::TLM_WRITE_COMMAND, 0x5010, &v, 4);
        n[2] = debug(tlm::TLM_READ_COMMAND, 0x9000, &v, 4);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.violations() == 0);
    CHECK(n[0] == 8u);
    CHECK(std::equal(pattern, pattern + 8, buf));
    CHECK(n[1] == 4u);
    CHECK(peek(tb, 0x20010) == 0x55aa55aau);
    CHECK(n[2] == 0u);
    CHECK(tb.xl.translations() == 0);
    CHECK(tb.xl.pte_reads() == 0);
    CHECK(tb.xl.faults() == 0);
    CHECK(tb.ram.reads() + tb.ram.writes() == 0);
}
