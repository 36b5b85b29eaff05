// Seed 002's instrumentation pass: block leaders, remapped branches, the inserted code, and
// the whole pre-pass / traced run / post-pass on the functional warp model with an independent
// observer of the uninstrumented program (sizes, nothing refused, the executed order, an
// undersized buffer). Seeded (VGPU_TEST_SEED). See models/shader_trace/README.md.
#include "models/host/instrument.h"
#include "models/sm/core/assembler.h"
#include "models/sm/core/warp.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>

using namespace vgpu::shader_trace;
using namespace vgpu::host;
namespace sm = vgpu::sm;

namespace {

// Per thread t: a loop of in[t] iterations (a guarded store inside), then an if/else on the
// parity of t (a store on one side, an atomic on the other).
const char* const kernel = R"(
        S2R R0, SR_GLOBAL_TID_X
        LDP R1, in
        SHL R2, R0, 2
        IADD R1, R1, R2
        LD  R3, [R1]
        MOV R4, 0
        ISETP.EQ P0, R3, 0
@P0     BRA done
loop:   IADD R4, R4, R3
        ISETP.EQ P1, R3, 2
@P1     ST [R1], R4
        IADD R3, R3, -1
        ISETP.GT P0, R3, 0
@P0     BRA loop
done:   AND R5, R0, 1
        ISETP.EQ P2, R5, 0
@P2     BRA even
odd:    LDP R6, out
        IADD R6, R6, R2
        ST [R6], R4
        BRA join
even:   LDP R6, out
        IADD R6, R6, R2
        ATOM.ADD R7, [R6], R4
join:   EXIT
)";

struct assembled {
    sm::program code;
    std::map<std::string, std::uint32_t, std::less<>> labels;
};

assembled assemble_kernel()
{
    const auto res = sm::assemble(kernel, {{"in", 0}, {"out", 1}}, {"k.s", 1, 1});
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    return {res.code, res.labels};
}

/// Word memory; unwritten words read 0.
using memory = std::map<std::uint32_t, std::uint32_t>;

constexpr std::uint32_t in_base = 0x1000, out_base = 0x2000;

/// One CTA per launch context; threads of CTA c are c * ntid .. (c+1) * ntid - 1.
struct grid {
    std::vector<sm::launch_context> ctas;
    unsigned ntid = 0;
    unsigned threads() const { return static_cast<unsigned>(ctas.size()) * ntid; }
};

grid make_grid(unsigned nctas, unsigned ntid, std::vector<std::uint32_t> params)
{
    grid g;
    g.ntid = ntid;
    for (unsigned c = 0; c < nctas; ++c) {
        sm::launch_context x;
        x.params = params;
        x.ntid_x = ntid;
        x.nctaid_x = nctas;
        x.ctaid_x = c;
        g.ctas.push_back(x);
    }
    return g;
}

/// Runs every warp of the grid to completion, interleaving warps at random steps; `observe`
/// sees (warp, cta, warp index, the next instruction's PC) before each step.
template <class Observe>
void run_grid(const sm::program& prog, const grid& g, memory& mem, std::mt19937& rng,
              Observe&& observe)
{
    struct item {
        std::unique_ptr<sm::warp> w;
        unsigned cta, index;
    };
    std::vector<item> warps;
    for (unsigned c = 0; c < g.ctas.size(); ++c)
        for (unsigned i = 0; i * 32 < g.ntid; ++i)
            warps.push_back({std::make_unique<sm::warp>(prog, g.ctas[c], i, 64), c, i});
    for (unsigned steps = 0; !warps.empty(); ++steps) {
        REQUIRE(steps < 2000000); // a broken program loops: fail instead of hanging
        const std::size_t k = rng() % warps.size();
        sm::warp& w = *warps[k].w;
        REQUIRE(w.ready());
        observe(w, warps[k].cta, warps[k].index);
        const sm::step_result r = w.step();
        if (r.kind == sm::step_kind::error)
            FAIL("pc " << r.pc << ": " << r.message);
        sm::lane_values v{};
        for (unsigned l = 0; r.access && l < sm::warp_size; ++l) {
            if (!(r.access->lane_mask >> l & 1))
                continue;
            std::uint32_t& word = mem[r.access->addr[l]];
            if (r.kind == sm::step_kind::load)
                v[l] = word;
            else if (r.kind == sm::step_kind::store)
                word = r.access->data[l];
            else if (r.kind == sm::step_kind::atomic) {
                v[l] = word;
                word += r.access->data[l];
            }
        }
        if (r.kind == sm::step_kind::load || r.kind == sm::step_kind::atomic)
            w.complete_load(r.access->reg, v, r.access->lane_mask);
        if (w.done())
            warps.erase(warps.begin() + static_cast<std::ptrdiff_t>(k));
    }
}

/// The executed order, observed on the uninstrumented program: per thread, a control record
/// at each block entry and a memory record at each LD/ST/ATOM reached (size 0 where its guard
/// is false), numbered in order.
struct observer {
    const sm::program& prog;
    std::vector<std::uint32_t> leaders;
    unsigned ntid;
    instrument_types types;
    std::vector<record> records;
    std::map<std::uint32_t, std::uint32_t> seq;
    std::vector<std::uint64_t> executions;

    void operator()(const sm::warp& w, unsigned cta, unsigned index)
    {
        const std::uint32_t pc = w.pc();
        const auto it = std::upper_bound(leaders.begin(), leaders.end(), pc);
        const auto block = static_cast<std::uint32_t>(it - leaders.begin() - 1);
        const sm::instruction& inst = prog[pc];
        for (unsigned l = 0; l < sm::warp_size; ++l) {
            if (!(w.active_mask() >> l & 1))
                continue;
            const std::uint32_t t = cta * ntid + index * 32 + l;
            if (leaders[block] == pc) {
                ++executions[block];
                if (types.control)
                    records.push_back({record_type::control, t, block, seq[t]++, 0, 0});
            }
            if (types.memory && (inst.op == sm::opcode::LD || inst.op == sm::opcode::ST ||
                                 inst.op == sm::opcode::ATOM)) {
                const bool g = w.pred(inst.guard, l) != inst.guard_neg;
                const std::uint32_t addr =
                    w.reg(inst.src[0].value, l) + static_cast<std::uint32_t>(inst.offset);
                records.push_back({record_type::memory, t, block, seq[t]++, g ? 4u : 0u, addr});
            }
        }
    }
};

/// Reads `bytes` of memory from `base` as a typed buffer (re-appending its parsed records).
typed_buffer read_buffer(const memory& mem, record_type t, std::uint32_t base, std::uint64_t used,
                         std::uint64_t capacity)
{
    std::vector<std::uint8_t> bytes(used);
    for (std::uint64_t i = 0; i < used; i += 4) {
        const auto it = mem.find(base + static_cast<std::uint32_t>(i));
        const std::uint32_t v = it == mem.end() ? 0 : it->second;
        for (unsigned k = 0; k < 4; ++k)
            bytes[i + k] = static_cast<std::uint8_t>(v >> (8 * k));
    }
    return typed_buffer::from_bytes(t, bytes, capacity);
}

} // namespace

TEST_CASE("block leaders: entry, branch targets, the instruction after a BRA or EXIT",
          "[instrument]")
{
    const assembled k = assemble_kernel();
    const std::vector<std::uint32_t> want = {0,
                                             k.labels.at("loop"),
                                             k.labels.at("done"),
                                             k.labels.at("odd"),
                                             k.labels.at("even"),
                                             k.labels.at("join")};
    CHECK(block_leaders(k.code) == want);
    CHECK(block_leaders(sm::assemble("@P0 EXIT\nMOV R1, 1\nEXIT", {}, {"x", 1, 1}).code) ==
          std::vector<std::uint32_t>{0, 1});
}

TEST_CASE("the profiling pass: one counting ATOM per block entry, branches remapped",
          "[instrument]")
{
    const assembled k = assemble_kernel();
    const instrumented p = instrument_profile(k.code, 2, 64);
    REQUIRE(p.error.empty());
    CHECK(p.code.size() == k.code.size() + 3 * p.blocks.size());
    CHECK(p.first_param == 2);
    CHECK(p.added_params == 1);
    REQUIRE(p.origin.size() == p.code.size());
    // Every original instruction is kept in order; a branch to block b lands on b's counter.
    std::size_t next = 0;
    for (std::size_t pc = 0; pc < p.code.size(); ++pc) {
        const sm::instruction& i = p.code[pc];
        if (p.origin[pc] == next && i.op == k.code[next].op && pc + 1 < p.code.size() &&
            !(i.op == sm::opcode::ATOM && i.dst == sm::reg_zero)) {
            if (i.op == sm::opcode::BRA) {
                const std::uint32_t t = k.code[next].src[0].value;
                const auto b = static_cast<std::int32_t>(
                    std::find(p.blocks.begin(), p.blocks.end(), t) - p.blocks.begin());
                const sm::instruction& at = p.code[i.src[0].value];
                CHECK(at.op == sm::opcode::LDP);
                CHECK(at.src[0].value == 2);
                CHECK(p.code[i.src[0].value + 2].op == sm::opcode::ATOM);
                CHECK(p.code[i.src[0].value + 2].offset == 4 * b);
                CHECK(p.origin[i.src[0].value] == t);
            }
            ++next;
        }
    }
    CHECK(next == k.code.size() - 1); // all but the final EXIT matched above
    CHECK(p.code.back().op == sm::opcode::EXIT);
    // Spare registers are above the program's highest (R7).
    for (const sm::instruction& i : p.code)
        if (i.op == sm::opcode::LDP && i.src[0].value == 2)
            CHECK(i.dst == 8);
}

TEST_CASE("programs that cannot be instrumented are refused with the reason", "[instrument]")
{
    const assembled k = assemble_kernel();
    CHECK(instrument_trace(k.code, {true, true}, 2, 12).error ==
          "instrumentation needs 6 registers above the program's R0..R7, past the register file "
          "(R0..R11, sm.regs_per_thread)");
    CHECK(instrument_trace(k.code, {true, true}, 11, 64).error ==
          "instrumentation needs 6 parameters after the kernel's 11, more than 16 in all");
    CHECK(instrument_trace(k.code, {true, false}, 13, 64).error.empty());
    const auto all_preds = sm::assemble("ISETP.EQ P0, R0, 0\nISETP.EQ P1, R0, 0\n"
                                        "ISETP.EQ P2, R0, 0\nISETP.EQ P3, R0, 0\n"
                                        "ISETP.EQ P4, R0, 0\nISETP.EQ P5, R0, 0\n"
                                        "ISETP.EQ P6, R0, 0\nISETP.EQ P7, R0, 0\nEXIT",
                                        {}, {"x", 1, 1});
    CHECK(instrument_trace(all_preds.code, {true, false}, 0, 64).error ==
          "instrumentation needs a predicate the program does not use (it uses P0..P7)");
    CHECK(instrument_profile(all_preds.code, 0, 64).error.empty());
}

namespace {

/// The whole flow on `nctas` CTAs of `ntid` threads; `short_by[t]` records of type t fewer.
void flow(std::uint32_t seed, instrument_types types, std::array<unsigned, 2> short_by = {0, 0})
{
    INFO("seed " << seed << " (VGPU_TEST_SEED=" << seed << " reruns it)");
    std::mt19937 rng(seed);
    const assembled k = assemble_kernel();
    const unsigned nctas = 1 + rng() % 3, ntid = 8 + rng() % 90; // partial last warps
    const unsigned n = nctas * ntid;
    memory init;
    for (unsigned t = 0; t < n; ++t)
        init[in_base + 4 * t] = rng() % 6;

    // The executed order, observed on the original program.
    const grid g0 = make_grid(nctas, ntid, {in_base, out_base});
    observer obs{k.code, block_leaders(k.code), ntid, types, {}, {}, {}};
    obs.executions.assign(obs.leaders.size(), 0);
    memory plain = init;
    run_grid(k.code, g0, plain, rng, obs);

    // Pre-pass: the profiling run counts block executions.
    const std::uint32_t counters = 0x8000;
    const instrumented prof = instrument_profile(k.code, 2, 64);
    REQUIRE(prof.error.empty());
    memory m1 = init;
    run_grid(prof.code, make_grid(nctas, ntid, {in_base, out_base, counters}), m1, rng,
             [](const sm::warp&, unsigned, unsigned) {});
    std::vector<std::uint64_t> executions;
    for (std::size_t b = 0; b < prof.blocks.size(); ++b)
        executions.push_back(m1[counters + 4 * static_cast<std::uint32_t>(b)]);
    CHECK(executions == obs.executions);

    const instrumented tr = instrument_trace(k.code, types, 2, 64);
    REQUIRE(tr.error.empty());
    const auto sizes = buffer_sizes(tr.records, executions);
    // The closed form, independently: records of each type observed x their size.
    std::array<std::uint64_t, 2> want{};
    for (const record& r : obs.records)
        want[static_cast<unsigned>(r.type)] += record_bytes(r.type);
    CHECK(sizes == want);

    // Traced run: buffers of exactly that size (less short_by records), sentinels after them.
    const std::uint32_t base[2] = {0x100000, 0x400000}, next[2] = {0x90000, 0x90004};
    std::uint64_t cap[2];
    memory m2 = init;
    std::vector<std::uint32_t> params = {in_base, out_base};
    for (unsigned t = 0; t < 2; ++t) {
        const auto rt = static_cast<record_type>(t);
        cap[t] = sizes[t] - std::min<std::uint64_t>(sizes[t], short_by[t] * record_bytes(rt));
        for (std::uint32_t i = 0; i < 64; i += 4)
            m2[base[t] + static_cast<std::uint32_t>(cap[t]) + i] = 0xdeadbeef;
        if (t == 0 ? types.control : types.memory)
            params.insert(params.end(), {base[t], next[t], static_cast<std::uint32_t>(cap[t])});
    }
    run_grid(tr.code, make_grid(nctas, ntid, params), m2, rng,
             [](const sm::warp&, unsigned, unsigned) {});
    // The kernel's own results are those of the uninstrumented run.
    for (unsigned t = 0; t < n; ++t) {
        CHECK(m2[in_base + 4 * t] == plain[in_base + 4 * t]);
        CHECK(m2[out_base + 4 * t] == plain[out_base + 4 * t]);
    }
    std::vector<typed_buffer> bufs;
    for (unsigned t = 0; t < 2; ++t) {
        const auto rt = static_cast<record_type>(t);
        const std::uint64_t pointer = m2[next[t]];
        CHECK(pointer == sizes[t]); // every record claimed its slot
        CHECK(refused_records(rt, pointer, cap[t]) ==
              std::min<std::uint64_t>(short_by[t], sizes[t] / record_bytes(rt)));
        for (std::uint32_t i = 0; i < 64; i += 4) // never written past the end
            CHECK(m2[base[t] + static_cast<std::uint32_t>(cap[t]) + i] == 0xdeadbeef);
        bufs.push_back(read_buffer(m2, rt, base[t], std::min(pointer, cap[t]), cap[t]));
    }
    std::string err;
    const std::vector<record> merged = merge(bufs, err);
    REQUIRE(err.empty());
    if (short_by == std::array<unsigned, 2>{0, 0}) {
        std::vector<record> expect = obs.records;
        std::stable_sort(expect.begin(), expect.end(), [](const record& a, const record& b) {
            return a.thread != b.thread ? a.thread < b.thread : a.seq < b.seq;
        });
        REQUIRE(merged.size() == expect.size());
        CHECK(merged == expect);
    } else {
        // What fitted is a subset of the executed records.
        for (const record& r : merged)
            CHECK(std::find(obs.records.begin(), obs.records.end(), r) != obs.records.end());
    }
}

} // namespace

TEST_CASE("pre-pass, traced run and merge on the warp model: control and memory", "[instrument]")
{
    const std::uint32_t seed = vgpu::test::seed_or(1002);
    for (std::uint32_t i = 0; i < 20; ++i)
        flow(seed + i, {true, true});
}

TEST_CASE("pre-pass, traced run and merge: one type alone", "[instrument]")
{
    flow(vgpu::test::seed_or(2002), {true, false});
    flow(vgpu::test::seed_or(3002), {false, true});
}

TEST_CASE("an undersized buffer refuses exactly the records that do not fit", "[instrument]")
{
    flow(vgpu::test::seed_or(4002), {true, true}, {3, 5});
    flow(vgpu::test::seed_or(5002), {true, true}, {0, 1});
}

TEST_CASE("the merged trace as CSV", "[instrument]")
{
    const std::vector<record> m = {{record_type::control, 3, 1, 0, 0, 0},
                                   {record_type::memory, 3, 1, 1, 4, 0x2000},
                                   {record_type::memory, 3, 1, 2, 0, 0x10}};
    CHECK(trace_csv(m) == "thread,seq,type,block,address,size\n"
                          "3,0,control,1,,\n"
                          "3,1,memory,1,0x2000,4\n"
                          "3,2,memory,1,0x10,0\n");
    CHECK(trace_csv({}) == "thread,seq,type,block,address,size\n");
}
