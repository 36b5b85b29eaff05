// Unit tests of the DRAM cores: address mapping, data-bus booking, bank timing (hit, miss,
// conflict, tRAS), FR-FCFS order, queue capacity. Every expected time is computed by hand from
// the timings below. See models/dram/README.md.
#include "models/dram/core/address_mapping.h"
#include "models/dram/core/bus_booking.h"
#include "models/dram/core/channel_state.h"
#include "models/dram/core/frfcfs_queue.h"
#include "models/dram/core/queue_booking.h"
#include "test/dram/test_timing.h"
#include "test/seed.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

using namespace vgpu::dram;

namespace {
using test::timing;

/// Plans and commits one access; returns the plan.
access_plan serve(channel_state& ch, unsigned bank, std::uint64_t row, std::uint64_t bytes,
                  std::uint64_t start)
{
    const access_plan p = ch.plan(bank, row, bytes, start);
    ch.commit(bank, row, p);
    return p;
}
} // namespace

TEST_CASE("dram_timing: the transfer time is bytes / bandwidth in picoseconds, at least a burst")
{
    dram_timing t = timing();
    CHECK(t.transfer_ps(128) == 2000); // 128 B / 64 B per ns, no rounding to clock cycles
    CHECK(t.transfer_ps(100) == 1563); // 1562.5 ps rounded up to the picosecond
    CHECK(t.transfer_ps(64) == 1000);
    CHECK(t.transfer_ps(32) == 1000); // 500 ps of data, but a burst takes 1 ns
    t.tBURST = 0;
    CHECK(t.transfer_ps(32) == 500);
    t.bandwidth_gbps = 51.2;
    CHECK(t.transfer_ps(128) == 2500);
}

TEST_CASE("address_mapping: lines interleave over channels, a row holds consecutive lines of "
          "its channel, row-sized blocks rotate over the banks XOR the row")
{
    // 2 channels, 4 banks, 1 KiB rows of 128 B lines: 8 lines of a channel per row.
    const address_mapping m(2, 4, 1024, 128);
    CHECK(m.lines_per_row() == 8);
    auto a = m.decode(0);
    CHECK((a.channel == 0 && a.bank == 0 && a.row == 0 && a.column == 0));
    a = m.decode(128 + 5); // line 1
    CHECK((a.channel == 1 && a.bank == 0 && a.row == 0 && a.column == 0));
    a = m.decode(14 * 128); // line 14: channel 0, its line 7 = last column of row 0
    CHECK((a.channel == 0 && a.bank == 0 && a.row == 0 && a.column == 7));
    a = m.decode(16 * 128); // line 16: channel 0, its line 8 = block 1 -> bank 1, row 0
    CHECK((a.channel == 0 && a.bank == 1 && a.row == 0 && a.column == 0));
    a = m.decode(64 * 128); // channel 0, its line 32 = block 4 -> row 1, bank (4 ^ 1) & 3 = 1
    CHECK((a.channel == 0 && a.bank == 1 && a.row == 1 && a.column == 0));
    a = m.decode(80 * 128); // channel 0, its line 40 = block 5 -> row 1, bank (5 ^ 1) & 3 = 0
    CHECK((a.channel == 0 && a.bank == 0 && a.row == 1 && a.column == 0));
    a = m.decode(129 * 128); // line 129: channel 1, its line 64 = block 8 -> row 2, bank 2
    CHECK((a.channel == 1 && a.bank == 2 && a.row == 2 && a.column == 0));
    CHECK(m.channel(3 * 128) == 1);
    CHECK_THROWS_AS(address_mapping(3, 4, 1024, 128), std::invalid_argument);
    CHECK_THROWS_AS(address_mapping(2, 4, 64, 128), std::invalid_argument); // row < line
    CHECK_THROWS_AS(address_mapping(2, 6, 1024, 128), std::invalid_argument);
}

TEST_CASE("bus_booking: first fitting gap, merged neighbours, overlap rejected, forgotten by time")
{
    bus_booking b;
    CHECK(b.first_fit(100, 50) == 100);
    b.book(100, 50);                    // [100, 150)
    b.book(200, 50);                    // [200, 250)
    CHECK(b.first_fit(120, 10) == 150); // inside a booking: after it
    CHECK(b.first_fit(150, 50) == 150); // exactly fills the gap
    CHECK(b.first_fit(150, 51) == 250); // does not fit the gap
    CHECK(b.first_fit(0, 100) == 0);    // before the first booking
    CHECK(b.first_fit(0, 101) == 250);
    CHECK_THROWS_AS(b.book(140, 20), std::logic_error);
    CHECK_THROWS_AS(b.book(90, 20), std::logic_error);
    b.book(150, 50); // touches both: one interval
    CHECK(b.intervals() == 1);
    CHECK(b.busy_until() == 250);
    b.forget(249);
    CHECK(b.intervals() == 1);
    b.forget(250);
    CHECK(b.intervals() == 0);
}

TEST_CASE("channel_state: row miss, row hit and row conflict take their bank timings")
{
    channel_state ch(timing(), 4);
    // Closed bank: ACTIVATE at 0, column at tRCD = 10 ns, data at + tCL = 20 ns, 2 ns of data.
    auto p = serve(ch, 0, 7, 128, 0);
    CHECK(p.outcome == row_outcome::miss);
    CHECK(p.first_ps == 0);
    CHECK(p.activate_ps == 0);
    CHECK(p.column_ps == 10000);
    CHECK(p.data_ps == 20000);
    CHECK(p.end_ps == 22000);
    CHECK(ch.bank(0).open);
    CHECK(ch.bank(0).row == 7);
    CHECK(ch.bank(0).ready_ps == 12000); // column command + its 2 ns of bursts
    // Row hit arriving at 0: column when the bank is ready (12 ns), data right after the first.
    p = serve(ch, 0, 7, 128, 0);
    CHECK(p.outcome == row_outcome::hit);
    CHECK(p.first_ps == 12000);
    CHECK(p.column_ps == 12000);
    CHECK(p.data_ps == 22000);
    CHECK(p.end_ps == 24000);
    // Row conflict at 0: the bank is ready at 14 ns, but its row was activated at 0, so the
    // PRECHARGE waits for tRAS (30 ns); ACTIVATE at 40, column at 50, data 60..62 ns.
    p = serve(ch, 0, 8, 128, 0);
    CHECK(p.outcome == row_outcome::conflict);
    CHECK(p.first_ps == 30000);
    CHECK(p.activate_ps == 40000);
    CHECK(p.column_ps == 50000);
    CHECK(p.data_ps == 60000);
    CHECK(p.end_ps == 62000);
    // A later conflict, long after tRAS: PRECHARGE at its start (100), ACTIVATE 110, column
    // 120, data 130..132 ns.
    p = serve(ch, 0, 9, 128, 100000);
    CHECK(p.outcome == row_outcome::conflict);
    CHECK(p.first_ps == 100000);
    CHECK(p.activate_ps == 110000);
    CHECK(p.data_ps == 130000);
    CHECK(p.end_ps == 132000);
    CHECK(ch.bank(0).row == 9);
    CHECK(ch.bank(0).activated_ps == 110000);
}

TEST_CASE("channel_state: banks overlap their commands, the data bus serialises the transfers")
{
    channel_state ch(timing(), 4);
    auto a = serve(ch, 0, 1, 128, 0);
    auto b = serve(ch, 1, 1, 128, 0); // another bank, activated at 0 too
    CHECK(a.data_ps == 20000);
    CHECK(b.activate_ps == 0);
    CHECK(b.data_ps == 22000); // the bus is busy until 22 ns: the column command moves to 12
    CHECK(b.column_ps == 12000);
    CHECK(b.end_ps == 24000);        // 256 B in 4 ns: exactly 64 GB/s
    auto c = serve(ch, 2, 1, 32, 0); // a short access still takes one burst (1 ns)
    CHECK(c.data_ps == 24000);
    CHECK(c.end_ps == 25000);
}

TEST_CASE("channel_state: an access planned late in call order but early in time takes the "
          "bank as it was then, if the later bookings still run as planned")
{
    channel_state ch(timing(), 4);
    // Booked first (an initiator ahead in time): a miss at 100 ns; ACTIVATE 100, data 120..122.
    auto late = serve(ch, 0, 5, 128, 100000);
    CHECK(late.outcome == row_outcome::miss);
    // A lagging request at 0 finds the bank closed, as it was at 0: ACTIVATE at 0, data 20..22.
    // Room check: its row may close at max(12, 0 + tRAS) = 30, precharged by 40 <= 100.
    auto early = serve(ch, 0, 3, 128, 0);
    CHECK(early.outcome == row_outcome::miss);
    CHECK(early.data_ps == 20000);
    // At 50 ns row 3 is open: a conflict, PRECHARGE 50, ACTIVATE 60, column 70, data 80..82;
    // it leaves room for the booking at 100 to find a closed bank: max(72, 60 + 30) + 10 = 100.
    auto mid = serve(ch, 0, 4, 128, 50000);
    CHECK(mid.outcome == row_outcome::conflict);
    CHECK(mid.first_ps == 50000);
    CHECK(mid.data_ps == 80000);
    // A request at 0 for row 6 fits in no earlier gap (each would delay a booking after it) and
    // goes after the last: the bank (row 5, activated at 100, ready at 112) precharges at
    // max(112, 100 + 30) = 130, activates at 140, column 150, data 160..162.
    auto last = serve(ch, 0, 6, 128, 0);
    CHECK(last.outcome == row_outcome::conflict);
    CHECK(last.first_ps == 130000);
    CHECK(last.data_ps == 160000);
    CHECK(ch.bookings(0) == 4);
    ch.forget(200000);
    CHECK(ch.bookings(0) == 0);
    CHECK(ch.bank(0).row == 6); // the state after the forgotten bookings stays
    CHECK(ch.bus().intervals() == 0);
}

TEST_CASE("channel_state: a row hit slips in before a booked conflict that waits for tRAS")
{
    channel_state ch(timing(), 4);
    serve(ch, 0, 1, 128, 0);                 // ACTIVATE row 1 at 0
    auto conflict = serve(ch, 0, 2, 128, 0); // PRECHARGE waits for tRAS: 30 ns
    CHECK(conflict.first_ps == 30000);
    auto hit = serve(ch, 0, 1, 128, 0); // row 1 is still open before 30: column at 12
    CHECK(hit.outcome == row_outcome::hit);
    CHECK(hit.column_ps == 12000);
    CHECK(hit.end_ps == 24000);
}

TEST_CASE("channel_state: an access to the row a later miss opens takes the gap before it, "
          "unlike an access to another row")
{
    channel_state ch(timing(), 4);
    // Booked first (an initiator ahead in time): a miss to row 5 at 30 ns; ACTIVATE 30, column
    // 40, data 50..52.
    auto late = serve(ch, 0, 5, 128, 30000);
    CHECK(late.outcome == row_outcome::miss);
    // A lagging request to row 7 at 0 would have to close its row again for the miss at 30:
    // max(12, 0 + tRAS) + tRP = 40 > 30. It goes after the booking: PRECHARGE at max(42, 30 +
    // 30) = 60, ACTIVATE 70, column 80, data 90..92.
    channel_state other(timing(), 4);
    serve(other, 0, 5, 128, 30000);
    const access_plan row7 = other.plan(0, 7, 128, 0);
    CHECK_FALSE(other.commit(0, 7, row7)); // the miss at 30 still opens its row itself
    CHECK(row7.outcome == row_outcome::conflict);
    CHECK(row7.data_ps == 90000);
    // A lagging request to row 5 at 0 leaves row 5 open: the miss booked at 30 finds its row
    // open and its column command at 40 runs as planned (its ACTIVATE is not needed), so the
    // request takes the gap: ACTIVATE at 0, column 10, data 20..22 (before: after the booking,
    // a hit with data 52..54).
    const access_plan early = ch.plan(0, 5, 128, 0);
    CHECK(ch.commit(0, 5, early)); // the miss at 30 issues no ACTIVATE now
    CHECK(early.outcome == row_outcome::miss);
    CHECK(early.first_ps == 0);
    CHECK(early.data_ps == 20000);
    CHECK(early.end_ps == 22000);
    CHECK(ch.bookings(0) == 2);
    // The booking at 30 keeps its times; a hit after it follows it.
    auto hit = serve(ch, 0, 5, 128, 0);
    CHECK(hit.outcome == row_outcome::hit);
    CHECK(hit.column_ps == 12000); // also before the booking at 30: 12 + 2 <= 30
    CHECK(ch.bank(0).row == 5);
}

TEST_CASE("frfcfs_queue: a younger row hit is served before an older conflict")
{
    channel_state ch(timing(), 4);
    serve(ch, 0, 1, 128, 0); // row 1 open, activated at 0, bank ready at 12 ns
    frfcfs_queue q(4);
    dram_request older, younger;
    older.bank = younger.bank = 0;
    older.row = 2;   // conflict
    younger.row = 1; // hit
    older.bytes = younger.bytes = 128;
    older.arrival_ps = 1000;
    younger.arrival_ps = 2000;
    q.push(older);
    q.push(younger);
    const std::uint64_t cycle = 1250;
    // Edge 40 ns: both can start (the conflict's tRAS ended at 30): the row hit goes first.
    auto i = q.pick(ch, 40000, cycle);
    REQUIRE(i);
    CHECK(*i == 1);
    const dram_request r = q.take(*i);
    CHECK(r.row == 1);
    auto p = serve(ch, 0, 1, 128, 40000); // column 40, data 50..52, bank ready at 42
    CHECK(p.end_ps == 52000);
    // The conflict cannot PRECHARGE before 42 ns: not within this cycle [40, 41.25).
    CHECK_FALSE(q.pick(ch, 40000, cycle));
    // It can in the cycle that starts at 41.25 ns, which next_edge names.
    auto next = q.next_edge(ch, 40000, cycle);
    REQUIRE(next);
    CHECK(*next == 41250);
    i = q.pick(ch, 41250, cycle);
    REQUIRE(i);
    CHECK(*i == 0);
    p = serve(ch, 0, 2, 128, 41250); // PRECHARGE 42, ACTIVATE 52, column 62, data 72..74
    CHECK(p.first_ps == 42000);
    CHECK(p.end_ps == 74000);
}

TEST_CASE("frfcfs_queue: a conflict does not close a row whose queued hit waits for the bus")
{
    channel_state ch(timing(), 4);
    serve(ch, 0, 1, 128, 0); // bank 0: row 1 open (ACTIVATE 0, column 10), data [20, 22)
    // Bank 1: 4 KiB (64 ns at 64 GB/s): column 10, data in the bus's first gap: [22, 86).
    const access_plan big = serve(ch, 1, 5, 4096, 0);
    REQUIRE(big.data_ps == 22000);
    REQUIRE(big.end_ps == 86000);
    frfcfs_queue q(4);
    dram_request older, younger;
    older.bank = younger.bank = 0;
    older.row = 2;   // conflict
    younger.row = 1; // hit
    older.bytes = younger.bytes = 128;
    q.push(older);
    q.push(younger);
    const std::uint64_t cycle = 1250;
    // Edge 40 ns: the conflict could PRECHARGE now (tRAS ended at 30), but the hit to the open
    // row is queued: its column command waits for the bus (data at 86, column at 76), and the
    // conflict must not close its row meanwhile. Nothing issues.
    CHECK_FALSE(q.pick(ch, 40000, cycle));
    // The next edge is that of the cycle holding the hit's column command: [75, 76.25).
    auto next = q.next_edge(ch, 40000, cycle);
    REQUIRE(next);
    CHECK(*next == 75000);
    auto i = q.pick(ch, 75000, cycle);
    REQUIRE(i);
    CHECK(*i == 1);
    q.take(*i);
    const access_plan hit = serve(ch, 0, 1, 128, 75000);
    CHECK(hit.column_ps == 76000);
    CHECK(hit.end_ps == 88000);
    // Then the conflict: PRECHARGE when the bank is free, at 76 + 2 = 78 (in [77.5, 78.75)).
    CHECK_FALSE(q.pick(ch, 76250, cycle));
    i = q.pick(ch, 77500, cycle);
    REQUIRE(i);
    CHECK(*i == 0);
    CHECK(serve(ch, 0, 2, 128, 77500).first_ps == 78000);
}

TEST_CASE("frfcfs_queue: the oldest of the ready requests without hits, nothing when none is "
          "ready, and a full queue refuses")
{
    channel_state ch(timing(), 4);
    frfcfs_queue q(2);
    CHECK_FALSE(q.pick(ch, 0, 1000));
    CHECK_FALSE(q.next_edge(ch, 0, 1000));
    dram_request a, b;
    a.bank = 1;
    b.bank = 2;
    a.bytes = b.bytes = 64;
    q.push(a);
    q.push(b);
    CHECK(q.full());
    CHECK_THROWS_AS(q.push(a), std::logic_error);
    auto i = q.pick(ch, 0, 1000); // both closed banks: misses, the oldest first
    REQUIRE(i);
    CHECK(*i == 0);
    CHECK(q.take(0).bank == 1);
    CHECK_FALSE(q.full());
    CHECK(q.size() == 1);
    // Row 9 of bank 2 opened at 28 ns (column 38, bank ready at 40): the queued request (row 0)
    // is now a conflict. It cannot go before that booking (its row would have to close by
    // 28 - tRP, but tRAS keeps it open until 30), so it precharges at max(40, 28 + 30) = 58.
    ch.commit(2, 9, ch.plan(2, 9, 128, 28000));
    CHECK(ch.bank(2).ready_ps == 40000);
    CHECK_FALSE(q.pick(ch, 0, 1000));
    auto next = q.next_edge(ch, 0, 1000);
    REQUIRE(next);
    CHECK(*next == 58000);
    i = q.pick(ch, 58000, 1000);
    REQUIRE(i);
    CHECK(*i == 0);
}

TEST_CASE("queue_booking: a stay fits only where an entry is free throughout, whatever the order "
          "in which stays are booked")
{
    queue_booking q(2);
    CHECK(q.book(0, 100) == 1);
    CHECK(q.book(0, 50) == 2);
    CHECK(q.held_at(10) == 2);
    auto later = q.blocked(10, 20); // full at 10; an entry frees at 50
    REQUIRE(later);
    CHECK(*later == 50);
    CHECK_FALSE(q.blocked(50, 120)); // one entry held until 100, then none
    // Stays booked ahead in time (temporal decoupling) bind an earlier request too: a stay
    // [150, 250) would overlap two stays [200, 300), so it may only start at 300.
    q.book(200, 300);
    q.book(200, 300);
    later = q.blocked(150, 250);
    REQUIRE(later);
    CHECK(*later == 300);
    CHECK_FALSE(q.blocked(150, 200)); // it leaves as they enter
    q.forget(300);
    CHECK(q.held_at(300) == 0);
    CHECK_FALSE(q.blocked(300, 400));
    CHECK_THROWS_AS(queue_booking(0), std::invalid_argument);
}

TEST_CASE("bus_booking: random bookings with time advancing match a per-picosecond reference")
{
    const unsigned seed = 31;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    bus_booking b;
    std::vector<char> busy(100000, 0);
    std::uint64_t now = 0;
    for (int i = 0; i < 4000; ++i) {
        if (rng() % 3 == 0)
            now += rng() % 30;
        const std::uint64_t earliest = now + rng() % 300, length = 1 + rng() % 20;
        // Reference: the first start at or after earliest with `length` free picoseconds.
        std::uint64_t s = earliest;
        for (std::uint64_t k = 0; k < length;)
            if (busy[s + k]) {
                s += k + 1;
                k = 0;
            } else {
                ++k;
            }
        REQUIRE(b.first_fit(earliest, length) == s);
        b.forget(now);
        REQUIRE(b.first_fit(earliest, length) == s); // nothing still needed was forgotten
        b.book(s, length);
        for (std::uint64_t k = 0; k < length; ++k)
            busy[s + k] = 1;
        REQUIRE(b.busy_until() >= s + length);
    }
    CHECK(b.intervals() < 300);
}

namespace {
/// The reference answer of queue_booking::blocked for the stay [enter, end) from a
/// per-picosecond count: the first full instant of the stay, then the first instant after it
/// with an entry free (nothing when the stay has no full instant).
std::optional<std::uint64_t> first_free_after_full(const std::vector<unsigned>& held,
                                                   std::uint64_t enter, std::uint64_t end,
                                                   unsigned cap)
{
    for (std::uint64_t t = enter; t < end; ++t)
        if (held[t] >= cap) {
            std::uint64_t u = t + 1;
            while (held[u] >= cap)
                ++u;
            return u;
        }
    return std::nullopt;
}
} // namespace

TEST_CASE("queue_booking: random stays with time advancing match a per-picosecond count")
{
    const unsigned seed = 32;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    const unsigned cap = 3;
    queue_booking q(cap);
    std::vector<unsigned> held(100000, 0);
    std::uint64_t now = 0;
    for (int i = 0; i < 4000; ++i) {
        if (rng() % 3 == 0)
            now += rng() % 20;
        q.forget(now);
        const std::uint64_t enter = now + rng() % 200, leave = enter + rng() % 60;
        const std::uint64_t end = std::max(leave, enter + 1);
        const std::optional<std::uint64_t> expect = first_free_after_full(held, enter, end, cap);
        const auto got = q.blocked(enter, leave);
        REQUIRE(got.has_value() == expect.has_value());
        if (got)
            REQUIRE(*got == *expect);
        REQUIRE(q.held_at(enter) == held[enter]);
        if (!got || rng() % 4 == 0) { // the caller books where it fits (a few others too)
            for (std::uint64_t t = enter; t < end; ++t)
                ++held[t];
            REQUIRE(q.book(enter, leave) == held[enter]);
        }
    }
}

TEST_CASE("queue_booking: full stretches kept across bookings and forgetting match a "
          "per-picosecond count")
{
    // Capacities from 1, long stays that cross many others, stays booked over full instants,
    // and time jumps that fold whole full stretches: blocked() answers from the stretches
    // that book() and forget() maintain, the reference from the counts.
    const unsigned seed = vgpu::test::seed_or(33);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    for (unsigned cap = 1; cap <= 5; ++cap) {
        queue_booking q(cap);
        std::vector<unsigned> held(60000, 0);
        std::uint64_t now = 0;
        for (int i = 0; i < 3000; ++i) {
            if (rng() % 4 == 0)
                now += rng() % (rng() % 8 == 0 ? 400 : 15);
            q.forget(now);
            const std::uint64_t enter = now + rng() % 300;
            const std::uint64_t leave = enter + (rng() % 5 == 0 ? rng() % 400 : rng() % 40);
            const std::uint64_t end = std::max(leave, enter + 1);
            const std::optional<std::uint64_t> expect =
                first_free_after_full(held, enter, end, cap);
            CAPTURE(cap, i, now, enter, leave);
            const auto got = q.blocked(enter, leave);
            REQUIRE(got.has_value() == expect.has_value());
            if (got)
                REQUIRE(*got == *expect);
            if (!got || rng() % 3 == 0) {
                for (std::uint64_t t = enter; t < end; ++t)
                    ++held[t];
                REQUIRE(q.book(enter, leave) == held[enter]);
            }
        }
    }
}

TEST_CASE("channel_state: a plan resumed from an earlier start's gap equals a plan from scratch")
{
    // Random bookings out of time order leave gaps of every size; for each access, plans from
    // rising starts (as the queue retries them) give with the cursor what they give without.
    std::mt19937_64 rng(7);
    channel_state ch(timing(), 2);
    for (int n = 0; n < 400; ++n) {
        const auto bank = static_cast<unsigned>(rng() % 2);
        const std::uint64_t row = rng() % 3;
        const std::uint64_t bytes = rng() % 2 ? 128 : 64;
        std::uint64_t start = rng() % 400000;
        channel_state::plan_cursor at;
        access_plan p{};
        std::uint64_t first = 0;
        for (int retry = 0; retry < 4; ++retry) {
            p = ch.plan(bank, row, bytes, start, at);
            // A later start never moves the first command earlier (dram_channel::access_fast
            // relies on it to skip plans).
            REQUIRE(p.first_ps >= first);
            first = p.first_ps;
            const access_plan q = ch.plan(bank, row, bytes, start);
            REQUIRE(p.first_ps == q.first_ps);
            REQUIRE(p.column_ps == q.column_ps);
            REQUIRE(p.data_ps == q.data_ps);
            REQUIRE(p.end_ps == q.end_ps);
            REQUIRE(p.row_activated_ps == q.row_activated_ps);
            start += rng() % 30000;
        }
        ch.commit(bank, row, p);
    }
}

namespace {
/// Every queued request planned on its own from `at`; hit_banks[b]: a request to bank b hits.
std::vector<access_plan> plan_each(const frfcfs_queue& q, const channel_state& ch, std::uint64_t at,
                                   std::vector<bool>& hit_banks)
{
    std::vector<access_plan> plans;
    hit_banks.assign(ch.banks(), false);
    for (std::size_t i = 0; i < q.size(); ++i) {
        const dram_request& r = q.at(i);
        plans.push_back(ch.plan(r.bank, r.row, r.bytes, at));
        if (plans.back().outcome == row_outcome::hit)
            hit_banks[r.bank] = true;
    }
    return plans;
}

/// The FR-FCFS pick of `q`, request by request: the oldest ready hit, else the oldest ready
/// miss or conflict whose bank has no queued hit.
std::optional<std::size_t> reference_pick(const frfcfs_queue& q, const channel_state& ch,
                                          std::uint64_t edge, std::uint64_t cycle)
{
    std::vector<bool> hit_banks;
    const std::vector<access_plan> plans = plan_each(q, ch, edge, hit_banks);
    for (std::size_t i = 0; i < q.size(); ++i)
        if (plans[i].outcome == row_outcome::hit && plans[i].first_ps < edge + cycle)
            return i;
    for (std::size_t i = 0; i < q.size(); ++i)
        if (plans[i].outcome != row_outcome::hit && plans[i].first_ps < edge + cycle &&
            !(plans[i].outcome == row_outcome::conflict && hit_banks[q.at(i).bank]))
            return i;
    return std::nullopt;
}

/// The first edge after `edge` at which reference_pick() returns a request, nothing changed.
std::optional<std::uint64_t> reference_next_edge(const frfcfs_queue& q, const channel_state& ch,
                                                 std::uint64_t edge, std::uint64_t cycle)
{
    const std::uint64_t from = edge + cycle;
    std::vector<bool> hit_banks;
    const std::vector<access_plan> plans = plan_each(q, ch, from, hit_banks);
    std::optional<std::uint64_t> next;
    for (std::size_t i = 0; i < q.size(); ++i) {
        if (plans[i].outcome == row_outcome::conflict && hit_banks[q.at(i).bank])
            continue;
        const std::uint64_t at = std::max(from, plans[i].first_ps / cycle * cycle);
        next = next ? std::min(*next, at) : at;
    }
    return next;
}
} // namespace

TEST_CASE("frfcfs_queue: random queues pick, plan and sleep as a request-by-request reference")
{
    // Few banks, rows and sizes, so that requests share (bank, row, size) groups; commits out
    // of time order leave bookings after the edge, where plans depend on the row.
    const unsigned seed = vgpu::test::seed_or(11);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    std::mt19937_64 rng(seed);
    const std::uint64_t cycle = 1000;
    for (int run = 0; run < 20; ++run) {
        channel_state ch(timing(), 4);
        frfcfs_queue q(1 + static_cast<unsigned>(rng() % 24));
        std::uint64_t edge = 0;
        for (int step = 0; step < 600; ++step) {
            const unsigned what = static_cast<unsigned>(rng() % 8);
            if (what < 3 && !q.full()) {
                dram_request r;
                r.bank = static_cast<unsigned>(rng() % 4);
                r.row = rng() % 3;
                r.bytes = rng() % 4 ? 128 : 64;
                r.arrival_ps = edge;
                q.push(r);
            } else if (what == 3 && !q.empty()) {
                // A request taken out of FR-FCFS order (any member of its group).
                q.take(static_cast<std::size_t>(rng() % q.size()));
            } else if (what == 4) {
                // A booking from elsewhere, possibly ahead of the edge.
                const auto bank = static_cast<unsigned>(rng() % 4);
                const std::uint64_t row = rng() % 3;
                ch.commit(bank, row, ch.plan(bank, row, 128, edge + rng() % 60000));
            } else if (what == 5) {
                edge += cycle * (1 + rng() % 20);
                ch.forget(edge);
            } else {
                const auto want = reference_pick(q, ch, edge, cycle);
                const auto got = q.pick(ch, edge, cycle);
                REQUIRE(got == want);
                if (got) {
                    const dram_request r = q.take(*got);
                    const access_plan p = ch.plan(r.bank, r.row, r.bytes, edge);
                    const access_plan& g = q.picked_plan();
                    REQUIRE(g.outcome == p.outcome);
                    REQUIRE(g.first_ps == p.first_ps);
                    REQUIRE(g.activate_ps == p.activate_ps);
                    REQUIRE(g.column_ps == p.column_ps);
                    REQUIRE(g.data_ps == p.data_ps);
                    REQUIRE(g.end_ps == p.end_ps);
                    REQUIRE(g.row_activated_ps == p.row_activated_ps);
                    ch.commit(r.bank, r.row, g);
                } else {
                    REQUIRE(q.next_edge(ch, edge, cycle) ==
                            reference_next_edge(q, ch, edge, cycle));
                }
            }
        }
    }
}
