// The SystemC-free part of a cache controller shared by the L1 and the LLC: lookup of sectored
// lines, MSHRs, fill and eviction, write policy, write-back buffer, outcome counters.
// See models/cache/README.md.
#pragma once

#include "models/cache/core/cache_array.h"
#include "models/cache/core/capacity_timeline.h"
#include "models/cache/core/mshr_table.h"
#include "models/cache/core/set_index.h"
#include "models/cache/core/zeroed_pages.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vgpu::cache {

/// What a write does to the cache.
enum class write_policy {
    /// Writes are performed below; a present line is updated and stays clean; a write miss
    /// allocates nothing; a fill overtaken by a write of its line is not installed.
    write_through_no_allocate,
    /// Writes go into the line and make its sectors dirty; a write miss allocates the line
    /// (fetching the sectors it writes only in part); dirty victims go to the write-back buffer.
    write_back_allocate,
};

/// Geometry and policies of a cache_controller.
struct controller_params {
    unsigned sets = 1;                                       ///< sets, a power of two
    unsigned ways = 1;                                       ///< lines per set
    unsigned line_bytes = 64;                                ///< bytes per line, a power of two
    unsigned sector_bytes = 0;                               ///< bytes per sector (0: the line)
    index_kind index = index_kind::modulo;                   ///< set index over line numbers
    unsigned index_first_bit = 0;                            ///< bit_select: first line-number bit
    unsigned mshrs = 1;                                      ///< line misses outstanding at once
    write_policy policy = write_policy::write_back_allocate; ///< what writes do
    unsigned wb_entries = 0; ///< write-back buffer entries (write-back policy; 0: mshrs)
};

/// Outcome counts of a cache_controller (the shells publish them as statistics).
struct controller_counts {
    std::uint64_t hits = 0;           ///< lookups served from the array
    std::uint64_t misses = 0;         ///< lookups that started a miss (line or sector)
    std::uint64_t sector_misses = 0;  ///< misses whose line was resident (sectors missing)
    std::uint64_t merges = 0;         ///< lookups that waited for a fill (or write-back) in flight
    std::uint64_t full_stalls = 0;    ///< misses that waited for a free MSHR
    std::uint64_t fills = 0;          ///< fills installed (some sectors of a line)
    std::uint64_t filled_sectors = 0; ///< sectors those fills installed
    std::uint64_t writebacks = 0;     ///< dirty victims put into the write-back buffer
    std::uint64_t wb_sectors = 0;     ///< dirty sectors those victims held
    std::uint64_t wb_full_stalls = 0; ///< misses that waited for a free write-back buffer entry
};

/// Which sectors of a line a request touches and which its enabled bytes cover whole; built
/// from the request's runs of enabled bytes (maximal runs: two runs never cover one sector
/// together, since a disabled byte lies between them).
struct sector_cover {
    sector_mask touched = 0; ///< sectors holding at least one byte of the request
    sector_mask whole = 0;   ///< sectors every byte of which the request writes or reads
    /// Sectors touched only in part (a write must have their other bytes first).
    sector_mask partial() const { return touched & ~whole; }
};

/// Tags, data and miss handling of one cache, without time, sockets or waiting: the shell
/// asks what a request is (hit, merge, stall, miss and which sectors to fetch), moves data
/// below, and reports back.
///
/// Two models of the MSHRs and the write-back buffer, one per timing mode of the shells:
/// - event-driven (accurate): lookup(addr, need, request&) against a table of lines in flight;
///   a merge or a stall means "wait until an entry is released, then ask again"; dirty victims
///   occupy write-back buffer entries (buffer_writeback) until the shell drains them.
/// - timestamped (fast): lookup_at(addr, need, tag_done) against the arrival times of the
///   sectors' data; MSHRs and write-back buffer entries are capacity_timelines of intervals
///   (begin_fast_miss / end_fast_miss), because a fill completes inside the call that misses.
class cache_controller {
public:
    /// What a lookup found.
    enum class outcome {
        hit,   ///< the sectors needed are valid and not in flight: serve now
        merge, ///< a fill (or write-back) of the line is in flight: wait for it (accurate) or
               ///< complete at its arrival (fast)
        stall, ///< a miss, but every MSHR is busy: wait for a release and ask again
        miss,  ///< a miss: fetch the missing sectors (accurate mode: an MSHR entry was claimed)
    };

    /// Progress of one request through repeated accurate-mode lookups, so each outcome is
    /// counted once per request.
    struct request {
        bool merged = false;     ///< it has waited for a line in flight
        bool stalled = false;    ///< it has waited for a free MSHR
        bool wb_stalled = false; ///< it has waited for a free write-back buffer entry
        sector_mask fetch = 0; ///< after a miss: the sectors to fetch (0: none, e.g. a full write)
    };

    /// Result of a fast-mode lookup.
    struct timed_outcome {
        outcome result = outcome::miss; ///< hit, merge or miss (never stall)
        /// hit: tag_done; merge: the latest arrival of its sectors' data; miss: the latest of
        /// tag_done and the arrival of the valid sectors it needs (not those in `early`)
        std::uint64_t ready = 0;
        sector_mask fetch = 0; ///< miss: the sectors to fetch
        /// miss: sectors of `fetch` that are valid, but whose fill was asked for after
        /// tag_done (see lookup_at): fetched for this request, not installed again
        sector_mask early = 0;
        /// miss: the fetch issues no earlier (0 if the line had no fill in flight at tag_done):
        /// the line's MSHR entry is held until its fill in flight has arrived, as in accurate
        /// mode, where the request waits for its release (a merge) and then misses
        std::uint64_t busy_until = 0;
    };

    /// Fast mode: the entries a miss holds (see begin_fast_miss).
    struct fast_miss {
        std::uint64_t issue = 0;               ///< when the fetch (and victim write) may start
        capacity_timeline::reservation mshr;   ///< its MSHR, if it fetches
        capacity_timeline::reservation wb;     ///< its write-back buffer entry, if any
        bool has_mshr = false, has_wb = false; ///< which of the two it holds
    };

    /// A write-back buffer entry (accurate mode): a dirty victim waiting to be written below.
    struct wb_entry {
        std::uint64_t line = 0;       ///< its line address
        sector_mask dirty = 0;        ///< the sectors to write
        std::uint8_t* data = nullptr; ///< the whole line image (only dirty sectors matter)
        bool busy = false;            ///< holds a victim
    };

    /// Throws std::invalid_argument for a bad geometry (see cache_array) or mshrs == 0.
    explicit cache_controller(const controller_params& p);

    const controller_params& params() const { return m_params; } ///< geometry and policies
    const cache_array& array() const { return m_array; }         ///< tags and data
    /// Tags and data, for debug accesses that bypass the controller.
    cache_array& array() { return m_array; }
    /// addr with the offset within its line cleared
    std::uint64_t line_addr(std::uint64_t addr) const { return m_array.line_addr(addr); }
    /// set that holds addr's line
    unsigned set_of(std::uint64_t addr) const { return m_array.set_of(addr); }
    const controller_counts& counts() const { return m_counts; } ///< outcome counts so far

    /// Adds the run [addr, addr + n) of a request within one line to `c`.
    void cover(sector_cover& c, std::uint64_t addr, std::size_t n) const;
    /// The whole span of sectors in `fetch` as (first byte offset in the line, bytes): one read
    /// below brings them all (a valid sector between two missing ones is read, not installed).
    void fetch_span(sector_mask fetch, unsigned& offset, unsigned& bytes) const;

    // --- accurate mode: the MSHR table ---------------------------------------------------
    /// Classifies a request for the sectors `need` of addr's line (counted once per request
    /// over repeated calls): merge if the line is in flight (fill or buffered write-back); hit
    /// if resident (made most recently used) with every needed sector valid; miss if an MSHR
    /// is free (claims it; r.fetch = the needed sectors not valid; a resident line is pinned
    /// until finish_miss, so no other miss replaces it meanwhile); else stall.
    outcome lookup(std::uint64_t addr, sector_mask need, request& r);
    /// True if a fill or a buffered write-back of line is in flight (it has an MSHR entry).
    bool busy(std::uint64_t line);
    /// Index of line's MSHR-table entry (0 .. entries() - 1), -1 if it has none: a shell may
    /// keep one wake-up per entry for the requests that merge into it.
    int entry_of(std::uint64_t line) const { return m_mshr.index_of(line_addr(line)); }
    /// MSHR-table entries (misses and, under write-back, buffered write-backs).
    unsigned entries() const { return m_mshr.capacity(); }
    /// Releases the MSHR entry of a miss on line (and unpins the line).
    void finish_miss(std::uint64_t line);
    /// Misses holding an MSHR entry.
    unsigned misses_in_flight() const { return m_misses_in_flight; }

    // --- fast mode: arrival times and interval bookings ----------------------------------
    /// Looks the sectors `need` of addr up at tag time tag_done (time values in any unit):
    /// a resident line (made most recently used) with every needed sector valid is a merge if
    /// one of them arrives after tag_done (ready = the latest arrival), else a hit; otherwise a
    /// miss of the needed sectors not valid. Counted.
    ///
    /// One MSHR entry per line, as in accurate mode (lookup): while a fill of the line asked
    /// for at or before tag_done is in flight (cache_array::busy_until), the line is busy and
    /// the request waits for the fill's arrival, whichever sectors it needs: a request whose
    /// sectors are valid is a merge ready at that arrival (not a hit), and one that needs
    /// other sectors is counted as a merge and a miss whose fetch issues at that arrival
    /// (`busy_until`), as accurate mode counts a request that waited and then missed.
    ///
    /// A request merges only with a fill asked for at or before its own time: a valid sector
    /// whose fill was asked for after tag_done (recorded by set_ready's `asked`; with temporal
    /// decoupling, a request booked ahead of global time reaches the cache before one that is
    /// earlier in simulated time) was not in flight when this request came, as in accurate
    /// mode, where this request would have missed first. It is a miss of that sector too
    /// (`early`): the request fetches it (its own booking below), and the sector's data
    /// arrives at the earlier of the two fetches (cache_array::advance_ready). Requests that
    /// come in time order never see such a fill: the rule changes nothing for them.
    timed_outcome lookup_at(std::uint64_t addr, sector_mask need, std::uint64_t tag_done);
    /// The earliest issue time >= tag_done at which an MSHR (if `fetch`) and a write-back
    /// buffer entry (if the victim has dirty sectors, `victim_dirty`) are free for as long as
    /// such intervals have lasted so far; books both provisionally and counts the write-back.
    /// A later issue counts a full stall (MSHR) or a write-back buffer stall (entry). `now` is
    /// the global time.
    fast_miss begin_fast_miss(std::uint64_t tag_done, bool fetch, sector_mask victim_dirty,
                              std::uint64_t now);
    /// Fast mode, for a requester that replays its access: when a read of `need` at `addr`
    /// whose tag check ends at `tag_done` would miss and find every MSHR busy, or `queued`
    /// (misses that found them busy are still waiting: it goes behind them), the time an MSHR
    /// is free, at least tag_done (the stall is counted unless `replay`: a replay's stall was
    /// counted when it first waited, as accurate mode counts a stalled miss once); otherwise 0.
    /// Changes nothing else: the replay looks up again.
    std::uint64_t fast_mshr_wait(std::uint64_t addr, sector_mask need, std::uint64_t tag_done,
                                 std::uint64_t now, bool queued, bool replay);
    /// Sets the real ends: the fill's arrival and the victim write's completion.
    void end_fast_miss(fast_miss& m, std::uint64_t fill_ready, std::uint64_t wb_done);
    /// Fast mode: records that line's buffered write-back reaches memory at `done`.
    void note_writeback(std::uint64_t line, std::uint64_t done, std::uint64_t now);
    /// Fast mode: when the latest buffered write-back of line reaches memory (0 if none after
    /// now): a fetch of the line must not start before (it would read older data).
    std::uint64_t writeback_done(std::uint64_t line) const;
    /// Fast-mode MSHR bookings (for statistics and tests).
    const capacity_timeline& fast_mshrs() const { return m_fast_mshrs; }
    /// Fast-mode write-back buffer bookings (for statistics and tests).
    const capacity_timeline& fast_wb() const { return m_fast_wb; }

    // --- fill and eviction ---------------------------------------------------------------
    /// Installs line (absent) in the invalid way of its set, else the LRU way that is not
    /// pinned, resident with no valid sector (pinned if it has an MSHR entry); returns the line
    /// it replaced. A dirty victim must be buffered (buffer_writeback) or written back before
    /// its data pointer is reused (next removal). Check can_allocate() first in accurate mode.
    cache_array::victim allocate(std::uint64_t line);
    /// True if allocate(line) finds a way that is not pinned.
    bool can_allocate(std::uint64_t line) const { return m_array.can_allocate(line); }
    /// Copies the sectors `sectors` of line_data (an image of the whole line) into the resident
    /// line, valid and clean, and counts a fill.
    void fill(std::uint64_t line, const void* line_data, sector_mask sectors);
    /// Sectors `sectors` of a line arrive for the miss on line: fills them into the resident
    /// line, or allocates it first; nothing is installed if a write overtook the fill
    /// (write_through_no_allocate) or every way is pinned. Returns the victim of an allocation
    /// (invalid if none).
    cache_array::victim complete_fill(std::uint64_t line, const void* line_data,
                                      sector_mask sectors);

    // --- write-back buffer (accurate mode) ------------------------------------------------
    /// True if every write-back buffer entry holds a victim.
    bool wb_full() const { return m_wb_in_use == m_wb.size(); }
    /// Entries holding a victim.
    unsigned wb_in_use() const { return m_wb_in_use; }
    /// Puts a dirty victim into a free entry (throws std::logic_error if full or its line is
    /// in flight): copies its dirty sectors, makes its line busy (requests for it wait until it
    /// has been written below) and counts a write-back. Returns the entry index.
    unsigned buffer_writeback(const cache_array::victim& v);
    /// Counts a miss that waited for a free write-back buffer entry (once per request).
    void count_wb_stall(request& r);
    /// Entry i of the write-back buffer.
    const wb_entry& writeback(unsigned i) const { return m_wb.at(i); }
    /// Entry holding line, or -1.
    int find_writeback(std::uint64_t line) const;
    /// Releases entry i after its write below completed: the line is no longer busy.
    void end_writeback(unsigned i);
    /// Debug access: copies size bytes to addr into a buffered victim's dirty sectors that
    /// hold them (the buffer must stay the newest copy).
    void debug_write_buffered(std::uint64_t addr, const void* src, std::size_t size);

    // --- data and write policy -------------------------------------------------------------
    /// Copies size bytes at addr out of valid sectors of its resident line.
    void read(std::uint64_t addr, void* dst, std::size_t size) const
    {
        m_array.read(addr, dst, size);
    }
    /// Writes size bytes at addr into its resident line, whose sectors must be valid (or made
    /// valid first with set_valid for sectors written whole): dirty under write_back_allocate,
    /// clean under write_through_no_allocate.
    void write(std::uint64_t addr, const void* src, std::size_t size)
    {
        m_array.write(addr, src, size, m_params.policy == write_policy::write_back_allocate);
    }
    /// Update of a resident line: the bytes of [addr, addr + size) that fall into valid sectors
    /// are written (dirty under write_back_allocate); the others are skipped (their sectors
    /// hold no data).
    void write_valid(std::uint64_t addr, const void* src, std::size_t size)
    {
        m_array.write_valid(addr, src, size, m_params.policy == write_policy::write_back_allocate);
    }
    /// Write-through: a write of addr's line was performed below. A fill of the line in flight
    /// may carry older data, so it is marked stale (complete_fill will not install it).
    /// Returns true if the line is resident (unchanged LRU), so the shell updates it.
    bool wrote_below(std::uint64_t addr);

    /// Invalidates every line, calling write_back(line_addr, data, dirty_sectors) for dirty ones
    /// first (MSHR bookings stay: a fill in flight still holds its MSHR).
    template <class F> void invalidate_all(F&& write_back) { m_array.invalidate_all(write_back); }

    // --- line buffers ----------------------------------------------------------------------
    /// A line_bytes buffer for a transfer below, nullptr if all are taken (two per MSHR).
    std::uint8_t* take_buffer();
    /// Returns a buffer from take_buffer().
    void give_buffer(std::uint8_t* b) { m_free_buffers.push_back(b); }

private:
    enum : std::uint8_t { target_miss = 0, target_writeback = 1 };

    const controller_params m_params;
    cache_array m_array;
    mshr_table<std::uint8_t> m_mshr; // misses and (write-back policy) buffered write-backs
    unsigned m_misses_in_flight = 0;
    std::vector<std::uint64_t> m_stale; // lines whose fill in flight was overtaken by a write
    zeroed_pages m_buffer_store;        // line buffers: pages cost memory once a buffer is used
    std::vector<std::uint8_t*> m_free_buffers;
    std::vector<wb_entry> m_wb;
    zeroed_pages m_wb_store;
    unsigned m_wb_in_use = 0;
    capacity_timeline m_fast_mshrs;
    capacity_timeline m_fast_wb;
    std::unordered_map<std::uint64_t, std::uint64_t> m_wb_done; // fast: line -> write landed
    std::uint64_t m_wb_done_pruned = 0;
    controller_counts m_counts;
};

} // namespace vgpu::cache
