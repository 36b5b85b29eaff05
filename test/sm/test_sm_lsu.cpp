// Shell tests of the SM's LSU: memory order, timing of loads and stores, loads in flight,
// sm.max_line_requests, MEMBAR.
// See models/sm/README.md.
#include "test/sm/sm_bench.h"

using namespace vgpu::test::sm_bench;

namespace {
/// A kernel whose result depends on memory order: stores, a barrier, loads of other warps'
/// stores, and stores with holes (odd lanes only) into the byte-enable memory.
const char* mixed = R"(
        S2R R0, SR_TID_X
        SHL R1, R0, 2
        LDP R2, a
        IADD R2, R2, R1
        LD R3, [R2]
        IMUL R3, R3, 5
        LDP R4, c
        IADD R5, R4, R1
        ST [R5], R3
        BAR
        IADD R6, R0, 1
        AND R6, R6, 127
        SHL R6, R6, 2
        IADD R6, R4, R6
        LD R7, [R6]
        IADD R7, R7, R0
        LDP R8, d
        IADD R8, R8, R1
        ST [R8], R7
        AND R9, R0, 1
        ISETP.EQ P0, R9, 1
        LDP R10, e
        IADD R10, R10, R1
        @P0 ST [R10], R3
        EXIT
)";

/// Runs `mixed` in the given mode and checks the results against host math.
void run_mixed(bool accurate)
{
    bench tb(default_cfg(), accurate);
    tb.bemem.blocking = accurate;
    const std::uint32_t a = 0x20000, c = 0x30000, d = 0x40000, e = 0x50000;
    const auto bytes = tb.load(mixed, {{"a", 0}, {"c", 1}, {"d", 2}, {"e", 3}});
    tb.map(a, 512, false);
    tb.map(c, 512, true, true);
    tb.map(d, 512, true, true);
    tb.map(e, 512, true, true);
    for (std::uint32_t i = 0; i < 128; ++i) {
        tb.write32(a + 4 * i, 11 * i + 3);
        tb.write32(e + 4 * i, 0xeeeeeeee);
    }
    tb.launch(bytes, 128, {a, c, d, e});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    std::uint64_t checksum = 0;
    for (std::uint32_t i = 0; i < 128; ++i) {
        const std::uint32_t ci = 5 * (11 * i + 3);
        const std::uint32_t di = 5 * (11 * ((i + 1) % 128) + 3) + i;
        const std::uint32_t ei = i % 2 ? ci : 0xeeeeeeee;
        CHECK(tb.read32(c + 4 * i) == ci);
        CHECK(tb.read32(d + 4 * i) == di);
        CHECK(tb.read32(e + 4 * i) == ei);
        checksum =
            checksum * 31 + tb.read32(c + 4 * i) + tb.read32(d + 4 * i) + tb.read32(e + 4 * i);
    }
    CHECK(tb.bemem.be_writes == 8u); // per warp two line segments with holes
    CHECK(tb.cp.dones[0].at > sc_time(300, SC_NS));
    WARN((accurate ? "accurate" : "fast")
         << " mode: CTA done at " << tb.cp.dones[0].at << ", checksum " << checksum);
}
} // namespace

TEST_CASE("fast mode: memory order, barrier and byte-enable stores give the reference contents")
{
    run_mixed(false);
}

TEST_CASE("accurate mode (quantum 0, LSU threads) gives the same memory contents as fast mode")
{
    run_mixed(true);
}

TEST_CASE("timing: each load of a dependent chain waits for the memory latency")
{
    bench tb(default_cfg(), false, 100);
    const std::uint32_t p = 0x20000;
    const auto bytes = tb.load(R"(
        LDP R0, p
        LD R0, [R0]
        LD R0, [R0]
        LD R0, [R0]
        LD R0, [R0]
        LDP R1, p
        ST [R1+64], R0
        EXIT
    )",
                               {{"p", 0}});
    tb.map(p, 256);
    tb.write32(p, p + 16);
    tb.write32(p + 16, p + 32);
    tb.write32(p + 32, p + 48);
    tb.write32(p + 48, 0x1234);
    tb.launch(bytes, 32, {p});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(p + 64) == 0x1234u);
    // Fetch + 4 dependent loads + the store, each at least 100 ns.
    CHECK(tb.cp.dones[0].at >= sc_time(600, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(700, SC_NS));
    CHECK(stat("sm.stall_memory", -1) >= 500);
}

TEST_CASE("timing: independent loads of several warps overlap")
{
    bench tb(default_cfg(), false, 100);
    const std::uint32_t a = 0x20000, c = 0x30000;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        SHL R1, R0, 2
        LDP R2, a
        IADD R2, R2, R1
        LD R3, [R2]
        LDP R4, c
        IADD R4, R4, R1
        ST [R4], R3
        EXIT
    )",
                               {{"a", 0}, {"c", 1}});
    tb.map(a, 1024);
    tb.map(c, 1024);
    for (std::uint32_t i = 0; i < 256; ++i)
        tb.write32(a + 4 * i, i ^ 0x5a5a);
    tb.launch(bytes, 256, {a, c}); // 8 warps, each a load then a dependent store
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    for (std::uint32_t i = 0; i < 256; ++i)
        CHECK(tb.read32(c + 4 * i) == (i ^ 0x5a5a));
    // One warp alone needs fetch + load + store >= 300 ns; 8 in sequence would need 8 x 200
    // for their memory; overlapped they finish in little more than one warp's time.
    CHECK(tb.cp.dones[0].at >= sc_time(300, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(400, SC_NS));
}

namespace {
/// Done time of one CTA of one warp running `text` with parameter p = 0x20000 (4 KiB mapped,
/// words i hold i); checks the word at p + 1024 against `expect`.
sc_time run_memory_warp(const sm::sm_config& cfg, const std::string& text, std::uint32_t expect,
                        bool accurate, std::uint64_t* line_limit_waits = nullptr)
{
    bench tb(cfg, accurate);
    const std::uint32_t p = 0x20000;
    const auto bytes = tb.load(text, {{"p", 0}});
    tb.map(p, 4096);
    for (std::uint32_t i = 0; i < 1024; ++i)
        tb.write32(p + 4 * i, i);
    tb.launch(bytes, 32, {p});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(p + 1024) == expect);
    if (line_limit_waits)
        *line_limit_waits = tb.sm.line_limit_waits();
    return tb.cp.dones[0].at;
}

// Four independent loads of four lines, summed, stored at p + 1024; 10 instructions (3 lines
// of 64 B fetched at cycles 0..2, so the warp starts at 103).
const char* four_loads = R"(
        LDP R0, p
        LD R1, [R0]
        LD R2, [R0+64]
        LD R3, [R0+128]
        LD R4, [R0+192]
        IADD R5, R1, R2
        IADD R6, R3, R4
        IADD R7, R5, R6
        ST [R0+1024], R7
        EXIT
)";
} // namespace

namespace {
// From the warp's start (103): LDP 0 (R0 at 4); LDs at 4, 5, 6, 7 (data at 105..108); IADDs at
// 106, 108, 112; ST at 116, complete at 217; EXIT drains it at 217, the CTA ends at 218:
// 103 + 218 = 321 ns. Words 0, 16, 32, 48 hold 0, 16, 32, 48: sum 96.
void four_loads_in_flight(bool accurate)
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 4;
    CHECK(run_memory_warp(cfg, four_loads, 96, accurate) == sc_time(321, SC_NS));
}

// 6 instructions, 2 lines (the warp starts at 102). LDP 0; ST at 4 (done 105); LD of another
// line at 5 (data 106); IADD at 106; ST at 110 (done 211); EXIT at 211; end 212: 102 + 212 =
// 314 ns (a blocking store would add 100). Word 64 + 1 = 65.
void store_then_independent_load(bool accurate)
{
    const char* text = R"(
        LDP R0, p
        ST [R0+4], R9
        LD R1, [R0+256]
        IADD R2, R1, 1
        ST [R0+1024], R2
        EXIT
    )";
    CHECK(run_memory_warp(default_cfg(), text, 65, accurate) == sc_time(314, SC_NS));
}

// MOV at 1 (R9 at 5); ST at 5 (done 106); the LD of the same word issues at 6 but its request
// leaves when the store completed, at 106 (data 207); ST at 207 (done 308); EXIT at 308; end
// 309: 102 + 309 = 411 ns, and the load read the stored 1234.
void store_then_same_line_load(bool accurate)
{
    const char* text = R"(
        LDP R0, p
        MOV R9, 1234
        ST [R0+8], R9
        LD R1, [R0+8]
        ST [R0+1024], R1
        EXIT
    )";
    // The ST's request goes at 5 (done 106); the LD follows it through the in-order path a
    // cycle later instead of waiting for its completion: request at 6, data at 107 (the stored
    // value); ST at 107, done 208; EXIT; end 209: 102 + 209 = 311 ns (411 when the load waited
    // for the store's completion).
    CHECK(run_memory_warp(default_cfg(), text, 1234, accurate) == sc_time(311, SC_NS));
}
} // namespace

TEST_CASE("a warp keeps 4 independent loads in flight: one memory latency, not four (fast)")
{
    four_loads_in_flight(false);
}

TEST_CASE("a warp keeps 4 independent loads in flight: one memory latency, not four (accurate)")
{
    four_loads_in_flight(true);
}

namespace {
// sm.max_line_requests 2: the loads' requests are due at 4, 5, 6, 7; the third waits for the
// first to complete (105) and the fourth for the second (106), so R4 arrives at 207. IADD R6 at
// 207, R7 at 211; ST at 215 (nothing in flight then), complete at 316; end 317: 103 + 317 =
// 420 ns (321 ns without the limit).
void four_loads_two_requests_in_flight(bool accurate)
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 4;
    cfg.max_line_requests = 2;
    std::uint64_t waits = 0;
    CHECK(run_memory_warp(cfg, four_loads, 96, accurate, &waits) == sc_time(420, SC_NS));
    CHECK(waits == 2);
}
} // namespace

TEST_CASE("sm.max_line_requests: a request waits for one in flight to complete (fast)")
{
    four_loads_two_requests_in_flight(false);
}

TEST_CASE("sm.max_line_requests: a request waits for one in flight to complete (accurate)")
{
    four_loads_two_requests_in_flight(true);
}

TEST_CASE("one load entry per warp serialises the same loads: four memory latencies")
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 1;
    // LDs at 4, 105, 206, 307 (data at 105, 206, 307, 408); IADD R5 at 206, R6 at 408, R7 at
    // 412; ST at 416, complete at 517; end 518: 103 + 518 = 621 ns.
    CHECK(run_memory_warp(cfg, four_loads, 96, false) == sc_time(621, SC_NS));
}

TEST_CASE("a store does not block the warp: an independent load issues the next cycle (fast)")
{
    store_then_independent_load(false);
}

TEST_CASE("a store does not block the warp: an independent load issues the next cycle (accurate)")
{
    store_then_independent_load(true);
}

TEST_CASE("a load after a store to the same line follows it a cycle later, reads the stored value "
          "(fast)")
{
    store_then_same_line_load(false);
}

TEST_CASE("a load after a store to the same line follows it a cycle later, reads the stored value "
          "(accurate)")
{
    store_then_same_line_load(true);
}

TEST_CASE("MEMBAR waits for the warp's loads and stores")
{
    // LDP 0; ST at 4 (done 105); MEMBAR waits until 105; LD at 106 (data 207); ST at 207
    // (done 308); EXIT at 308; end 309: 102 + 309 = 411 ns (without MEMBAR the LD would go at 5).
    const char* text = R"(
        LDP R0, p
        ST [R0+4], R9
        MEMBAR
        LD R1, [R0+256]
        ST [R0+1024], R1
        EXIT
    )";
    CHECK(run_memory_warp(default_cfg(), text, 64, false) == sc_time(411, SC_NS));
}

// ---- instruction cache (sm.icache_bytes): exact figures computed by hand ----
// A fill requested at cycle c arrives at c + 101 (100 ns + 0.25 ns of transfer, rounded up to
// the 1 GHz clock); fills leave one per cycle. A warp looks up the line of its next
// instruction when it changes; a miss also prefetches the next line, as does the first use of
// a prefetched line.
