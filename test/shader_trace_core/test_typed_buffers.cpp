// Seed 002: per-type buffers sized by the pre-pass hold every record exactly (sizes equal the
// closed form, nothing refused), the post-pass merge equals the executed order, and an
// undersized buffer is detected (records refused, counted) and never written past. Seeded.
#include "models/shader_trace/core/typed_buffers.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>

using namespace vgpu::shader_trace;

namespace {
/// A random program: `blocks` basic blocks, block b with mem[b] memory instructions; each
/// thread walks a random path. Returns the records in the order each thread executed them,
/// and the block execution counts (the profiling run).
struct program_run {
    instrumentation ins;
    std::vector<std::uint64_t> executions;
    std::vector<record> executed; ///< thread by thread, in execution order
};

program_run random_run(std::mt19937& rng, unsigned threads)
{
    program_run p;
    const unsigned blocks = 1 + rng() % 12;
    for (unsigned b = 0; b < blocks; ++b)
        p.ins.per_block.push_back({1, static_cast<std::uint32_t>(rng() % 4)});
    p.executions.assign(blocks, 0);
    for (unsigned t = 0; t < threads; ++t) {
        std::uint32_t seq = 0;
        const unsigned steps = rng() % 30;
        for (unsigned s = 0; s < steps; ++s) {
            const unsigned b = rng() % blocks;
            ++p.executions[b];
            record c;
            c.type = record_type::control;
            c.thread = t;
            c.block = b;
            c.seq = seq++;
            p.executed.push_back(c);
            for (unsigned m = 0; m < p.ins.per_block[b][1]; ++m) {
                record r;
                r.type = record_type::memory;
                r.thread = t;
                r.block = b;
                r.seq = seq++;
                r.size = 4u << (rng() % 3);
                r.address = 0x10000000u + 4 * (rng() % 100000);
                p.executed.push_back(r);
            }
        }
    }
    return p;
}

/// Runs the instrumented program: threads interleave at random (the buffers' next-free
/// pointers see their records in any order), each record into its type's buffer.
void trace(std::mt19937& rng, const program_run& p, std::vector<typed_buffer>& buffers)
{
    std::vector<std::size_t> next; // per thread: index into executed
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (std::size_t i = 0; i < p.executed.size();) {
        std::size_t j = i;
        while (j < p.executed.size() && p.executed[j].thread == p.executed[i].thread)
            ++j;
        ranges.emplace_back(i, j);
        i = j;
    }
    while (!ranges.empty()) {
        const std::size_t k = rng() % ranges.size();
        auto& [at, end] = ranges[k];
        const record& r = p.executed[at++];
        buffers[static_cast<unsigned>(r.type)].append(r);
        if (at == end)
            ranges.erase(ranges.begin() + static_cast<std::ptrdiff_t>(k));
    }
}
} // namespace

TEST_CASE("seed 002: buffer sizes are the closed-form sum")
{
    instrumentation ins;
    ins.per_block = {{1, 2}, {1, 0}, {1, 5}};
    const auto s = buffer_sizes(ins, {10, 3, 7});
    CHECK(s[0] == (10 + 3 + 7) * 16);
    CHECK(s[1] == (2 * 10 + 5 * 7) * 24);
}

TEST_CASE("seed 002: sized ahead, every record fits and the merge is the executed order")
{
    const auto seed = static_cast<std::uint32_t>(vgpu::test::seed_or(314));
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (int round = 0; round < 50; ++round) {
        CAPTURE(round);
        const program_run p = random_run(rng, 1 + rng() % 16);
        const auto sizes = buffer_sizes(p.ins, p.executions);
        std::vector<typed_buffer> buffers = {typed_buffer(record_type::control, sizes[0]),
                                             typed_buffer(record_type::memory, sizes[1])};
        trace(rng, p, buffers);
        for (const typed_buffer& b : buffers) {
            CHECK(b.refused() == 0);
            CHECK(b.used() == b.capacity()); // exactly full: the sizes are exact
        }
        std::string err;
        const std::vector<record> merged = merge(buffers, err);
        REQUIRE(err.empty());
        REQUIRE(merged == p.executed);
    }
}

TEST_CASE("seed 002: an undersized buffer is detected and never written past")
{
    std::mt19937 rng(99);
    program_run p;
    do
        p = random_run(rng, 8);
    while (buffer_sizes(p.ins, p.executions)[1] < 48);
    const auto sizes = buffer_sizes(p.ins, p.executions);
    // One memory record too small (and a few bytes more, not a whole record).
    std::vector<typed_buffer> buffers = {typed_buffer(record_type::control, sizes[0]),
                                         typed_buffer(record_type::memory, sizes[1] - 24 - 5)};
    trace(rng, p, buffers);
    CHECK(buffers[0].refused() == 0);
    CHECK(buffers[1].refused() == 2);
    CHECK(buffers[1].used() == sizes[1] - 48);
    CHECK(buffers[1].used() <= buffers[1].capacity());
}
