// The TLB cores together as the cluster TLB uses them, on a random stream of translations: an
// L1 TLB array (both set indexes), page walks of a radix page table that start at the deepest
// level the page-walk cache knows (as cluster_tlb::walk does), page faults on absent pages
// joining a pending record in the fault-coalescing table, a host that maps or refuses them, and
// shootdowns; for each page size (4 KiB, 64 KiB, 2 MiB). Checked against references written
// here: the mapping (a map of pages), a fully associative LRU list for the page-walk cache, and
// per page the waiters in arrival order. Declares the walker's coverage plan (docs/coverage.md).
#include "models/common/page_table.h"
#include "models/tlb/core/fault_table.h"
#include "models/tlb/core/page_walk_cache.h"
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
#include <tuple>
#include <vector>

using namespace vgpu::tlb;
namespace pt = vgpu::page_table;

namespace {
/// A radix page table in a sparse physical memory of 8-byte words, built and edited the way
/// the host driver does (nodes allocated on demand, never moved).
class table_memory {
public:
    explicit table_memory(std::uint64_t page_bytes) : m_page(page_bytes) {}
    std::uint64_t root() const { return 0x100000; }
    std::uint64_t read(std::uint64_t pa) const
    {
        const auto it = m_words.find(pa);
        return it == m_words.end() ? 0 : it->second;
    }
    void map(std::uint64_t vpn, std::uint64_t frame)
    {
        const std::uint64_t va = vpn * m_page;
        std::uint64_t table = root();
        const unsigned levels = pt::levels(m_page);
        for (unsigned l = 0; l + 1 < levels; ++l) {
            const std::uint64_t at = pt::entry_address(table, va, l, m_page);
            if ((read(at) & pt::present_bit) == 0)
                m_words[at] = pt::encode_table(m_next += pt::node_bytes);
            table = pt::table_of(read(at));
        }
        m_words[pt::entry_address(table, va, levels - 1, m_page)] = pt::encode(frame, true);
    }
    /// The leaf entry of vpn becomes absent (its tables stay).
    void unmap(std::uint64_t vpn)
    {
        const std::uint64_t va = vpn * m_page;
        std::uint64_t table = root();
        const unsigned levels = pt::levels(m_page);
        for (unsigned l = 0; l + 1 < levels; ++l) {
            const std::uint64_t raw = read(pt::entry_address(table, va, l, m_page));
            if ((raw & pt::present_bit) == 0)
                return;
            table = pt::table_of(raw);
        }
        m_words.erase(pt::entry_address(table, va, levels - 1, m_page));
    }

private:
    std::uint64_t m_page;
    std::uint64_t m_next = 0x100000;
    std::map<std::uint64_t, std::uint64_t> m_words;
};

const char* page_bin(std::uint64_t page_bytes)
{
    return page_bytes == 4096 ? "4K" : page_bytes == 65536 ? "64K" : "2M";
}
const char* waiters_bin(std::size_t n)
{
    return n == 1 ? "1" : n <= 3 ? "2-3" : n <= 15 ? "4-15" : "16+";
}
} // namespace

TEST_CASE("tlb cores: random walks, faults, coalescing and shootdowns against references")
{
    const std::uint64_t seed = vgpu::test::seed_or(39);
    std::cout << "tlb walk and fault random test: seed " << seed << " (VGPU_TEST_SEED reruns it)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);

    // Coverage plan: the page size; where a walk starts (the deepest level the page-walk cache
    // knows) and how it ends (a present leaf, or an absent entry at the root, an inner level or
    // the leaf), crossed with the page size without the pairs a 2-level table cannot have
    // (64 KiB and 2 MiB pages: root and leaf only); the PTE reads of a walk; the page-walk
    // cache's lookups (hit by level, miss) and inserts (into a free entry, or replacing the
    // LRU one); the L1 TLB's lookups by index; faults (a new record, one that joins a pending
    // record, a new record for a page serviced before) and the waiters a service replays, by
    // the host's answer; shootdowns by kind and by the entries they drop.
    vgpu::test::coverage cov("tlb_walk", seed);
    cov.point("page_bytes", {"4K", "64K", "2M"});
    cov.point("walk_start", {"root", "level1", "level2"});
    cov.point("walk_end", {"present", "absent_root", "absent_inner", "absent_leaf"});
    cov.point("page_bytes x walk_start", {"4K x root", "4K x level1", "4K x level2", "64K x root",
                                          "64K x level1", "2M x root", "2M x level1"});
    cov.point("page_bytes x walk_end",
              {"4K x present", "4K x absent_root", "4K x absent_inner", "4K x absent_leaf",
               "64K x present", "64K x absent_root", "64K x absent_leaf", "2M x present",
               "2M x absent_root", "2M x absent_leaf"});
    cov.point("pte_reads", {"1", "2", "3"});
    cov.point("pwc_lookup", {"hit_level0", "hit_level1", "miss"});
    // A walk never re-inserts an entry the cache holds: it would have started below it.
    cov.point("pwc_insert", {"free_entry", "replace_lru"});
    cov.point("l1_tlb", {"modulo_hit", "modulo_miss", "xor_hit", "xor_miss"});
    cov.point("fault", {"record", "coalesced", "record_after_service"});
    cov.point("fault_answer", {"mapped", "refused"});
    cov.point("waiters_replayed", {"1", "2-3", "4-15", "16+"});
    cov.cross("fault_answer", "waiters_replayed");
    cov.point("shootdown", {"page", "range", "all"});
    cov.point("shootdown_dropped", {"0", "1", "2+"});

    for (std::uint64_t page : {std::uint64_t{4096}, std::uint64_t{65536}, std::uint64_t{2} << 20})
        for (index_kind kind : {index_kind::modulo, index_kind::xor_hash}) {
            const std::string pb = page_bin(page),
                              kb = kind == index_kind::modulo ? "modulo" : "xor";
            CAPTURE(pb, kb);
            const unsigned levels = pt::levels(page);
            const unsigned vpn_bits = pt::va_bits - pt::page_shift(page);
            tlb_array l1(8, 4, make_index(kind, 8, 0, vpn_bits));
            page_walk_cache pwc(6);
            fault_table faults;
            table_memory mem(page);
            // References.
            std::map<std::uint64_t, std::uint64_t> mapped;                         // vpn -> frame
            std::list<std::tuple<unsigned, std::uint64_t, std::uint64_t>> pwc_ref; // MRU first
            std::map<std::uint64_t, std::vector<std::uint64_t>> pending;
            std::set<std::uint64_t> serviced;
            std::uint64_t waiter = 0, next_frame = 0x40000000;
            // Pages: a hot region of 64 pages at the bottom, and now and then one anywhere in
            // the 32-bit space (new tables, absent upper levels).
            const std::uint64_t pages = std::uint64_t{1} << vpn_bits;
            auto draw_vpn = [&] { return rng() % 8 == 0 ? rng() % pages : rng() % 64; };
            for (unsigned n = 0; n < 6000; ++n) {
                const unsigned op = static_cast<unsigned>(rng() % 100);
                if (op < 80) { // a translation
                    const std::uint64_t vpn = draw_vpn();
                    const std::uint64_t va = vpn * page + rng() % page;
                    if (const auto t = l1.lookup(vpn)) {
                        cov.hit("l1_tlb", kb + "_hit");
                        REQUIRE(mapped.count(vpn));
                        REQUIRE(t->pfn == mapped[vpn] / page);
                        continue;
                    }
                    cov.hit("l1_tlb", kb + "_miss");
                    // The walk, as cluster_tlb::walk: the deepest level the cache knows.
                    std::uint64_t table = mem.root();
                    unsigned level = 0;
                    for (unsigned l = levels - 1; l-- > 0;) {
                        const std::uint64_t prefix = pt::prefix(va, l, page);
                        const auto got = pwc.lookup(l, prefix);
                        auto it = std::find_if(pwc_ref.begin(), pwc_ref.end(), [&](const auto& e) {
                            return std::get<0>(e) == l && std::get<1>(e) == prefix;
                        });
                        REQUIRE(got.has_value() == (it != pwc_ref.end()));
                        if (got) {
                            REQUIRE(*got == std::get<2>(*it));
                            pwc_ref.splice(pwc_ref.begin(), pwc_ref, it);
                            cov.hit("pwc_lookup", l == 0 ? "hit_level0" : "hit_level1");
                            table = *got;
                            level = l + 1;
                            break;
                        }
                        cov.hit("pwc_lookup", "miss");
                    }
                    const std::string start = level == 0 ? "root" : "level" + std::to_string(level);
                    cov.hit("walk_start", start);
                    cov.hit_cross("page_bytes", pb, "walk_start", start);
                    std::uint64_t pte = 0;
                    unsigned reads = 0;
                    std::string end = "present";
                    for (; level < levels; ++level) {
                        const std::uint64_t raw =
                            mem.read(pt::entry_address(table, va, level, page));
                        ++reads;
                        if ((raw & pt::present_bit) == 0) {
                            end = level == 0            ? "absent_root"
                                  : level + 1 == levels ? "absent_leaf"
                                                        : "absent_inner";
                            break;
                        }
                        if (level + 1 == levels) {
                            pte = raw;
                            break;
                        }
                        table = pt::table_of(raw);
                        const std::uint64_t prefix = pt::prefix(va, level, page);
                        auto it = std::find_if(pwc_ref.begin(), pwc_ref.end(), [&](const auto& e) {
                            return std::get<0>(e) == level && std::get<1>(e) == prefix;
                        });
                        REQUIRE(it == pwc_ref.end());
                        cov.hit("pwc_insert", pwc_ref.size() == 6 ? "replace_lru" : "free_entry");
                        if (pwc_ref.size() == 6)
                            pwc_ref.pop_back();
                        pwc_ref.emplace_front(level, prefix, table);
                        pwc.insert(level, prefix, table);
                    }
                    cov.hit("walk_end", end);
                    cov.hit_cross("page_bytes", pb, "walk_end", end);
                    cov.hit("pte_reads", std::to_string(reads));
                    cov.hit("page_bytes", pb);
                    REQUIRE((pte != 0) == (mapped.count(vpn) != 0));
                    if (pte != 0) {
                        REQUIRE(pt::table_of(pte) == mapped[vpn]);
                        l1.insert(vpn, translation{mapped[vpn] / page, true, false, 0});
                        continue;
                    }
                    // A page fault: a new record unless the page has one pending.
                    const bool record = faults.add(vpn, waiter);
                    REQUIRE(record == !pending.count(vpn));
                    cov.hit("fault", !record               ? "coalesced"
                                     : serviced.count(vpn) ? "record_after_service"
                                                           : "record");
                    pending[vpn].push_back(waiter++);
                    REQUIRE(faults.pages() == pending.size());
                } else if (op < 97 && !pending.empty()) { // the host services a pending fault
                    auto it = pending.begin();
                    std::advance(it, rng() % pending.size());
                    const std::uint64_t vpn = it->first;
                    const bool map = rng() % 4 != 0;
                    if (map) {
                        mapped[vpn] = next_frame;
                        mem.map(vpn, next_frame);
                        next_frame += page;
                    }
                    const std::vector<std::uint64_t> replay = faults.complete(vpn);
                    REQUIRE(replay == it->second);
                    REQUIRE_FALSE(faults.pending(vpn));
                    cov.hit("fault_answer", map ? "mapped" : "refused");
                    cov.hit("waiters_replayed", waiters_bin(replay.size()));
                    cov.hit_cross("fault_answer", map ? "mapped" : "refused", "waiters_replayed",
                                  waiters_bin(replay.size()));
                    serviced.insert(vpn);
                    pending.erase(it);
                } else if (op >= 97) { // a shootdown: unmap pages, drop their translations
                    const unsigned kind_of = static_cast<unsigned>(rng() % 10);
                    unsigned dropped = 0;
                    if (kind_of < 6) {
                        const std::uint64_t vpn = draw_vpn();
                        mapped.erase(vpn);
                        mem.unmap(vpn);
                        dropped = l1.invalidate(vpn) ? 1 : 0;
                        cov.hit("shootdown", "page");
                    } else if (kind_of < 9) {
                        const std::uint64_t first = draw_vpn(), last = first + rng() % 16;
                        unsigned expect = 0;
                        for (std::uint64_t v = first; v <= last && v < pages; ++v) {
                            expect += l1.probe(v).has_value();
                            mapped.erase(v);
                            mem.unmap(v);
                        }
                        dropped = l1.invalidate_range(first, last);
                        REQUIRE(dropped == expect);
                        cov.hit("shootdown", "range");
                    } else {
                        for (const auto& [v, frame] : mapped)
                            mem.unmap(v);
                        mapped.clear();
                        dropped = l1.invalidate_all();
                        cov.hit("shootdown", "all");
                    }
                    cov.hit("shootdown_dropped", dropped == 0 ? "0" : dropped == 1 ? "1" : "2+");
                    // A shootdown also empties the page-walk cache (a table may have moved).
                    REQUIRE(pwc.invalidate_all() == pwc_ref.size());
                    pwc_ref.clear();
                }
            }
        }
    cov.write();
}
