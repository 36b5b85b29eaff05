// The SM's unit seam (models/sm/sm_unit.h) with a toy unit that only this test knows: the SM
// hands it the CDL opcode; it reads a line through the SM and writes a register, or loads
// through the LSU, or faults the CTA. See models/sm/README.md ("Units").
#include "test/sm/sm_bench.h"

#include "models/sm/sm_unit.h"

#include <memory>

using namespace vgpu::test::sm_bench;

namespace {
constexpr std::uint64_t table_va = 0x40000; ///< the toy's table: word i holds i + 1
constexpr std::uint64_t out_va = 0x60000;
constexpr unsigned read_delay = 3;  ///< the toy's cycles from issue to its line read
constexpr unsigned write_delay = 2; ///< the toy's cycles from data to register write
constexpr std::uint32_t refuse = 999;

/// A toy unit: `CDL rd, off, cbv[0], n` reads the line at table_va + off and writes lane l of
/// rd = 3 * word(l mod 16) + 7; the per-lane form (n absent) loads table_va + offset per lane
/// through the SM's LSU, odd lanes reading 0; n = 999 faults the CTA.
struct toy_unit : sm::sm_unit {
    sm::unit_host& host;
    std::vector<std::uint8_t> buf = std::vector<std::uint8_t>(line_bytes);
    std::uint64_t issued = 0; ///< host.cycle() at the last issue
    sm::line_result seen{};   ///< what the SM reported for the line read
    unsigned reads = 0, loads = 0, arrivals = 0;

    explicit toy_unit(sm::unit_host& h) : host(h) {}
    void issue(unsigned warp, const sm::step_result& r) override
    {
        const sm::mem_access& a = *r.access;
        issued = host.cycle();
        if (a.count == refuse) {
            host.fault(warp, r.pc, 0x1234, "toy unit refuses n = 999");
            return;
        }
        if (a.count == 0) {
            ++loads;
            sm::mem_access load = a;
            for (unsigned l = 0; l < sm::warp_size; ++l)
                load.addr[l] = table_va + a.addr[l];
            load.lane_mask = a.lane_mask & 0x55555555u;
            host.load(warp, r, load, tlm_bus::access_kind::constant, a.lane_mask & 0xaaaaaaaau);
            return;
        }
        ++reads;
        host.begin_access(warp);
        sm::line_read rd;
        rd.warp = warp;
        rd.pc = r.pc;
        rd.kind = tlm_bus::access_kind::constant;
        rd.addr = table_va + a.addr[0];
        rd.bytes = line_bytes;
        rd.data = buf.data();
        rd.at = issued + read_delay;
        rd.tag = a.reg;
        host.read_line(*this, rd);
    }
    void read_made(const sm::line_read& rd, const sm::line_result& res) override
    {
        if (!host.params().accurate)
            arrived(rd, res);
    }
    void read_arrived(const sm::line_read& rd, const sm::line_result& res, std::uint64_t) override
    {
        ++arrivals;
        arrived(rd, res);
    }
    void arrived(const sm::line_read& rd, const sm::line_result& res)
    {
        seen = res;
        sm::lane_values v{};
        for (unsigned l = 0; l < sm::warp_size; ++l) {
            std::uint32_t w;
            std::memcpy(&w, &buf[4 * (l % (line_bytes / 4))], 4);
            v[l] = 3 * w + 7;
        }
        host.write_register(rd.warp, rd.tag, v, res.end + write_delay);
        host.end_access(rd.warp, res.end + write_delay);
    }
};

/// The bench with the toy attached and its table mapped.
struct unit_bench : bench {
    toy_unit* toy = nullptr;
    explicit unit_bench(bool accurate) : bench(default_cfg(), accurate, 100)
    {
        sm.attach_unit([this](sm::unit_host& h) {
            auto u = std::make_unique<toy_unit>(h);
            toy = u.get();
            return u;
        });
        map(table_va, 4096, false);
        for (unsigned i = 0; i < 1024; ++i)
            write32(table_va + 4 * i, i + 1);
        map(out_va, 4096);
    }
    /// Runs `first` then stores R5 of lane l at out_va + 4 l (7 instructions: 2 lines).
    void run(const std::string& first)
    {
        const std::string text = first + "\nS2R R1, SR_LANEID\nSHL R1, R1, 2\nLDP R0, out\n"
                                         "IADD R2, R0, R1\nST [R2], R5\nEXIT\n";
        const auto bytes = load(text, {{"out", 0}});
        launch(bytes, 32, {static_cast<std::uint32_t>(out_va)});
        sc_core::sc_start();
        REQUIRE(violations() == 0);
        REQUIRE(cp.dones.size() == 1);
    }
};

/// The toy's line read: the SM sends it at the cycle asked, the register holds the toy's
/// values, and the dependent ST waits for the write cycle the toy gave.
void line_read_writes_register(bool accurate)
{
    unit_bench tb(accurate);
    tb.run("CDL R5, 64, cbv[0], 32");
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    REQUIRE(tb.toy != nullptr);
    CHECK(tb.toy->reads == 1);
    CHECK(tb.toy->arrivals == (accurate ? 1u : 0u));
    // Independently: the two program lines are requested at cycles 0 and 1 and arrive 100 ns
    // (+ 64 B at 256 B/ns, rounded up to the 1 ns cycle) later: the warp starts at 102, and
    // the CDL is its first instruction.
    const std::uint64_t mem_cycles = 101;
    const std::uint64_t issue = 1 + mem_cycles;
    CHECK(tb.toy->issued == issue);
    CHECK(tb.toy->seen.status == tlm::TLM_OK_RESPONSE);
    CHECK(tb.toy->seen.start == issue + read_delay);
    CHECK(tb.toy->seen.end == issue + read_delay + mem_cycles);
    // Line 64..127 of the table: word 16 + i holds 17 + i; lane l gets word 16 + l mod 16.
    for (unsigned l = 0; l < 32; ++l)
        CHECK(tb.read32(out_va + 4 * l) == 3 * (17 + l % 16) + 7);
    // The ST issues when R5 is written; after the LSU's address stage its two lines (32 lanes
    // x 4 B) leave one per cycle, the second completes a memory latency later and the CTA ends
    // the cycle after.
    const std::uint64_t st = issue + read_delay + mem_cycles + write_delay;
    const std::uint64_t end = st + default_cfg().lsu_delay() + 1 + mem_cycles + 1;
    CHECK(tb.cp.dones[0].at == sc_time(static_cast<double>(end), SC_NS));
    CHECK(stat("sm.mem_requests") == 3); // the toy's read and the ST's two lines
}
} // namespace

TEST_CASE("unit seam, fast: a toy unit's line read writes a register at the cycle it gives")
{
    line_read_writes_register(false);
}

TEST_CASE("unit seam, accurate: a toy unit's line read writes a register at the cycle it gives")
{
    line_read_writes_register(true);
}

TEST_CASE("unit seam: a toy unit's load through the LSU, the lanes it zeroes read 0")
{
    unit_bench tb(false);
    tb.run("S2R R9, SR_LANEID\nSHL R9, R9, 2\nCDL R5, R9, cbv[0]");
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.toy->loads == 1);
    for (unsigned l = 0; l < 32; ++l)
        CHECK(tb.read32(out_va + 4 * l) == (l % 2 ? 0 : l + 1));
    CHECK(stat("sm.loads") == 0); // the unit's load is not an LD
}

TEST_CASE("unit seam: a toy unit faults the CTA with its warp, PC and VA")
{
    unit_bench tb(false);
    tb.run("MOV R3, 1\nCDL R5, 0, cbv[0], 999");
    const cp::cta_done& d = tb.cp.dones[0].d;
    CHECK(d.status == cp::cta_status::fault);
    CHECK(d.pc == 1);
    CHECK(d.vaddr == 0x1234);
    CHECK(std::string(d.message) == "toy unit refuses n = 999");
    CHECK(tb.sm.last_fault() == "toy unit refuses n = 999");
}

TEST_CASE("unit seam: without a unit the handed-off opcode faults the CTA")
{
    bench tb;
    const auto bytes = tb.load("CDL R5, 0, cbv[0], 32\nEXIT\n");
    tb.launch(bytes, 32, {});
    sc_core::sc_start();
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::fault);
    CHECK(tb.sm.last_fault() ==
          "CDL requires the CDL access controller, not present in this platform");
}
