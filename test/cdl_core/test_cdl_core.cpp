// The CDL core: address range, register count and order, the partial last register, zero for
// bytes beyond the CBV, every error, and a randomized comparison of both forms with a reference
// read of memory (seeded; the seed prints on failure).
#include "models/cdl/core/cdl_core.h"
#include "test/seed.h"
#include "test/support/coverage.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

using namespace vgpu::cdl;

namespace {
/// Dword `i` of the fake memory: a function of its address.
std::uint32_t mem_word(std::uint64_t addr)
{
    return static_cast<std::uint32_t>(addr * 2654435761u) ^ 0x5a5a5a5au;
}

/// Runs a bulk load against the fake memory through bulk_reads and bulk_loader; returns the
/// registers written, in the order written.
std::vector<std::pair<unsigned, lane_values>>
run_bulk(const cbv& view, unsigned dst, std::uint32_t off, std::uint32_t n, unsigned line_bytes)
{
    std::vector<std::pair<unsigned, lane_values>> out;
    bulk_loader loader(dst, n);
    for (const line_read& r : bulk_reads(view, off, n, line_bytes)) {
        std::vector<std::uint8_t> data(r.bytes, 0);
        for (unsigned b = 0; b < r.valid; b += 4) {
            const std::uint32_t w = mem_word(r.addr + b);
            std::memcpy(data.data() + b, &w, 4);
        }
        loader.retire(data.data(), r.bytes,
                      [&](unsigned reg, const lane_values& v) { out.emplace_back(reg, v); });
    }
    CHECK(loader.done());
    CHECK(loader.offset() == std::uint64_t{n} * 4);
    return out;
}
} // namespace

TEST_CASE("cdl core: the bulk range is start = base + offset to start + 4n, cut at lines")
{
    const cbv view{0x10000000, 4096};
    const auto reads = bulk_reads(view, 96, 80, 128); // 320 bytes from 0x10000060
    REQUIRE(reads.size() == 4);
    CHECK(reads[0].addr == 0x10000060);
    CHECK(reads[0].bytes == 32);
    CHECK(reads[1].addr == 0x10000080);
    CHECK(reads[1].bytes == 128);
    CHECK(reads[2].bytes == 128);
    CHECK(reads[3].addr == 0x10000180);
    CHECK(reads[3].bytes == 32); // ends at 0x100001a0 = start + 320
    for (const line_read& r : reads)
        CHECK(r.valid == r.bytes);
    CHECK(out_of_range_bytes(reads) == 0);
}

TEST_CASE("cdl core: N = ceil(n / 32) registers, ascending, the last one partly filled")
{
    CHECK(registers_for(1) == 1);
    CHECK(registers_for(32) == 1);
    CHECK(registers_for(33) == 2);
    CHECK(registers_for(256) == 8);
    const cbv view{0x2000, 1 << 20};
    const auto regs = run_bulk(view, 10, 0, 70, 128); // 70 dwords: R10, R11, R12 (6 lanes)
    REQUIRE(regs.size() == 3);
    for (unsigned k = 0; k < 3; ++k) {
        CHECK(regs[k].first == 10 + k);
        for (unsigned l = 0; l < lanes; ++l) {
            const std::uint64_t i = 32 * k + l;
            CHECK(regs[k].second[l] == (i < 70 ? mem_word(0x2000 + 4 * i) : 0u));
        }
    }
}

TEST_CASE("cdl core: claim 8 state machine, offset, remaining amount and register per read")
{
    // 64-byte lines: two reads make one register. After each retire: the running offset
    // advances; after each register, the remaining amount drops by 32 and the register id by 1.
    bulk_loader loader(4, 64);
    std::vector<std::uint8_t> zeros(64, 0);
    std::vector<unsigned> written;
    auto w = [&](unsigned reg, const lane_values&) { written.push_back(reg); };
    loader.retire(zeros.data(), 64, w);
    CHECK(loader.offset() == 64);
    CHECK(loader.remaining() == 64);
    CHECK(loader.next_register() == 4);
    CHECK(written.empty());
    loader.retire(zeros.data(), 64, w);
    CHECK(loader.offset() == 128);
    CHECK(loader.remaining() == 32);
    CHECK(loader.next_register() == 5);
    CHECK(written == std::vector<unsigned>{4});
    loader.retire(zeros.data(), 64, w);
    loader.retire(zeros.data(), 64, w);
    CHECK(written == std::vector<unsigned>{4, 5});
    CHECK(loader.done());
}

TEST_CASE("cdl core: bytes beyond the CBV read as zero and are counted")
{
    const cbv view{0x1000, 200};                       // 50 dwords
    const auto reads = bulk_reads(view, 128, 40, 128); // dwords 32..71 of the view
    CHECK(out_of_range_bytes(reads) == 160 - 72);
    const auto regs = run_bulk(view, 0, 128, 40, 128);
    REQUIRE(regs.size() == 2);
    for (unsigned i = 0; i < 40; ++i) {
        const std::uint32_t got = regs[i / 32].second[i % 32];
        CHECK(got == (128 + 4 * i + 4 <= 200 ? mem_word(0x1000 + 128 + 4 * i) : 0u));
    }
    // The legacy form: a lane whose dword is not wholly inside reads zero.
    lane_values offs{};
    offs[0] = 0;
    offs[1] = 196;
    offs[2] = 197;
    offs[3] = 4000;
    const legacy_plan p = plan_legacy(view, offs, 0xf);
    CHECK(p.read == 0x3);
    CHECK(p.zero == 0xc);
    CHECK(p.addr[1] == 0x1000 + 196);
}

TEST_CASE("cdl core: a missing CBV, n = 0 and registers past the file are illegal")
{
    const std::vector<cbv> table = {{0x1000, 256}, {0, 0}};
    request r;
    r.bulk = true;
    r.dst = 60;
    r.dwords = 128; // R60..R63
    CHECK(check(r, table, 0, 64).empty());
    r.dwords = 129; // R60..R64
    CHECK(check(r, table, 0, 64) == "CDL destination R60..R64 past the register file (R0..R63)");
    r.dwords = 0;
    CHECK(check(r, table, 0, 64) == "CDL with a data amount of 0 dwords");
    r.dwords = 4;
    CHECK(check(r, table, 1, 64) == "CBV 1 is not programmed (size 0)");
    CHECK(check(r, table, 2, 64) == "CBV 2 does not exist (cdl.cbv_slots is 2)");
    request legacy;
    legacy.dst = 63;
    CHECK(check(legacy, table, 0, 64).empty());
}

TEST_CASE("cdl core: random bulk and legacy loads match a reference read of memory")
{
    const auto seed = static_cast<std::uint32_t>(vgpu::test::seed_or(12345));
    CAPTURE(seed);
    std::mt19937 rng(seed);
    // Coverage plan (docs/coverage.md): load sizes, where the range starts in its line, line
    // sizes, and how much of the range lies beyond the CBV.
    vgpu::test::coverage cov("cdl", seed);
    cov.point("dwords", {"1", "2-31", "32", "33-63", "64-255", "256+"});
    cov.point("start", {"line-aligned", "mid-line"});
    cov.point("line_bytes", {"32", "64", "128"});
    cov.point("beyond_cbv", {"none", "part", "all"});
    cov.cross("line_bytes", "start");
    for (int iter = 0; iter < 300; ++iter) {
        const unsigned line = 32u << (rng() % 3); // 32, 64 or 128 bytes
        const cbv view{0x100000 + 4 * (rng() % 1024), 4 * (1 + rng() % 2048)};
        const std::uint32_t off = 4 * (rng() % 2100);
        // One load in four takes a size at a register boundary (the coverage plan's corners).
        static constexpr std::uint32_t corners[] = {1, 31, 32, 33, 64};
        const std::uint32_t n = rng() % 4 == 0 ? corners[rng() % 5] : 1 + rng() % 600;
        const unsigned dst = rng() % 8;
        CAPTURE(iter, line, view.base, view.bytes, off, n, dst);
        const char* size_bin = n == 1    ? "1"
                               : n < 32  ? "2-31"
                               : n == 32 ? "32"
                               : n < 64  ? "33-63"
                               : n < 256 ? "64-255"
                                         : "256+";
        const char* start_bin = (view.base + off) % line == 0 ? "line-aligned" : "mid-line";
        const std::string line_bin = std::to_string(line);
        const char* beyond_bin = off + 4ull * n <= view.bytes ? "none"
                                 : off >= view.bytes          ? "all"
                                                              : "part";
        cov.hit("dwords", size_bin);
        cov.hit("start", start_bin);
        cov.hit("line_bytes", line_bin);
        cov.hit("beyond_cbv", beyond_bin);
        cov.hit_cross("line_bytes", line_bin, "start", start_bin);
        // Bulk: lane l of register dst + k holds the dword at start + 4 (32 k + l).
        const auto regs = run_bulk(view, dst, off, n, line);
        REQUIRE(regs.size() == registers_for(n));
        for (unsigned k = 0; k < regs.size(); ++k) {
            REQUIRE(regs[k].first == dst + k);
            for (unsigned l = 0; l < lanes; ++l) {
                const std::uint64_t i = 32 * k + l;
                const std::uint64_t byte = off + 4 * i;
                const std::uint32_t want =
                    i < n && byte + 4 <= view.bytes ? mem_word(view.base + byte) : 0u;
                REQUIRE(regs[k].second[l] == want);
            }
        }
        // Legacy with the same offsets lane by lane: the same dwords, one register per load.
        for (unsigned k = 0; k < regs.size(); ++k) {
            lane_values offs{};
            std::uint32_t mask = 0;
            for (unsigned l = 0; l < lanes && 32 * k + l < n; ++l) {
                offs[l] = off + 4 * (32 * k + l);
                mask |= 1u << l;
            }
            const legacy_plan p = plan_legacy(view, offs, mask);
            for (unsigned l = 0; l < lanes; ++l) {
                const std::uint32_t got =
                    p.read >> l & 1 ? mem_word(p.addr[l]) : 0u; // what the lane receives
                REQUIRE(got == regs[k].second[l]);
            }
        }
    }
    cov.write();
}
