// Shell tests of the CDL unit on the SM (models/cdl/cdl_unit.h): both forms in both modes.
// See models/sm/README.md.
#include "models/cdl/cdl_unit.h"
#include "test/sm/sm_bench.h"

using namespace vgpu::test::sm_bench;

namespace {
/// The bench with a CBV table whose slot 0 holds `dwords` dwords at va (value i + 1 at i).
struct cdl_bench : bench {
    cdl::cbv_table cbvs{"cbvs", 4};
    test::test_initiator host{"host"}; ///< on the table's register window (set model side)
    tlm_bus::protocol_checker pc_cbv{"pc_cbv"};
    cdl_bench(bool accurate, std::uint64_t va, unsigned dwords)
        : bench(default_cfg(), accurate, 100)
    {
        host.body = [](test::test_initiator&) {};
        tlm_bus::bind_checked(host.mem, pc_cbv, cbvs.mmio);
        map(va, dwords * 4, false);
        for (unsigned i = 0; i < dwords; ++i)
            write32(va + 4 * i, i + 1);
        cbvs.program(0, {va, dwords * 4ull});
        cdl::cdl_config c;
        c.max_outstanding = 8;
        sm.attach_unit(cdl::cdl_unit::factory(cbvs, c));
    }
};

/// Loads 256 dwords with one bulk CDL (or 8 legacy CDLs), stores R16..R23 to out; returns
/// the CTA's end.
sc_time run_cdl(bool accurate, bool bulk)
{
    const std::uint64_t cbv_va = 0x40000, out = 0x60000;
    cdl_bench tb(accurate, cbv_va, 256);
    std::string text = "S2R R2, SR_LANEID\nSHL R2, R2, 2\nLDP R4, out\nIADD R7, R4, R2\n";
    if (bulk) {
        text += "CDL R16, 0, cbv[0], 256\n";
    } else {
        text += "MOV R8, R2\n";
        for (int k = 0; k < 8; ++k)
            text += "CDL R" + std::to_string(16 + k) + ", R8, cbv[0]\nIADD R8, R8, 128\n";
    }
    for (int k = 0; k < 8; ++k)
        text += "ST [R7+" + std::to_string(128 * k) + "], R" + std::to_string(16 + k) + "\n";
    text += "EXIT\n";
    const auto bytes = tb.load(text, {{"out", 0}});
    tb.map(out, 1024);
    tb.launch(bytes, 32, {static_cast<std::uint32_t>(out)});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    // Lane l of R16 + k holds dword 32 k + l of the CBV (value 32 k + l + 1).
    for (unsigned i = 0; i < 256; ++i)
        REQUIRE(tb.read32(out + 4 * i) == i + 1);
    CHECK(stat(bulk ? "sm_cdl.core.registers_written" : "sm_cdl.controller.legacy") ==
          (bulk ? 8 : 8));
    CHECK(stat("sm_cdl.core.line_reads", -1) == (bulk ? 1024 / line_bytes : 0));
    return tb.cp.dones[0].at;
}
} // namespace

TEST_CASE("cdl, fast: one bulk CDL loads 8 registers and ends before 8 legacy CDLs")
{
    const sc_time bulk = run_cdl(false, true);
    // Fetch, two rounds of 8 line reads (cdl.max_outstanding) and the stores, 100 ns each.
    CHECK(bulk > sc_time(400, SC_NS));
    CHECK(bulk < sc_time(500, SC_NS));
}

TEST_CASE("cdl, accurate: one bulk CDL loads 8 registers in LSU threads, in address order")
{
    const sc_time bulk = run_cdl(true, true);
    CHECK(bulk > sc_time(400, SC_NS));
    CHECK(bulk < sc_time(500, SC_NS));
}

TEST_CASE("cdl, fast: eight legacy CDLs load the same registers")
{
    const sc_time legacy = run_cdl(false, false);
    CHECK(legacy > sc_time(200, SC_NS));
}

TEST_CASE("cdl, accurate: eight legacy CDLs load the same registers")
{
    const sc_time legacy = run_cdl(true, false);
    CHECK(legacy > sc_time(200, SC_NS));
}
