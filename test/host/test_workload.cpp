// Unit tests of the workload reader: the shipped workloads parse and, executed functionally by
// the warp core over a flat memory, pass their own checks; a catalogue of bad workloads with
// exact messages. See docs/workloads.md.
#include "models/host/workload.h"
#include "models/sm/core/warp.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>

using namespace vgpu;
using namespace vgpu::host;

namespace {

const std::string dir = std::string(VGPU_SOURCE_DIR) + "/testbenches/workloads/";

const char* const shipped[] = {"vector_add",   "saxpy",       "strided_sum",   "random_gather",
                               "reduction",    "matmul",      "compute_bound", "stream",
                               "multi_kernel", "page_faults", "tlb_reach",     "cdl_bulk",
                               "cdl_legacy"};

workload load(const std::string& file)
{
    parse_result r = parse_workload(file);
    INFO(file);
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    return r.wl;
}

std::vector<std::string> errors_of(const std::string& text)
{
    return parse_workload_text(text, "w.yaml").errors;
}

/// A flat memory for the functional run: buffer i lives at 0x10000000 + i * 64 MiB.
struct flat_memory {
    std::vector<std::vector<std::uint32_t>> buffers;
    static std::uint32_t base(std::size_t i)
    {
        return 0x10000000u + static_cast<std::uint32_t>(i << 26);
    }
    std::uint32_t* at(std::uint32_t addr)
    {
        if (addr < 0x10000000u)
            return nullptr;
        const std::size_t i = (addr - 0x10000000u) >> 26;
        const std::size_t word = ((addr - 0x10000000u) & ((1u << 26) - 1)) / 4;
        if (i >= buffers.size() || word >= buffers[i].size())
            return nullptr;
        return &buffers[i][word];
    }
};

/// A CDL step, straight from the definition (docs/isa.md): the CBV is the bound buffer; the
/// legacy form gives lane l the dword at offset addr[l]; the bulk form gives lane l of
/// register reg + k the dword at offset addr[0] + 4 (32 k + l); dwords past the buffer are 0.
void run_cdl(const workload& wl, const kernel_decl& k, flat_memory& mem, sm::warp& wp,
             const sm::mem_access& a)
{
    int buffer = -1;
    for (const auto& c : k.cbvs)
        if (c.slot == a.cbv)
            buffer = wl.buffer_index(c.buffer);
    REQUIRE(buffer >= 0);
    const std::vector<std::uint32_t>& words = mem.buffers[static_cast<std::size_t>(buffer)];
    auto dword = [&](std::uint64_t byte) {
        return byte % 4 == 0 && byte / 4 < words.size() ? words[byte / 4] : 0u;
    };
    if (a.count == 0) {
        sm::lane_values v{};
        for (unsigned l = 0; l < sm::warp_size; ++l)
            v[l] = dword(a.addr[l]);
        wp.complete_load(a.reg, v, a.lane_mask);
        return;
    }
    for (unsigned r = 0; r * 32 < a.count; ++r) {
        sm::lane_values v{};
        for (unsigned l = 0; l < sm::warp_size && 32 * r + l < a.count; ++l)
            v[l] = dword(a.addr[0] + 4ull * (32 * r + l));
        wp.complete_load(a.reg + r, v, ~0u);
    }
}

/// Runs every CTA of k to completion with the warp core; loads complete at once.
void run_kernel(const workload& wl, const kernel_decl& k, flat_memory& mem)
{
    sm::launch_context ctx;
    for (const auto& p : k.params)
        ctx.params.push_back(
            p.is_buffer ? flat_memory::base(static_cast<std::size_t>(wl.buffer_index(p.buffer)))
                        : p.bits);
    ctx.ntid_x = k.block_x;
    ctx.ntid_y = k.block_y;
    ctx.nctaid_x = k.grid_x;
    ctx.nctaid_y = k.grid_y;
    for (unsigned cy = 0; cy < k.grid_y; ++cy)
        for (unsigned cx = 0; cx < k.grid_x; ++cx) {
            ctx.ctaid_x = cx;
            ctx.ctaid_y = cy;
            std::vector<std::unique_ptr<sm::warp>> warps;
            for (unsigned w = 0; w < k.block_warps(); ++w)
                warps.push_back(std::make_unique<sm::warp>(k.code, ctx, w, kernel_registers));
            std::vector<bool> at_bar(warps.size(), false);
            for (;;) {
                bool stepped = false;
                for (std::size_t w = 0; w < warps.size(); ++w) {
                    sm::warp& wp = *warps[w];
                    if (wp.done() || at_bar[w])
                        continue;
                    stepped = true;
                    const sm::step_result r = wp.step();
                    if (r.kind == sm::step_kind::error)
                        FAIL(k.name << ": warp " << w << " at PC " << r.pc << ": " << r.message);
                    if (r.kind == sm::step_kind::barrier)
                        at_bar[w] = true;
                    if (r.kind == sm::step_kind::cdl) {
                        run_cdl(wl, k, mem, wp, *r.access);
                        continue;
                    }
                    if (r.kind != sm::step_kind::load && r.kind != sm::step_kind::store)
                        continue;
                    sm::lane_values v{};
                    for (unsigned l = 0; l < sm::warp_size; ++l) {
                        if (!((r.access->lane_mask >> l) & 1))
                            continue;
                        std::uint32_t* p = mem.at(r.access->addr[l]);
                        if (!p)
                            FAIL(k.name << ": bad address " << r.access->addr[l] << " at PC "
                                        << r.pc);
                        if (r.kind == sm::step_kind::load)
                            v[l] = *p;
                        else
                            *p = r.access->data[l];
                    }
                    if (r.kind == sm::step_kind::load)
                        wp.complete_load(r.access->reg, v, r.access->lane_mask);
                }
                if (!stepped) {
                    // Every live warp waits at the barrier: release them all.
                    bool waiting = false;
                    for (std::size_t w = 0; w < warps.size(); ++w) {
                        waiting = waiting || (at_bar[w] && !warps[w]->done());
                        at_bar[w] = false;
                    }
                    if (!waiting)
                        break;
                }
            }
        }
}

/// Executes the schedule of wl functionally and returns the failed checks.
std::vector<std::string> run_functionally(const workload& wl)
{
    flat_memory mem;
    for (const auto& b : wl.buffers)
        mem.buffers.push_back(initial_words(b));
    for (const auto& phase : wl.schedule)
        for (std::size_t k : phase)
            run_kernel(wl, wl.kernels[k], mem);
    std::vector<std::string> failed;
    for (const auto& c : wl.checks) {
        const reference_result exp = expected_contents(wl, c);
        if (!exp.ok()) {
            failed.push_back(c.buffer + ": " + exp.error);
            continue;
        }
        const auto& b = wl.buffers[static_cast<std::size_t>(wl.buffer_index(c.buffer))];
        const comparison cmp =
            compare(exp.words, mem.buffers[static_cast<std::size_t>(wl.buffer_index(c.buffer))],
                    b.type, c.tol);
        if (!cmp.ok())
            failed.push_back(c.buffer + ": " + std::to_string(cmp.mismatches) +
                             " mismatches, first at " + std::to_string(cmp.first[0].index) +
                             " expected " + cmp.first[0].expected + " got " + cmp.first[0].got);
    }
    return failed;
}

} // namespace

TEST_CASE("every shipped workload parses, assembles and fits the default platform", "[workload]")
{
    for (const char* name : shipped) {
        const workload wl = load(dir + name + ".yaml");
        INFO(name);
        CHECK(wl.name == name);
        CHECK(!wl.kernels.empty());
        CHECK(!wl.checks.empty());
        for (const auto& k : wl.kernels) {
            CHECK(!k.code.empty());
            CHECK(k.image().size() == k.code.size() * sm::instruction_bytes);
        }
        CHECK(check_against_platform(wl, 8, 32).empty());
    }
}

TEST_CASE("every shipped workload computes its reference when run functionally", "[workload]")
{
    for (const char* name : shipped) {
        const workload wl = load(dir + name + ".yaml");
        INFO(name);
        CHECK(run_functionally(wl) == std::vector<std::string>{});
    }
}

/// Words and error of two reference results agree.
void same_result(const reference_result& a, const reference_result& b)
{
    CHECK(a.error == b.error);
    CHECK(a.words == b.words);
}

TEST_CASE("expected_all: every check's reference, from given initial words or computed",
          "[workload]")
{
    for (const char* name : shipped) {
        INFO(name);
        workload wl = load(dir + name + ".yaml");
        // The same check twice: its buffers are read twice, copied first, taken over last.
        if (!wl.checks.empty())
            wl.checks.push_back(wl.checks.front());
        std::vector<std::vector<std::uint32_t>> initial;
        for (const buffer_decl& b : wl.buffers)
            initial.push_back(initial_words(b));
        const std::vector<reference_result> given = expected_all(wl, initial);
        const std::vector<reference_result> computed = expected_all(wl, {});
        REQUIRE(given.size() == wl.checks.size());
        REQUIRE(computed.size() == wl.checks.size());
        for (std::size_t i = 0; i < wl.checks.size(); ++i) {
            const reference_result alone = expected_contents(wl, wl.checks[i]);
            same_result(given[i], alone);
            same_result(computed[i], alone);
        }
    }
}

TEST_CASE("expected_all: given words are what the references read", "[workload]")
{
    workload wl = load(dir + "vector_add.yaml");
    std::vector<std::vector<std::uint32_t>> initial;
    for (const buffer_decl& b : wl.buffers)
        initial.push_back(initial_words(b));
    // c = a + b: a changed input changes the expected output, so the given words are used.
    const int a = wl.buffer_index("a");
    REQUIRE(a >= 0);
    auto& words = initial[static_cast<std::size_t>(a)];
    REQUIRE(!words.empty());
    const std::vector<reference_result> before = expected_all(wl, initial);
    words[0] = f32_bits(bits_f32(words[0]) + 1.0f);
    const std::vector<reference_result> after = expected_all(wl, initial);
    REQUIRE(before.size() == 1);
    REQUIRE(after.size() == 1);
    REQUIRE(before[0].ok());
    CHECK(after[0].words[0] != before[0].words[0]);
    CHECK(
        std::equal(after[0].words.begin() + 1, after[0].words.end(), before[0].words.begin() + 1));
}

TEST_CASE("a broken kernel is caught by its check in the functional run", "[workload]")
{
    workload wl = load(dir + "vector_add.yaml");
    // FADD -> FSUB: the reference no longer matches.
    for (auto& inst : wl.kernels[0].code)
        if (inst.op == sm::opcode::FADD)
            inst.op = sm::opcode::FSUB;
    const auto failed = run_functionally(wl);
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].rfind("c: ", 0) == 0);
}

TEST_CASE("assembler positions point at the program's lines in the file", "[workload]")
{
    const workload wl = load(dir + "vector_add.yaml");
    const kernel_decl& k = wl.kernels[0];
    CHECK(k.origin.line == 21);
    CHECK(k.origin.col == 7);
    CHECK(k.lines.front() == 22);
    CHECK(k.lines.back() == 41);
}

TEST_CASE("initial contents: zero, iota, fill, values and seeded random", "[workload]")
{
    const auto wl = parse_workload_text(R"(
buffers:
  - {name: z, type: u32, elements: 3}
  - {name: i, type: i32, elements: 4, init: {iota: {start: -2, step: 3}}}
  - {name: f, type: f32, elements: 3, init: {iota: {start: 0.5, step: 0.25}}}
  - {name: u, type: u32, elements: 2, init: {fill: 0xffffffff}}
  - {name: v, type: f32, elements: 3, init: {values: [1, -2.5, 3e2]}}
  - {name: r, type: i32, elements: 1000, init: {random: {seed: 5, min: -3, max: 3}}}
  - {name: rf, type: f32, elements: 1000, init: {random: {seed: 5, min: 1, max: 2}}}
  - {name: r2, type: i32, elements: 1000, init: {random: {seed: 5, min: -3, max: 3}}}
  - {name: r3, type: i32, elements: 1000, init: {random: {seed: 6, min: -3, max: 3}}}
  - {name: it, type: u32, elements: 2, init: iota}
kernels:
  - {name: k, grid: 1, block: 32, program: EXIT}
)",
                                        "t.yaml");
    for (const auto& e : wl.errors)
        UNSCOPED_INFO(e);
    REQUIRE(wl.ok());
    const auto& b = wl.wl.buffers;
    CHECK(initial_words(b[0]) == std::vector<std::uint32_t>{0, 0, 0});
    CHECK(initial_words(b[1]) == std::vector<std::uint32_t>{0xfffffffe, 1, 4, 7});
    CHECK(initial_words(b[2]) ==
          std::vector<std::uint32_t>{f32_bits(0.5f), f32_bits(0.75f), f32_bits(1.0f)});
    CHECK(initial_words(b[3]) == std::vector<std::uint32_t>{0xffffffff, 0xffffffff});
    CHECK(initial_words(b[4]) ==
          std::vector<std::uint32_t>{f32_bits(1.f), f32_bits(-2.5f), f32_bits(300.f)});
    const auto r = initial_words(b[5]);
    std::set<std::int32_t> seen;
    for (auto w : r)
        seen.insert(static_cast<std::int32_t>(w));
    CHECK(seen == std::set<std::int32_t>{-3, -2, -1, 0, 1, 2, 3});
    for (auto w : initial_words(b[6])) {
        CHECK(bits_f32(w) >= 1.0f);
        CHECK(bits_f32(w) <= 2.0f);
    }
    CHECK(initial_words(b[7]) == r);
    CHECK(initial_words(b[8]) != r);
    CHECK(initial_words(b[9]) == std::vector<std::uint32_t>{0, 1});
    // The first value of seed 5 is pinned: a change of generator changes every workload.
    CHECK(initial_words(b[5])[0] == initial_words(b[7])[0]);
}

TEST_CASE("initial contents: random integers in power-of-two and other spans", "[workload]")
{
    const auto wl = parse_workload_text(R"(
buffers:
  - {name: p, type: u32, elements: 5000, init: {random: {seed: 42, min: 0, max: 65535}}}
  - {name: q, type: i32, elements: 5000, init: {random: {seed: 7, min: -8, max: 7}}}
  - {name: o, type: u32, elements: 5000, init: {random: {seed: 42, min: 0, max: 999}}}
kernels:
  - {name: k, grid: 1, block: 32, program: EXIT}
)",
                                        "t.yaml");
    REQUIRE(wl.ok());
    const auto& b = wl.wl.buffers;
    // The definition: splitmix64 values reduced modulo the span, offset by min.
    const auto expected = [](std::uint64_t seed, std::int64_t lo, std::uint64_t span,
                             std::size_t n) {
        std::vector<std::uint32_t> w;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
            w.push_back(static_cast<std::uint32_t>(lo + static_cast<std::int64_t>(z % span)));
        }
        return w;
    };
    CHECK(initial_words(b[0]) == expected(42, 0, 65536, 5000));
    CHECK(initial_words(b[1]) == expected(7, -8, 16, 5000));
    CHECK(initial_words(b[2]) == expected(42, 0, 1000, 5000));
}

TEST_CASE("the default schedule runs each kernel alone in declaration order", "[workload]")
{
    const auto r = parse_workload_text(R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: 1, block: 32, program: EXIT}
  - {name: k2, grid: [2, 3], block: [8, 4], sms: {first: 1, count: 2}, program: EXIT}
)",
                                       "t.yaml");
    REQUIRE(r.ok());
    CHECK(r.wl.schedule == std::vector<std::vector<std::size_t>>{{0}, {1}});
    CHECK(r.wl.name == "t");
    const kernel_decl& k2 = r.wl.kernels[1];
    CHECK(k2.grid_x == 2);
    CHECK(k2.grid_y == 3);
    CHECK(k2.block_threads() == 32);
    CHECK(k2.sms.first == 1);
    CHECK(k2.sms.count == 2);
}

TEST_CASE("check_against_platform: SM ranges, warp slots, overlap of 'all SMs'", "[workload]")
{
    const auto r = parse_workload_text(R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: 1, block: 1024, sms: {first: 6, count: 4}, program: EXIT}
  - {name: k2, grid: 1, block: 32, sms: {first: 8}, program: EXIT}
  - {name: k3, grid: 1, block: 32, sms: {first: 2}, program: EXIT}
  - {name: k4, grid: 1, block: 32, sms: {first: 0, count: 2}, program: EXIT}
schedule: [[k3, k4], [k1], [k2]]
)",
                                       "p.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    CHECK(check_against_platform(r.wl, 8, 16) ==
          std::vector<std::string>{
              "p.yaml:4:5: error: kernels[0].sms: kernel 'k1' uses SMs 6..9 but the platform has "
              "8 SMs (0..7)",
              "p.yaml:4:5: error: kernels[0].block: kernel 'k1' has 32 warps per CTA but an SM "
              "has 16 warp slots",
              "p.yaml:5:5: error: kernels[1].sms: kernel 'k2' uses SMs 8..last but the platform "
              "has 8 SMs (0..7)"});
    CHECK(check_against_platform(r.wl, 16, 32).empty());
}

TEST_CASE("check_against_platform with limits: queues, program size, simulated time", "[workload]")
{
    const auto r = parse_workload_text(R"(
buffers: [{name: a, type: u32, elements: 1}]
kernels:
  - {name: k1, grid: [100, 10], block: 64, sms: {first: 0, count: 4}, program: EXIT}
  - {name: k2, grid: 7, block: 32, sms: {first: 4, count: 4}, program: "NOP\nEXIT"}
schedule:
  - [k1, k2]
  - [k2]
)",
                                       "p.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    REQUIRE(r.wl.schedule_where.size() == 2);
    CHECK(r.wl.schedule_where[0].str() == "p.yaml:7:5");
    platform_limits lim;
    lim.num_sms = 8;
    lim.warp_slots = 32;
    lim.core_period_ps = 500;
    lim.dispatch_latency = 100;
    lim.cta_dispatch_interval = 10;
    CHECK(check_against_platform(r.wl, lim).empty());

    // By hand: k1 has 1000 CTAs of 2 warps on 4 SMs, so one SM gets 250: the dispatch bound
    // 249 x 10 + 1 = 2491 cycles beats the issue bound 250 x 2 = 500; plus 100 of latency.
    CHECK(min_kernel_ps(r.wl.kernels[0], 4, lim) == 2591ull * 500);
    // k2: 7 CTAs of 1 warp on 4 SMs: 2 per SM, max(1 x 10 + 1, 2 x 1) + 100 = 111 cycles.
    CHECK(min_kernel_ps(r.wl.kernels[1], 4, lim) == 111ull * 500);
    lim.cta_dispatch_interval = 0; // the issue bound: 250 x 2 + 100
    CHECK(min_kernel_ps(r.wl.kernels[0], 4, lim) == 600ull * 500);
    lim.cta_dispatch_interval = 10;

    platform_limits one_queue = lim;
    one_queue.queues = 1;
    CHECK(check_against_platform(r.wl, one_queue) ==
          std::vector<std::string>{"p.yaml:7:5: error: schedule[0]: the phase runs 2 kernels side "
                                   "by side but the CP has 1 queue(s) (cp.queues)"});

    platform_limits short_programs = lim;
    short_programs.max_program_bytes = 16; // one instruction
    CHECK(check_against_platform(r.wl, short_programs) ==
          std::vector<std::string>{"p.yaml:5:73: error: kernels[1].program: kernel 'k2' has 2 "
                                   "instructions but an SM loads programs of at most 1 (16 "
                                   "bytes)"});

    platform_limits short_time = lim;
    short_time.max_time_ps = 2591ull * 500 - 1; // k1 alone needs 2591 cycles
    CHECK(check_against_platform(r.wl, short_time) ==
          std::vector<std::string>{
              "p.yaml:4:5: error: kernels[0].grid: 1000 CTAs of 2 warp(s) on 4 SMs take at least "
              "1.3 us of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = 10 "
              "cycles and issues one warp-instruction per cycle), more than platform.max_time "
              "(1295499 ps)"});
    platform_limits short_timeout = short_time;
    short_timeout.kernel_timeout_ps = 1000000; // 1 us, met before max_time
    CHECK(check_against_platform(r.wl, short_timeout)
              .front()
              .find("more than host.kernel_timeout (1 us)") != std::string::npos);
    // Each kernel fits, but the two phases together (2591 + 111 cycles) do not.
    platform_limits short_run = lim;
    short_run.max_time_ps = 2700ull * 500;
    CHECK(check_against_platform(r.wl, short_run) ==
          std::vector<std::string>{"p.yaml:7:5: error: schedule: the 2 phases take at least "
                                   "1.35 us of simulated time, more than platform.max_time "
                                   "(1350 ns)"});
}

namespace {
/// A valid base workload; each bad case below changes one thing.
const std::string base_head = R"(name: t
buffers:
  - {name: a, type: u32, elements: 4}
)";
const std::string base_kernel = R"(kernels:
  - name: k
    params:
      - {name: a, buffer: a}
    grid: [1, 1]
    block: [32, 1]
    program: |
      LDP R0, a
      EXIT
)";
} // namespace

TEST_CASE("the base of the bad-workload catalogue is valid", "[workload]")
{
    CHECK(errors_of(base_head + base_kernel).empty());
}

TEST_CASE("bad workloads: each error with position, key path and problem", "[workload]")
{
    struct bad_case {
        std::string text;
        std::vector<std::string> errors;
    };
    const std::vector<bad_case> cases = {
        // 1 YAML syntax error
        {"buffers: [\n", {"w.yaml:2:1: error: YAML syntax error: end of sequence flow not found"}},
        // 2 unknown top-level key with a suggestion
        {base_head + base_kernel + "chekcs: []\n",
         {"w.yaml:13:1: error: chekcs: unknown key (did you mean 'checks'?)"}},
        // 3 duplicate key
        {"name: t\nname: u\n" + base_head.substr(8) + base_kernel,
         {"w.yaml:2:1: error: name: duplicate key"}},
        // 4 missing required key
        {base_head, {"w.yaml:1:1: error: missing required key 'kernels'"}},
        // 5 wrong type
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: lots}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: wrong type (expected an unsigned integer, "
          "got 'lots')"}},
        // 6 bad enum with suggestion
        {"name: t\nbuffers:\n  - {name: a, type: f64, elements: 4}\n" + base_kernel,
         {"w.yaml:3:21: error: buffers[0].type: invalid choice (expected one of u32|i32|f32, got "
          "'f64')"}},
        // 7 elements = 0
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 0}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: value out of range (expected 1..268435456, "
          "got 0)"}},
        // 8 total size above 1 GiB
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 200000000}\n  - {name: b, type: "
         "u32, elements: 200000000}\n" +
             base_kernel,
         {"w.yaml:2:1: error: buffers: the buffers need 1600000000 bytes (at most 1073741824, 1 "
          "GiB)"}},
        // 9 duplicate buffer name
        {base_head + "  - {name: a, type: f32, elements: 2}\n" + base_kernel,
         {"w.yaml:4:12: error: buffers[1].name: duplicate buffer name 'a' (first defined on line "
          "3)"}},
        // 10 random without max (a missing seed is the run's), and a negative seed
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {random: {min: 0}}}\n"
         "  - {name: b, type: u32, elements: 4, init: {random: {seed: -1, min: 0, max: 9}}}\n" +
             base_kernel,
         {"w.yaml:3:54: error: buffers[0].init.random: missing required key 'max'",
          "w.yaml:4:61: error: buffers[1].init.random.seed: wrong type (expected an unsigned "
          "integer, got '-1')"}},
        // 11 random max below min, out-of-type fill value
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {random: {seed: 1, min: "
         "5, max: 2}}}\n  - {name: b, type: u32, elements: 4, init: {fill: -1}}\n" +
             base_kernel,
         {"w.yaml:3:77: error: buffers[0].init.random.max: max (2) is below min (5)",
          "w.yaml:4:52: error: buffers[1].init.fill: value out of range (expected 0..4294967295 "
          "for a u32 buffer, got -1)"}},
        // 12 values count differs from elements
        {"name: t\nbuffers:\n  - {name: a, type: i32, elements: 4, init: {values: [1, 2.5]}}\n" +
             base_kernel,
         {"w.yaml:3:58: error: buffers[0].init.values[1]: wrong type (expected an integer for a "
          "i32 buffer, got 2.5)",
          "w.yaml:3:54: error: buffers[0].init.values: has 2 values, the buffer has 4 elements"}},
        // 13 unknown init kind
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 4, init: {randon: {seed: 1}}}\n" +
             base_kernel,
         {"w.yaml:3:46: error: buffers[0].init: invalid choice (expected one of "
          "zero|iota|fill|values|random, got 'randon'; did you mean 'random'?)"}},
        // 14 unknown instruction (assembler, with the file line of the program)
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      "
                     "LDP R0, 0\n      FADDD R1, R0, R0\n      EXIT\n",
         {"w.yaml:10:7: error: kernels[0].program: unknown instruction 'FADDD' (did you mean "
          "'FADD'?)"}},
        // 15 unknown parameter in the program
        {base_head + "kernels:\n  - name: k\n    params: [{name: a, buffer: a}]\n    grid: 1\n  "
                     "  block: 32\n    program: |\n      LDP R0, b\n      EXIT\n",
         {"w.yaml:10:15: error: kernels[0].program: undefined parameter 'b'"}},
        // 16 register out of range
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      MOV "
                     "R64, 1\n      EXIT\n",
         {"w.yaml:9:11: error: kernels[0].program: register R64 out of range (R0..R63)"}},
        // 17 undefined label
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      BRA "
                     "nowhere\n      EXIT\n",
         {"w.yaml:9:11: error: kernels[0].program: undefined label 'nowhere'"}},
        // 18 undefined buffer in params
        {base_head + "kernels:\n  - name: k\n    params: [{name: p, buffer: aa}]\n    grid: 1\n  "
                     "  block: 32\n    program: EXIT\n",
         {"w.yaml:6:32: error: kernels[0].params[0].buffer: undefined buffer 'aa' (did you mean "
          "'a'?)"}},
        // 19 grid beyond the limit
        {base_head + "kernels:\n  - name: k\n    grid: [70000, 1]\n    block: 32\n    program: "
                     "EXIT\n",
         {"w.yaml:6:12: error: kernels[0].grid[0]: value out of range (expected 1..65535, got "
          "70000)"}},
        // 20 block with too many threads, and a zero dimension
        {base_head + "kernels:\n  - name: k\n    grid: 1\n    block: [64, 32]\n    program: "
                     "EXIT\n  - name: k2\n    grid: 1\n    block: [0, 4]\n    program: EXIT\n",
         {"w.yaml:7:12: error: kernels[0].block: block has 2048 threads (expected 1..1024)",
          "w.yaml:11:13: error: kernels[1].block[0]: value out of range (expected 1..1024, got "
          "0)"}},
        // 21 duplicate kernel name, duplicate parameter name
        {base_head + "kernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\n  - {name: k, "
                     "grid: 1, block: 32, program: EXIT, params: [{name: p, value: 1}, {name: p, "
                     "value: 2}]}\n",
         {"w.yaml:6:12: error: kernels[1].name: duplicate kernel name 'k' (first defined on line "
          "5)",
          "w.yaml:6:87: error: kernels[1].params[1].name: duplicate parameter name 'p'"}},
        // 22 param with both value and buffer; with a non-number value
        {base_head + "kernels:\n  - name: k\n    params:\n      - {name: p, value: 1, buffer: a}\n "
                     "     - {name: q, value: abc}\n    grid: 1\n    block: 32\n    program: "
                     "EXIT\n",
         {"w.yaml:7:9: error: kernels[0].params[0]: has both 'value' and 'buffer' (expected one)",
          "w.yaml:8:26: error: kernels[0].params[1].value: wrong type (expected a number "
          "(integer, or decimal for f32), got 'abc')"}},
        // 23 undefined kernel in the schedule
        {base_head + base_kernel + "schedule: [[k], [kk]]\n",
         {"w.yaml:13:18: error: schedule[1][0]: undefined kernel 'kk' (did you mean 'k'?)"}},
        // 24 overlapping SM ranges in one phase
        {base_head + "kernels:\n  - {name: k1, grid: 1, block: 32, sms: {first: 0, count: 4}, "
                     "program: EXIT}\n  - {name: k2, grid: 1, block: 32, sms: {first: 3, count: "
                     "2}, program: EXIT}\nschedule: [[k1, k2]]\n",
         {"w.yaml:7:17: error: schedule[0][1]: kernels 'k1' (SMs 0..3) and 'k2' (SMs 3..4) share "
          "SMs in one phase"}},
        // 25 undefined buffer in a check, unknown reference
        {base_head + base_kernel +
             "checks:\n  - {buffer: b, expect: [1]}\n  - {buffer: a, reference: vector_ad}\n",
         {"w.yaml:14:14: error: checks[0].buffer: undefined buffer 'b' (did you mean 'a'?)",
          "w.yaml:15:28: error: checks[1].reference: unknown reference 'vector_ad' (expected one "
          "of "
          "vector_add|saxpy|strided_sum|gather|reduce_sum|table_sum|owned_rmw|stencil3|matmul|"
          "compute_bound|"
          "stream|fma_"
          "chain|"
          "axpby) "
          "(did you mean 'vector_add'?)"}},
        // 26 reference arguments: unknown, missing, wrong buffer type, bad kernel.param
        {base_head + "  - {name: f, type: f32, elements: 4}\n" + base_kernel +
             "checks:\n  - buffer: a\n    reference: stream\n    args: {in: f, k: k.kk, cc: "
             "1}\n",
         {"w.yaml:17:28: error: checks[0].args.cc: unknown key (did you mean 'c'?)",
          "w.yaml:17:16: error: checks[0].args.in: buffer 'f' is f32 (expected u32|i32)",
          "w.yaml:17:22: error: checks[0].args.k: kernel 'k' has no parameter 'kk'",
          "w.yaml:17:5: error: checks[0].args: missing argument 'c' of reference 'stream'"}},
        // 27 expect with the wrong count; tolerance on an integer buffer
        {base_head + base_kernel + "checks:\n  - {buffer: a, expect: [1, 2, 3], tolerance: 0.1}\n",
         {"w.yaml:14:25: error: checks[0].expect: has 3 values, buffer 'a' has 4 elements",
          "w.yaml:14:36: error: checks[0].tolerance: a tolerance applies only to f32 buffers "
          "('a' is u32)"}},
        // 28 leading zero (octal in yaml-cpp) is rejected
        {"name: t\nbuffers:\n  - {name: a, type: u32, elements: 010}\n" + base_kernel,
         {"w.yaml:3:36: error: buffers[0].elements: wrong type (expected an unsigned integer, "
          "got '010')"}},
        // 29 empty value points at the key
        {"name: t\nbuffers:\n  - name: a\n    type: u32\n    elements:\n" + base_kernel,
         {"w.yaml:5:5: error: buffers[0].elements: wrong type (expected an unsigned integer, got "
          "nothing)"}},
        // 30 too many parameters
        {base_head +
             "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: EXIT\n    params: "
             "[{name: p0, value: 0}, {name: p1, value: 0}, {name: p2, value: 0}, {name: p3, "
             "value: 0}, {name: p4, value: 0}, {name: p5, value: 0}, {name: p6, value: 0}, "
             "{name: p7, value: 0}, {name: p8, value: 0}, {name: p9, value: 0}, {name: p10, "
             "value: 0}, {name: p11, value: 0}, {name: p12, value: 0}, {name: p13, value: 0}, "
             "{name: p14, value: 0}, {name: p15, value: 0}, {name: p16, value: 0}]\n",
         {"w.yaml:9:13: error: kernels[0].params: has 17 parameters (at most 16)"}},
    };
    REQUIRE(cases.size() >= 20);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i + 1 << ":\n" << cases[i].text);
        CHECK(errors_of(cases[i].text) == cases[i].errors);
    }
}

TEST_CASE("a missing workload file is an error", "[workload]")
{
    const auto r = parse_workload("/nonexistent/w.yaml");
    CHECK(r.errors ==
          std::vector<std::string>{"/nonexistent/w.yaml: error: cannot open workload file"});
}

namespace {
/// splitmix64 as docs/workloads.md states it ("Random contents"), written out independently.
std::vector<std::uint32_t> splitmix_words(std::uint64_t seed, std::size_t n)
{
    std::vector<std::uint32_t> out;
    std::uint64_t s = seed;
    for (std::size_t i = 0; i < n; ++i) {
        s += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        out.push_back(static_cast<std::uint32_t>(z)); // min 0, max 2^32-1: z mod 2^32
    }
    return out;
}

/// A workload using variables everywhere: typed values, arithmetic, text and a program.
const std::string vars_workload = R"(# uses vars
vars: {n: 96, half: 48, twice: "${n*2}", mask: "${twice - 1}", a: 2.5}
description: "n is ${n} and a is ${a}"
buffers:
  - {name: x, type: u32, elements: "${n}", init: {random: {min: 0, max: "${mask}"}}}
  - {name: y, type: f32, elements: "${twice}", init: {fill: "${a}"}}
kernels:
  - name: k
    params:
      - {name: x, buffer: x}
      - {name: n, value: "${n}"}
      - {name: a, value: "${a}"}
    grid: ["${n - half - 47}", 1]
    block: "${half + half}"
    program: |
      # ${n} elements
              MOV  R1, ${mask}
              IADD R2, R1, ${n * 3 + 1}
              EXIT
)";
} // namespace

TEST_CASE("workload variables: whole values typed as numbers, text substituted", "[workload][vars]")
{
    const auto r = parse_workload_text(vars_workload, "v.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    const workload& wl = r.wl;
    CHECK(wl.vars ==
          std::map<std::string, std::string>{
              {"n", "96"}, {"half", "48"}, {"twice", "192"}, {"mask", "191"}, {"a", "2.5"}});
    CHECK(wl.description == "n is 96 and a is 2.5");
    CHECK(wl.buffers[0].elements == 96);
    CHECK(wl.buffers[0].init.max == 191);
    CHECK(wl.buffers[1].elements == 192);
    CHECK(initial_words(wl.buffers[1]) == std::vector<std::uint32_t>(192, f32_bits(2.5f)));
    const kernel_decl& k = wl.kernels[0];
    CHECK(k.params[1].bits == 96);
    CHECK(k.params[2].bits == f32_bits(2.5f)); // a decimal stays a decimal (f32 bits)
    CHECK(k.grid_x == 1);
    CHECK(k.block_x == 96);
    CHECK(k.source ==
          "# 96 elements\n        MOV  R1, 191\n        IADD R2, R1, 289\n        EXIT\n");
    // The same program written with the numbers assembles to the same instructions.
    std::string literal = vars_workload;
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"# ${n} elements", "# 96 elements"},
                                                          {"MOV  R1, ${mask}", "MOV  R1, 191"},
                                                          {"R1, ${n * 3 + 1}", "R1, 289"}})
        literal.replace(literal.find(from), from.size(), to);
    const auto lit = parse_workload_text(literal, "l.yaml");
    REQUIRE(lit.ok());
    CHECK(k.image() == lit.wl.kernels[0].image());
    CHECK(k.lines == lit.wl.kernels[0].lines);
}

TEST_CASE("workload variables: given values replace declared ones and are recorded in the text",
          "[workload][vars]")
{
    workload_options o;
    o.vars.push_back({"n", "200", {"-D n=200"}});
    o.vars.push_back({"a", "-1.5", {"-D a=-1.5"}});
    const auto r = parse_workload_text(vars_workload, "v.yaml", o);
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    CHECK(r.wl.vars.at("n") == "200");
    CHECK(r.wl.vars.at("twice") == "400"); // derived from the given n
    CHECK(r.wl.buffers[0].elements == 200);
    CHECK(r.wl.buffers[1].elements == 400);
    CHECK(r.wl.kernels[0].params[2].bits == f32_bits(-1.5f));
    // The text as used: the vars line rewritten, and the default name written out.
    std::string expected = vars_workload;
    const std::string decl =
        "vars: {n: 96, half: 48, twice: \"${n*2}\", mask: \"${twice - 1}\", a: 2.5}";
    expected.replace(
        expected.find(decl), decl.size(),
        "name: \"v\"   # default name\n"
        "vars: {n: 200, half: 48, twice: \"${n*2}\", mask: \"${twice - 1}\", a: -1.5}");
    CHECK(r.wl.text == expected);
    // Read again without the values, the text is the same workload.
    const auto again = parse_workload_text(r.wl.text, "workload.yaml");
    REQUIRE(again.ok());
    CHECK(again.wl.name == "v");
    CHECK(again.wl.vars == r.wl.vars);
    CHECK(again.wl.buffers[1].elements == 400);
    CHECK(again.wl.kernels[0].image() == r.wl.kernels[0].image());
    // A workload with a name and no given values is recorded exactly as written.
    const std::string named = "name: t\n" + vars_workload;
    CHECK(parse_workload_text(named, "v.yaml").wl.text == named);
}

TEST_CASE("workload variables: block-style declarations and quoted values are rewritten too",
          "[workload][vars]")
{
    const std::string text = "name: t\nvars:\n  n: 0x20   # hex\n  m: '7'\nbuffers:\n"
                             "  - {name: a, type: u32, elements: \"${n}\"}\n" +
                             base_kernel;
    workload_options o;
    o.vars = {{"n", "64", {"-D n=64"}}, {"m", "9", {"-D m=9"}}};
    const auto r = parse_workload_text(text, "b.yaml", o);
    REQUIRE(r.ok());
    CHECK(r.wl.buffers[0].elements == 64);
    CHECK(r.wl.text == "name: t\nvars:\n  n: 64   # hex\n  m: 9\nbuffers:\n"
                       "  - {name: a, type: u32, elements: \"${n}\"}\n" +
                           base_kernel);
}

TEST_CASE("a random initialiser without a seed takes the run's seed plus its buffer index",
          "[workload][seed]")
{
    const std::string text = "name: t\nbuffers:\n"
                             "  - {name: a, type: u32, elements: 64, init: {random: {min: 0, max: "
                             "4294967295}}}\n"
                             "  - {name: b, type: u32, elements: 64, init: {random: {seed: 77, "
                             "min: 0, max: 4294967295}}}\n"
                             "  - {name: c, type: u32, elements: 64, init: {random: {min: 0, max: "
                             "4294967295}}}\n" +
                             base_kernel;
    workload_options s5, s6;
    s5.seed = 5;
    s6.seed = 6;
    const auto r5 = parse_workload_text(text, "s.yaml", s5);
    const auto r6 = parse_workload_text(text, "s.yaml", s6);
    REQUIRE(r5.ok());
    REQUIRE(r6.ok());
    CHECK(initial_words(r5.wl.buffers[0]) == splitmix_words(5, 64));
    CHECK(initial_words(r5.wl.buffers[2]) == splitmix_words(7, 64));
    CHECK(initial_words(r6.wl.buffers[0]) == splitmix_words(6, 64));
    CHECK(initial_words(r6.wl.buffers[0]) != initial_words(r5.wl.buffers[0]));
    CHECK(r5.wl.buffers[0].init.run_seed);
    // A buffer with its own seed keeps it whatever the run's seed.
    CHECK_FALSE(r5.wl.buffers[1].init.run_seed);
    CHECK(initial_words(r5.wl.buffers[1]) == splitmix_words(77, 64));
    CHECK(initial_words(r6.wl.buffers[1]) == splitmix_words(77, 64));
}

TEST_CASE("workload variables: each mistake with its position and a suggestion", "[workload][vars]")
{
    struct bad_case {
        std::string text;
        std::vector<var_setting> given;
        std::vector<std::string> errors;
    };
    const std::string k = base_kernel;
    const std::vector<bad_case> cases = {
        // 1 unknown variable in a whole value, with a suggestion
        {"name: t\nvars: {n: 4}\nbuffers:\n  - {name: a, type: u32, elements: \"${m}\"}\n" + k,
         {},
         {"w.yaml:4:37: error: buffers[0].elements: unknown variable 'm' (did you mean 'n'?)"}},
        // 2 unknown variable inside a program line: the line and column in the file
        {"name: t\nvars: {count: 4}\nbuffers:\n  - {name: a, type: u32, elements: 4}\n"
         "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n      # k\n"
         "      MOV R1, ${count}\n      MOV R2, ${coumt}\n      EXIT\n",
         {},
         {"w.yaml:12:15: error: kernels[0].program: unknown variable 'coumt' (did you mean "
          "'count'?)"}},
        // 3 no vars at all
        {base_head.substr(0, 8) + "description: \"${x}\"\n" + base_head.substr(8) + k,
         {},
         {"w.yaml:2:15: error: description: unknown variable 'x' (the workload declares no "
          "vars)"}},
        // 4 a given value for an undeclared variable, nothing close
        {"name: t\nvars: {n: 4, m: 5}\n" + base_head.substr(8) + k,
         {{"zzzz", "3", {"-D zzzz=3"}}},
         {"-D zzzz=3: error: workload.vars.zzzz: undeclared variable 'zzzz' (declared: n, m)"}},
        // 5 a given value that is not a number (from a config file line)
        {"name: t\nvars: {n: 4}\n" + base_head.substr(8) + k,
         {{"n", "many", {"c.yaml", 3, 8}}},
         {"c.yaml:3:8: error: workload.vars.n: wrong type (expected a number, got 'many')"}},
        // 6 declared values: not a number, used before its declaration, a decimal in arithmetic
        {"name: t\nvars: {n: four, m: \"${k}\", k: 2, f: 0.5, g: \"${f*2}\"}\n" +
             base_head.substr(8) + k,
         {},
         {"w.yaml:2:11: error: vars.n: wrong type (expected a number, got 'four')",
          "w.yaml:2:21: error: vars.m: variable 'k' is used before its declaration (line 2)",
          "w.yaml:2:46: error: vars.g: variable 'f' is 0.5, not an integer (arithmetic takes "
          "integers)"}},
        // 7 malformed and unterminated references, overflow
        {"name: t\nvars: {n: 4, big: 9223372036854775807}\ndescription: \"${n +} ${big*2} ${n\"\n" +
             base_head.substr(8) + k,
         {},
         {"w.yaml:3:15: error: description: malformed variable reference '${n +}' (expected "
          "${name}, or integers and names joined by +, - and *)",
          "w.yaml:3:22: error: description: '${big*2}' overflows 64-bit integers",
          "w.yaml:3:31: error: description: unterminated variable reference (expected ${name})"}},
        // 8 vars must be a mapping of names
        {"name: t\nvars: [n]\n" + base_head.substr(8) + k,
         {},
         {"w.yaml:2:7: error: vars: wrong type (expected a mapping of variable names to numbers, "
          "got a list)"}},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO("case " << i + 1 << ":\n" << cases[i].text);
        workload_options o;
        o.vars = cases[i].given;
        CHECK(parse_workload_text(cases[i].text, "w.yaml", o).errors == cases[i].errors);
    }
}

TEST_CASE("an assembler error after a substituted value keeps the file's line and column",
          "[workload][vars]")
{
    const std::string text = "name: t\nvars: {wide: 123456}\nbuffers:\n"
                             "  - {name: a, type: u32, elements: 4}\n"
                             "kernels:\n  - name: k\n    grid: 1\n    block: 32\n    program: |\n"
                             "      # k\n"
                             "      IADD R1, R2, ${wide}\n"
                             "      IADD R1, ${wide}, R99\n"
                             "      EXIT\n";
    CHECK(parse_workload_text(text, "w.yaml").errors ==
          std::vector<std::string>{
              "w.yaml:12:25: error: kernels[0].program: register R99 out of range (R0..R63)"});
}

namespace {
/// The 1-based line and column of the first `what` in text.
std::string place_of(const std::string& text, const std::string& what)
{
    const std::size_t off = text.find(what);
    REQUIRE(off != std::string::npos);
    const std::size_t start = text.rfind('\n', off);
    const std::size_t col = off - (start == std::string::npos ? 0 : start + 1) + 1;
    const auto line = std::count(text.begin(), text.begin() + static_cast<long>(off), '\n') + 1;
    return std::to_string(line) + ":" + std::to_string(col);
}

const std::string quoted_head = "name: t\nvars: {wide: 123456}\nbuffers:\n"
                                "  - {name: a, type: u32, elements: 4}\n"
                                "kernels:\n  - name: k\n    grid: 1\n    block: 32\n";
} // namespace

TEST_CASE("assembler errors in quoted programs point at the file's line and column", "[workload]")
{
    struct quoted {
        std::string program; ///< the `program:` line(s)
        std::string culprit; ///< the text the error points at
        std::string problem;
    };
    const std::vector<quoted> cases = {
        // one line, "\n" escapes: every instruction is on the same file line
        {"    program: \"MOV R1, 1\\nFADDD R1, R2, R3\\nEXIT\"\n", "FADDD",
         "unknown instruction 'FADDD' (did you mean 'FADD'?)"},
        // folded lines: a blank line is a newline
        {"    program: \"MOV R1, 1\n\n      FADDD R1, R2, R3\n\n      EXIT\"\n", "FADDD",
         "unknown instruction 'FADDD' (did you mean 'FADD'?)"},
        // single quotes, with '' before the error on the same line
        {"    program: 'MOV R1, 1\n\n      BRA nowhere # it''s gone\n\n      EXIT'\n", "nowhere",
         "undefined label 'nowhere'"},
        // a variable replaced before the error on an escaped line
        {"    program: \"MOV R1, ${wide}\\nIADD R1, ${wide}, R99\\nEXIT\"\n", "R99",
         "register R99 out of range (R0..R63)"},
        // an escape earlier on the line ("\t" is one character in the text, two in the file)
        {"    program: \"MOV R1, 1\\n\\tIADD R1, R1, R99\\nEXIT\"\n", "R99",
         "register R99 out of range (R0..R63)"},
    };
    for (const auto& c : cases) {
        const std::string text = quoted_head + c.program;
        INFO(text);
        CHECK(errors_of(text) ==
              std::vector<std::string>{"w.yaml:" + place_of(text, c.culprit) +
                                       ": error: kernels[0].program: " + c.problem});
    }
    // The instructions' file lines (used in fault reports) follow the file too.
    const std::string text = quoted_head + "    program: \"MOV R1, 1\n\n      MOV R2, 2\\nEXIT\"\n";
    const parse_result r = parse_workload_text(text, "w.yaml");
    REQUIRE(r.ok());
    CHECK(r.wl.kernels[0].lines == std::vector<int>{9, 11, 11});
}

TEST_CASE("an f32 iota that overflows to inf names the buffer and the element", "[workload]")
{
    // 1e38 + i * 1e37 first exceeds 3.4028235e38 at i = 25 (3.5e38); downwards the same.
    const std::string k = base_kernel;
    CHECK(errors_of("name: t\nbuffers:\n  - {name: up, type: f32, elements: 64, init: {iota: "
                    "{start: 1.0e38, step: 1.0e37}}}\n  - {name: down, type: f32, elements: 64, "
                    "init: {iota: {start: -1.0e38, step: -1.0e37}}}\n  - {name: a, type: u32, "
                    "elements: 4}\n" +
                    k) == std::vector<std::string>{
                              "w.yaml:3:76: error: buffers[0].init.iota.step: element 25 of buffer "
                              "'up' is 3.5e+38, which overflows f32 (largest 3.402823466e+38)",
                              "w.yaml:4:79: error: buffers[1].init.iota.step: element 25 of buffer "
                              "'down' is -3.5e+38, which overflows f32 (largest 3.402823466e+38)"});
    // 24 elements stop just below the limit: accepted.
    CHECK(errors_of("name: t\nbuffers:\n  - {name: a, type: f32, elements: 25, init: {iota: "
                    "{start: 1.0e38, step: 1.0e37}}}\n" +
                    k)
              .empty());
}

TEST_CASE("a declared kernel that no phase runs is an error", "[workload]")
{
    const std::string head = base_head +
                             "kernels:\n  - {name: k1, grid: 1, block: 32, program: "
                             "EXIT}\n  - {name: k2, grid: 1, block: 32, program: "
                             "EXIT}\n  - {name: k3, grid: 1, block: 32, program: EXIT}\n";
    CHECK(errors_of(head + "schedule: [[k2]]\n") ==
          std::vector<std::string>{
              "w.yaml:5:5: error: kernels[0]: kernel 'k1' is in no phase of the schedule, so it "
              "would never run",
              "w.yaml:7:5: error: kernels[2]: kernel 'k3' is in no phase of the schedule, so it "
              "would never run"});
    CHECK(errors_of(head + "schedule: [k3, k1, [k2]]\n").empty());
    // A misspelt name in the schedule is reported once, not also as a kernel never run.
    CHECK(errors_of(head + "schedule: [k3, k1, [k22]]\n") ==
          std::vector<std::string>{
              "w.yaml:8:21: error: schedule[2][0]: undefined kernel 'k22' (did you mean 'k2'?)"});
}

TEST_CASE("hostile YAML in a workload is an error, not a crash", "[workload]")
{
    // An unknown key is reported as such; its value is not read (no variable error from it).
    CHECK(errors_of(base_head + base_kernel + "chekcs: \"${zz}\"\n") ==
          std::vector<std::string>{
              "w.yaml:13:1: error: chekcs: unknown key (did you mean 'checks'?)"});
    CHECK(errors_of("name: t\ndescription: &d [1, *d]\n" + base_head.substr(8) + base_kernel) ==
          std::vector<std::string>{
              "w.yaml:2:14: error: an alias inside the node its anchor names (a cycle)"});
    CHECK(errors_of(base_head + base_kernel + "---\nname: u\n") ==
          std::vector<std::string>{"w.yaml:13:1: error: a second YAML document (after '---'); a "
                                   "file holds one document"});
    CHECK(
        errors_of(std::string("name: t\0\n", 9) + base_head.substr(8) + base_kernel) ==
        std::vector<std::string>{"w.yaml:1:8: error: a NUL character is not allowed in YAML text"});
}

TEST_CASE("bad page-fault and CBV keys: each error located", "[workload]")
{
    const std::string kernel = "kernels:\n"
                               "  - name: k\n"
                               "    params: [{name: d, buffer: d}]\n"
                               "    grid: [1, 1]\n"
                               "    block: [32, 1]\n"
                               "    program: \"EXIT\"\n";
    auto errors = [&](const std::string& bufs, const std::string& kernel_extra,
                      const std::string& tail) {
        std::string k = kernel;
        k.insert(k.find("    grid"), kernel_extra);
        return errors_of("name: t\nbuffers:\n" + bufs + k + tail);
    };
    const std::string d = "  - {name: d, type: u32, elements: 64}\n";
    auto has = [](const std::vector<std::string>& e, const std::string& what) {
        for (const auto& s : e)
            if (s.find(what) != std::string::npos)
                return true;
        return false;
    };
    CHECK(errors(d, "", "").empty());
    CHECK(
        has(errors("  - {name: d, type: u32, elements: 64, alloc: lazy}\n", "", ""), "w.yaml:3:"));
    CHECK(has(errors(d, "", "evict: [{buffer: x, after_ns: 5}]\n"), "no buffer named 'x'"));
    CHECK(has(errors(d, "", "evict: [{buffer: d}]\n"), "after_ns"));
    CHECK(has(errors(d, "", "evict: [{buffer: d, phase: 3, after_ns: 5}]\n"),
              "phase 3 does not exist"));
    CHECK(has(errors("  - {name: d, type: u32, elements: 64, alloc: on_demand}\n",
                     "    cbvs: [{slot: 0, buffer: d}]\n", ""),
              "buffer 'd' is on_demand; a CBV's buffer must be eager"));
    CHECK(has(errors(d, "    cbvs: [{slot: 1, buffer: d}, {slot: 1, buffer: d}]\n", ""),
              "CBV slot 1 is bound twice"));
    CHECK(has(errors(d, "    cbvs: [{slot: 0, buffer: q}]\n", ""), "no buffer named 'q'"));
    CHECK(
        has(errors(d, "    cbvs: [{slot: 0, buffer: d}]\n", "evict: [{buffer: d, after_ns: 5}]\n"),
            "buffer 'd' is a CBV of kernel 'k'; it cannot be evicted"));
}
