// Shell tests of the SM: kernels, CTA life, guest faults, barriers, the watchdog and
// refused launches.
// See models/sm/README.md.
#include "test/sm/sm_bench.h"

using namespace vgpu::test::sm_bench;

TEST_CASE("vector add: two CTAs of one launch compute a + b and fetch the program once")
{
    bench tb;
    const std::uint32_t n = 256, a = 0x20000, b = 0x30000, c = 0x40000;
    const auto bytes = tb.load(vector_add, abc);
    tb.map(a, n * 4, false);
    tb.map(b, n * 4, false);
    tb.map(c, n * 4);
    for (std::uint32_t i = 0; i < n; ++i) {
        tb.write32(a + 4 * i, 3 * i + 1);
        tb.write32(b + 4 * i, 1000000 - 7 * i);
    }
    tb.launch(bytes, 128, {a, b, c}, 0, 2);
    tb.launch(bytes, 128, {a, b, c}, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.responses.size() == 2);
    CHECK(tb.cp.responses[0] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[1] == tlm::TLM_OK_RESPONSE);
    REQUIRE(tb.cp.dones.size() == 2);
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        CHECK(d.d.sm == sm_id);
        CHECK(d.d.kernel_seq == 1u);
    }
    for (std::uint32_t i = 0; i < n; ++i)
        CHECK(tb.read32(c + 4 * i) == (3 * i + 1) + (1000000 - 7 * i));
    CHECK(tb.sm.instructions() == 13u * 8);
    CHECK(tb.sm.lane_instructions() == 13u * 256);
    CHECK(stat("sm.fetch_requests", -1) == 4); // 208 bytes = 4 lines, once for both CTAs
    CHECK(tb.sm.mem_requests() == 8u * 3 * 2); // 8 warps x 3 accesses x 2 lines of 64 bytes
    CHECK(tb.sm.ctas() == 2u);
    CHECK(stat("sm.loads", -1) == 16);
    CHECK(stat("sm.stores", -1) == 8);
    CHECK(stat("sm.ipc", -1) > 0);
    CHECK(tb.xl.faults() == 0);
}

TEST_CASE("reduction with barriers across 4 warps, with trace spans per CTA, warp and barrier")
{
    trace::recorder::instance().enable(true);
    bench tb;
    const std::uint32_t in = 0x20000, tmp = 0x30000, out = 0x40000;
    const auto bytes = tb.load(reduction, red_params);
    tb.map(in, 512, false);
    tb.map(tmp, 512);
    tb.map(out, 4);
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < 128; ++i) {
        tb.write32(in + 4 * i, i * i + 7);
        sum += i * i + 7;
    }
    tb.launch(bytes, 128, {in, tmp, out});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(out) == sum);
    CHECK(stat("sm.barrier_wait_cycles", -1) > 0);
    CHECK(stat("sm.w0.barrier_wait_cycles", -1) + stat("sm.w3.barrier_wait_cycles", -1) > 0);
    const std::string json = trace::recorder::instance().to_json();
    CHECK(json.find("\"BAR\"") != std::string::npos);
    CHECK(json.find("cta slot 0") != std::string::npos);
    CHECK(json.find("warp 3") != std::string::npos);
}

TEST_CASE("divergent branch: odd and even lanes take different paths and reconverge")
{
    bench tb;
    const std::uint32_t out = 0x40000;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        AND R1, R0, 1
        ISETP.EQ P0, R1, 0
        @P0 BRA even
        IMUL R2, R0, 3
        BRA join
even:   IADD R2, R0, 100
join:   LDP R3, out
        SHL R4, R0, 2
        IADD R3, R3, R4
        ST [R3], R2
        EXIT
    )",
                               {{"out", 0}});
    tb.map(out, 256);
    tb.launch(bytes, 64, {out});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    for (std::uint32_t t = 0; t < 64; ++t)
        CHECK(tb.read32(out + 4 * t) == (t % 2 ? 3 * t : t + 100));
    CHECK(tb.sm.lane_instructions() < tb.sm.instructions() * 32);
}

TEST_CASE("guest errors fault the CTA with SM, warp, PC and VA, and other CTAs are unaffected")
{
    bench tb;
    const std::uint32_t out = 0x40000;
    const auto bytes = tb.load(R"(
        LDP R1, out
        IADD R1, R1, R2
        ST [R1], R0
        LD R3, [R1]
        EXIT
    )",
                               {{"out", 0}});
    tb.map(out, 256);
    tb.launch(bytes, 64, {out + 2}, 0, 1, 1); // misaligned store
    tb.launch(bytes, 32, {0x90000}, 0, 1, 2); // unmapped page
    tb.launch(bytes, 32, {out}, 0, 1, 3);     // fine
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 3);
    std::map<std::uint32_t, cp::cta_done> by_seq;
    for (const auto& d : tb.cp.dones)
        by_seq[d.d.kernel_seq] = d.d;
    const cp::cta_done& mis = by_seq[1];
    CHECK(mis.status == cp::cta_status::fault);
    CHECK(mis.sm == sm_id);
    CHECK(mis.warp < 2u);
    CHECK(mis.pc == 2u);
    CHECK(std::string(mis.message).find("misaligned") != std::string::npos);
    const cp::cta_done& unm = by_seq[2];
    CHECK(unm.status == cp::cta_status::fault);
    CHECK(unm.pc == 2u);
    CHECK(unm.vaddr == 0x90000u);
    CHECK(std::string(unm.message).find("0x90000") != std::string::npos);
    CHECK(by_seq[3].status == cp::cta_status::ok);
    CHECK(tb.sm.faults() == 2u);
    CHECK(tb.sm.ctas() == 3u);
}

TEST_CASE("a barrier that can never complete faults with what each warp waits on")
{
    bench tb;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        ISETP.GE P0, R0, 32
        @P0 EXIT
        BAR
        EXIT
    )");
    tb.launch(bytes, 64, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    const cp::cta_done& d = tb.cp.dones[0].d;
    CHECK(d.status == cp::cta_status::fault);
    CHECK(d.pc == 3u);
    CHECK(d.warp == 0u);
    const std::string msg = d.message;
    INFO(msg);
    CHECK(msg.find("warp 0 at pc 3: BAR (1 of 2 warps arrived)") != std::string::npos);
    CHECK(msg.find("warp 1: exited") != std::string::npos);
}

TEST_CASE("a CTA running longer than max_cta_cycles is stopped with a report")
{
    auto cfg = default_cfg();
    cfg.max_cta_cycles = 5000;
    bench tb(cfg);
    const auto bytes = tb.load(R"(
loop:   IADD R1, R1, 1
        BRA loop
    )");
    tb.launch(bytes, 32, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::fault);
    INFO(tb.sm.last_fault());
    CHECK(tb.sm.last_fault().find("more than 5000 cycles") != std::string::npos);
    CHECK(tb.sm.last_fault().find("warp 0 at pc") != std::string::npos);
    CHECK(tb.cp.dones[0].at >= sc_time(5000, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(7000, SC_NS));
}

TEST_CASE("a CTA needing more shared memory than the SM has is refused")
{
    auto cfg = default_cfg();
    bench tb(cfg);
    const std::uint32_t n = 128, a = 0x20000, b = 0x30000, c = 0x40000;
    const auto bytes = tb.load(vector_add, abc);
    tb.map(a, n * 4);
    tb.map(b, n * 4);
    tb.map(c, n * 4);
    tb.launch(bytes, 32, {a, b, c});
    tb.cp.launches.back().l.shared_bytes = static_cast<std::uint32_t>(cfg.shared_bytes.bytes) + 1;
    tb.launch(bytes, 32, {a, b, c}); // the whole window: accepted
    tb.cp.launches.back().l.shared_bytes = static_cast<std::uint32_t>(cfg.shared_bytes.bytes);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.responses.size() == 2);
    CHECK(tb.cp.responses[0] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[1] == tlm::TLM_OK_RESPONSE);
}

TEST_CASE("CTAs that do not fit the free slots, or arrive with a bad size, are refused")
{
    auto cfg = default_cfg();
    cfg.warp_slots = 8;
    cfg.cta_slots = 2;
    bench tb(cfg);
    const std::uint32_t n = 128, a = 0x20000, b = 0x30000, c = 0x40000;
    const auto bytes = tb.load(vector_add, abc);
    tb.map(a, n * 4);
    tb.map(b, n * 4);
    tb.map(c, n * 4);
    tb.launch(bytes, 128, {a, b, c});             // 4 warps: accepted
    tb.launch(bytes, 256, {a, b, c});             // 8 warps, 4 free: refused
    tb.launch(bytes, 128, {a, b, c}, 0, 1, 1, 8); // bad size: refused
    tb.launch(bytes, 4000, {a, b, c});            // more warps than the SM has: refused
    tb.launch(bytes, 96, {a, b, c});              // 3 warps: accepted
    tb.launch(bytes, 32, {a, b, c});              // no CTA slot left: refused
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.responses.size() == 6);
    CHECK(tb.cp.responses[0] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[1] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[2] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[3] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[4] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[5] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    REQUIRE(tb.cp.dones.size() == 2);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.cp.dones[1].d.status == cp::cta_status::ok);
    CHECK(tb.sm.resident_ctas() == 0u);
}
