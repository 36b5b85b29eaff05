// The shader-trace core: the OUTLis/INLis list operations exactly as S30 spells them, a
// randomized comparison with a plain ordered model, and the property that matters: random
// event streams under random back-pressure, both policies, decode to the ground truth for
// every token that reached memory, with a gap where groups were lost. Seeds print on failure.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "test/seed.h"

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
                    REQUIRE(b.contents(*h) == tagged(model.front().first));
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

TEST_CASE("packer: groups of G tokens start with FULL, and a long delta forces a FULL token")
{
    packer p(5, 4);
    std::vector<group> out;
    p.add(event::warp_start, 3, 0, 100, out);
    p.add(event::user, 3, 0xdeadbeef, 110, out);
    CHECK(out.empty());
    p.add(event::warp_exit, 3, 0, 2000, out); // delta 1890 > 511: FULL + event do not fit
    REQUIRE(out.size() == 1);
    CHECK(kind_of(out[0][0]) == token_kind::full);
    CHECK(time_of(out[0][0]) == 100);
    CHECK(seq_of(out[0][0]) == 0);
    CHECK(out[0][3] == 0); // PAD
    const auto last = p.flush();
    REQUIRE(last);
    CHECK(time_of((*last)[0]) == 2000);
    CHECK(seq_of((*last)[0]) == 1);
    const decode_result d = decode({out[0][0], out[0][1], out[0][2], out[0][3], (*last)[0],
                                    (*last)[1], (*last)[2], (*last)[3]},
                                   4);
    REQUIRE(d.ok());
    REQUIRE(d.events.size() == 3);
    CHECK(d.events[1].time == 110);
    CHECK(d.events[1].arg == 0xdeadbeef);
    CHECK(d.events[2].time == 2000);
    CHECK(d.events[2].what == event::warp_exit);
}

TEST_CASE("decoder: malformed and truncated images get an error naming the byte offset")
{
    CHECK(decode({0, 0, 0}, 2, 64).error == "offset 80: truncated group (1 of 2 tokens)");
    CHECK(decode({make_event(1, event::user, 0, 0, 1), 0}, 2, 0).error ==
          "offset 0: a group does not start with a FULL token");
    CHECK(decode({make_full(1, 0, 5), std::uint64_t{7} << 61}, 2, 0).error ==
          "offset 8: unknown token kind 7");
    CHECK(decode({make_full(1, 0, 5), make_event(2, event::user, 0, 0, 1)}, 2, 0).error ==
          "offset 8: an event of another source inside a group");
}

TEST_CASE("the property: random streams, random back-pressure, both policies, decode exactly")
{
    const std::uint32_t seed = vgpu::test::seed_or(2026);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (int round = 0; round < 60; ++round) {
        const unsigned sources = 1 + rng() % 5, g = 2 + rng() % 7, k = 1 + rng() % 6;
        const full_policy fp = round % 2 ? full_policy::stall : full_policy::replace;
        const victim_policy vp =
            rng() % 2 ? victim_policy::same_source : victim_policy::lowest_priority;
        CAPTURE(round, sources, g, k, fp == full_policy::stall, vp == victim_policy::same_source);
        slot_buffer buf(k, sources, fp, vp);
        std::vector<packer> packers;
        for (unsigned s = 0; s < sources; ++s)
            packers.emplace_back(s, g);
        // Ground truth: the events of each group, by (source, seq).
        std::map<std::pair<unsigned, std::uint64_t>, std::vector<decoded_event>> truth;
        std::vector<std::vector<decoded_event>> open(sources); // events of the open group
        std::vector<std::uint64_t> now(sources, 0), produced(sources, 0);
        std::vector<std::deque<group>> waiting(sources); // stall: groups not yet stored
        std::vector<std::uint64_t> memory;               // tokens in write order
        std::vector<unsigned> flight;
        std::vector<std::uint64_t> dropped(sources, 0);
        auto collect = [&](unsigned s, std::vector<group>& out) {
            // The packer closed groups; the open list's prefix belongs to them in order.
            for (group& gr : out) {
                std::vector<decoded_event> evs;
                unsigned n = 0;
                for (std::uint64_t t : gr)
                    n += kind_of(t) == token_kind::event ? 1 : 0;
                evs.assign(open[s].begin(), open[s].begin() + n);
                open[s].erase(open[s].begin(), open[s].begin() + n);
                truth[{s, produced[s]++}] = evs;
                waiting[s].push_back(std::move(gr));
            }
            out.clear();
        };
        auto try_store = [&](unsigned s) {
            while (!waiting[s].empty()) {
                const store_result r = buf.store(s, waiting[s].front());
                if (r.what == store_result::kind::stall)
                    return;
                if (r.what == store_result::kind::dropped)
                    ++dropped[s];
                if (r.what == store_result::kind::replaced)
                    ++dropped[r.victim_source];
                waiting[s].pop_front();
            }
        };
        std::vector<group> out;
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
                open[s].push_back(e);
                packers[s].add(e.what, e.warp, e.arg, e.time, out);
                collect(s, out);
                try_store(s);
            } else if (what < 8) {
                if (rng() % 3 != 0) // back-pressure: the write engine is sometimes held
                    if (const auto h = buf.take_head()) {
                        const group& gr = buf.contents(*h);
                        memory.insert(memory.end(), gr.begin(), gr.end());
                        flight.push_back(*h);
                    }
            } else if (!flight.empty()) {
                const std::size_t i = rng() % flight.size();
                buf.write_done(flight[i]);
                flight.erase(flight.begin() + static_cast<std::ptrdiff_t>(i));
                for (unsigned s = 0; s < sources; ++s)
                    try_store(s);
            }
            REQUIRE(buf.check() == "");
        }
        // Drain: flush every packer, write everything (stall: nothing is ever lost).
        for (unsigned s = 0; s < sources; ++s)
            if (auto gr = packers[s].flush()) {
                out.push_back(std::move(*gr));
                collect(s, out);
            }
        for (bool more = true; more;) {
            more = false;
            for (unsigned s = 0; s < sources; ++s)
                try_store(s);
            while (const auto h = buf.take_head()) {
                const group& gr = buf.contents(*h);
                memory.insert(memory.end(), gr.begin(), gr.end());
                buf.write_done(*h);
                more = true;
            }
            for (unsigned a : flight)
                buf.write_done(a);
            more = more || !flight.empty();
            flight.clear();
            for (unsigned s = 0; s < sources; ++s)
                more = more || !waiting[s].empty();
        }
        // Expected: per group in memory order, a gap if sequence numbers were skipped, then
        // its events exactly.
        const decode_result d = decode(memory, g);
        REQUIRE(d.ok());
        std::vector<decoded_event> want;
        std::vector<std::uint64_t> next_seq(sources, 0);
        std::uint64_t lost_total = 0;
        for (std::size_t i = 0; i < memory.size(); i += g) {
            const unsigned s = source_of(memory[i]);
            std::uint64_t seq = next_seq[s];
            while ((seq & 0x3ff) != seq_of(memory[i]))
                ++seq;
            if (seq != next_seq[s]) {
                decoded_event gap;
                gap.time = time_of(memory[i]);
                gap.source = s;
                gap.is_gap = true;
                gap.lost_groups = static_cast<unsigned>(seq - next_seq[s]);
                lost_total += seq - next_seq[s];
                want.push_back(gap);
            }
            const auto& evs = truth.at({s, seq});
            want.insert(want.end(), evs.begin(), evs.end());
            next_seq[s] = seq + 1;
        }
        REQUIRE(d.events.size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            CAPTURE(i);
            REQUIRE(d.events[i].is_gap == want[i].is_gap);
            REQUIRE(d.events[i].source == want[i].source);
            REQUIRE(d.events[i].time == want[i].time);
            if (want[i].is_gap) {
                REQUIRE(d.events[i].lost_groups == want[i].lost_groups);
            } else {
                REQUIRE(d.events[i].what == want[i].what);
                REQUIRE(d.events[i].warp == want[i].warp);
                REQUIRE(d.events[i].arg == want[i].arg);
            }
        }
        // Every group produced is in memory or counted as dropped; stall loses nothing.
        std::uint64_t groups = 0, lost = 0;
        for (unsigned s = 0; s < sources; ++s) {
            groups += produced[s];
            lost += dropped[s];
        }
        CHECK(memory.size() / g + lost == groups);
        if (fp == full_policy::stall)
            CHECK(lost == 0);
        // Lost groups show as gaps unless they were a source's last (nothing follows them).
        CHECK(lost_total <= lost);
    }
}
