// Unit tests of the NoC output-port arbiters: grant sequences, fairness and the wait bound.
// See models/noc/README.md.
#include "models/noc/core/arbiter.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

using namespace vgpu::noc;

namespace {

std::uint64_t test_seed()
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 0) : 20240601;
}

/// Candidates with the inputs whose bit is set in mask requesting.
std::vector<candidate> requests(unsigned inputs, std::uint32_t mask)
{
    std::vector<candidate> c(inputs);
    for (unsigned i = 0; i < inputs; ++i)
        c[i].valid = (mask >> i) & 1;
    return c;
}

} // namespace

TEST_CASE("arbiter kinds have config names and a factory")
{
    REQUIRE(to_string(arbiter_kind::round_robin) == "round_robin");
    REQUIRE(arbiter_kind_from_string("round_robin") == arbiter_kind::round_robin);
    REQUIRE_FALSE(arbiter_kind_from_string("lottery"));
    auto a = make_arbiter(arbiter_kind::round_robin, 3);
    REQUIRE(a->inputs() == 3);
    REQUIRE(a->last_grant() == -1);
    REQUIRE(dynamic_cast<round_robin_arbiter*>(a.get()) != nullptr);
    REQUIRE_THROWS_AS(make_arbiter(arbiter_kind::round_robin, 0), std::invalid_argument);
    REQUIRE_THROWS_WITH(a->grant(requests(4, 0xf)), Catch::Contains("4 candidates for 3 inputs"));
}

TEST_CASE("round_robin grants in rotating order starting after the last grant")
{
    round_robin_arbiter a(4);
    std::vector<int> got;
    for (int i = 0; i < 6; ++i)
        got.push_back(a.grant(requests(4, 0xf)));
    REQUIRE(got == std::vector<int>{0, 1, 2, 3, 0, 1});

    // Only inputs 1 and 3 request; then input 0 joins after 3 was granted.
    got.clear();
    for (int i = 0; i < 3; ++i)
        got.push_back(a.grant(requests(4, 0xa)));
    got.push_back(a.grant(requests(4, 0xb)));
    got.push_back(a.grant(requests(4, 0xb)));
    got.push_back(a.grant(requests(4, 0xb)));
    REQUIRE(got == std::vector<int>{3, 1, 3, 0, 1, 3});

    // An idle cycle grants nothing and keeps the priority.
    REQUIRE(a.grant(requests(4, 0)) == -1);
    REQUIRE(a.last_grant() == 3);
    REQUIRE(a.grant(requests(4, 0x9)) == 0);

    // Barrier counts and ages do not influence round-robin.
    auto c = requests(4, 0xf);
    c[3].barrier_count = 30;
    c[3].age_cycles = 1000;
    REQUIRE(a.grant(c) == 1);

    a.reset();
    REQUIRE(a.last_grant() == -1);
    REQUIRE(a.grant(requests(4, 0xc)) == 2);
}

TEST_CASE("round_robin with every input requesting grants each input once every N grants")
{
    for (unsigned n : {1u, 2u, 3u, 5u, 8u, 16u, 31u}) {
        INFO("inputs " << n);
        round_robin_arbiter a(n);
        const auto all = requests(n, 0xffffffffu);
        std::vector<int> seq;
        for (unsigned g = 0; g < 10 * n; ++g)
            seq.push_back(a.grant(all));
        for (unsigned w = 0; w + n <= seq.size(); ++w) {
            std::vector<unsigned> count(n, 0);
            for (unsigned k = w; k < w + n; ++k)
                ++count[static_cast<unsigned>(seq[k])];
            REQUIRE(count == std::vector<unsigned>(n, 1));
        }
    }
}

TEST_CASE("round_robin grants a requesting input within N grants and matches a reference")
{
    const std::uint64_t seed = test_seed();
    std::cout << "round_robin random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned n : {2u, 3u, 4u, 7u, 16u}) {
        INFO("inputs " << n);
        auto arb = make_arbiter(arbiter_kind::round_robin, n);
        std::vector<candidate> c(n);
        // others[i]: grants to other inputs since input i started waiting.
        std::vector<unsigned> others(n, 0);
        int ref_last = static_cast<int>(n) - 1;
        unsigned max_others = 0;
        for (int cycle = 0; cycle < 20000; ++cycle) {
            // A request stays until granted; new requests arrive at random.
            for (unsigned i = 0; i < n; ++i) {
                if (!c[i].valid && rng() % 3 == 0) {
                    c[i].valid = true;
                    c[i].barrier_count = static_cast<unsigned>(rng() % 8);
                    others[i] = 0;
                }
            }
            int expect = -1;
            for (unsigned k = 1; k <= n && expect < 0; ++k) {
                const unsigned i = (static_cast<unsigned>(ref_last) + k) % n;
                if (c[i].valid)
                    expect = static_cast<int>(i);
            }
            const int g = arb->grant(c);
            REQUIRE(g == expect);
            if (g < 0)
                continue;
            ref_last = g;
            c[static_cast<unsigned>(g)].valid = false;
            for (unsigned i = 0; i < n; ++i) {
                if (c[i].valid) {
                    ++others[i];
                    if (others[i] > max_others)
                        max_others = others[i];
                }
                c[i].age_cycles += c[i].valid;
            }
            // At most N-1 other grants before a waiting input's own: granted within N grants.
            REQUIRE(max_others <= n - 1);
        }
        // Under this load the bound is reached, so it is tight.
        REQUIRE(max_others == n - 1);
    }
}
