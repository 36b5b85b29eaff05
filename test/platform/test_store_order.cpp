// A warp's stores to one word land in program order, and its loads of that word read the
// latest of them, while the warps of every SM load and store around them (seeded workloads).
#include "test/platform/cli_runner.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {

constexpr std::uint32_t grid = 32;   // CTAs, over the 8 SMs of the default platform
constexpr std::uint32_t block = 128; // threads per CTA (4 warps)
constexpr std::uint32_t threads = grid * block;
constexpr std::uint32_t big_lines = 16384; // 2 MiB of lines read to evict the LLC's lines

/// The generated program and what memory must hold after it.
struct store_program {
    std::string assembly;
    unsigned stores = 0, loads = 0, noise_stores = 0;
    std::vector<std::uint32_t> cell; ///< final cell[gtid]
    std::vector<std::uint32_t> res;  ///< res[j * threads + gtid]: load j's value
};

std::string list(const std::vector<std::uint32_t>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

/// Thread gtid stores values gtid + v_k to its word cell[gtid] (the 32 words of a warp share a
/// line); between them, at random, it loads that word (the value is stored to res), stores to
/// its own words of `noise`, or reads a line of `big` (every lane another line: 32 requests).
store_program generate(std::uint32_t seed)
{
    std::mt19937 rng(seed);
    auto below = [&](std::uint32_t n) {
        return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
    };
    store_program p;
    std::ostringstream a;
    a << "S2R  R0, SR_GLOBAL_TID_X\n"
      << "SHL  R2, R0, 2\n"
      << "LDP  R1, cell\n"
      << "IADD R1, R1, R2\n"
      << "LDP  R3, res\n"
      << "IADD R3, R3, R2\n"
      << "LDP  R4, noise\n"
      << "IADD R4, R4, R2\n"
      << "LDP  R9, big\n"
      << "SHL  R10, R0, 7\n"
      << "IADD R9, R9, R10\n";
    bool stored = false;
    std::uint32_t last = 0, big_pass = 0;
    const unsigned ops = 40 + below(40);
    for (unsigned i = 0; i < ops; ++i) {
        const std::uint32_t c = below(10);
        if (c < 5 || !stored) {
            last = static_cast<std::uint32_t>(rng()) & 0x7fffffffu;
            a << "IADD R5, R0, " << last << "\nST   [R1], R5\n";
            stored = true;
            ++p.stores;
        } else if (c < 7) {
            a << "LD   R6, [R1]\nST   [R3 + " << p.loads * threads * 4 << "], R6\n";
            ++p.loads;
            for (std::uint32_t t = 0; t < threads; ++t)
                p.res.push_back(t + last);
        } else if (c < 9) {
            a << "ST   [R4 + " << p.noise_stores * threads * 4 << "], R0\n";
            ++p.noise_stores;
        } else if (big_pass + 1 < big_lines / threads) {
            a << "LD   R7, [R9 + " << ++big_pass * threads * 128 << "]\n";
        }
    }
    a << "EXIT\n";
    p.cell.resize(threads);
    for (std::uint32_t t = 0; t < threads; ++t)
        p.cell[t] = t + last;
    p.assembly = a.str();
    return p;
}

std::string workload(const store_program& p)
{
    std::ostringstream w;
    w << "name: store_order_check\n"
      << "buffers:\n"
      << "  - {name: cell, type: u32, elements: " << threads << ", init: zero}\n"
      << "  - {name: res, type: u32, elements: " << std::max<std::size_t>(1, p.res.size())
      << ", init: zero}\n"
      << "  - {name: noise, type: u32, elements: " << threads * std::max(1u, p.noise_stores)
      << ", init: zero}\n"
      << "  - {name: big, type: u32, elements: " << big_lines * 32 << ", init: zero}\n"
      << "kernels:\n"
      << "  - name: order\n"
      << "    params:\n"
      << "      - {name: cell, buffer: cell}\n"
      << "      - {name: res, buffer: res}\n"
      << "      - {name: noise, buffer: noise}\n"
      << "      - {name: big, buffer: big}\n"
      << "    grid: [" << grid << ", 1]\n"
      << "    block: [" << block << ", 1]\n"
      << "    program: |\n";
    std::istringstream text(p.assembly);
    for (std::string l; std::getline(text, l);)
        w << "      " << l << "\n";
    w << "checks:\n"
      << "  - {buffer: cell, expect: " << list(p.cell) << "}\n";
    if (!p.res.empty())
        w << "  - {buffer: res, expect: " << list(p.res) << "}\n";
    return w.str();
}

void run_case(const std::string& mode, std::uint32_t seed)
{
    const store_program p = generate(seed);
    cli_runner cli("store_order_" + mode);
    cli.write("w.yaml", workload(p));
    const std::string args = "-s platform.timing.mode=" + mode + " -w w.yaml";
    const auto r = cli.run(args);
    INFO("seed " << seed << " (rerun with VGPU_TEST_SEED=" << seed << "), vgpu-sim " << args << ": "
                 << p.stores << " stores and " << p.loads << " loads of its word per "
                 << "thread, " << p.noise_stores << " other stores");
    INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err.substr(0, 4000));
    CHECK(p.stores > 10);
    CHECK(p.loads > 0);
    CHECK(r.code == 0);
    CHECK(r.out.find("verdict: pass") != std::string::npos);
}

} // namespace

TEST_CASE("store order: a warp's stores to one word land in program order under contention, fast")
{
    const std::uint32_t seed = static_cast<std::uint32_t>(vgpu::test::seed_or(11));
    std::printf("store order (fast): seed %u\n", seed);
    CAPTURE(seed);
    run_case("fast", seed);
}

TEST_CASE("store order: a warp's stores to one word land in program order under contention, "
          "accurate")
{
    const std::uint32_t seed = static_cast<std::uint32_t>(vgpu::test::seed_or(12));
    std::printf("store order (accurate): seed %u\n", seed);
    CAPTURE(seed);
    run_case("accurate", seed);
}
