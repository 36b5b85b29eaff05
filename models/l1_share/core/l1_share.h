// L1 sharing in a cluster (seed 004): the L1 index routing of `shared` (which SM's L1 is a
// line's home, and the home's set index), the per-epoch memory-intensity classification and
// partner rule of `adaptive`, and the three request queues of one L1 in the patent's order
// (S11-S15, S21-S24). Pure C++, no SystemC. See models/l1_share/README.md.
#pragma once

#include "models/common/enum_names.h"

#include <cstdint>
#include <deque>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::l1_share {

/// The function that picks a line's home SM (config `l1.share_index`).
enum class home_kind : std::uint8_t {
    bits, ///< the low log2(N) bits of the line number
    xor_  ///< the XOR fold of the line number over log2(N)-bit pieces (spelled `xor`)
};

} // namespace vgpu::l1_share

template <> struct vgpu::enum_names<vgpu::l1_share::home_kind> {
    static constexpr std::pair<std::string_view, l1_share::home_kind> table[] = {
        {"bits", l1_share::home_kind::bits}, {"xor", l1_share::home_kind::xor_}};
};

namespace vgpu::l1_share {

/// L1 index routing (`shared`): the home L1 of a line among the N SMs of a cluster, and the
/// set the home uses. The set index skips the bits that chose the home, so the map from a line
/// to (home, set, tag) is one to one and the cluster holds N times one L1's lines.
class home_map {
public:
    /// `sms`: SMs per cluster (a power of two); `sets`: sets per L1 (a power of two);
    /// `line_bytes`: a power of two. Throws std::invalid_argument otherwise.
    home_map(home_kind kind, unsigned sms, unsigned sets, unsigned line_bytes);
    unsigned home(std::uint64_t addr) const;      ///< home SM (0 .. N-1) of addr's line
    unsigned set_index(std::uint64_t addr) const; ///< set of addr's line in its home L1
    /// The tag the home stores: the line number without the home and set bits.
    std::uint64_t tag(std::uint64_t addr) const;
    unsigned sms() const { return 1u << m_home_bits; } ///< N

private:
    home_kind m_kind;
    unsigned m_home_bits, m_set_bits, m_line_shift;
};

/// What an SM ran during one epoch (`adaptive` classification inputs).
struct epoch_counts {
    std::uint64_t instructions = 0;     ///< warp-instructions issued
    std::uint64_t mem_instructions = 0; ///< of which LD/ST (and CDL)
    std::uint64_t accesses = 0;         ///< L1 line lookups of its own requests
    std::uint64_t misses = 0;           ///< of which missed its L1
};

/// An SM's program class for the next epoch.
enum class intensity : std::uint8_t {
    compute, ///< lends its L1 (also an idle SM)
    memory   ///< borrows a compute SM's L1
};

/// Thresholds of the classification (config `l1.miss_rate_threshold`, `l1.mem_share_threshold`).
struct classify_params {
    double miss_rate = 0.5; ///< misses / accesses at or above this ...
    double mem_share = 0.1; ///< ... and LD/ST share of instructions at or above this: memory
};

/// Memory-intensive when both the miss rate and the memory-instruction share reach their
/// thresholds; an SM without accesses is compute-intensive (it can lend its L1).
intensity classify(const epoch_counts& c, const classify_params& p);

/// The partner rule: the i-th memory-intensive SM (in SM order) borrows the L1 of the
/// (i mod C)-th compute-intensive SM (C of them, SM order); -1 when there is none (its misses
/// go to the LLC). Returns the partner of every SM (-1 for compute SMs).
std::vector<int> assign_partners(const std::vector<intensity>& classes);

/// What an L1 does next, in the patent's order.
enum class step : std::uint8_t {
    idle,       ///< nothing queued
    local,      ///< S11-S15: a request of its own SM (strict priority)
    remote,     ///< S21-S23: a request of a borrowing SM, then S24 (one pending block)
    replacement ///< S24 with no remote request: store one pending replacement block
};

/// The three queues of one L1 in `adaptive`: local requests, remote requests, pending
/// replacement blocks. Local requests have strict priority (S11); a remote request is served
/// only when no local one waits (S21), and after each one served, one pending replacement
/// block is stored (S24). With no request of either kind a pending block is stored too (the
/// patent leaves S21's empty branch open; storing then keeps blocks from waiting forever).
/// The replacement queue holds at most `replacement_capacity` blocks: a block that finds it
/// full is dropped and counted (L1 lines are clean, so nothing is lost but the copy).
template <class Request, class Block> class share_queues {
public:
    explicit share_queues(std::size_t replacement_capacity) : m_cap(replacement_capacity) {}

    void push_local(Request r) { m_local.push_back(std::move(r)); }
    void push_remote(Request r) { m_remote.push_back(std::move(r)); }
    /// Queues a replacement block; false (and counted) when the queue is full.
    bool push_replacement(Block b)
    {
        if (m_blocks.size() >= m_cap) {
            ++m_dropped;
            return false;
        }
        m_blocks.push_back(std::move(b));
        return true;
    }
    /// What to serve next (S11: local first; S21: then remote; S24: blocks).
    step next() const
    {
        if (!m_local.empty())
            return step::local;
        if (!m_remote.empty())
            return step::remote;
        return m_blocks.empty() ? step::idle : step::replacement;
    }
    Request pop_local() { return pop(m_local); }
    Request pop_remote() { return pop(m_remote); }
    /// S24: the next pending block, if any (after a remote request, or when idle).
    std::optional<Block> pop_replacement()
    {
        if (m_blocks.empty())
            return std::nullopt;
        return pop(m_blocks);
    }
    /// Drops every pending block `pred` is true for (a store made its data stale); returns
    /// how many it dropped.
    template <class Pred> std::size_t drop_replacements_if(Pred pred)
    {
        const std::size_t before = m_blocks.size();
        for (auto it = m_blocks.begin(); it != m_blocks.end();)
            it = pred(*it) ? m_blocks.erase(it) : std::next(it);
        return before - m_blocks.size();
    }
    /// Empties the three queues (a kernel boundary invalidates the L1 and what waits for it).
    void clear()
    {
        m_local.clear();
        m_remote.clear();
        m_blocks.clear();
    }
    std::size_t local_size() const { return m_local.size(); }
    std::size_t remote_size() const { return m_remote.size(); }
    std::size_t replacement_size() const { return m_blocks.size(); }
    std::uint64_t dropped_blocks() const { return m_dropped; } ///< blocks refused (queue full)

private:
    template <class T> static T pop(std::deque<T>& q)
    {
        T v = std::move(q.front());
        q.pop_front();
        return v;
    }
    std::size_t m_cap;
    std::deque<Request> m_local, m_remote;
    std::deque<Block> m_blocks;
    std::uint64_t m_dropped = 0;
};

/// A change of one SM's class at an epoch boundary (for the classification timeline).
struct class_change {
    unsigned sm;      ///< SM index within the cluster
    intensity now;    ///< its class from this epoch on
    int partner;      ///< its partner from this epoch on (-1: none)
    std::uint64_t at; ///< the epoch boundary (the classifier's time unit)
};

/// The cumulative counters of one SM's instruction stream (read at epoch boundaries).
struct instruction_totals {
    std::uint64_t instructions = 0;     ///< warp-instructions issued so far
    std::uint64_t mem_instructions = 0; ///< of which LD/ST so far
};

/// `adaptive`: the per-epoch classification of a cluster's SMs and their partners. Epochs are
/// fixed windows of `epoch_length` (any time unit); the classifier is advanced lazily by the
/// time of each access, so an epoch with no access in the cluster costs nothing. At a boundary
/// every SM is classified from what it did in the epoch that ended (its own L1 lookups and
/// misses, counted here, and its instruction counters' growth, read from the caller), the
/// partner rule is applied, and the epochs elapsed are added to each SM's timeline. Every SM
/// starts compute-intensive (no borrowing before the first boundary).
class epoch_classifier {
public:
    /// Throws std::invalid_argument for 0 SMs or a zero epoch.
    epoch_classifier(unsigned sms, std::uint64_t epoch_length, classify_params p);
    /// One of SM `sm`'s own L1 lookups in the open epoch (`miss`: it missed its L1).
    void count_access(unsigned sm, std::uint64_t lookups, std::uint64_t misses)
    {
        m_open[sm].accesses += lookups;
        m_open[sm].misses += misses;
    }
    /// Closes the epochs that ended by `time`. `totals(sm)` gives SM sm's cumulative
    /// instruction_totals (read only at a boundary). Returns the SMs whose class or partner
    /// changed (empty when no boundary passed).
    template <class Totals> std::vector<class_change> advance(std::uint64_t time, Totals&& totals)
    {
        const std::uint64_t e = time / m_length;
        if (e <= m_epoch)
            return {};
        std::vector<instruction_totals> t(m_open.size());
        for (unsigned s = 0; s < t.size(); ++s)
            t[s] = totals(s);
        return close(e, t);
    }
    intensity class_of(unsigned sm) const { return m_class[sm]; } ///< current class
    int partner(unsigned sm) const { return m_partner[sm]; }      ///< current partner or -1
    std::uint64_t epoch() const { return m_epoch; }               ///< index of the open epoch
    unsigned sms() const { return static_cast<unsigned>(m_class.size()); }
    /// Epochs SM sm has been memory-intensive / compute-intensive in (closed ones and the
    /// open one), and how often its class changed.
    std::uint64_t memory_epochs(unsigned sm) const { return m_memory_epochs[sm]; }
    std::uint64_t compute_epochs(unsigned sm) const { return m_compute_epochs[sm]; }
    std::uint64_t changes(unsigned sm) const { return m_changes[sm]; }
    /// Epochs counted so far per SM (closed ones plus the open one).
    std::uint64_t epochs_seen() const { return m_epoch + 1; }

private:
    std::vector<class_change> close(std::uint64_t new_epoch,
                                    const std::vector<instruction_totals>& totals);

    std::uint64_t m_length;
    classify_params m_params;
    std::uint64_t m_epoch = 0;
    std::vector<epoch_counts> m_open;
    std::vector<instruction_totals> m_last;
    std::vector<intensity> m_class;
    std::vector<int> m_partner;
    std::vector<std::uint64_t> m_memory_epochs, m_compute_epochs, m_changes;
};

/// `adaptive`: the order of a cluster's stores against the copies of lines that move between
/// its L1s. A store writes through, then updates every other L1 one after another; a copy taken
/// from an L1 meanwhile (a remote hit, a replacement block) may miss the update that L1 has not
/// received yet, and a replacement block on its way may be overtaken by an update of its line.
/// So: a copy is not taken from an L1 while a store of its line is in progress, and a block is
/// not stored if a store of its line began after the block was taken. Lines share 2^slots_log2
/// counters by a hash (conservative: an alias only refuses more copies).
class store_order {
public:
    /// `slots_log2`: log2 of the counters (lines hash onto them).
    explicit store_order(unsigned slots_log2 = 12)
        : m_shift(64 - slots_log2), m_in_progress(std::size_t{1} << slots_log2, 0),
          m_last_begin(std::size_t{1} << slots_log2, 0)
    {
    }
    /// A store of `line` begins (before its write-through); returns its sequence number.
    std::uint64_t begin(std::uint64_t line)
    {
        const std::size_t i = slot(line);
        ++m_in_progress[i];
        m_last_begin[i] = ++m_seq;
        return m_seq;
    }
    /// The store of `line` has updated every L1.
    void end(std::uint64_t line) { --m_in_progress[slot(line)]; }
    /// True while a store of `line` (or an alias) is in progress: copies must not be taken.
    bool in_progress(std::uint64_t line) const { return m_in_progress[slot(line)] != 0; }
    /// The stamp of a copy taken now.
    std::uint64_t stamp() const { return m_seq; }
    /// True if a store of `line` (or an alias) began after a copy stamped `stamp` was taken.
    bool stale(std::uint64_t line, std::uint64_t stamp) const
    {
        return m_last_begin[slot(line)] > stamp;
    }

private:
    std::size_t slot(std::uint64_t line) const
    {
        // Fibonacci hashing: the high bits of the product mix every bit of the line address
        // (its low, always-zero offset bits included harmlessly).
        return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ull) >> m_shift);
    }
    unsigned m_shift;
    std::vector<std::uint32_t> m_in_progress;
    std::vector<std::uint64_t> m_last_begin;
    std::uint64_t m_seq = 0;
};

/// Expected cluster hit rate of the broadcast read: N SMs each read the same array of
/// `lines` lines `passes` times, round-robin over SMs and lines, with the cluster holding
/// `capacity_lines` in total (`shared`) or each SM `l1_lines` (`private`). Closed forms used by
/// the tests and the README.
double broadcast_hit_rate_private(std::uint64_t lines, std::uint64_t l1_lines, unsigned passes,
                                  unsigned sms);
double broadcast_hit_rate_shared(std::uint64_t lines, std::uint64_t capacity_lines, unsigned passes,
                                 unsigned sms);

} // namespace vgpu::l1_share
