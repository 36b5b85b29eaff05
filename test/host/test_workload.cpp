// Unit tests of the workload reader: the shipped workloads parse and, executed functionally by
// the warp core over a flat memory, pass their own checks; the references' expected contents.
// See docs/workloads.md.
#include "models/sm/core/warp.h"
#include "test/host/workload_cases.h"

#include <algorithm>
#include <memory>
#include <set>

#include <catch2/catch.hpp>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

const char* const shipped[] = {"vector_add",   "saxpy",       "strided_sum",   "random_gather",
                               "reduction",    "matmul",      "compute_bound", "stream",
                               "multi_kernel", "page_faults", "tlb_reach",     "cdl_bulk",
                               "cdl_legacy"};

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
