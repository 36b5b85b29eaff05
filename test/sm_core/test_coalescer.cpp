// Unit tests of vgpu::sm::coalescer: patterns with exact requests, and random against a reference.
// See models/sm/README.md.
#include "models/sm/core/coalescer.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

using vgpu::sm::coalescer;

namespace {

using lane_addrs = std::array<std::uint32_t, coalescer::lanes>;

/// Lane l accesses base + l * stride.
lane_addrs strided(std::uint32_t base, std::uint32_t stride)
{
    lane_addrs a{};
    for (unsigned l = 0; l < coalescer::lanes; ++l)
        a[l] = base + l * stride;
    return a;
}

/// Lanes first..last inclusive.
std::uint32_t lanes(unsigned first, unsigned last)
{
    std::uint32_t m = 0;
    for (unsigned l = first; l <= last; ++l)
        m |= 1u << l;
    return m;
}

} // namespace

TEST_CASE("coalescer rejects bad sizes")
{
    REQUIRE_THROWS_AS(coalescer(96), std::invalid_argument);
    REQUIRE_THROWS_AS(coalescer(128, 3), std::invalid_argument);
    REQUIRE_THROWS_AS(coalescer(4, 8), std::invalid_argument);
    REQUIRE(coalescer(128).access_bytes() == 4);
    REQUIRE(coalescer(64, 8).line_bytes() == 64);
}

TEST_CASE("coalescer: consecutive words of one line make one request")
{
    const coalescer c(128);
    const auto r = c.coalesce(0xffffffffu, strided(0x1000, 4));
    REQUIRE(r.size() == 1);
    REQUIRE(r.misaligned == 0);
    REQUIRE(r.requests[0].line_addr == 0x1000);
    REQUIRE(r.requests[0].lane_mask == 0xffffffffu);
    REQUIRE(r.requests[0].offset == 0);
    REQUIRE(r.requests[0].bytes == 128);

    // All lanes on one word (a broadcast) is one 4-byte request.
    const auto b = c.coalesce(0xffffffffu, strided(0x2044, 0));
    REQUIRE(b.size() == 1);
    REQUIRE(b.requests[0].line_addr == 0x2000);
    REQUIRE(b.requests[0].offset == 0x44);
    REQUIRE(b.requests[0].bytes == 4);
}

TEST_CASE("coalescer: consecutive words straddling a line boundary make two requests")
{
    const coalescer c(128);
    const auto r = c.coalesce(0xffffffffu, strided(0x1040, 4));
    REQUIRE(r.size() == 2);
    REQUIRE(r.requests[0].line_addr == 0x1000);
    REQUIRE(r.requests[0].lane_mask == lanes(0, 15));
    REQUIRE(r.requests[0].offset == 0x40);
    REQUIRE(r.requests[0].bytes == 64);
    REQUIRE(r.requests[1].line_addr == 0x1080);
    REQUIRE(r.requests[1].lane_mask == lanes(16, 31));
    REQUIRE(r.requests[1].offset == 0);
    REQUIRE(r.requests[1].bytes == 64);
}

TEST_CASE("coalescer: a stride of two words makes two requests")
{
    const coalescer c(128);
    const auto r = c.coalesce(0xffffffffu, strided(0x1000, 8));
    REQUIRE(r.size() == 2);
    REQUIRE(r.requests[0].line_addr == 0x1000);
    REQUIRE(r.requests[0].lane_mask == lanes(0, 15));
    REQUIRE(r.requests[0].offset == 0);
    REQUIRE(r.requests[0].bytes == 124);
    REQUIRE(r.requests[1].line_addr == 0x1080);
    REQUIRE(r.requests[1].lane_mask == lanes(16, 31));
    REQUIRE(r.requests[1].bytes == 124);
}

TEST_CASE("coalescer: a stride of one line makes one request per lane, in lane order")
{
    const coalescer c(128);
    const auto r = c.coalesce(0xffffffffu, strided(0x10008, 128));
    REQUIRE(r.size() == 32);
    for (unsigned l = 0; l < 32; ++l) {
        REQUIRE(r.requests[l].line_addr == 0x10000 + 128 * l);
        REQUIRE(r.requests[l].lane_mask == 1u << l);
        REQUIRE(r.requests[l].offset == 8);
        REQUIRE(r.requests[l].bytes == 4);
    }

    // Descending addresses: still ordered by the first lane that needs each line.
    lane_addrs down{};
    for (unsigned l = 0; l < 32; ++l)
        down[l] = 0x8000 - 128 * (l / 2) + 4 * (l % 2);
    const auto d = c.coalesce(0xffffffffu, down);
    REQUIRE(d.size() == 16);
    for (unsigned k = 0; k < 16; ++k) {
        REQUIRE(d.requests[k].line_addr == 0x8000 - 128 * k);
        REQUIRE(d.requests[k].lane_mask == 3u << (2 * k));
        REQUIRE(d.requests[k].bytes == 8);
    }
}

TEST_CASE("coalescer ignores inactive lanes and reports misaligned ones")
{
    const coalescer c(128);
    auto a = strided(0x1000, 4);
    // Even lanes point far away but are inactive.
    for (unsigned l = 0; l < 32; l += 2)
        a[l] = 0x900000 + l * 4096;
    const auto r = c.coalesce(0xaaaaaaaau, a);
    REQUIRE(r.size() == 1);
    REQUIRE(r.requests[0].lane_mask == 0xaaaaaaaau);
    REQUIRE(r.requests[0].offset == 4);
    REQUIRE(r.requests[0].bytes == 124);

    REQUIRE(c.coalesce(0, a).size() == 0);
    REQUIRE(c.coalesce(0, a).misaligned == 0);

    a[5] = 0x1002;
    a[7] = 0x1fff;
    const auto m = c.coalesce(0xaaaaaaaau, a);
    REQUIRE(m.misaligned == ((1u << 5) | (1u << 7)));
    REQUIRE(m.size() == 1);
    REQUIRE(m.requests[0].lane_mask == (0xaaaaaaaau & ~m.misaligned));

    // Byte accesses are never misaligned.
    const coalescer bytes(32, 1);
    const auto b = bytes.coalesce(0xffffffffu, strided(0x101f, 1));
    REQUIRE(b.misaligned == 0);
    REQUIRE(b.size() == 2);
    REQUIRE(b.requests[0].lane_mask == 1u);
    REQUIRE(b.requests[0].offset == 31);
    REQUIRE(b.requests[0].bytes == 1);
    REQUIRE(b.requests[1].bytes == 31);
}

TEST_CASE("coalescer matches a std::set reference on random accesses")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "coalescer random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (unsigned line_bytes : {32u, 64u, 128u, 256u}) {
        for (unsigned access : {1u, 4u, 8u, 16u}) {
            if (access > line_bytes)
                continue;
            const coalescer c(line_bytes, access);
            for (int iter = 0; iter < 2000; ++iter) {
                const std::uint32_t active = static_cast<std::uint32_t>(rng());
                // Small windows give many shared lines; the full range gives scattered ones.
                const std::uint32_t window = 1u << (6 + rng() % 26);
                const std::uint32_t base = static_cast<std::uint32_t>(rng());
                lane_addrs a{};
                for (auto& x : a) {
                    x = base + static_cast<std::uint32_t>(rng() % window);
                    if (rng() % 16)
                        x &= ~(access - 1);
                }

                std::set<std::uint64_t> seen;
                std::vector<std::uint64_t> order;
                std::map<std::uint64_t, coalescer::request> want;
                std::uint32_t misaligned = 0;
                for (unsigned l = 0; l < 32; ++l) {
                    if (!((active >> l) & 1))
                        continue;
                    if (a[l] % access) {
                        misaligned |= 1u << l;
                        continue;
                    }
                    const std::uint64_t line = a[l] / line_bytes * line_bytes;
                    const unsigned lo = a[l] % line_bytes;
                    auto& q = want[line];
                    if (seen.insert(line).second) {
                        order.push_back(line);
                        q = {line, 0, lo, 0};
                    }
                    const unsigned hi = std::max(q.offset + q.bytes, lo + access);
                    q.offset = std::min(q.offset, lo);
                    q.bytes = hi - q.offset;
                    q.lane_mask |= 1u << l;
                }

                const auto r = c.coalesce(active, a);
                INFO("line " << line_bytes << " access " << access << " iter " << iter);
                REQUIRE(r.misaligned == misaligned);
                REQUIRE(r.size() == order.size());
                bool same = true;
                for (unsigned k = 0; k < r.size(); ++k) {
                    const auto& w = want[order[k]];
                    const auto& g = r.requests[k];
                    same = same && g.line_addr == w.line_addr && g.lane_mask == w.lane_mask &&
                           g.offset == w.offset && g.bytes == w.bytes;
                }
                REQUIRE(same);
            }
        }
    }
}
