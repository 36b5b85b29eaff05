// Unit tests of the workload reader's buffers: initial contents of each initialiser. See
// docs/workloads.md ("Buffers").
#include "test/host/workload_cases.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

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
