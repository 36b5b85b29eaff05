// TLB core lookups per host-second (scripts/bench tlb): a 64-set x 8-way TLB (the L1 TLB
// geometry of models/tlb/README.md) under a page stream that hits and one that misses, with the
// modulo and the XOR index. Prints one row per case.
#include "models/tlb/core/tlb_array.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace vgpu::tlb;

namespace {
/// Runs `n` lookups (and an insert per miss) of `pages`; prints host seconds and lookups/s.
void run(const char* name, index_kind kind, const std::vector<std::uint64_t>& pages,
         std::uint64_t n)
{
    tlb_array t(64, 8, make_index(kind, 64, 0, 52));
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t vpn = pages[i % pages.size()];
        if (!t.lookup(vpn))
            t.insert(vpn, translation{vpn, true, false, 0});
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%-34s %12.3f %14.0f %10.3f\n", name, s, static_cast<double>(n) / s,
                static_cast<double>(t.hits()) / static_cast<double>(n));
}
} // namespace

int main(int argc, char** argv)
{
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000000;
    std::vector<std::uint64_t> hot, cold(1 << 16);
    for (std::uint64_t p = 0; p < 256; ++p)
        hot.push_back(p); // 256 pages: fit 512 entries
    std::mt19937_64 rng(1);
    for (auto& p : cold)
        p = rng() >> 20; // random pages of a 44-bit VPN space: nearly every lookup misses
    std::printf("%-34s %12s %14s %10s\n", "case", "host s", "lookups/s", "hit rate");
    run("modulo, 256 hot pages", index_kind::modulo, hot, n);
    run("xor, 256 hot pages", index_kind::xor_hash, hot, n);
    run("modulo, random pages", index_kind::modulo, cold, n);
    run("xor, random pages", index_kind::xor_hash, cold, n);
    return 0;
}
