// The SystemC-free part of a cache controller shared by the L1 and the LLC: lookup, MSHRs,
// fill and eviction, write policy, outcome counters. See models/cache/README.md.
#pragma once

#include "models/cache/core/cache_array.h"
#include "models/cache/core/mshr_table.h"
#include "models/cache/core/set_index.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vgpu::cache {

/// What a write does to the cache.
enum class write_policy {
    /// Writes are performed below; a present line is updated and stays clean; a write miss
    /// allocates nothing; a fill overtaken by a write of its line is not installed.
    write_through_no_allocate,
    /// Writes go into the line and make it dirty; a write miss allocates the line (fetched
    /// first unless the write replaces it whole); dirty victims are written back.
    write_back_allocate,
};

/// Fast mode: which fill a hit waits for when several fills of its line are in flight.
enum class merge_wait {
    latest_arrival, ///< the one that arrives last
    /// the one in the highest-numbered MSHR slot (the L1's rule, kept so its results do not
    /// change; it differs from latest_arrival only when a line is refetched before an earlier
    /// fill of it has arrived)
    last_slot,
};

/// Geometry and policies of a cache_controller.
struct controller_params {
    unsigned sets = 1;                                       ///< sets, a power of two
    unsigned ways = 1;                                       ///< lines per set
    unsigned line_bytes = 64;                                ///< bytes per line, a power of two
    index_kind index = index_kind::modulo;                   ///< set index over line numbers
    unsigned index_first_bit = 0;                            ///< bit_select: first line-number bit
    unsigned mshrs = 1;                                      ///< line misses outstanding at once
    write_policy policy = write_policy::write_back_allocate; ///< what writes do
    merge_wait fast_merge = merge_wait::latest_arrival;      ///< fast mode: the fill a hit awaits
};

/// Outcome counts of a cache_controller (the shells publish them as statistics).
struct controller_counts {
    std::uint64_t hits = 0;        ///< lookups served from the array
    std::uint64_t misses = 0;      ///< lookups that started a miss
    std::uint64_t merges = 0;      ///< lookups that waited for a fill (or write-back) in flight
    std::uint64_t full_stalls = 0; ///< misses that waited for a free MSHR
    std::uint64_t fills = 0;       ///< lines filled with fetched data
    std::uint64_t writebacks = 0;  ///< dirty victims written back
};

/// Tags, data and miss handling of one cache, without time, sockets or waiting: the shell
/// asks what a request is (hit, merge, stall, miss), moves data below, and reports back.
///
/// Two models of the MSHRs, one per timing mode of the shells:
/// - event-driven (accurate): lookup(addr, request&) against a table of lines in flight; a
///   merge or a stall means "wait until an entry is released, then ask again".
/// - timestamped (fast): lookup_at(addr, tag_done) and reserve_fill(); a fill completes inside
///   the call that misses, so an MSHR is the arrival time of its fill (one slot per MSHR).
class cache_controller {
public:
    /// What a lookup found.
    enum class outcome {
        hit,   ///< the line is resident and not in flight: serve it now
        merge, ///< a fill (or write-back) of the line is in flight: wait for it (accurate) or
               ///< complete at its arrival (fast)
        stall, ///< a miss, but every MSHR is busy: wait for a release and ask again
        miss,  ///< a miss: fetch the line (accurate mode: an MSHR entry was claimed)
    };

    /// Progress of one request through repeated accurate-mode lookups, so each outcome is
    /// counted once per request.
    struct request {
        bool merged = false;  ///< it has waited for a line in flight
        bool stalled = false; ///< it has waited for a free MSHR
    };

    /// Result of a fast-mode lookup.
    struct timed_outcome {
        outcome result = outcome::miss; ///< hit, merge or miss (never stall)
        std::uint64_t ready = 0; ///< hit: tag_done; merge: its fill's arrival; miss: tag_done
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

    // --- accurate mode: the MSHR table ---------------------------------------------------
    /// Classifies a request for addr (counted once per request over repeated calls): merge if
    /// its line is in flight, hit if resident (made most recently used), miss if an MSHR is
    /// free (claims it for the line), else stall.
    outcome lookup(std::uint64_t addr, request& r);
    /// True if a fill or write-back of line is in flight (it has an MSHR entry).
    bool busy(std::uint64_t line);
    /// Claims an MSHR entry for a miss on line, as lookup() does on a miss (a fast-mode shell
    /// that wants its line busy while the fill is in flight); throws if none is free.
    void begin_miss(std::uint64_t line);
    /// Releases the MSHR entry of a miss on line.
    void finish_miss(std::uint64_t line);
    /// Misses holding an MSHR entry.
    unsigned misses_in_flight() const { return m_misses_in_flight; }

    // --- fast mode: fill slots ---------------------------------------------------------
    /// Looks addr up at tag time tag_done (time values in any unit): a resident line (made most
    /// recently used) is a merge if a fill of it arrives after tag_done (ready = that arrival;
    /// of several, the one fast_merge picks), else a hit; otherwise a miss. Counted.
    timed_outcome lookup_at(std::uint64_t addr, std::uint64_t tag_done);
    /// The fill slot of a miss at tag_done: the one freed first. issue is when the fetch may
    /// start, max(tag_done, the slot's free time); a later issue counts a full stall.
    unsigned reserve_fill(std::uint64_t tag_done, std::uint64_t& issue);
    /// Records that slot's fill of line arrives at ready (after a successful fetch).
    void fill_arrives(unsigned slot, std::uint64_t line, std::uint64_t ready);

    // --- fill and eviction ---------------------------------------------------------------
    /// True if a miss of this request must fetch its line: false only for a write-allocate
    /// write of a whole line without byte enables.
    bool needs_fetch(bool write, unsigned len, bool byte_enables) const;
    /// Installs line (absent) in the invalid way of its set, else the LRU way, as valid, clean
    /// and zeroed; returns the line it replaced. A valid dirty victim must be written back
    /// (begin_writeback) before its data pointer is reused (the next removal).
    cache_array::victim allocate(std::uint64_t line);
    /// Overwrites the resident line with line_data (clean) and counts a fill.
    void fill(std::uint64_t line, const void* line_data);
    /// A fetched line arrives for the miss on line: allocates and fills it, unless a write
    /// overtook the fill (write_through_no_allocate), when nothing is installed. Returns the
    /// victim of the allocation (invalid if none or not installed).
    cache_array::victim complete_fill(std::uint64_t line, const void* line_data);
    /// Claims an MSHR entry for a dirty victim's write-back (requests for it wait) and counts
    /// it; the line must not be in flight already (throws std::logic_error).
    void begin_writeback(std::uint64_t line);
    /// Releases the entry of a write-back.
    void end_writeback(std::uint64_t line);

    // --- data and write policy -------------------------------------------------------------
    /// Copies size bytes at addr out of its resident line.
    void read(std::uint64_t addr, void* dst, std::size_t size) const
    {
        m_array.read(addr, dst, size);
    }
    /// Writes size bytes at addr into its resident line: dirty under write_back_allocate,
    /// clean under write_through_no_allocate.
    void write(std::uint64_t addr, const void* src, std::size_t size)
    {
        m_array.write(addr, src, size, m_params.policy == write_policy::write_back_allocate);
    }
    /// Write-through: a write of addr's line was performed below. A fill of the line in flight
    /// may carry older data, so it is marked stale (complete_fill will not install it).
    /// Returns true if the line is resident (unchanged LRU), so the shell updates it (write()).
    bool wrote_below(std::uint64_t addr);

    /// Invalidates every line, calling write_back(line_addr, data) for dirty ones first, and
    /// forgets the fast-mode fill slots (their fills have no line to merge into any more).
    template <class F> void invalidate_all(F&& write_back);

    // --- line buffers ----------------------------------------------------------------------
    /// A line_bytes buffer for a transfer below (one per MSHR entry), nullptr if all are taken.
    std::uint8_t* take_buffer();
    /// Returns a buffer from take_buffer().
    void give_buffer(std::uint8_t* b) { m_free_buffers.push_back(b); }

private:
    /// Fast mode: the line of a slot's last fill and the time its data arrives.
    struct fill_slot {
        std::uint64_t line = 0;
        std::uint64_t ready = 0;
    };
    enum : std::uint8_t { target_miss = 0, target_writeback = 1 };

    const controller_params m_params;
    cache_array m_array;
    mshr_table<std::uint8_t> m_mshr; // misses and (write-back policy) write-backs in flight
    unsigned m_misses_in_flight = 0;
    std::vector<fill_slot> m_slots;
    std::vector<std::uint64_t> m_stale; // lines whose fill in flight was overtaken by a write
    std::vector<std::uint8_t> m_buffer_store;
    std::vector<std::uint8_t*> m_free_buffers;
    controller_counts m_counts;
};

template <class F> void cache_controller::invalidate_all(F&& write_back)
{
    m_array.invalidate_all(write_back);
    for (auto& s : m_slots)
        s = fill_slot{};
}

} // namespace vgpu::cache
