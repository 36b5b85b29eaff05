// Address patterns of the traffic generator: every access stays inside its region and the
// linear and strided walks visit every word. See models/traffic/README.md.
#include "models/traffic/core/pattern.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

using namespace vgpu::traffic;

namespace {

/// One cycle of the strided walk, written out as nested loops: for each lane (the first
/// min(stride, region) bytes, one access apart), every offset lane + k x stride in the region.
std::vector<std::uint64_t> strided_cycle(std::uint64_t region, std::uint64_t stride, unsigned bytes)
{
    std::vector<std::uint64_t> out;
    const std::uint64_t lanes = stride < region ? stride : region;
    for (std::uint64_t lane = 0; lane < lanes; lane += bytes)
        for (std::uint64_t o = lane; o < region; o += stride)
            out.push_back(o);
    return out;
}

} // namespace

TEST_CASE("pattern: every access of every kind stays in its region, aligned, for any stride")
{
    for (unsigned bytes : {1u, 4u, 64u})
        for (std::uint64_t slots : {1, 2, 3, 5, 8, 64})
            for (std::uint64_t stride_slots : {1, 2, 3, 4, 7, 8, 9, 63, 64, 65, 1000})
                for (pattern_kind kind :
                     {pattern_kind::linear, pattern_kind::strided, pattern_kind::random}) {
                    pattern_params p;
                    p.kind = kind;
                    p.base = 1ull << 20;
                    p.footprint = slots * bytes;
                    p.stride = stride_slots * bytes;
                    p.access_bytes = bytes;
                    p.seed = 7;
                    INFO("access " << bytes << " footprint " << p.footprint << " stride "
                                   << p.stride << " kind " << static_cast<int>(kind));
                    pattern_generator gen(p);
                    bool inside = true, aligned = true;
                    for (std::uint64_t i = 0; i < 4 * slots * stride_slots + 16; ++i) {
                        const access a = gen.next();
                        inside =
                            inside && a.addr >= p.base && a.addr + bytes <= p.base + p.footprint;
                        aligned = aligned && a.addr % bytes == 0;
                    }
                    CHECK(inside);
                    CHECK(aligned);
                }
}

TEST_CASE("pattern: strided walks each lane with the stride, then the next lane, and repeats")
{
    for (unsigned bytes : {4u, 64u})
        for (std::uint64_t slots : {1, 3, 8, 64})
            for (std::uint64_t stride_slots : {1, 2, 3, 8, 64, 65, 1000}) {
                pattern_params p;
                p.kind = pattern_kind::strided;
                p.base = 4096;
                p.footprint = slots * bytes;
                p.stride = stride_slots * bytes;
                p.access_bytes = bytes;
                INFO("access " << bytes << " footprint " << p.footprint << " stride " << p.stride);
                const auto cycle = strided_cycle(p.footprint, p.stride, bytes);
                // One cycle visits every word exactly once.
                REQUIRE(cycle.size() == slots);
                pattern_generator gen(p);
                std::vector<std::uint64_t> got, want;
                for (int rep = 0; rep < 3; ++rep)
                    for (std::uint64_t o : cycle) {
                        want.push_back(p.base + o);
                        got.push_back(gen.next().addr);
                    }
                CHECK(got == want);
            }
}

TEST_CASE("pattern: linear wraps at the footprint")
{
    pattern_params p;
    p.kind = pattern_kind::linear;
    p.base = 256;
    p.footprint = 3 * 64;
    p.access_bytes = 64;
    pattern_generator gen(p);
    std::vector<std::uint64_t> got;
    for (int i = 0; i < 7; ++i)
        got.push_back(gen.next().addr);
    CHECK(got == std::vector<std::uint64_t>{256, 320, 384, 256, 320, 384, 256});
}

TEST_CASE("pattern: strides and regions near 2^64 do not wrap around")
{
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    SECTION("a stride longer than the region: one access per pass, next lane each time")
    {
        pattern_params p;
        p.kind = pattern_kind::strided;
        p.base = 1ull << 63;
        p.footprint = 1ull << 40;
        p.stride = max - 63; // the largest multiple of 64
        p.access_bytes = 64;
        pattern_generator gen(p);
        for (std::uint64_t i = 0; i < 100; ++i)
            CHECK(gen.next().addr == p.base + 64 * i);
    }
    SECTION("offset + stride past 2^64 inside a huge region starts the next lane")
    {
        pattern_params p;
        p.kind = pattern_kind::strided;
        p.base = 0;
        p.footprint = max - 63;
        p.stride = 1ull << 63;
        p.access_bytes = 64;
        pattern_generator gen(p);
        const std::uint64_t h = 1ull << 63;
        std::vector<std::uint64_t> got;
        for (int i = 0; i < 6; ++i)
            got.push_back(gen.next().addr);
        CHECK(got == std::vector<std::uint64_t>{0, h, 64, h + 64, 128, h + 128});
    }
}
