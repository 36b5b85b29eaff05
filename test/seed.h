// The seed of a randomized test. Every randomized test prints the seed it ran with;
// VGPU_TEST_SEED=<seed> reruns that case with it.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace vgpu::test {

/// VGPU_TEST_SEED if set and not empty (decimal, or hexadecimal with 0x), else `fallback`.
inline std::uint64_t seed_or(std::uint64_t fallback)
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    return s && *s ? std::strtoull(s, nullptr, 0) : fallback;
}

} // namespace vgpu::test
