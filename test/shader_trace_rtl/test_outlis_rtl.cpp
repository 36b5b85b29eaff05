// The OUTLis buffer's RTL against its core (models/shader_trace/core/slot_buffer), cycle by
// cycle, under constrained-random stimulus from a seed (printed on failure; VGPU_TEST_SEED
// reruns one); the test-only broken RTL is caught; a missing reset cannot hide behind the
// initial values. See models/shader_trace/rtl/README.md.
#include "Voutlis_buffer.h"
#include "Voutlis_buffer___024root.h"
#include "Voutlis_buffer_broken.h"
#include "Voutlis_buffer_broken___024root.h"
#include "test/seed.h"
#include "test/shader_trace_rtl/outlis_bench.h"
#include "test/shader_trace_rtl/outlis_rtl.h"
#include "test/support/coverage.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace vgpu::shader_trace::rtl_test;

namespace {

/// Cycles per seed: VGPU_RTL_CYCLES (longer runs), else `fallback`.
std::uint64_t cycles_or(std::uint64_t fallback)
{
    const char* s = std::getenv("VGPU_RTL_CYCLES");
    return s && *s ? std::strtoull(s, nullptr, 0) : fallback;
}

/// The buffer's coverage plan (docs/coverage.md), from a seed's counts (bench_result::cover):
/// what a store did, where a replaced slot sat in OUTLis and whose it was, the buffer's fill,
/// takes, completions, the runs' policies, the tokens, and cycles without work.
void write_coverage(std::uint32_t seed, const bench_result& r)
{
    vgpu::test::coverage cov("outlis_buffer", seed);
    auto n = [&](const char* key) {
        const auto it = r.cover.find(key);
        return it == r.cover.end() ? std::uint64_t{0} : it->second;
    };
    cov.point("store", {"stored", "replaced", "stall", "dropped"});
    cov.hit("store", "stored", n("store"));
    cov.hit("store", "replaced", n("replace"));
    cov.hit("store", "stall", n("stall"));
    cov.hit("store", "dropped", n("dropped"));
    cov.point("replaced_at", {"head", "middle", "tail"});
    cov.hit("replaced_at", "head", n("replace_head"));
    cov.hit("replaced_at", "middle", n("replace_middle"));
    cov.hit("replaced_at", "tail", n("replace_tail"));
    cov.point("victim", {"arriving_source", "other_source"});
    cov.hit("victim", "arriving_source", n("replace") - n("replace_other_source"));
    cov.hit("victim", "other_source", n("replace_other_source"));
    cov.point("buffer", {"empty", "full", "full_idle", "all_in_flight"});
    for (const char* b : {"empty", "full", "full_idle", "all_in_flight"})
        cov.hit("buffer", b, n(b));
    cov.point("take", {"written", "loss_flag", "from_empty"});
    cov.hit("take", "written", n("take"));
    cov.hit("take", "loss_flag", n("take_loss_flag"));
    cov.hit("take", "from_empty", n("take_empty"));
    cov.point("write_done", {"at_issue", "later", "ignored"});
    cov.hit("write_done", "at_issue", n("done_at_issue"));
    cov.hit("write_done", "later", n("done") - n("done_at_issue"));
    cov.hit("write_done", "ignored", n("done_ignored"));
    cov.point("run", {"stall", "replace_same_source", "replace_lowest_priority"});
    cov.hit("run", "stall", n("run_stall"));
    cov.hit("run", "replace_same_source", n("run_replace_same_source"));
    cov.hit("run", "replace_lowest_priority", n("run_replace_lowest_priority"));
    cov.point("token", {"pad", "sync", "event", "empty_group"});
    cov.hit("token", "pad", n("token_pad"));
    cov.hit("token", "sync", n("token_sync"));
    cov.hit("token", "event", n("token_event"));
    cov.hit("token", "empty_group", n("empty_group"));
    cov.point("cycle", {"store_and_take", "mark_lost", "without_work"});
    cov.hit("cycle", "store_and_take", n("store_and_take"));
    cov.hit("cycle", "mark_lost", n("mark_lost"));
    cov.hit("cycle", "without_work", r.skipped);
    cov.write(); // $VGPU_COVERAGE_DIR/outlis_buffer.<seed>.json, when set
}

/// Runs `count` seeds from `first` (or VGPU_TEST_SEED alone) of `cycles` each; every one must
/// match the core all along, and together (at `cycles` or more) they must reach every listed
/// event.
void equivalent(std::uint32_t first, unsigned count, std::uint64_t cycles)
{
    const char* one = std::getenv("VGPU_TEST_SEED");
    if (one && *one) {
        first = static_cast<std::uint32_t>(vgpu::test::seed_or(first));
        count = 1;
    }
    std::map<std::string, std::uint64_t> cover;
    std::uint64_t compared = 0, evaluated = 0;
    const bool full_length = cycles_or(cycles) >= cycles;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint32_t seed = first; seed < first + count; ++seed) {
        bench_options o;
        o.seed = seed;
        o.cycles = cycles_or(cycles);
        o.vcd_final = std::getenv("VGPU_RTL_VCD_FINAL") != nullptr; // the last cycles, too
        if (const char* dir = std::getenv("VGPU_COVERAGE_DIR"); dir && *dir && VM_COVERAGE) {
            std::filesystem::create_directories(dir);
            o.code_coverage = std::string(dir) + "/outlis_buffer." + std::to_string(seed) + ".dat";
        }
        const bench_result r = run_bench(o);
        INFO("seed " << seed << " (VGPU_TEST_SEED=" << seed << " reruns it)\n" << r.report);
        REQUIRE(r.ok);
        REQUIRE(r.cycles == o.cycles);
        compared += r.cycles;
        evaluated += r.evaluated;
        REQUIRE(r.evaluated + r.skipped >= r.cycles);
        write_coverage(seed, r);
        for (const auto& [name, n] : r.cover)
            cover[name] += n;
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "outlis rtl: seeds " << first << ".." << first + count - 1 << ": " << compared
              << " cycles compared (" << evaluated << " evaluated) in " << s << " s, "
              << static_cast<std::uint64_t>(compared / s) << " cycles/s\n";
    for (const char* bin : {"store",
                            "replace",
                            "stall",
                            "dropped",
                            "replace_head",
                            "replace_middle",
                            "replace_tail",
                            "replace_other_source",
                            "full",
                            "empty",
                            "full_idle",
                            "all_in_flight",
                            "take",
                            "take_empty",
                            "take_loss_flag",
                            "done",
                            "done_at_issue",
                            "done_ignored",
                            "mark_lost",
                            "store_and_take",
                            "empty_group",
                            "token_pad",
                            "token_sync",
                            "token_event",
                            "run_stall",
                            "run_replace_same_source",
                            "run_replace_lowest_priority"}) {
        INFO("seeds " << first << ".." << first + count - 1 << ": the stimulus never reached "
                      << bin);
        CHECK((cover[bin] > 0 || !full_length));
    }
}

} // namespace

// At least 1 M cycles in all (4 x 2 x 128 Ki).
TEST_CASE("outlis rtl: as the core every cycle (seeds 1-2)")
{
    equivalent(1, 2, 131072);
}

TEST_CASE("outlis rtl: as the core every cycle (seeds 3-4)")
{
    equivalent(3, 2, 131072);
}

TEST_CASE("outlis rtl: as the core every cycle (seeds 5-6)")
{
    equivalent(5, 2, 131072);
}

TEST_CASE("outlis rtl: as the core every cycle (seeds 7-8)")
{
    equivalent(7, 2, 131072);
}

TEST_CASE("outlis rtl: the broken RTL differs from the core within 1000 cycles and leaves a VCD")
{
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
        INFO("seed " << seed);
        bench_options o;
        o.seed = seed;
        o.cycles = 1000;
        o.replacements = true;
        o.broken = true;
        const bench_result bad = run_bench(o);
        INFO(bad.report);
        REQUIRE(!bad.ok);
        CHECK(bad.mismatch < 1000);
        CHECK(bad.report.find("seed " + std::to_string(seed)) != std::string::npos);
        CHECK(bad.report.find("cycle " + std::to_string(bad.mismatch)) != std::string::npos);
        CHECK(bad.report.find("the RTL differs from the core") != std::string::npos);
        // The VCD holds the last cycles up to the mismatch.
        REQUIRE(!bad.vcd.empty());
        std::ifstream vcd(bad.vcd);
        const std::string text((std::istreambuf_iterator<char>(vcd)),
                               std::istreambuf_iterator<char>());
        CHECK(text.find("$enddefinitions") != std::string::npos);
        CHECK(text.find("st_kind") != std::string::npos);
        std::remove(bad.vcd.c_str());
        // The RTL as written, same stimulus: no difference.
        o.broken = false;
        const bench_result good = run_bench(o);
        INFO(good.report);
        CHECK(good.ok);
    }
}

TEST_CASE("outlis rtl: the reset sets every control register whatever the initial values")
{
    constexpr unsigned slots = VGPU_OUTLIS_RTL_SLOTS, sources = VGPU_OUTLIS_RTL_SOURCES;
    outlis_rtl<Voutlis_buffer> a(11, slots, sources);
    const rtl_state a0 = a.state();
    outlis_rtl<Voutlis_buffer> b(12, slots, sources);
    const rtl_state b0 = b.state();
    // Random initial values: two seeds start apart.
    CHECK((a0.next != b0.next || a0.where != b0.where || a0.count != b0.count));
    a.reset(true, false, 1);
    b.reset(true, false, 1);
    for (outlis_rtl<Voutlis_buffer>* m : {&a, &b}) {
        const rtl_state s = m->state();
        CHECK(s.count == 0);
        CHECK(s.free == slots);
        CHECK(s.flight == 0);
        for (unsigned i = 0; i < slots; ++i) {
            CHECK(s.where[i] == 0);
            CHECK(s.next[i] == (i + 1) % slots); // the free stack: 0, 1, ...
        }
        for (unsigned r = 0; r < sources; ++r)
            CHECK(!m->source_lost(r));
        // The first stores take slots 0, 1, 2 whatever the registers held before the reset.
        for (unsigned k = 0; k < 3; ++k) {
            rtl_in in;
            in.store = true;
            in.store_src = k;
            const rtl_out o = m->cycle(in);
            CHECK(o.st_kind == 0);
            CHECK(o.st_slot == k);
        }
        CHECK(m->state().count == 3);
        CHECK(!m->assertion_failed());
    }
}

// scripts/bench rtl: 16 seeds at length (VGPU_RTL_CYCLES in all, default 10 M), the stimulus
// and the core alone, then with the RTL compared every cycle; the same stimulus both times.
TEST_CASE("outlis rtl: long comparison and host cost against the core", "[.][bench]")
{
    const std::uint64_t total = cycles_or(10000000), per_seed = total / 16;
    for (const bool with_rtl : {false, true}) {
        std::uint64_t compared = 0, evaluated = 0;
        const auto start = std::chrono::steady_clock::now();
        for (std::uint32_t seed = 1; seed <= 16; ++seed) {
            bench_options o;
            o.seed = seed;
            o.cycles = per_seed;
            o.with_rtl = with_rtl;
            const bench_result r = run_bench(o);
            INFO("seed " << seed << "\n" << r.report);
            REQUIRE(r.ok);
            compared += r.cycles;
            evaluated += r.evaluated;
        }
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << "side " << (with_rtl ? "core and RTL compared" : "core only") << ": "
                  << compared << " cycles in " << s << " s, " << s * 1e9 / compared
                  << " ns per cycle" << (with_rtl ? ", RTL evaluated in " : "")
                  << (with_rtl ? std::to_string(evaluated) + " cycles" : "") << "\n";
    }
}

// The broken variant is verilated with --public-flat-rw: its registers can be corrupted
// between cycles, as a bug in the RTL would, and the list-integrity assertions must see it.
TEST_CASE("outlis rtl: the list-integrity assertions fire on a corrupted buffer")
{
    constexpr unsigned slots = VGPU_OUTLIS_RTL_SLOTS, sources = VGPU_OUTLIS_RTL_SOURCES;
    auto filled = [](outlis_rtl<Voutlis_buffer_broken>& m) {
        m.reset(false, false, 1);
        for (unsigned k = 0; k < 3; ++k) {
            rtl_in in;
            in.store = true;
            in.store_src = k % 2;
            m.cycle(in);
        }
        rtl_in take;
        take.take = true;
        m.cycle(take); // slot 0 in flight; OUTLis 1, 2
        REQUIRE(!m.assertion_failed());
    };
    rtl_in store;
    store.store = true;
    store.store_src = 5;
    SECTION("a count that does not match the slots in OUTLis")
    {
        outlis_rtl<Voutlis_buffer_broken> m(21, slots, sources);
        filled(m);
        m.model().rootp->outlis_buffer__DOT__cnt_q = 3;
        m.cycle(store);
        CHECK(m.assertion_failed());
    }
    SECTION("an INLis of a source without a slot")
    {
        outlis_rtl<Voutlis_buffer_broken> m(22, slots, sources);
        filled(m);
        m.model().rootp->outlis_buffer__DOT__in_valid_q[0] |= 1u << 7;
        m.cycle(store);
        CHECK(m.assertion_failed());
    }
    SECTION("an in-flight slot also free")
    {
        outlis_rtl<Voutlis_buffer_broken> m(23, slots, sources);
        filled(m);
        m.model().rootp->outlis_buffer__DOT__where_q[0] = 0; // free, not on the free stack
        m.cycle(store);
        CHECK(m.assertion_failed());
    }
    SECTION("untouched: no assertion")
    {
        outlis_rtl<Voutlis_buffer_broken> m(24, slots, sources);
        filled(m);
        m.cycle(store);
        CHECK(!m.assertion_failed());
    }
}
