// Set-associative cache array that holds data: tags, true LRU, sectors with valid and dirty bits,
// line data. Pure C++ core of the L1/LLC models, no SystemC; see models/cache/README.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "models/cache/core/set_index.h"
#include "models/cache/core/zeroed_pages.h"

namespace vgpu::cache {

/// A set of sectors of one line: bit i is sector i (at most 64 sectors per line).
using sector_mask = std::uint64_t;

/// Set-associative array of sets x ways lines of line_bytes each, with true LRU per set. A line
/// is divided into sectors of sector_bytes: a resident line (its tag present) holds valid data
/// only in its valid sectors, and its dirty sectors (always valid) hold data not yet written
/// below. Tags are full line addresses, so any index function is correct.
///
/// Host memory grows with what a run touches. A way's tag, LRU stamp and flags (24 B, by set)
/// are zeroed_pages, so a page costs memory once a set in it is allocated into. A way's
/// sector bits, data and fast-mode arrival times live in an entry of a pool (zeroed_pages too)
/// that the way takes on its first allocation and keeps: the pool fills from its start, one
/// entry per way ever used, however the sets are spread. The walks over every line
/// (for_each_valid, flush, invalidate_all) visit only the sets allocated into since the last
/// invalidate_all, found from a bit per set.
class cache_array {
public:
    /// A line removed from the array by allocate() or invalidate().
    struct victim {
        bool valid = false;                 ///< a line was removed
        bool dirty = false;                 ///< it held data not yet written back
        std::uint64_t line_addr = 0;        ///< its line address
        const std::uint8_t* data = nullptr; ///< its line_bytes bytes, valid until the next removal
        sector_mask valid_sectors = 0;      ///< its sectors holding data
        sector_mask dirty_sectors = 0;      ///< its sectors to be written back
    };

    /// sets, line_bytes and sector_bytes must be powers of two, ways >= 1, sector_bytes <=
    /// line_bytes with at most 64 sectors per line (0: one sector per line); index defaults to
    /// (line_addr / line_bytes) % sets. An index made by make_index is computed inline.
    cache_array(unsigned sets, unsigned ways, unsigned line_bytes, index_fn index = {},
                unsigned sector_bytes = 0);

    unsigned sets() const { return m_sets; }                 ///< number of sets
    unsigned ways() const { return m_ways; }                 ///< lines per set
    unsigned line_bytes() const { return m_line_bytes; }     ///< bytes per line
    unsigned sector_bytes() const { return m_sector_bytes; } ///< bytes per sector
    unsigned sectors() const { return m_sectors; }           ///< sectors per line
    sector_mask all_sectors() const { return m_all; }        ///< every sector of a line
    /// addr with the offset within its line cleared
    std::uint64_t line_addr(std::uint64_t addr) const { return addr & ~m_offset_mask; }
    /// set that holds addr's line
    unsigned set_of(std::uint64_t addr) const;
    /// Sectors of addr's line that [addr, addr + size) touches (size >= 1, within the line).
    sector_mask sectors_of(std::uint64_t addr, std::size_t size) const;

    /// Way holding addr's line, or nothing on a miss; touch makes the line most recently used.
    std::optional<unsigned> lookup(std::uint64_t addr, bool touch = true);
    /// True if addr's line is resident (its tag is present); changes nothing.
    bool probe(std::uint64_t addr) const;
    /// True if addr's line is resident with a dirty sector.
    bool is_dirty(std::uint64_t addr) const;
    /// Valid sectors of addr's line (0 if absent).
    sector_mask valid_sectors(std::uint64_t addr) const;
    /// Dirty sectors of addr's line (0 if absent).
    sector_mask dirty_sectors(std::uint64_t addr) const;

    /// Copies size bytes at addr out of valid sectors of a resident line (throws if absent,
    /// crossing the line, or touching an invalid sector).
    void read(std::uint64_t addr, void* dst, std::size_t size) const;
    /// Copies size bytes to addr in valid sectors of a resident line, marking the sectors it
    /// touches dirty if asked (throws as read).
    void write(std::uint64_t addr, const void* src, std::size_t size, bool mark_dirty);
    /// Marks sectors of a resident line valid without changing their bytes (for sectors a write
    /// is about to cover whole).
    void set_valid(std::uint64_t addr, sector_mask sectors);
    /// Copies the bytes of [addr, addr + size) that fall into valid sectors of a resident line
    /// and skips the others (their sectors hold no data), marking the written sectors dirty if
    /// asked.
    void write_valid(std::uint64_t addr, const void* src, std::size_t size, bool mark_dirty);
    /// Copies the sectors in `sectors` from line_data (an image of the whole line) into the
    /// resident line of addr and marks them valid and clean.
    void fill(std::uint64_t addr, const void* line_data, sector_mask sectors);
    /// Overwrites the whole resident line of addr with line_data and marks it valid and clean.
    void fill(std::uint64_t addr, const void* line_data) { fill(addr, line_data, m_all); }

    /// Installs addr's line (must be absent) as resident, with no valid sector, zeroed and most
    /// recently used, in an invalid way, else the least recently used way that is not pinned;
    /// returns the line it replaced. Throws std::logic_error if every way is pinned.
    victim allocate(std::uint64_t addr);
    /// Asks the host to bring the state and data allocate(addr) would now replace into its
    /// caches (a hint: changes nothing), so that an allocation after a long fetch finds them.
    void prefetch_victim(std::uint64_t addr) const;
    /// True if allocate(addr) finds a way (not every way of its set is pinned).
    bool can_allocate(std::uint64_t addr) const;
    /// True if allocate(addr) would now replace a line with dirty sectors.
    bool victim_dirty(std::uint64_t addr) const;
    /// Pins (or unpins) resident addr's line: allocate() never replaces a pinned line (a miss
    /// of some of its sectors is in flight).
    void pin(std::uint64_t addr, bool pinned);
    /// Removes addr's line if resident and returns it, so a dirty line can be written back.
    victim invalidate(std::uint64_t addr);

    /// Fast mode: records that the sectors in `sectors` of resident addr's line receive their
    /// data at time t (any unit), fetched by a request made at `asked` (0: not recorded).
    void set_ready(std::uint64_t addr, sector_mask sectors, std::uint64_t t,
                   std::uint64_t asked = 0);
    /// Fast mode: the latest arrival time recorded for the sectors in `sectors` of addr's line
    /// since it was allocated (0 if none or absent).
    std::uint64_t ready(std::uint64_t addr, sector_mask sectors) const;
    /// Fast mode: the sectors in `sectors` of resident addr's line whose data arrives after
    /// `at` for a fetch asked for after `at` (recorded by set_ready): a request made at `at`
    /// came before that fetch was asked for (0 if none, absent, or no time recorded).
    sector_mask asked_after(std::uint64_t addr, sector_mask sectors, std::uint64_t at) const;
    /// Fast mode: when the fills of addr's line in flight at `at` have all arrived: the latest
    /// arrival of its valid sectors whose data arrives after `at`, among those whose fetch was
    /// asked for at or before `at` (or with no request time recorded); 0 if none or absent.
    /// A request made at `at` finds the line busy until then (its MSHR entry is held).
    std::uint64_t busy_until(std::uint64_t addr, std::uint64_t at) const;
    /// Fast mode: a second fetch of the sectors in `sectors` of resident addr's line, asked for
    /// at `asked`, brings their data at t: each keeps the earlier arrival and the earlier
    /// request time of the two.
    void advance_ready(std::uint64_t addr, sector_mask sectors, std::uint64_t t,
                       std::uint64_t asked);

    /// Calls f(line_addr, dirty_sectors, data) for every resident line, in set and way order.
    template <class F> void for_each_valid(F&& f) const;
    /// Calls write_back(line_addr, data, dirty_sectors) for every line with dirty sectors, then
    /// marks them clean.
    template <class F> void flush(F&& write_back);
    /// Calls write_back(line_addr, data, dirty_sectors) for every line with dirty sectors, then
    /// invalidates every line.
    template <class F> void invalidate_all(F&& write_back);

    unsigned valid_count() const { return m_valid_count; } ///< resident lines
    unsigned dirty_count() const { return m_dirty_count; } ///< lines with a dirty sector
    /// Sets allocated into since construction or the last invalidate_all (what walks visit).
    std::size_t touched_sets() const;

    /// Ways that hold a pool entry (at most sets x ways): the lines whose memory the run uses.
    std::size_t entries_used() const { return m_entries; }
    /// Host bytes of tag, LRU and sector state per line when every line is touched.
    static constexpr std::size_t state_bytes_per_line();
    /// Host bytes of fast-mode arrival times per sector (allocated on the first set_ready()).
    static constexpr std::size_t ready_bytes_per_sector = sizeof(std::uint64_t);
    /// Host bytes of fast-mode request times per sector (allocated on the first set_ready()
    /// that records one: the LLC's).
    static constexpr std::size_t asked_bytes_per_sector = sizeof(std::uint64_t);

private:
    // All zero is an empty way (and an unused entry), so zeroed pages hold empty ways.
    // The LRU stamp is kept with the tag, not in the pool: choosing a victim then reads the
    // set's ways side by side instead of one pool entry per way, wherever those lie.
    struct way {
        std::uint64_t tag;   // full line address
        std::uint64_t stamp; // last use; the smallest stamp in a set is the LRU way (0: empty)
        std::uint32_t entry; // pool entry + 1 holding its state and data (0: none yet)
        bool resident;       // the tag is present
        bool pinned;         // not to be replaced (a miss on it is in flight)
    };
    struct line_state {
        sector_mask valid; // sectors holding data
        sector_mask dirty; // sectors holding data not yet written below
    };
    static_assert(std::is_trivial_v<way> && std::is_trivial_v<line_state>,
                  "zeroed pages must hold empty ways");

    static constexpr std::size_t npos = ~std::size_t{0};

    std::size_t find(std::uint64_t addr) const; // slot of addr's line, or npos
    // The slot find() returned last: a request looks its line up several times, and a line is
    // resident in one slot at most, so a resident way with its tag is the answer.
    mutable std::size_t m_last_found = 0;
    // The victim choice of the last lru_slot(): its set's first slot (npos: none) and the slot
    // it chose. lru_slot() reads only the set's ways' stamps and pins, and every change of those
    // (a touch, a pin, an allocation, a removal, invalidate_all) forgets the choice for that
    // set, so the remembered choice is the one a new search would make. A miss asks it up to
    // four times (prefetch_victim, can_allocate, victim_dirty, allocate) with no change between.
    mutable std::size_t m_lru_base = npos;
    mutable std::size_t m_lru_pick = npos;
    void forget_lru(std::size_t slot)
    {
        if (slot - m_lru_base < m_ways) // unsigned: false for a slot before the set
            m_lru_base = npos;
    }
    // The line find() last missed: a miss looks it up again (probe, allocate), and only
    // allocate() makes a line resident.
    mutable std::uint64_t m_absent = 0;
    mutable bool m_absent_known = false;
    // The set of the line set_of() computed last by m_spec_index: a miss asks for it again to
    // choose a victim.
    mutable std::uint64_t m_set_line = 0;
    mutable unsigned m_set = 0;
    mutable bool m_set_known = false;
    std::size_t slot(unsigned set, unsigned way) const { return std::size_t{set} * m_ways + way; }
    std::size_t lru_slot(std::uint64_t addr) const; // the way allocate(addr) would take, or npos
    // A resident slot always holds an entry.
    std::size_t entry_of(std::size_t slot) const { return m_way[slot].entry - 1u; }
    line_state& state(std::size_t slot) { return m_state[entry_of(slot)]; }
    const line_state& state(std::size_t slot) const { return m_state[entry_of(slot)]; }
    std::uint8_t* data_of(std::size_t slot) { return m_data + entry_of(slot) * m_line_bytes; }
    const std::uint8_t* data_of(std::size_t slot) const
    {
        return m_data + entry_of(slot) * m_line_bytes;
    }
    void mark_touched(unsigned set) { m_touched[set >> 6] |= std::uint64_t{1} << (set & 63); }
    template <class F> void for_each_touched_slot(F&& f) const; // f(slot), in slot order
    std::size_t resident_slot(std::uint64_t addr, std::size_t size, const char* what) const;
    void clear_ready(std::size_t slot);
    /// Allocates the pool of arrival times, and of request times if `asked`, if not yet.
    void make_time_pools(bool asked);
    void set_dirty(line_state& m, sector_mask dirty);
    victim remove(std::size_t slot);

    unsigned m_sets;
    unsigned m_ways;
    unsigned m_line_bytes;
    unsigned m_sector_bytes;
    unsigned m_sectors;
    unsigned m_sector_shift;
    sector_mask m_all;
    std::uint64_t m_offset_mask;
    index_fn m_index;           // a custom index function, or empty: then m_spec_index
    spec_index m_spec_index;    // make_index's function or the default, without the call
    zeroed_pages m_way_pages;   // sets x ways, by set
    zeroed_pages m_state_pages; // the pool: a line_state per entry
    zeroed_pages m_data_pages;  // the pool: line_bytes per entry
    way* m_way;
    line_state* m_state;
    std::uint8_t* m_data;
    std::size_t m_entries = 0; // pool entries taken, from the start
    std::vector<std::uint8_t> m_victim_data;
    zeroed_pages m_ready_pages; // the pool: a time per entry and sector; on first set_ready()
    std::uint64_t* m_ready = nullptr;
    zeroed_pages m_asked_pages; // the pool: a request time per entry and sector, when recorded
    std::uint64_t* m_asked = nullptr;
    std::vector<std::uint64_t> m_touched; // a bit per set allocated into since the last reset
    std::uint64_t m_clock = 0;
    unsigned m_valid_count = 0;
    unsigned m_dirty_count = 0;
};

constexpr std::size_t cache_array::state_bytes_per_line()
{
    return sizeof(way) + sizeof(line_state);
}

template <class F> void cache_array::for_each_touched_slot(F&& f) const
{
    // Only sets allocated into can hold a resident line: an untouched set is all empty ways.
    for (std::size_t w = 0; w < m_touched.size(); ++w) {
        for (std::uint64_t bits = m_touched[w]; bits != 0; bits &= bits - 1) {
            const std::size_t set = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
            for (std::size_t s = set * m_ways; s < (set + 1) * m_ways; ++s)
                f(s);
        }
    }
}

template <class F> void cache_array::for_each_valid(F&& f) const
{
    for_each_touched_slot([&](std::size_t s) {
        if (m_way[s].resident)
            f(m_way[s].tag, state(s).dirty, data_of(s));
    });
}

template <class F> void cache_array::flush(F&& write_back)
{
    if (m_dirty_count == 0)
        return;
    for_each_touched_slot([&](std::size_t s) {
        if (m_way[s].resident && state(s).dirty) {
            write_back(m_way[s].tag, static_cast<const std::uint8_t*>(data_of(s)), state(s).dirty);
            set_dirty(state(s), 0);
        }
    });
}

template <class F> void cache_array::invalidate_all(F&& write_back)
{
    flush(write_back);
    if (m_valid_count != 0) {
        for_each_touched_slot([&](std::size_t s) {
            if (m_way[s].resident) {
                clear_ready(s);
                state(s) = line_state{};
                m_way[s] = way{0, 0, m_way[s].entry, false, false}; // the way keeps its entry
            }
        });
    }
    m_valid_count = 0;
    m_lru_base = npos;
    std::fill(m_touched.begin(), m_touched.end(), 0);
}

} // namespace vgpu::cache
