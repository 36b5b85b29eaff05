// Bank and data-bus state of one DRAM channel: open rows, bank timing, the exact data-bus
// booking. Pure C++, times in picoseconds; see models/dram/README.md ("Bank timing").
#pragma once

#include "models/dram/core/bus_booking.h"
#include "models/dram/core/front_map.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vgpu::dram {

/// Timing parameters of a channel, in picoseconds (bandwidth in bytes per ns).
struct dram_timing {
    std::uint64_t tRCD = 0;    ///< ACTIVATE to column command
    std::uint64_t tCL = 0;     ///< column command to the first data on the bus
    std::uint64_t tRP = 0;     ///< PRECHARGE to ACTIVATE
    std::uint64_t tRAS = 0;    ///< ACTIVATE to PRECHARGE, at least
    std::uint64_t tBURST = 0;  ///< shortest data-bus occupancy of an access (one burst)
    double bandwidth_gbps = 1; ///< data-bus bandwidth, bytes per ns
    /// Data-bus time of `bytes`: bytes / bandwidth (rounded up to a picosecond), >= tBURST.
    std::uint64_t transfer_ps(std::uint64_t bytes) const;
};

/// What an access finds in its bank.
enum class row_outcome {
    hit,      ///< its row is open: column command only
    miss,     ///< the bank is closed (precharged): ACTIVATE, then the column command
    conflict, ///< another row is open: PRECHARGE, ACTIVATE, column command
};

/// A bank's row buffer (open page policy) and when it can take its next command.
struct bank_state {
    bool open = false;              ///< a row is open (activated)
    std::uint64_t row = 0;          ///< the open row
    std::uint64_t activated_ps = 0; ///< time of the last ACTIVATE (tRAS counts from it)
    std::uint64_t ready_ps = 0;     ///< earliest next command (after the last data burst)
    /// What an access to `r` finds.
    row_outcome outcome(std::uint64_t r) const
    {
        return !open ? row_outcome::miss : row == r ? row_outcome::hit : row_outcome::conflict;
    }
};

/// The commands and data-bus slot of one access, as planned from a start time.
struct access_plan {
    row_outcome outcome = row_outcome::hit; ///< hit, miss or conflict
    std::uint64_t first_ps = 0;             ///< first command (PRECHARGE, ACTIVATE or column)
    std::uint64_t activate_ps = 0;          ///< ACTIVATE (miss and conflict only)
    std::uint64_t column_ps = 0;            ///< column (read or write) command
    std::uint64_t data_ps = 0;              ///< first data on the bus = column + tCL
    std::uint64_t end_ps = 0;               ///< end of the data transfer
    std::uint64_t row_activated_ps = 0;     ///< ACTIVATE of the row open after the access
};

/// The banks and the data bus of one channel, in picoseconds. Each bank keeps its accesses as
/// a timeline: a booking occupies the bank from its first command until the end of its column
/// commands (one data transfer after the column command) and records the row it leaves open.
/// plan() computes, without changing anything, where an access started no earlier than a given
/// time goes: the first gap of its bank's timeline, at or after the start, that holds it:
///   hit      column at max(start, bank ready);
///   miss     ACTIVATE there, column tRCD later;
///   conflict PRECHARGE at max(start, bank ready, last ACTIVATE + tRAS), ACTIVATE tRP later,
///            column tRCD later;
/// the row state is that left by the booking before the gap; the data takes the first gap of the
/// bus at or after column + tCL that holds it (the column command moves later with it). Between
/// two bookings an access fits only if the next booking still finds its bank as it was planned
/// (a row hit after it gets its row back: PRECHARGE, tRP, ACTIVATE, tRCD before its column
/// command), or, when the access leaves open the row the next booking opens or uses, if it
/// ends by that booking's first command (the booking's column command finds its row open). In
/// accurate mode accesses are planned at the current clock edge and the timeline is short; in fast
/// mode (temporal decoupling) a request that lags in simulated time behind requests planned before
/// it still finds the bank as it was at its own time, and bookings are forgotten only when global
/// time has passed them. commit() applies a plan.
class channel_state {
public:
    /// `banks` >= 1.
    channel_state(const dram_timing& t, unsigned banks);

    /// The plan of an access of `bytes` to `row` of `bank` started no earlier than `start`.
    access_plan plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                     std::uint64_t start) const;
    /// Where plan() placed an access: its gap, as the number of bookings of its bank before it.
    struct plan_cursor {
        std::size_t gap = 0; ///< 0 before any plan: search from `start`
    };
    /// plan() that records its gap in `at` and, given the cursor of an earlier plan of the same
    /// access (same bank, row and bytes, an earlier or equal start, nothing committed or
    /// forgotten since), skips the gaps before it: the same result, without scanning again the
    /// gaps that the earlier start could not use (a later start only makes an access end later,
    /// so a gap that did not hold it cannot hold it now).
    access_plan plan(unsigned bank, std::uint64_t row, std::uint64_t bytes, std::uint64_t start,
                     plan_cursor& at) const;
    /// `bank` as an access started at `start` finds it first: after its last booking whose
    /// first command is at or before start.
    const bank_state& state_at(unsigned bank, std::uint64_t start) const;
    /// True when `bank` has a booking whose first command is after `start`. Without one,
    /// plan(bank, row, bytes, start) depends on the row only through
    /// state_at(bank, start).outcome(row).
    bool booked_after(unsigned bank, std::uint64_t start) const;
    /// No plan(bank, any row, any bytes, start) has its first command before this time:
    /// max(start, state_at(bank, start).ready_ps). (Along a bank's timeline the ready times
    /// never decrease, and a plan starts no earlier than the ready time of the booking before
    /// its gap.)
    std::uint64_t earliest_first(unsigned bank, std::uint64_t start) const
    {
        return std::max(start, state_at(bank, start).ready_ps);
    }
    /// Applies `p` (from plan() with the same bank and row, nothing committed in between).
    /// Returns true when `p` took the gap before a miss or conflict booked earlier in call order
    /// that needs the same row: that booking finds its row open and issues no PRECHARGE or
    /// ACTIVATE, although it was counted as planned.
    bool commit(unsigned bank, std::uint64_t row, const access_plan& p);
    /// Forgets the bank and bus bookings that ended at or before `now` (global time). A bank
    /// forgets when it is next used (see settle()), so the call costs the same for any number
    /// of banks.
    void forget(std::uint64_t now);

    /// commit() calls so far.
    std::uint64_t commits() const { return m_commits; }
    /// True when a plan of an access to `bank` whose data occupies [data_ps, end_ps), made
    /// after `commits` commits, is still what plan() gives from the same start: no commit
    /// since went to its bank or booked the bus over its data (a booking elsewhere on the bus
    /// frees nothing and leaves its slot the first that fits; the gaps it skipped only get
    /// later). Commits further back than the last commit_log are not known: false.
    bool plan_holds(unsigned bank, std::uint64_t commits, std::uint64_t data_ps,
                    std::uint64_t end_ps) const
    {
        if (m_commits - commits > commit_log)
            return false;
        for (std::uint64_t k = commits; k < m_commits; ++k) {
            const committed& c = m_committed[k % commit_log];
            if (c.bank == bank || (c.data_ps < end_ps && data_ps < c.end_ps))
                return false;
        }
        return true;
    }
    /// The latest time forget() was given: a plan started at or after it does not depend on
    /// what forget() dropped (bookings that ended by then lie before its start).
    std::uint64_t forgotten_until() const { return m_forgotten_until; }
    /// Bank `b` after its latest booking (for tests and statistics).
    bank_state bank(unsigned b) const;
    /// Bookings remembered by bank `b`.
    std::size_t bookings(unsigned b) const { return settle(b).booked.size(); }
    const bus_booking& bus() const { return m_bus; }                         ///< the data bus
    const dram_timing& timing() const { return m_t; }                        ///< the timings
    unsigned banks() const { return static_cast<unsigned>(m_banks.size()); } ///< bank count

private:
    struct booking {
        row_outcome outcome; ///< what it found (what it needs of the bank before it)
        bank_state after;    ///< the bank after it (ready_ps = end of the booking)
    };
    struct timeline {
        bank_state base;                          ///< after every forgotten booking
        front_map<std::uint64_t, booking> booked; ///< first command -> booking, disjoint
        std::uint64_t settled = 0;                ///< m_forgets when settle() last ran
    };
    /// Bank `b`'s timeline after the forget() calls made since it was last settled, applied
    /// now: every use of a bank goes through it, so each use sees the bank as if every
    /// forget() had gone through all banks. Its bookings are disjoint and in time order, so
    /// their ends ascend: forget(t1) then forget(t2) drop what forget(max(t1, t2)) drops, and
    /// since a bank's last settlement the forget() times ascend (forget() settles every bank
    /// before a time that goes back), so that maximum is m_forget_ps.
    timeline& settle(unsigned b) const
    {
        timeline& tl = m_banks.at(b);
        if (tl.settled != m_forgets)
            prune(tl);
        return tl;
    }
    /// Drops the bookings of `tl` that ended at or before m_forget_ps (see settle()).
    void prune(timeline& tl) const;
    /// Plan of an access holding the bus `occupancy` ps from the bank state `prev` (before
    /// the access), no earlier than `start`; with `bus` false, as if the data bus were free.
    access_plan plan_after(const bank_state& prev, std::uint64_t row, std::uint64_t occupancy,
                           std::uint64_t start, bool bus) const;
    /// True when `a` (to `row`), placed before `next` (first command at `next_first`), leaves
    /// the bank so that `next` still runs as planned.
    bool fits(const access_plan& a, std::uint64_t row, std::uint64_t next_first,
              const booking& next) const;

    dram_timing m_t;
    mutable std::vector<timeline> m_banks;                       ///< settled on use (see settle())
    mutable std::uint64_t m_occupancy_bytes = ~std::uint64_t{0}; ///< plan(): the last size...
    mutable std::uint64_t m_occupancy_ps = 0;                    ///< ...and its transfer_ps()
    bus_booking m_bus;
    std::uint64_t m_forgets = 0;         ///< forget() calls so far
    std::uint64_t m_forget_ps = 0;       ///< the time of the last forget() call
    std::uint64_t m_forgotten_until = 0; ///< the latest time given to forget()
    std::uint64_t m_commits = 0;         ///< commit() calls so far
    /// The bank and data of each of the last commit_log commits (commit k at k % commit_log).
    struct committed {
        unsigned bank;
        std::uint64_t data_ps, end_ps;
    };
    static constexpr unsigned commit_log = 8;
    std::array<committed, commit_log> m_committed{};
};

} // namespace vgpu::dram
