// Accurate mode: how the cache shells' requests wait for MSHR-table entries (SystemC events,
// used by the L1 and LLC shells). See models/cache/README.md ("Waiting in accurate mode").
#pragma once

#include <deque>
#include <memory>
#include <systemc>

namespace vgpu::cache {

/// Requests that merge into an entry wait for that entry's release only, and go on in the
/// order they arrived (a warp's accesses to one line follow each other through the caches, so
/// their order is program order); misses that find every MSHR busy wait in one FIFO and are
/// woken one per freed MSHR (the oldest first), so a release wakes no more requests than can
/// use it, however many wait.
class mshr_waits {
public:
    /// entries: MSHR-table entries (controller entries()); 0 in fast mode, where nothing
    /// waits (constructing an event per entry costs set-up time on large platforms);
    /// in_order: merged requests go on in arrival order (wait_entry()).
    explicit mshr_waits(unsigned entries, bool in_order = false)
        : m_entries(entries), m_in_order(in_order), m_entry(entries ? new entry[entries] : nullptr)
    {
    }

    /// Waits until entry e (0 .. entries - 1) is released: a request merging into a fill or
    /// write-back. In order (the LLC, where a warp's stores to one line may wait together):
    /// the waiters of an entry go on one delta cycle apart, oldest first (SystemC runs the
    /// processes an event wakes in no particular order), each after the previous one has
    /// looked the line up again; else (the L1, where only reads wait) all at once.
    void wait_entry(int e)
    {
        if (e < 0 || static_cast<unsigned>(e) >= m_entries) {
            SC_REPORT_ERROR("vgpu/cache", "mshr_waits: wait for an entry that does not exist");
            return;
        }
        if (!m_in_order) {
            sc_core::wait(m_entry[e].all);
            return;
        }
        sc_core::sc_event ev;
        m_entry[e].waiting.push_back(&ev);
        sc_core::wait(ev);
        m_entry[e].chain = false;
        wake_next(e);
    }

    /// Waits in line for a free MSHR: a miss that stalled. `again`: it was woken before and
    /// stalled again (the MSHR went to a newer request), so it keeps its place at the front.
    void wait_free(bool again)
    {
        sc_core::sc_event ev;
        if (again)
            m_stalled.push_front(&ev);
        else
            m_stalled.push_back(&ev);
        sc_core::wait(ev);
    }

    /// Entry e was released; `mshr_freed`: a miss's MSHR with it, for the oldest stalled miss.
    void released(int e, bool mshr_freed)
    {
        if (e >= 0 && static_cast<unsigned>(e) < m_entries) { // without entries nothing waits
            // The requests waiting now go, one after the other; those that then wait again
            // (the entry holds the line again) wait for its next release.
            entry& q = m_entry[e];
            if (!m_in_order) {
                q.all.notify(sc_core::SC_ZERO_TIME);
            } else {
                q.going.insert(q.going.end(), q.waiting.begin(), q.waiting.end());
                q.waiting.clear();
                if (!q.chain)
                    wake_next(e);
            }
        }
        if (mshr_freed)
            pass_on();
    }

    /// Wakes the oldest stalled miss (a woken one that did not need the MSHR passes it on).
    void pass_on()
    {
        if (m_stalled.empty())
            return;
        m_stalled.front()->notify(sc_core::SC_ZERO_TIME);
        m_stalled.pop_front();
    }

    /// Misses waiting for an MSHR.
    std::size_t stalled() const { return m_stalled.size(); }

private:
    /// The waiters of one entry: those waiting for its release, and those released and not
    /// yet woken (in arrival order; one woken at a time, `chain` while it has not run).
    struct entry {
        sc_core::sc_event all; ///< not in order: wakes every waiter at once
        std::deque<sc_core::sc_event*> waiting, going;
        bool chain = false;
    };
    void wake_next(int e)
    {
        entry& q = m_entry[e];
        if (q.going.empty())
            return;
        q.going.front()->notify(sc_core::SC_ZERO_TIME);
        q.going.pop_front();
        q.chain = true;
    }

    unsigned m_entries;
    bool m_in_order; ///< waiters of an entry go on in arrival order (else all at once)
    std::unique_ptr<entry[]> m_entry; ///< waiters per entry
    std::deque<sc_core::sc_event*> m_stalled;
};

} // namespace vgpu::cache
