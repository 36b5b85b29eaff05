// The shader-trace core: the OUTLis/INLis list operations exactly as S30 spells them, a
// randomized comparison with a plain ordered model, and the property that matters: with time
// deltas chained across groups, random event streams under random back-pressure, both
// policies, decode to the ground truth for every token that reached memory, with a gap where
// groups were lost; and the same streams written without OUTLis are refused as out of order.
// Seeds print on failure.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "test/seed.h"
#include "test/shader_trace_core/stream_model.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <random>

using namespace vgpu::shader_trace;

namespace {
group tagged(unsigned tag)
{
    return group(2, tag);
}

std::vector<unsigned> v(std::initializer_list<unsigned> l)
{
    return l;
}

group unflagged(group g)
{
    if (!g.empty())
        g[0] &= ~loss_flag;
    return g;
}
} // namespace

TEST_CASE("slot buffer: stores go to free slots, OUTLis and INLis in store order")
{
    slot_buffer b(4, 2, full_policy::stall, victim_policy::same_source);
    CHECK(b.store(0, tagged(1)).slot == 0);
    CHECK(b.store(1, tagged(2)).slot == 1);
    CHECK(b.store(0, tagged(3)).slot == 2);
    CHECK(b.outlis() == v({0, 1, 2}));
    CHECK(std::vector<unsigned>(b.inlis(0).begin(), b.inlis(0).end()) == v({0, 2}));
    CHECK(b.check().empty());
    // The write engine takes the head; the slot is in flight until its write completes.
    CHECK(*b.take_head() == 0);
    CHECK(b.outlis() == v({1, 2}));
    CHECK(b.in_flight() == 1);
    CHECK(b.check().empty());
    b.write_done(0);
    CHECK(b.free_slots() == 2);
    CHECK(b.check().empty());
}

TEST_CASE("slot buffer: replace of the head, a middle slot and the tail (S30)")
{
    auto full = [] {
        slot_buffer b(4, 3, full_policy::replace, victim_policy::lowest_priority, {0, 1, 2});
        b.store(2, tagged(1)); // slot 0: source 2, the lowest priority
        b.store(0, tagged(2)); // slot 1
        b.store(1, tagged(3)); // slot 2
        b.store(0, tagged(4)); // slot 3
        return b;
    };
    SECTION("head: head := next[a]; a becomes the tail")
    {
        slot_buffer b = full();
        const store_result r = b.store(1, tagged(5));
        CHECK(r.what == store_result::kind::replaced);
        CHECK(r.slot == 0);
        CHECK(r.victim_source == 2);
        CHECK(b.outlis() == v({1, 2, 3, 0}));
        CHECK(b.head() == 1);
        CHECK(b.prev(1) == slot_buffer::none);
        CHECK(b.contents(0) == tagged(5));
        CHECK(std::vector<unsigned>(b.inlis(1).begin(), b.inlis(1).end()) == v({2, 0}));
        CHECK(b.inlis(2).empty());
        CHECK(b.check().empty());
    }
    SECTION("middle: next[prev[a]] := next[a], prev[next[a]] := prev[a]")
    {
        slot_buffer b = full();
        b.store(1, tagged(5)); // slot 0 (source 2) goes; OUTLis 1 2 3 0
        // Now source 1 is the lowest with slots: its oldest is slot 2, in the middle.
        const store_result r = b.store(0, tagged(6));
        CHECK(r.slot == 2);
        CHECK(r.victim_source == 1);
        CHECK(b.outlis() == v({1, 3, 0, 2}));
        CHECK(b.next(1) == 3);
        CHECK(b.prev(3) == 1);
        CHECK(b.check().empty());
    }
    SECTION("tail: the links stay")
    {
        slot_buffer b(2, 2, full_policy::replace, victim_policy::same_source);
        b.store(1, tagged(1)); // slot 0
        b.store(0, tagged(2)); // slot 1 = tail
        const store_result r = b.store(0, tagged(3));
        CHECK(r.slot == 1);
        CHECK(b.outlis() == v({0, 1}));
        CHECK(b.contents(1) == tagged(3));
        CHECK(b.check().empty());
    }
    SECTION("K = 1")
    {
        slot_buffer b(1, 2, full_policy::replace, victim_policy::lowest_priority, {0, 1});
        b.store(1, tagged(1));
        const store_result r = b.store(0, tagged(2));
        CHECK(r.slot == 0);
        CHECK(r.victim_source == 1);
        CHECK(b.outlis() == v({0}));
        CHECK(b.inlis(1).empty());
        // In flight: never a victim; nothing qualifies, so the new group is dropped (claim 5).
        CHECK(*b.take_head() == 0);
        CHECK(b.store(1, tagged(3)).what == store_result::kind::dropped);
        CHECK(b.check().empty());
    }
}

TEST_CASE("slot buffer: random operations match an ordered model, both policies")
{
    const std::uint32_t seed = vgpu::test::seed_or(77);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (int round = 0; round < 40; ++round) {
        const unsigned k = 1 + rng() % 8, sources = 1 + rng() % 4;
        const full_policy fp = rng() % 2 ? full_policy::stall : full_policy::replace;
        const victim_policy vp =
            rng() % 2 ? victim_policy::same_source : victim_policy::lowest_priority;
        slot_buffer b(k, sources, fp, vp);
        std::list<std::pair<unsigned, unsigned>> model; // (tag, source) in OUTLis order
        std::vector<unsigned> flight;                   // slots in flight
        unsigned tag = 0;
        for (int step = 0; step < 400; ++step) {
            CAPTURE(round, step, k, sources);
            const unsigned op = rng() % 3;
            if (op == 0) {
                const unsigned src = rng() % sources;
                const store_result r = b.store(src, tagged(++tag));
                const bool full = model.size() + flight.size() == k;
                if (!full) {
                    REQUIRE(r.what == store_result::kind::stored);
                    model.emplace_back(tag, src);
                } else if (fp == full_policy::stall) {
                    REQUIRE(r.what == store_result::kind::stall);
                } else {
                    // The victim: the oldest group of the chosen source in the model.
                    int victim = -1;
                    if (vp == victim_policy::same_source) {
                        victim = static_cast<int>(src);
                    } else {
                        for (unsigned s = sources; s-- > 0;)
                            if (std::any_of(model.begin(), model.end(),
                                            [&](const auto& e) { return e.second == s; })) {
                                victim = static_cast<int>(s);
                                break;
                            }
                    }
                    auto it = std::find_if(model.begin(), model.end(), [&](const auto& e) {
                        return static_cast<int>(e.second) == victim;
                    });
                    if (it == model.end()) {
                        REQUIRE(r.what == store_result::kind::dropped);
                    } else {
                        REQUIRE(r.what == store_result::kind::replaced);
                        REQUIRE(b.contents(r.slot) == tagged(tag));
                        model.erase(it);
                        model.emplace_back(tag, src);
                    }
                }
            } else if (op == 1) {
                const auto h = b.take_head();
                REQUIRE(h.has_value() == !model.empty());
                if (h) {
                    REQUIRE(unflagged(b.contents(*h)) == tagged(model.front().first));
                    model.pop_front();
                    flight.push_back(*h);
                }
            } else if (!flight.empty()) {
                const std::size_t i = rng() % flight.size();
                b.write_done(flight[i]);
                flight.erase(flight.begin() + static_cast<std::ptrdiff_t>(i));
            }
            const std::vector<unsigned> out = b.outlis();
            REQUIRE(out.size() == model.size());
            auto m = model.begin();
            for (unsigned a : out) {
                REQUIRE(b.contents(a) == tagged(m->first));
                REQUIRE(b.source_of_slot(a) == m->second);
                ++m;
            }
            REQUIRE(b.check() == "");
        }
    }
}

TEST_CASE("slot buffer: the next group taken of a source that lost one carries the loss flag")
{
    slot_buffer b(3, 2, full_policy::replace, victim_policy::lowest_priority, {0, 1});
    b.store(1, tagged(1));                        // slot 0
    b.store(1, tagged(2));                        // slot 1
    b.store(0, tagged(3));                        // slot 2
    const store_result r = b.store(0, tagged(4)); // replaces source 1's oldest (tag 1)
    REQUIRE(r.what == store_result::kind::replaced);
    CHECK(r.victim_source == 1);
    // OUTLis: tag 2 (source 1), tag 3, tag 4. Only source 1's next group is flagged.
    auto take = [&] {
        const auto h = b.take_head();
        REQUIRE(h);
        const group g = b.contents(*h);
        b.write_done(*h);
        return g;
    };
    const group g2 = take();
    CHECK(lost_before(g2[0]));
    CHECK(unflagged(g2) == tagged(2));
    CHECK(!lost_before(take()[0]));
    CHECK(!lost_before(take()[0]));
    // A group taken but not written (region full, refused) flags the source's next one.
    b.mark_lost(0);
    b.store(1, tagged(5));
    b.store(0, tagged(6));
    CHECK(!lost_before(take()[0]));
    CHECK(lost_before(take()[0]));
    CHECK(b.check().empty());
}

TEST_CASE("packer: deltas chain across groups, a SYNC opens every sync_interval-th group, "
          "precedes a long delta and a loss, closes a flush")
{
    packer p(5, 4, 2);
    std::vector<group> out;
    p.add(event::warp_start, 3, 0, 100, out); // group 0: SYNC(100) + event
    p.add(event::user, 3, 0xdeadbeef, 110, out);
    p.add(event::user, 3, 7, 120, out);
    REQUIRE(out.size() == 1);
    CHECK(kind_of(out[0][0]) == token_kind::sync);
    CHECK(time_of(out[0][0]) == 100);
    CHECK(seq_of(out[0][0]) == 0);
    CHECK(check_of(out[0][0]) == 0);
    CHECK(delta_of(out[0][1]) == 0);
    CHECK(delta_of(out[0][3]) == 10);
    // Group 1 (1 % 2 != 0): no SYNC; its first delta counts from the last event of group 0.
    p.add(event::user, 3, 8, 125, out);
    p.add(event::user, 3, 9, 125, out);
    p.add(event::user, 3, 10, 130, out);
    p.add(event::user, 3, 11, 140, out);
    REQUIRE(out.size() == 2);
    CHECK(kind_of(out[1][0]) == token_kind::event);
    CHECK(delta_of(out[1][0]) == 5);
    // Group 2 (2 % 2 == 0): a SYNC whose check covers groups 0 and 1's events.
    p.add(event::user, 3, 12, 141, out);
    p.add(event::user, 3, 13, 142, out);
    std::uint8_t crc = 0;
    for (std::uint64_t t :
         {out[0][1], out[0][2], out[0][3], out[1][0], out[1][1], out[1][2], out[1][3]})
        crc = chain_check(crc, t);
    // A delta over 511: SYNC + event do not fit in the 1 token left, so group 2 closes and
    // the pair opens group 3 (not a multiple of 2: the SYNC is the long delta's).
    p.add(event::warp_exit, 3, 0, 2000, out);
    p.add(event::warp_exit, 4, 0, 2001, out);
    REQUIRE(out.size() == 3);
    CHECK(kind_of(out[2][0]) == token_kind::sync);
    CHECK(seq_of(out[2][0]) == 2);
    CHECK(check_of(out[2][0]) == crc);
    CHECK(time_of(out[2][0]) == 141);
    CHECK(out[2][3] == 0); // PAD
    // A loss: the next event is preceded by a SYNC; group 3 has no room for both.
    p.request_sync();
    p.add(event::user, 4, 1, 2005, out);
    REQUIRE(out.size() == 4);
    CHECK(kind_of(out[3][0]) == token_kind::sync);
    CHECK(time_of(out[3][0]) == 2000);
    CHECK(seq_of(out[3][0]) == 3);
    const auto last = p.flush(); // group 4: SYNC, event, and a closing SYNC in the padding
    REQUIRE(last);
    const group& g4 = *last;
    CHECK(kind_of(g4[0]) == token_kind::sync);
    CHECK(time_of(g4[0]) == 2005);
    CHECK(kind_of(g4[2]) == token_kind::sync);
    CHECK(time_of(g4[2]) == 2005);
    CHECK(seq_of(g4[2]) == 4);
    CHECK(g4[3] == 0);
    CHECK(p.syncs() == 5);
    std::vector<std::uint64_t> mem;
    for (const group& g : out)
        mem.insert(mem.end(), g.begin(), g.end());
    mem.insert(mem.end(), g4.begin(), g4.end());
    const decode_result d = decode(mem, 4);
    REQUIRE(d.ok());
    std::vector<std::uint64_t> times;
    for (const decoded_event& e : d.events)
        times.push_back(e.time);
    CHECK(times == std::vector<std::uint64_t>{100, 110, 120, 125, 125, 130, 140, 141, 142, 2000,
                                              2001, 2005});
    CHECK(d.syncs == 5);
}

TEST_CASE("decoder: malformed and truncated images get an error naming the byte offset")
{
    CHECK(decode({0, 0, 0}, 2, 64).error == "offset 80: truncated group (1 of 2 tokens)");
    CHECK(decode({0, 0}, 2, 0).error == "offset 0: a group starts with a PAD token");
    CHECK(decode({make_sync(1, 0, 0, 5), std::uint64_t{3} << 61}, 2, 0).error ==
          "offset 8: unknown token kind 3");
    CHECK(decode({make_sync(1, 0, 0, 5), make_event(2, event::user, 0, 0, 1)}, 2, 0).error ==
          "offset 8: an event of another source inside a group");
    CHECK(decode({make_sync(1, 0, 0, 5), make_event(1, event::user, 0, 0, 1) | loss_flag}, 2, 0)
              .error == "offset 8: a loss flag inside a group");
    // A SYNC that contradicts the chain: wrong sequence number, or wrong check.
    const std::uint64_t e1 = make_event(1, event::user, 0, 3, 1);
    CHECK(decode({make_sync(1, 0, 0, 5), e1, e1, make_sync(1, 2, 0, 9)}, 2, 0).error ==
          "offset 24: source 1: the stream is out of order (SYNC of group 2 with check 0 after "
          "group 1 with check " +
              std::to_string(chain_check(chain_check(0, e1), e1)) + ")");
    CHECK(!decode({make_sync(1, 0, 0, 5), e1, e1, make_sync(1, 1, 0, 9)}, 2, 0).ok());
    // A reader joining mid-stream: events before the source's first SYNC are a gap.
    const decode_result late = decode({e1, e1, make_sync(1, 7, 0, 50), e1}, 2, 0);
    REQUIRE(late.ok());
    REQUIRE(late.events.size() == 2);
    CHECK(late.events[0].is_gap);
    CHECK(late.events[0].time == 50);
    CHECK(late.events[0].unreadable == 2);
    CHECK(late.events[0].lost_groups == 6); // groups 0..5 are not in memory, 6 is unreadable
    CHECK(late.events[1].time == 53);
}

namespace {
/// One random round of the miniature unit; returns it after the drain.
test::stream_model random_round(std::mt19937& rng, full_policy fp, write_order order,
                                unsigned sync_interval)
{
    const unsigned sources = 1 + rng() % 5, g = 2 + rng() % 7, k = 1 + rng() % 6;
    const victim_policy vp =
        rng() % 2 ? victim_policy::same_source : victim_policy::lowest_priority;
    test::stream_model m(sources, g, k, fp, vp, sync_interval, order);
    std::vector<std::uint64_t> now(sources, 0);
    for (int step = 0; step < 600; ++step) {
        const unsigned what = rng() % 10;
        if (what < 6) {
            const unsigned s = rng() % sources;
            now[s] += rng() % 8 == 0 ? 300 + rng() % 3000 : rng() % 40;
            decoded_event e;
            e.time = now[s];
            e.source = s;
            e.what = static_cast<event>(rng() % 9);
            e.warp = rng() % 64;
            e.arg = static_cast<std::uint32_t>(rng());
            m.add(e);
        } else if (what < 8) {
            if (rng() % 3 != 0) // back-pressure: the write engine is sometimes held
                m.write_one(rng() % 2 == 0);
        } else {
            m.complete_one(rng);
        }
        REQUIRE(m.buffer().check() == "");
    }
    m.drain();
    return m;
}
} // namespace

TEST_CASE("the property: chained deltas in OUTLis order decode exactly under random "
          "back-pressure, both policies")
{
    const std::uint32_t seed = vgpu::test::seed_or(2026);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    unsigned lossy = 0;
    for (int round = 0; round < 80; ++round) {
        const full_policy fp = round % 2 ? full_policy::stall : full_policy::replace;
        const unsigned interval = 1 + rng() % 12;
        CAPTURE(round, interval, fp == full_policy::stall);
        const test::stream_model m = random_round(rng, fp, write_order::outlis, interval);
        REQUIRE(!m.misordered());
        const decode_result d = decode(m.memory, m.g());
        INFO(d.error);
        REQUIRE(d.ok());
        const std::vector<decoded_event> want = m.expected();
        REQUIRE(d.events.size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            CAPTURE(i);
            REQUIRE(d.events[i].is_gap == want[i].is_gap);
            REQUIRE(d.events[i].source == want[i].source);
            REQUIRE(d.events[i].time == want[i].time);
            if (want[i].is_gap) {
                REQUIRE(d.events[i].lost_groups == want[i].lost_groups);
                REQUIRE(d.events[i].unreadable == want[i].unreadable);
            } else {
                REQUIRE(d.events[i].what == want[i].what);
                REQUIRE(d.events[i].warp == want[i].warp);
                REQUIRE(d.events[i].arg == want[i].arg);
            }
        }
        // Every group packed is in memory or counted as lost; stall loses nothing.
        std::uint64_t lost = 0;
        for (std::uint64_t l : m.lost)
            lost += l;
        CHECK(m.memory.size() / m.g() + lost == m.groups_produced());
        if (fp == full_policy::stall)
            CHECK(lost == 0);
        lossy += lost != 0 ? 1 : 0;
    }
    CHECK(lossy >= 10); // the rounds cover losses and the resync after them
}

TEST_CASE("without OUTLis (slot order) the chained stream is refused as out of order")
{
    // The same streams written in slot order, as a buffer without OUTLis would: once a
    // source's groups reach memory out of order its chain no longer adds up, and the SYNC
    // that follows says so (sequence number, or the CRC-8 of the events since the last SYNC:
    // a reordering both keep escapes with probability 1/256 per sync segment). With a SYNC
    // in every group the sequence numbers alone catch every reordering.
    const std::uint32_t seed = vgpu::test::seed_or(35);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    unsigned misordered = 0, refused = 0, every_group = 0, every_group_refused = 0;
    for (int round = 0; round < 120; ++round) {
        const unsigned interval = round % 3 == 0 ? 1 : 2 + rng() % 15;
        const full_policy fp = round % 2 ? full_policy::stall : full_policy::replace;
        CAPTURE(round, interval);
        const test::stream_model m = random_round(rng, fp, write_order::slot_index, interval);
        const decode_result d = decode(m.memory, m.g());
        if (!m.misordered()) {
            INFO(d.error);
            CHECK(d.ok()); // in order after all: decodes like any stream
            continue;
        }
        ++misordered;
        refused += d.ok() ? 0 : 1;
        if (interval == 1) {
            ++every_group;
            every_group_refused += d.ok() ? 0 : 1;
        }
        if (!d.ok())
            CHECK(d.error.find("out of order") != std::string::npos);
    }
    CHECK(misordered >= 60);
    CHECK(every_group_refused == every_group);
    CHECK(refused * 100 >= misordered * 95);
}
