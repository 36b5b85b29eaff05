// Unit tests of the TLB array: conflict misses of strided page patterns with the modulo and XOR
// indexes against closed forms, LRU, invalidation, and a randomized run against a reference
// model (with the array's coverage plan, docs/coverage.md). See models/tlb/core/tlb_array.h.
#include "models/tlb/core/tlb_array.h"
#include "test/seed.h"
#include "test/support/coverage.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <list>
#include <map>
#include <random>
#include <set>
#include <string>

using namespace vgpu::tlb;

namespace {
/// Misses of `passes` passes over `pages` pages `stride` pages apart, one access each.
std::uint64_t strided_misses(tlb_array& t, unsigned passes, unsigned pages, std::uint64_t stride)
{
    for (unsigned p = 0; p < passes; ++p)
        for (std::uint64_t k = 0; k < pages; ++k)
            if (!t.lookup(k * stride))
                t.insert(k * stride, translation{k, true, false, 0});
    return t.misses();
}

/// Closed form of strided_misses() for a TLB whose set of page k is known: a set that receives
/// more distinct pages than it has ways misses on every access under LRU with a cyclic pattern;
/// otherwise only its compulsory misses.
std::uint64_t closed_form(const index_fn& set_of, unsigned sets, unsigned ways, unsigned passes,
                          unsigned pages, std::uint64_t stride)
{
    std::vector<unsigned> per_set(sets, 0);
    for (std::uint64_t k = 0; k < pages; ++k)
        ++per_set[set_of(k * stride) % sets];
    std::uint64_t misses = 0;
    for (unsigned n : per_set)
        misses += n > ways ? std::uint64_t{n} * passes : n;
    return misses;
}
} // namespace

TEST_CASE("16 sets x 4 ways, 10 passes over 16 pages 16 pages apart: modulo thrashes, xor does "
          "not")
{
    const index_fn modulo = make_index(index_kind::modulo, 16, 0, 20);
    const index_fn hashed = make_index(index_kind::xor_hash, 16, 0, 20);
    tlb_array m(16, 4, modulo), x(16, 4, hashed);
    const std::uint64_t m_misses = strided_misses(m, 10, 16, 16);
    const std::uint64_t x_misses = strided_misses(x, 10, 16, 16);
    CHECK(m_misses == closed_form(modulo, 16, 4, 10, 16, 16));
    CHECK(x_misses == closed_form(hashed, 16, 4, 10, 16, 16));
    CHECK(m_misses == 160); // every page in set 0: every access misses
    CHECK(x_misses == 16);  // one page per set: only the compulsory misses
    CHECK(m.hits() == 0);
    CHECK(x.hits() == 144);
    CHECK(m.evictions() == 160 - 4);
    CHECK(x.evictions() == 0);
}

TEST_CASE("a stride of 256 pages defeats xor over 8 VPN bits but not over all of them")
{
    const index_fn few = make_index(index_kind::xor_hash, 16, 8, 20);
    const index_fn all = make_index(index_kind::xor_hash, 16, 0, 20);
    tlb_array f(16, 4, few), a(16, 4, all);
    CHECK(strided_misses(f, 10, 16, 256) == closed_form(few, 16, 4, 10, 16, 256));
    CHECK(strided_misses(a, 10, 16, 256) == closed_form(all, 16, 4, 10, 16, 256));
    CHECK(f.misses() == 160); // bits 8..11 of the VPN vary, and they are not folded
    CHECK(a.misses() == 16);
}

TEST_CASE("strided patterns of every power-of-two stride match the closed form")
{
    for (unsigned shift = 0; shift < 12; ++shift)
        for (index_kind kind : {index_kind::modulo, index_kind::xor_hash}) {
            const index_fn f = make_index(kind, 16, 0, 20);
            tlb_array t(16, 4, f);
            INFO("stride 2^" << shift << (kind == index_kind::modulo ? " modulo" : " xor"));
            CHECK(strided_misses(t, 5, 32, 1ull << shift) ==
                  closed_form(f, 16, 4, 5, 32, 1ull << shift));
        }
}

TEST_CASE("LRU within a set, update in place, invalidation by page, range and all")
{
    tlb_array t(1, 2);
    CHECK_FALSE(t.insert(10, {1, true, false, 0}));
    CHECK_FALSE(t.insert(11, {2, true, false, 0}));
    REQUIRE(t.lookup(10)); // 11 becomes the least recently used
    CHECK(t.insert(12, {3, false, true, 1}) == std::optional<std::uint64_t>(11));
    CHECK_FALSE(t.probe(11));
    CHECK(t.probe(12) == std::optional<translation>(translation{3, false, true, 1}));
    CHECK_FALSE(t.insert(12, {4, true, false, 2})); // an update evicts nothing
    CHECK(t.probe(12)->pfn == 4);
    CHECK(t.invalidate(10));
    CHECK_FALSE(t.invalidate(10));
    CHECK(t.invalidate_all() == 1);
    CHECK_FALSE(t.lookup(12));

    tlb_array r(4, 4);
    for (std::uint64_t v = 0; v < 16; ++v)
        r.insert(v, {v, true, false, 0});
    CHECK(r.invalidate_range(4, 9) == 6);
    CHECK_FALSE(r.probe(4));
    CHECK_FALSE(r.probe(9));
    CHECK(r.probe(3));
    CHECK(r.probe(10));
    CHECK(r.invalidate_all() == 10);
    CHECK(r.evictions() == 0);
}

TEST_CASE("a random access stream: hits, misses, evictions and contents as a reference model")
{
    const std::uint64_t seed = vgpu::test::seed_or(11);
    std::cout << "tlb array random test: seed " << seed << " (VGPU_TEST_SEED reruns it)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    // Coverage plan (docs/coverage.md), sampled from the reference: each lookup's outcome in the
    // 3C classes (a miss is compulsory on a page's first access, a conflict miss when a fully
    // associative LRU TLB of the same capacity would have hit, capacity otherwise), the set of
    // each conflict miss, where in its set's LRU order a hit found its entry, and the index.
    vgpu::test::coverage cov("tlb", seed);
    cov.point("index", {"modulo", "xor"});
    cov.point("outcome", {"hit", "compulsory", "capacity", "conflict"});
    cov.point("conflict_set", {"0", "1", "2", "3", "4", "5", "6", "7"});
    cov.point("hit_position", {"mru", "middle", "lru"});
    cov.point("eviction", {"none", "lru_victim"});
    cov.cross("index", "outcome");
    cov.cross("index", "conflict_set");
    for (index_kind kind : {index_kind::modulo, index_kind::xor_hash}) {
        const std::string kind_bin = kind == index_kind::modulo ? "modulo" : "xor";
        const unsigned sets = 8, ways = 3;
        const index_fn f = make_index(kind, sets, 0, 20);
        tlb_array t(sets, ways, f);
        std::map<unsigned, std::list<std::uint64_t>> ref; // per set, most recent first
        std::list<std::uint64_t> full;                    // fully associative, sets x ways
        std::set<std::uint64_t> seen;
        std::uint64_t hits = 0, misses = 0, evictions = 0;
        for (unsigned k = 0; k < 20000; ++k) {
            const std::uint64_t vpn =
                rng() % 64 * (rng() % 2 ? 1 : 8); // some sharing, some conflict
            const unsigned set_index = f(vpn) % sets;
            std::list<std::uint64_t>& set = ref[set_index];
            auto it = std::find(set.begin(), set.end(), vpn);
            const bool hit = it != set.end();
            auto fit = std::find(full.begin(), full.end(), vpn);
            const bool full_hit = fit != full.end();
            if (full_hit)
                full.erase(fit);
            full.push_front(vpn);
            if (full.size() > sets * ways)
                full.pop_back();
            const char* outcome = hit                ? "hit"
                                  : !seen.count(vpn) ? "compulsory"
                                  : full_hit         ? "conflict"
                                                     : "capacity";
            seen.insert(vpn);
            cov.hit("index", kind_bin);
            cov.hit("outcome", outcome);
            cov.hit_cross("index", kind_bin, "outcome", outcome);
            if (hit) {
                const auto pos = std::distance(set.begin(), it);
                cov.hit("hit_position", pos == 0                             ? "mru"
                                        : pos + 1 == static_cast<long>(ways) ? "lru"
                                                                             : "middle");
                set.erase(it);
                ++hits;
            } else {
                ++misses;
                if (outcome == std::string("conflict")) {
                    cov.hit("conflict_set", std::to_string(set_index));
                    cov.hit_cross("index", kind_bin, "conflict_set", std::to_string(set_index));
                }
                cov.hit("eviction", set.size() == ways ? "lru_victim" : "none");
                if (set.size() == ways) {
                    set.pop_back();
                    ++evictions;
                }
            }
            set.push_front(vpn);
            const auto got = t.lookup(vpn);
            REQUIRE(got.has_value() == hit);
            if (!hit)
                t.insert(vpn, {vpn * 3, true, false, 0});
            else
                REQUIRE(got->pfn == vpn * 3);
        }
        CHECK(t.hits() == hits);
        CHECK(t.misses() == misses);
        CHECK(t.evictions() == evictions);
    }
    cov.write();
}
