// Unit tests of vgpu::cache::cache_controller: hand-made sequences, and randomized sequences
// checked against a map-based reference model (seed printed). See models/cache/README.md.
#include "models/cache/core/cache_controller.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

using vgpu::cache::cache_array;
using vgpu::cache::cache_controller;
using vgpu::cache::controller_params;
using vgpu::cache::index_kind;
using vgpu::cache::write_policy;
using outcome = cache_controller::outcome;

namespace {

std::uint64_t test_seed()
{
    const char* s = std::getenv("VGPU_TEST_SEED");
    return s ? std::strtoull(s, nullptr, 0) : 20240611;
}

controller_params params(unsigned sets, unsigned ways, unsigned line, unsigned mshrs,
                         write_policy policy, index_kind index = index_kind::modulo)
{
    controller_params p;
    p.sets = sets;
    p.ways = ways;
    p.line_bytes = line;
    p.mshrs = mshrs;
    p.policy = policy;
    p.index = index;
    return p;
}

const char* name(outcome o)
{
    switch (o) {
    case outcome::hit:
        return "hit";
    case outcome::merge:
        return "merge";
    case outcome::stall:
        return "stall";
    case outcome::miss:
        return "miss";
    }
    return "?";
}

} // namespace

TEST_CASE("controller: hit, miss, merge into a miss in flight, stall when MSHRs are full")
{
    // 4 sets x 2 ways of 64-byte lines, 2 MSHRs, write-back.
    cache_controller c(params(4, 2, 64, 2, write_policy::write_back_allocate));
    cache_controller::request r1, r2, r3, r4;
    REQUIRE(c.lookup(0x1010, r1) == outcome::miss); // claims an MSHR for line 0x1000
    REQUIRE(c.busy(0x1000));
    REQUIRE(c.busy(0x103f));
    REQUIRE(c.misses_in_flight() == 1);
    REQUIRE(c.lookup(0x1020, r2) == outcome::merge); // same line, fill in flight
    REQUIRE(c.lookup(0x1020, r2) == outcome::merge); // asked again: counted once
    REQUIRE(c.lookup(0x2000, r3) == outcome::miss);
    REQUIRE(c.lookup(0x3000, r4) == outcome::stall); // both MSHRs busy
    REQUIRE(c.lookup(0x3000, r4) == outcome::stall);
    REQUIRE(c.counts().misses == 2);
    REQUIRE(c.counts().merges == 1);
    REQUIRE(c.counts().full_stalls == 1);

    // The fill of 0x1000 arrives: allocate (no victim), fill, serve, release.
    REQUIRE_FALSE(c.allocate(0x1000).valid);
    std::vector<std::uint8_t> line(64);
    for (unsigned i = 0; i < 64; ++i)
        line[i] = static_cast<std::uint8_t>(i);
    c.fill(0x1000, line.data());
    c.finish_miss(0x1000);
    REQUIRE_FALSE(c.busy(0x1000));
    REQUIRE(c.counts().fills == 1);
    // The merged request now hits but was counted as a merge, not a hit.
    REQUIRE(c.lookup(0x1020, r2) == outcome::hit);
    REQUIRE(c.counts().hits == 0);
    std::uint32_t w = 0;
    c.read(0x1020, &w, 4);
    REQUIRE(w == 0x23222120u);
    // The stalled request gets the freed MSHR: counted as a miss once, the stall stays one.
    REQUIRE(c.lookup(0x3000, r4) == outcome::miss);
    REQUIRE(c.counts().misses == 3);
    REQUIRE(c.counts().full_stalls == 1);
    cache_controller::request fresh;
    REQUIRE(c.lookup(0x1000, fresh) == outcome::hit);
    REQUIRE(c.counts().hits == 1);
}

TEST_CASE("controller, write-back: a dirty victim is reported and written back, LRU order kept")
{
    // One set of 2 ways of 16-byte lines: 0x00, 0x10, 0x20 all share it.
    cache_controller c(params(1, 2, 16, 4, write_policy::write_back_allocate));
    REQUIRE_FALSE(c.allocate(0x00).valid);
    REQUIRE_FALSE(c.allocate(0x10).valid);
    const std::uint32_t v = 0xcafef00d;
    c.write(0x04, &v, 4); // write-back: the line becomes dirty
    REQUIRE(c.array().is_dirty(0x00));
    cache_controller::request r;
    REQUIRE(c.lookup(0x00, r) == outcome::hit); // 0x00 most recently used: 0x10 is LRU
    const cache_array::victim clean = c.allocate(0x20);
    REQUIRE(clean.valid);
    REQUIRE(clean.line_addr == 0x10);
    REQUIRE_FALSE(clean.dirty);
    const cache_array::victim dirty = c.allocate(0x30); // LRU now 0x00
    REQUIRE(dirty.valid);
    REQUIRE(dirty.line_addr == 0x00);
    REQUIRE(dirty.dirty);
    std::uint32_t back = 0;
    std::memcpy(&back, dirty.data + 4, 4);
    REQUIRE(back == v);
    // Its write-back holds an MSHR entry: requests for the line wait (merge) until it lands.
    c.begin_writeback(0x00);
    REQUIRE(c.counts().writebacks == 1);
    REQUIRE(c.busy(0x00));
    REQUIRE(c.misses_in_flight() == 0);
    cache_controller::request r2;
    REQUIRE(c.lookup(0x08, r2) == outcome::merge);
    REQUIRE_THROWS_AS(c.begin_writeback(0x00), std::logic_error);
    c.end_writeback(0x00);
    REQUIRE(c.lookup(0x08, r2) == outcome::miss);
}

TEST_CASE("controller: write policy decides fetching, dirtiness and stale fills")
{
    cache_controller wb(params(4, 2, 64, 2, write_policy::write_back_allocate));
    CHECK(wb.needs_fetch(false, 64, false));
    CHECK(wb.needs_fetch(true, 32, false));
    CHECK(wb.needs_fetch(true, 64, true));
    CHECK_FALSE(wb.needs_fetch(true, 64, false)); // replaces the line whole

    cache_controller wt(params(4, 2, 64, 2, write_policy::write_through_no_allocate));
    CHECK(wt.needs_fetch(true, 64, false));
    CHECK(wt.needs_fetch(false, 64, false));
    // A write below an absent line: nothing to update, nothing allocated.
    CHECK_FALSE(wt.wrote_below(0x100));
    CHECK_FALSE(wt.array().probe(0x100));
    // A present line is updated and stays clean.
    std::vector<std::uint8_t> zeros(64, 0), ones(64, 1);
    cache_controller::request r;
    REQUIRE(wt.lookup(0x200, r) == outcome::miss);
    REQUIRE_FALSE(wt.complete_fill(0x200, zeros.data()).valid);
    wt.finish_miss(0x200);
    REQUIRE(wt.wrote_below(0x208));
    const std::uint8_t seven = 7;
    wt.write(0x208, &seven, 1);
    CHECK_FALSE(wt.array().is_dirty(0x200));
    std::uint8_t got = 0;
    wt.read(0x208, &got, 1);
    CHECK(got == 7);
    // A write while the fill of its line is in flight: the fill serves its request but is not
    // installed (it may hold data older than memory).
    cache_controller::request r2;
    REQUIRE(wt.lookup(0x300, r2) == outcome::miss);
    CHECK_FALSE(wt.wrote_below(0x310));
    CHECK_FALSE(wt.wrote_below(0x318)); // marked once
    CHECK_FALSE(wt.complete_fill(0x300, ones.data()).valid);
    wt.finish_miss(0x300);
    CHECK_FALSE(wt.array().probe(0x300));
    CHECK(wt.counts().fills == 1);
    // The next fill of that line is installed again.
    cache_controller::request r3;
    REQUIRE(wt.lookup(0x300, r3) == outcome::miss);
    wt.complete_fill(0x300, ones.data());
    wt.finish_miss(0x300);
    CHECK(wt.array().probe(0x300));
}

TEST_CASE("controller, fast mode: merges complete at the latest fill arrival, misses take the "
          "slot freed first")
{
    cache_controller c(params(8, 2, 64, 2, write_policy::write_through_no_allocate));
    std::vector<std::uint8_t> data(64, 0);
    std::uint64_t issue = 0;
    // Miss A at tag time 10: slot 0 (both free at 0), no stall; its data arrives at 100.
    auto t = c.lookup_at(0x000, 10);
    REQUIRE(t.result == outcome::miss);
    REQUIRE(c.reserve_fill(10, issue) == 0);
    REQUIRE(issue == 10);
    c.complete_fill(0x000, data.data());
    c.fill_arrives(0, 0x000, 100);
    // Miss B at 20: slot 1, arrives at 120.
    REQUIRE(c.lookup_at(0x040, 20).result == outcome::miss);
    REQUIRE(c.reserve_fill(20, issue) == 1);
    REQUIRE(issue == 20);
    c.complete_fill(0x040, data.data());
    c.fill_arrives(1, 0x040, 120);
    // A at 50: present with its fill arriving at 100 -> merge, ready 100.
    t = c.lookup_at(0x010, 50);
    REQUIRE(t.result == outcome::merge);
    REQUIRE(t.ready == 100);
    // A at 150: the fill has arrived -> hit at the tag time.
    t = c.lookup_at(0x010, 150);
    REQUIRE(t.result == outcome::hit);
    REQUIRE(t.ready == 150);
    // Miss C at 30: slots free at 100 and 120 -> slot 0, issue at 100, one full stall.
    REQUIRE(c.lookup_at(0x080, 30).result == outcome::miss);
    REQUIRE(c.reserve_fill(30, issue) == 0);
    REQUIRE(issue == 100);
    c.complete_fill(0x080, data.data());
    c.fill_arrives(0, 0x080, 200);
    // Slot 0 no longer remembers A's fill: A at 60 is a hit.
    REQUIRE(c.lookup_at(0x000, 60).result == outcome::hit);
    // Two fills of one line in flight: a request waits for the later arrival.
    c.fill_arrives(1, 0x080, 170);
    t = c.lookup_at(0x080, 40);
    REQUIRE(t.result == outcome::merge);
    REQUIRE(t.ready == 200);
    CHECK(c.counts().hits == 2);
    CHECK(c.counts().merges == 2);
    CHECK(c.counts().misses == 3);
    CHECK(c.counts().full_stalls == 1);
    // Invalidation forgets the slots: a miss issues at its tag time again.
    c.invalidate_all([](std::uint64_t, const std::uint8_t*) { FAIL("no line is dirty"); });
    CHECK(c.array().valid_count() == 0);
    REQUIRE(c.lookup_at(0x080, 5).result == outcome::miss);
    REQUIRE(c.reserve_fill(5, issue) == 0);
    CHECK(issue == 5);
}

TEST_CASE("controller, fast mode: the last_slot rule waits for the fill in the last slot")
{
    controller_params p = params(8, 2, 64, 3, write_policy::write_through_no_allocate);
    p.fast_merge = vgpu::cache::merge_wait::last_slot;
    cache_controller c(p);
    std::vector<std::uint8_t> data(64, 0);
    c.complete_fill(0x100, data.data());
    c.fill_arrives(0, 0x100, 200);
    c.fill_arrives(1, 0x100, 170);
    c.fill_arrives(2, 0x140, 500);
    auto t = c.lookup_at(0x100, 40);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 170); // latest_arrival would give 200
    // A fill that has arrived by the tag time is no longer waited for.
    t = c.lookup_at(0x100, 180);
    CHECK(t.result == outcome::merge);
    CHECK(t.ready == 200);
    t = c.lookup_at(0x100, 200);
    CHECK(t.result == outcome::hit);
    CHECK(t.ready == 200);
}

TEST_CASE("controller: line buffers, one per MSHR entry, and bad parameters")
{
    cache_controller wt(params(4, 2, 32, 3, write_policy::write_through_no_allocate));
    std::vector<std::uint8_t*> got;
    for (std::uint8_t* b = wt.take_buffer(); b; b = wt.take_buffer())
        got.push_back(b);
    CHECK(got.size() == 3);
    std::set<std::uint8_t*> distinct(got.begin(), got.end());
    CHECK(distinct.size() == 3);
    std::memset(got[0], 0xab, 32); // each is a whole line
    wt.give_buffer(got[1]);
    CHECK(wt.take_buffer() == got[1]);
    // Write-back: one more per MSHR for a victim's write-back.
    cache_controller wb(params(4, 2, 32, 3, write_policy::write_back_allocate));
    unsigned n = 0;
    while (wb.take_buffer())
        ++n;
    CHECK(n == 6);

    CHECK_THROWS_WITH(cache_controller(params(4, 2, 32, 0, write_policy::write_back_allocate)),
                      Catch::Contains("mshrs must be at least 1"));
    CHECK_THROWS_WITH(cache_controller(params(3, 2, 32, 1, write_policy::write_back_allocate)),
                      Catch::Contains("power of two"));
    CHECK_THROWS_AS(cache_controller(params(4, 2, 48, 1, write_policy::write_back_allocate)),
                    std::invalid_argument);
}

namespace {

/// Independent model of the controller: per set a list of lines, most recently used first;
/// sets found by its own index computation; plain sets for lines in flight and stale fills.
struct reference {
    unsigned sets = 0, ways = 0, line_bytes = 0, mshrs = 0;
    bool xor_index = false;
    std::map<unsigned, std::list<std::uint64_t>> lru; // front = most recently used
    std::set<std::uint64_t> dirty, busy, stale;
    unsigned in_flight = 0;
    std::uint64_t hits = 0, misses = 0, merges = 0, stalls = 0, fills = 0, writebacks = 0;

    unsigned set_of(std::uint64_t line) const
    {
        const std::uint64_t n = line / line_bytes;
        if (!xor_index)
            return static_cast<unsigned>(n % sets);
        // Bit i of the index is the XOR of bits i, i + b, i + 2b, ... of the line number.
        unsigned b = 0;
        while ((1u << b) < sets)
            ++b;
        unsigned idx = 0;
        for (unsigned i = 0; i < b; ++i) {
            unsigned bit = 0;
            for (unsigned j = i; j < 64; j += b)
                bit ^= static_cast<unsigned>((n >> j) & 1);
            idx |= bit << i;
        }
        return idx;
    }
    bool resident(std::uint64_t line) const
    {
        auto it = lru.find(set_of(line));
        if (it == lru.end())
            return false;
        for (auto l : it->second)
            if (l == line)
                return true;
        return false;
    }
    void touch(std::uint64_t line)
    {
        auto& l = lru[set_of(line)];
        l.remove(line);
        l.push_front(line);
    }
    outcome lookup(std::uint64_t line, cache_controller::request& r)
    {
        if (busy.count(line)) {
            if (!r.merged)
                ++merges;
            r.merged = true;
            return outcome::merge;
        }
        if (resident(line)) {
            touch(line);
            if (!r.merged)
                ++hits;
            return outcome::hit;
        }
        if (in_flight < mshrs) {
            ++misses;
            busy.insert(line);
            ++in_flight;
            return outcome::miss;
        }
        if (!r.stalled)
            ++stalls;
        r.stalled = true;
        return outcome::stall;
    }
    /// The evicted line (and whether it was dirty), or nothing.
    bool allocate(std::uint64_t line, std::uint64_t& victim, bool& was_dirty)
    {
        auto& l = lru[set_of(line)];
        bool evicted = false;
        if (l.size() == ways) {
            victim = l.back();
            l.pop_back();
            was_dirty = dirty.erase(victim) > 0;
            evicted = true;
        }
        l.push_front(line);
        return evicted;
    }
};

/// A request waiting in the randomized bench (for an MSHR, or for a line in flight).
struct waiting {
    std::uint64_t addr;
    bool write;
    unsigned len;
    bool whole;
    std::vector<std::uint8_t> data;
    cache_controller::request core_req, ref_req;
};

/// A miss being served: allocate, (write back a dirty victim), fetch, fill, serve.
struct pending_miss {
    waiting req;
    std::uint64_t line;
    int phase = 0;                   // 0 allocate, 1 fetched and waiting to arrive
    std::vector<std::uint8_t> fetch; // the line as read below
    bool wb_wait = false;            // waiting for a victim's write-back
    std::uint64_t wb_line = 0;
};

/// Randomized accurate-mode traffic against the reference: outcomes, victims, counts and
/// data. Write-back: every read returns the last write, and memory after a final flush holds
/// every last write. Write-through: hits never return data older than memory.
void random_accurate(write_policy policy, index_kind index, std::uint64_t seed)
{
    const bool wb = policy == write_policy::write_back_allocate;
    const unsigned sets = 4, ways = 2, line_bytes = 16, mshrs = 3;
    std::cout << "cache_controller random test: " << (wb ? "write-back" : "write-through") << ", "
              << (index == index_kind::xor_fold ? "xor-fold" : "modulo") << " index, seed " << seed
              << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    cache_controller c(params(sets, ways, line_bytes, mshrs, policy, index));
    reference ref;
    ref.sets = sets;
    ref.ways = ways;
    ref.line_bytes = line_bytes;
    ref.mshrs = mshrs;
    ref.xor_index = index == index_kind::xor_fold;

    const std::uint64_t n_lines = 5ull * sets * ways;
    std::map<std::uint64_t, std::uint8_t> truth;  // last value written to each byte
    std::map<std::uint64_t, std::uint8_t> memory; // what is below the cache
    auto byte_of = [](const std::map<std::uint64_t, std::uint8_t>& m, std::uint64_t a) {
        auto it = m.find(a);
        return it == m.end() ? static_cast<std::uint8_t>(a * 7 + 1) : it->second;
    };
    std::vector<waiting> waiters;
    std::vector<pending_miss> misses;
    std::vector<std::uint64_t> writebacks_in_flight;
    std::uint64_t served_hits = 0, stale_drops = 0, dirty_victims = 0, reallocations = 0;

    auto check_counts = [&] {
        const auto& k = c.counts();
        REQUIRE(k.hits == ref.hits);
        REQUIRE(k.misses == ref.misses);
        REQUIRE(k.merges == ref.merges);
        REQUIRE(k.full_stalls == ref.stalls);
        REQUIRE(k.fills == ref.fills);
        REQUIRE(k.writebacks == ref.writebacks);
        REQUIRE(c.misses_in_flight() == ref.in_flight);
    };
    // Serves a request whose line is resident: reads must see the newest data.
    auto serve = [&](const waiting& w) {
        if (w.write) {
            c.write(w.addr, w.data.data(), w.len);
            for (unsigned i = 0; i < w.len; ++i)
                truth[w.addr + i] = w.data[i];
            if (wb)
                ref.dirty.insert(w.addr & ~std::uint64_t{line_bytes - 1});
        } else {
            std::vector<std::uint8_t> got(w.len);
            c.read(w.addr, got.data(), w.len);
            for (unsigned i = 0; i < w.len; ++i)
                REQUIRE(got[i] == byte_of(truth, w.addr + i));
        }
    };
    // Allocates line until resident; returns false if a dirty victim's write-back must land
    // first (its line in wb_line).
    auto make_resident = [&](std::uint64_t line, std::uint64_t& wb_line) {
        while (!c.array().probe(line)) {
            const cache_array::victim v = c.allocate(line);
            std::uint64_t rv = 0;
            bool rdirty = false;
            const bool revicted = ref.allocate(line, rv, rdirty);
            REQUIRE(v.valid == revicted);
            if (!v.valid)
                continue;
            REQUIRE(v.line_addr == rv);
            REQUIRE(v.dirty == rdirty);
            if (v.dirty) {
                REQUIRE(wb);
                ++dirty_victims;
                // A dirty victim holds the newest data of its line.
                for (unsigned i = 0; i < line_bytes; ++i) {
                    REQUIRE(v.data[i] == byte_of(truth, v.line_addr + i));
                    memory[v.line_addr + i] = v.data[i];
                }
                REQUIRE_FALSE(c.busy(v.line_addr));
                c.begin_writeback(v.line_addr);
                ref.busy.insert(v.line_addr);
                ++ref.writebacks;
                writebacks_in_flight.push_back(v.line_addr);
                wb_line = v.line_addr;
                return false;
            }
        }
        return true;
    };
    auto new_request = [&](waiting& w) {
        const outcome o = c.lookup(w.addr, w.core_req);
        const outcome e = ref.lookup(w.addr & ~std::uint64_t{line_bytes - 1}, w.ref_req);
        INFO("lookup of " << w.addr << ": core " << name(o) << ", reference " << name(e));
        REQUIRE(o == e);
        if (o == outcome::hit) {
            ++served_hits;
            serve(w);
        } else if (o == outcome::miss) {
            pending_miss m;
            m.line = w.addr & ~std::uint64_t{line_bytes - 1};
            m.req = w;
            misses.push_back(m);
        } else {
            waiters.push_back(w);
        }
    };

    for (int op = 0; op < 60000; ++op) {
        const unsigned r = static_cast<unsigned>(rng() % 100);
        if (r < 40) {
            // A new request (write-through: reads only come here; writes go below first).
            waiting w;
            const std::uint64_t line = (rng() % n_lines) * line_bytes;
            w.write = rng() % 2 == 0;
            w.whole = w.write && rng() % 4 == 0;
            const unsigned off = w.whole ? 0 : static_cast<unsigned>(rng() % line_bytes);
            w.len = w.whole ? line_bytes : 1 + static_cast<unsigned>(rng() % (line_bytes - off));
            w.addr = line + off;
            for (unsigned i = 0; i < w.len; ++i)
                w.data.push_back(static_cast<std::uint8_t>(rng()));
            if (!wb && w.write) {
                for (unsigned i = 0; i < w.len; ++i)
                    memory[w.addr + i] = truth[w.addr + i] = w.data[i];
                const bool present = c.wrote_below(w.addr);
                REQUIRE(present == ref.resident(line));
                if (ref.busy.count(line))
                    ref.stale.insert(line);
                if (present)
                    c.write(w.addr, w.data.data(), w.len);
                continue;
            }
            new_request(w);
        } else if (r < 55 && !waiters.empty()) {
            // A waiting request asks again (after some release).
            const std::size_t i = rng() % waiters.size();
            waiting w = waiters[i];
            waiters.erase(waiters.begin() + static_cast<long>(i));
            new_request(w);
        } else if (r < 65 && !writebacks_in_flight.empty()) {
            const std::size_t i = rng() % writebacks_in_flight.size();
            const std::uint64_t line = writebacks_in_flight[i];
            writebacks_in_flight.erase(writebacks_in_flight.begin() + static_cast<long>(i));
            c.end_writeback(line);
            ref.busy.erase(line);
        } else if (!misses.empty()) {
            const std::size_t i = rng() % misses.size();
            pending_miss& m = misses[i];
            if (m.wb_wait) {
                if (std::find(writebacks_in_flight.begin(), writebacks_in_flight.end(),
                              m.wb_line) != writebacks_in_flight.end())
                    continue; // its victim's write-back has not landed yet
                m.wb_wait = false;
            }
            if (m.phase == 0) {
                // Write-back: allocate the way first. Then fetch the line as memory holds it.
                if (wb && !make_resident(m.line, m.wb_line)) {
                    m.wb_wait = true;
                    continue;
                }
                m.fetch.resize(line_bytes);
                for (unsigned k = 0; k < line_bytes; ++k)
                    m.fetch[k] = byte_of(memory, m.line + k);
                m.phase = 1;
                continue;
            }
            // The data arrives.
            const bool fetch = c.needs_fetch(m.req.write, m.req.len, false);
            REQUIRE(fetch == !(wb && m.req.write && m.req.len == line_bytes));
            if (wb) {
                // The allocated way may have been evicted meanwhile: allocate again.
                if (!c.array().probe(m.line))
                    ++reallocations;
                if (!make_resident(m.line, m.wb_line)) {
                    m.wb_wait = true;
                    continue;
                }
                if (fetch) {
                    c.fill(m.line, m.fetch.data());
                    ++ref.fills;
                }
                serve(m.req);
            } else {
                // Write-through: the core allocates at arrival unless a write overtook it.
                const bool was_stale = ref.stale.erase(m.line) > 0;
                const cache_array::victim v = c.complete_fill(m.line, m.fetch.data());
                if (was_stale) {
                    ++stale_drops;
                    REQUIRE_FALSE(v.valid);
                } else {
                    std::uint64_t rv = 0;
                    bool rdirty = false;
                    REQUIRE(v.valid == ref.allocate(m.line, rv, rdirty));
                    if (v.valid) {
                        REQUIRE(v.line_addr == rv);
                        REQUIRE_FALSE(v.dirty);
                    }
                    ++ref.fills;
                }
                REQUIRE(c.array().probe(m.line) == !was_stale);
            }
            c.finish_miss(m.line);
            ref.busy.erase(m.line);
            --ref.in_flight;
            misses.erase(misses.begin() + static_cast<long>(i));
        }
        if (op % 97 == 0)
            check_counts();
    }
    check_counts();
    // Every outcome happened.
    CHECK(served_hits > 1000);
    CHECK(ref.misses > 1000);
    CHECK(ref.merges > 100);
    CHECK(ref.stalls > 100);
    if (wb) {
        CHECK(dirty_victims > 100);
        CHECK(reallocations > 0);
        // After a final flush, memory holds every last write.
        c.invalidate_all([&](std::uint64_t line, const std::uint8_t* data) {
            for (unsigned i = 0; i < line_bytes; ++i)
                memory[line + i] = data[i];
        });
        for (const auto& [a, v] : truth)
            REQUIRE(byte_of(memory, a) == v);
    } else {
        CHECK(stale_drops > 10);
        CHECK(c.array().dirty_count() == 0);
    }
}

} // namespace

TEST_CASE("controller randomized against a reference: write-back, write-allocate, XOR fold")
{
    random_accurate(write_policy::write_back_allocate, index_kind::xor_fold, test_seed());
}

TEST_CASE("controller randomized against a reference: write-through, no-allocate, modulo")
{
    random_accurate(write_policy::write_through_no_allocate, index_kind::modulo, test_seed() + 1);
}
