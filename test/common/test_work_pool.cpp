// Host threads running batches of independent tasks (platform.host_threads).
#include "models/common/work_pool.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using vgpu::work_pool;

TEST_CASE("work_pool: every task of every batch runs once, on any number of threads", "[work_pool]")
{
    const std::uint64_t seed = vgpu::test::seed_or(20261204);
    for (const unsigned threads : {1u, 2u, 3u, 16u}) {
        INFO("seed " << seed << ", threads " << threads);
        work_pool pool(threads);
        CHECK(pool.threads() == threads);
        std::mt19937_64 rng(seed + threads);
        std::uint64_t batches = 0;
        // Batches of 0 to 40 tasks, each a little work on its own slot, back to back: a helper
        // that wakes late must never take a later batch's index for an earlier batch's task.
        for (int b = 0; b < 3000; ++b) {
            const std::size_t n = rng() % 41;
            batches += n != 0;
            std::vector<std::uint64_t> out(n, 0);
            const std::uint64_t salt = rng();
            pool.run(n, [&out, salt](std::size_t i) {
                std::uint64_t x = salt + i;
                for (int k = 0; k < 50; ++k)
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                out[i] += x | 1; // += : a task run twice leaves another value
            });
            for (std::size_t i = 0; i < n; ++i) {
                std::uint64_t x = salt + i;
                for (int k = 0; k < 50; ++k)
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                if (out[i] != (x | 1))
                    FAIL("batch " << b << " task " << i << " of " << n << " ran "
                                  << (out[i] == 0 ? "never" : "more than once"));
            }
        }
        CHECK(pool.batches() == batches); // empty calls are not batches
    }
}

TEST_CASE("work_pool: the exception of the lowest task that threw reaches the caller",
          "[work_pool]")
{
    for (const unsigned threads : {1u, 4u}) {
        work_pool pool(threads);
        std::vector<int> ran(20, 0);
        try {
            pool.run(20, [&ran](std::size_t i) {
                ran[i] = 1;
                if (i == 7 || i == 13)
                    throw std::runtime_error("task " + std::to_string(i));
            });
            FAIL("no exception");
        } catch (const std::runtime_error& e) {
            CHECK(std::string(e.what()) == "task 7");
        }
        for (int r : ran)
            CHECK(r == 1);               // the others still ran
        pool.run(3, [](std::size_t) {}); // and the pool goes on
    }
}
