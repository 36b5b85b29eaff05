// The DRAM channel's timing structures (models/dram/core) against simple reference versions
// (reference_structures.h): random call sequences, every answer compared. See
// models/dram/README.md ("Host cost").
#include "models/dram/core/bus_booking.h"
#include "models/dram/core/channel_state.h"
#include "models/dram/core/frfcfs_queue.h"
#include "models/dram/core/queue_booking.h"
#include "test/dram/reference_structures.h"
#include "test/dram/test_timing.h"
#include "test/seed.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <stdexcept>

using namespace vgpu::dram;

namespace {
using test::timing;

void same_plan(const access_plan& a, const access_plan& b)
{
    REQUIRE(a.outcome == b.outcome);
    REQUIRE(a.first_ps == b.first_ps);
    REQUIRE(a.activate_ps == b.activate_ps);
    REQUIRE(a.column_ps == b.column_ps);
    REQUIRE(a.data_ps == b.data_ps);
    REQUIRE(a.end_ps == b.end_ps);
    REQUIRE(a.row_activated_ps == b.row_activated_ps);
}
} // namespace

TEST_CASE("queue_booking: random stays under light and heavy load answer as the step-map "
          "reference")
{
    // Capacities from 1 to 16; stays short and long, so that a stay covers from a few steps to
    // hundreds and the queue is full for long stretches; most stays booked where they fit (as
    // the channel retries them), some over full instants; time advancing by small steps and
    // jumps.
    const std::uint64_t seed = vgpu::test::seed_or(40);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (unsigned cap : {1u, 2u, 3u, 5u, 8u, 16u}) {
        for (int load = 0; load < 2; ++load) {
            queue_booking q(cap);
            ref::queue_booking r(cap);
            std::uint64_t now = 0;
            const std::uint64_t span = load ? 40000 : 400, longest = load ? 20000 : 60;
            for (int i = 0; i < 4000; ++i) {
                CAPTURE(cap, load, i, now);
                if (rng() % 4 == 0) {
                    now += rng() % (rng() % 16 == 0 ? 20 * span : span / 10 + 1);
                    q.forget(now);
                    r.forget(now);
                }
                std::uint64_t enter = now + rng() % span;
                const std::uint64_t leave = enter + rng() % (rng() % 4 ? longest / 8 + 1 : longest);
                const std::uint64_t t = now + rng() % (2 * span);
                REQUIRE(q.held_at(t) == r.held_at(t));
                auto got = q.blocked(enter, leave);
                REQUIRE(got == r.blocked(enter, leave));
                // The channel retries at the answer (its stay ends no earlier).
                for (int retry = 0; got && retry < 4 && rng() % 8; ++retry) {
                    enter = *got;
                    got = q.blocked(enter, std::max(leave, enter + 1));
                    REQUIRE(got == r.blocked(enter, std::max(leave, enter + 1)));
                }
                if (!got || rng() % 8 == 0)
                    REQUIRE(q.book(enter, std::max(leave, enter)) ==
                            r.book(enter, std::max(leave, enter)));
            }
        }
    }
}

TEST_CASE("bus_booking: random bookings at found gaps and elsewhere answer as the reference")
{
    // Bookings at the gap first_fit() found (the remembered position), at a gap found for
    // another request before it, and at free places chosen without asking; forgetting in
    // between.
    const std::uint64_t seed = vgpu::test::seed_or(41);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    bus_booking b;
    ref::bus_booking r;
    std::uint64_t now = 0;
    for (int i = 0; i < 20000; ++i) {
        CAPTURE(i, now);
        if (rng() % 5 == 0) {
            now += rng() % 50;
            b.forget(now);
            r.forget(now);
        }
        const std::uint64_t earliest = now + rng() % 400, length = rng() % 25;
        const std::uint64_t s = b.first_fit(earliest, length);
        REQUIRE(s == r.first_fit(earliest, length));
        if (rng() % 6 == 0) { // time passes between the search and the booking
            now += rng() % 50;
            b.forget(now);
            r.forget(now);
        }
        const unsigned what = static_cast<unsigned>(rng() % 6);
        if (what == 0) { // another request asks first, then this one books its own answer
            const std::uint64_t e2 = now + rng() % 400;
            REQUIRE(b.first_fit(e2, length + 1) == r.first_fit(e2, length + 1));
        }
        if (what == 1) { // a place chosen without asking: may overlap, then both refuse
            const std::uint64_t at = now + rng() % 400, n = 1 + rng() % 3;
            bool threw = false, ref_threw = false;
            try {
                b.book(at, n);
            } catch (const std::logic_error&) {
                threw = true;
            }
            try {
                r.book(at, n);
            } catch (const std::logic_error&) {
                ref_threw = true;
            }
            REQUIRE(threw == ref_threw);
        } else if (what != 2) {
            b.book(s, length);
            r.book(s, length);
        }
        REQUIRE(b.intervals() == r.intervals());
        REQUIRE(b.busy_until() == r.busy_until());
    }
}

TEST_CASE("channel_state: banks forgotten when next used answer as banks forgotten on every "
          "call")
{
    // Plans (with and without a cursor), commits, and forget() at times that advance, repeat and
    // go back, with plans and bookings before the forgotten time; every query compared.
    const std::uint64_t seed = vgpu::test::seed_or(42);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (int run = 0; run < 20; ++run) {
        const auto banks = static_cast<unsigned>(1 + rng() % 4);
        channel_state ch(timing(), banks);
        ref::channel_state r(timing(), banks);
        std::uint64_t now = 0;
        for (int step = 0; step < 1500; ++step) {
            CAPTURE(run, step, now);
            const unsigned what = static_cast<unsigned>(rng() % 10);
            const auto bank = static_cast<unsigned>(rng() % banks);
            const std::uint64_t row = rng() % 3;
            const std::uint64_t bytes = rng() % 3 ? 128 : 64;
            // Mostly at or after the forgotten time, sometimes before it.
            const std::uint64_t start =
                rng() % 8 ? now + rng() % 200000 : now - std::min(now, rng() % 50000);
            if (what < 2) {
                now = rng() % 8 ? now + rng() % 40000 : now - std::min(now, rng() % 30000);
                ch.forget(now);
                r.forget(now);
            } else if (what < 6) {
                const access_plan p = ch.plan(bank, row, bytes, start);
                same_plan(p, r.plan(bank, row, bytes, start));
                REQUIRE(ch.commit(bank, row, p) == r.commit(bank, row, p));
            } else if (what < 8) {
                channel_state::plan_cursor at;
                ref::channel_state::plan_cursor ref_at;
                std::uint64_t s = start;
                for (int k = 0; k < 3; ++k, s += rng() % 20000)
                    same_plan(ch.plan(bank, row, bytes, s, at),
                              r.plan(bank, row, bytes, s, ref_at));
            } else {
                REQUIRE(ch.booked_after(bank, start) == r.booked_after(bank, start));
                REQUIRE(ch.earliest_first(bank, start) == r.earliest_first(bank, start));
                const bank_state a = ch.state_at(bank, start), b = r.state_at(bank, start);
                REQUIRE(a.open == b.open);
                REQUIRE(a.row == b.row);
                REQUIRE(a.activated_ps == b.activated_ps);
                REQUIRE(a.ready_ps == b.ready_ps);
            }
            REQUIRE(ch.bookings(bank) == r.bookings(bank));
            REQUIRE(ch.bank(bank).ready_ps == r.bank(bank).ready_ps);
            REQUIRE(ch.bus().intervals() == r.bus().intervals());
        }
    }
}

TEST_CASE("frfcfs_queue: plans kept from call to call answer as plans made afresh")
{
    // A queue keeps each group's plan while no commit changes it (frfcfs_queue::plan_of), and
    // each bank's summary of them; a queue built afresh with the same requests before every
    // call plans everything again.
    // Random arrivals, picks that are committed, next_edge() and forget() at advancing clock
    // edges (and some ahead of them), requests taken without a pick, with rows few enough for
    // hits, misses and conflicts to mix.
    const std::uint64_t seed = vgpu::test::seed_or(43);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    const std::uint64_t cycle = 1250;
    for (int run = 0; run < 20; ++run) {
        const auto banks = static_cast<unsigned>(1 + rng() % 6);
        const auto capacity = static_cast<unsigned>(1 + rng() % 24);
        channel_state ch(timing(), banks);
        frfcfs_queue q(capacity);
        const auto afresh = [&] {
            frfcfs_queue f(capacity);
            for (std::size_t i = 0; i < q.size(); ++i)
                f.push(q.at(i));
            return f;
        };
        std::uint64_t edge = 0;
        for (int step = 0; step < 2000; ++step) {
            CAPTURE(run, step, edge);
            const unsigned what = static_cast<unsigned>(rng() % 9);
            if (what < 3 && !q.full()) {
                dram_request r;
                r.bank = static_cast<unsigned>(rng() % banks);
                r.row = rng() % 3;
                r.bytes = rng() % 4 ? 128 : 64;
                r.write = rng() % 4 == 0;
                r.arrival_ps = edge;
                q.push(r);
            } else if (what < 6) {
                // Mostly at the edge, as the controller does; sometimes ahead of it, so that
                // plans start before the forgotten time.
                if (rng() % 2)
                    ch.forget(rng() % 8 ? edge : edge + cycle * (1 + rng() % 16));
                frfcfs_queue f = afresh();
                const auto i = q.pick(ch, edge, cycle);
                const auto j = f.pick(ch, edge, cycle);
                REQUIRE(i == j);
                if (i) {
                    same_plan(q.picked_plan(), f.picked_plan());
                    const dram_request r = q.take(*i);
                    ch.commit(r.bank, r.row, q.picked_plan());
                }
            } else if (what < 7) {
                frfcfs_queue f = afresh();
                const auto a = q.next_edge(ch, edge, cycle), b = f.next_edge(ch, edge, cycle);
                REQUIRE(a == b);
                if (a && rng() % 2)
                    edge = *a; // sleep until then, as the controller does
            } else if (what < 8 || q.empty()) {
                edge += cycle * (1 + rng() % 8);
            } else {
                q.take(rng() % q.size()); // a request leaves unpicked: its bank plans again
            }
        }
    }
}
