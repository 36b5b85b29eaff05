// SM shell: shared memory (LD/ST/ATOM/CAS.SHARED on each CTA's window, its bank-conflict
// pipeline and latency), sub-word global LD/ST and the global atomic operations, in both
// timing modes. See docs/isa.md ("Shared memory") and models/sm/README.md.
#include "test/sm/sm_bench.h"

#include <algorithm>
#include <set>

using namespace vgpu::test::sm_bench;

namespace {

/// Records the cycle of each TRACE code of the SM's issue stage.
struct trace_sink : sc_core::sc_module, tlm_bus::event_if {
    std::multimap<std::uint32_t, std::uint64_t> user; ///< TRACE code -> issue cycle
    sc_core::sc_event never;
    explicit trace_sink(const sc_core::sc_module_name& n) : sc_module(n) {}
    unsigned source_id(tlm_bus::event_source kind, unsigned) const override
    {
        return kind == tlm_bus::event_source::isu ? 0 : no_source;
    }
    void post(const tlm_bus::gpu_event& e) override
    {
        if (e.what == tlm_bus::event_kind::user)
            user.emplace(e.arg, e.cycle);
    }
    bool blocked(unsigned) const override { return false; }
    const sc_core::sc_event& unblocked() const override { return never; }
    void flush_at(std::uint64_t) override {}
    /// The first cycle TRACE `code` issued.
    std::uint64_t first(std::uint32_t code) const
    {
        const auto r = user.equal_range(code);
        REQUIRE(r.first != r.second);
        std::uint64_t c = r.first->second;
        for (auto it = r.first; it != r.second; ++it)
            c = std::min(c, it->second);
        return c;
    }
};

/// 64 threads: each stores a word to shared memory, reads its neighbour's after a BAR, counts
/// with ATOM.ADD.SHARED, takes the maximum with ATOM.UMAX.SHARED, swaps with CAS.SHARED,
/// writes and reads bytes and half-words of shared and global memory; record of 8 words per
/// thread in `out`, bytes in `gb`.
const char* const functional = R"(
        S2R R0, SR_TID_X
        SHL R1, R0, 2
        IADD R2, R0, 1000
        ST.SHARED [R1], R2
        MOV R5, 256
        MOV R6, 1
        ATOM.ADD.SHARED R7, [R5], R6
        ATOM.UMAX.SHARED RZ, [R5 + 4], R0
        ST.U8.SHARED [R0 + 320], R0
        BAR
        IADD R3, R0, 1
        AND R3, R3, 63
        SHL R3, R3, 2
        LD.SHARED R4, [R3]
        LD.SHARED R8, [R5]
        LD.SHARED R9, [R5 + 4]
        AND R11, R0, 0xfffffffe
        IADD R11, R11, 320
        LD.U16.SHARED R10, [R11]
        MOV R13, 264
        MOV R14, 0
        CAS.SHARED R15, [R13], R14, R2
        LDP R12, gb
        IADD R12, R12, R0
        LD.S8 R16, [R12]
        ST.U8 [R12 + 64], R2
        LDP R17, out
        SHL R18, R0, 5
        IADD R17, R17, R18
        ST [R17], R4
        ST [R17 + 4], R7
        ST [R17 + 8], R8
        ST [R17 + 12], R9
        ST [R17 + 16], R10
        ST [R17 + 20], R15
        ST [R17 + 24], R16
        EXIT
)";

void run_functional(bool accurate)
{
    bench tb(default_cfg(), accurate);
    const std::uint32_t out = 0x20000, gb = 0x30000;
    const auto bytes = tb.load(functional, {{"out", 0}, {"gb", 1}});
    tb.map(out, 64 * 32);
    tb.map(gb, 256);
    for (unsigned i = 0; i < 64; i += 4) { // byte i = 0x70 + 3 i: some above 0x7f
        std::uint32_t w = 0;
        for (unsigned b = 0; b < 4; ++b)
            w |= ((0x70u + 3 * (i + b)) & 0xffu) << (8 * b);
        tb.write32(gb + i, w);
    }
    tb.launch(bytes, 64, {out, gb});
    tb.cp.launches.back().l.shared_bytes = 512;
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    INFO(tb.cp.dones[0].d.message);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    std::set<std::uint32_t> olds, cas_winners;
    for (unsigned t = 0; t < 64; ++t) {
        CAPTURE(t);
        const std::uint64_t r = out + 32 * t;
        CHECK(tb.read32(r) == (t + 1) % 64 + 1000);
        olds.insert(tb.read32(r + 4));
        if (t % 32 != 0) // a warp's lanes on one word get consecutive old values
            CHECK(tb.read32(r + 4) == tb.read32(r + 4 - 32) + 1);
        CHECK(tb.read32(r + 8) == 64u);
        CHECK(tb.read32(r + 12) == 63u);
        const std::uint32_t lo = t & ~1u;
        CHECK(tb.read32(r + 16) == (lo | (lo + 1) << 8));
        const std::uint32_t swapped = tb.read32(r + 20);
        CHECK((swapped == 0 || (swapped >= 1000 && swapped < 1064)));
        if (swapped == 0)
            cas_winners.insert(t);
        const auto byte = static_cast<std::int8_t>((0x70 + 3 * t) & 0xff);
        CHECK(tb.read32(r + 24) == static_cast<std::uint32_t>(static_cast<std::int32_t>(byte)));
        CHECK(((tb.read32(gb + 64 + (t & ~3u)) >> (8 * (t % 4))) & 0xff) == ((t + 1000) & 0xff));
    }
    CHECK(olds.size() == 64);
    CHECK(*olds.rbegin() == 63u);
    // CAS of 0 -> tid + 1000 on one word: lane 0 of the first warp to issue wins, every other
    // thread reads the winner's value.
    REQUIRE(cas_winners.size() == 1);
    const std::uint32_t winner = *cas_winners.begin();
    CHECK((winner == 0 || winner == 32));
    for (unsigned t = 0; t < 64; ++t)
        if (t != winner)
            CHECK(tb.read32(out + 32 * t + 20) == winner + 1000);
    CHECK(stat("sm.shared_accesses", -1) == 2 * 9);
    CHECK(stat("sm.shared_atomics", -1) == 2 * 3);
}

/// Phases of 4 warps x 32 shared loads at word strides 1, 2, 4, 32 (1-, 2-, 4-, 32-way bank
/// conflicts), each between a BAR and a TRACE; then warp 0 alone runs 16 dependent shared
/// loads between TRACE 5 and TRACE 6.
std::string timing_program()
{
    std::string p = "S2R R2, SR_LANEID\nSHL R3, R2, 2\nSHL R4, R2, 3\nSHL R5, R2, 4\n"
                    "SHL R6, R2, 7\nBAR\nTRACE 1\n";
    const char* regs[] = {"R3", "R4", "R5", "R6"};
    for (unsigned k = 0; k < 4; ++k) {
        for (unsigned i = 0; i < 32; ++i)
            p += std::string("LD.SHARED RZ, [") + regs[k] + "]\n";
        p += "BAR\nTRACE " + std::to_string(k + 2) + "\n";
    }
    p += "S2R R7, SR_WARPID\nISETP.NE P0, R7, 0\n@P0 EXIT\nTRACE 9\n";
    for (unsigned i = 0; i < 16; ++i)
        p += "LD.SHARED R0, [R0]\n";
    p += "IADD R1, R0, 1\nTRACE 10\nEXIT\n";
    return p;
}

void run_timing(bool accurate, unsigned latency)
{
    sm::sm_config cfg = default_cfg();
    cfg.shared_latency = latency;
    bench tb(cfg, accurate);
    trace_sink sink("sink");
    tb.sm.events(sink);
    const auto bytes = tb.load(timing_program());
    tb.launch(bytes, 128, {});
    tb.cp.launches.back().l.shared_bytes = 4096;
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    INFO(tb.cp.dones[0].d.message);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    // Latency: 16 dependent loads of sm.shared_latency each, then the IADD and the TRACE.
    const std::uint64_t chain = sink.first(10) - sink.first(9);
    INFO((accurate ? "accurate" : "fast")
         << ": chain of 16 dependent loads " << chain << " cycles");
    CHECK(chain == 16u * latency + 2);
    // Bandwidth and conflicts: 128 accesses of k passes each. From 2 ways on they keep the
    // pipeline busy, so a phase lasts 128 k cycles plus what does not depend on k (the drain,
    // the barrier): between two such phases the difference is exactly 128 x the difference
    // of k - 1. The 1-way phase is bound by issue (one warp-instruction per cycle) and the
    // loads each warp keeps in flight as much as by the pipeline: within 0.25 cycle per access.
    std::uint64_t phase[4];
    for (unsigned k = 0; k < 4; ++k)
        phase[k] = sink.first(k + 2) - sink.first(k + 1);
    const unsigned ways[4] = {1, 2, 4, 32};
    for (unsigned k = 0; k < 4; ++k)
        INFO(ways[k] << "-way: phase " << phase[k] << " cycles, "
                     << (static_cast<double>(phase[k]) - static_cast<double>(phase[0])) / 128
                     << " extra cycles per access against 1-way");
    CHECK(phase[2] - phase[1] == 128u * (4 - 2));
    CHECK(phase[3] - phase[2] == 128u * (32 - 4));
    const double extra2 = (static_cast<double>(phase[1]) - static_cast<double>(phase[0])) / 128;
    CHECK(extra2 >= 0.75);
    CHECK(extra2 <= 1.25);
    // 1-way: at most one access per cycle (the configured 32 banks x 4 B = 128 B per cycle).
    CHECK(phase[0] >= 128);
    CHECK(phase[0] <= 128 + 3 * latency);
    CHECK(stat("sm.shared_accesses", -1) == 4 * 128 + 16);
    CHECK(stat("sm.shared_passes", -1) == 128 * (1 + 2 + 4 + 32) + 16);
    CHECK(stat("sm.shared_conflict_cycles", -1) == 128 * (1 + 3 + 31));
}

} // namespace

TEST_CASE("shared memory, sub-word and CAS give the reference values (fast)", "[shared]")
{
    run_functional(false);
}

TEST_CASE("shared memory, sub-word and CAS give the reference values (accurate)", "[shared]")
{
    run_functional(true);
}

TEST_CASE("shared memory latency, bandwidth and k-way conflicts as configured (fast)", "[shared]")
{
    run_timing(false, 19);
}

TEST_CASE("shared memory latency, bandwidth and k-way conflicts as configured (accurate)",
          "[shared]")
{
    run_timing(true, 19);
}

TEST_CASE("shared memory latency follows sm.shared_latency (fast, 30 cycles)", "[shared]")
{
    run_timing(false, 30);
}

TEST_CASE("a shared access outside the CTA's window faults the CTA", "[shared]")
{
    bench tb(default_cfg(), false);
    const auto bytes = tb.load("S2R R0, SR_TID_X\nSHL R0, R0, 2\nLD.SHARED R1, [R0 + 64]\nEXIT");
    tb.launch(bytes, 32, {});
    tb.cp.launches.back().l.shared_bytes = 128;
    sc_core::sc_start();
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::fault);
    CHECK(std::string(tb.cp.dones[0].d.message) ==
          "shared address 0x80 in lane 16 outside the CTA's 128 bytes of shared memory");
    CHECK(tb.cp.dones[0].d.pc == 2u);
}
