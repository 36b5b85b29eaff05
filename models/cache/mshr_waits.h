// Accurate mode: how the cache shells' requests wait for MSHR-table entries (SystemC events,
// used by the L1 and LLC shells). See models/cache/README.md ("Waiting in accurate mode").
#pragma once

#include <deque>
#include <memory>
#include <systemc>

namespace vgpu::cache {

/// Requests that merge into an entry wait for that entry's release only; misses that find
/// every MSHR busy wait in one FIFO and are woken one per freed MSHR (the oldest first), so a
/// release wakes no more requests than can use it, however many wait.
class mshr_waits {
public:
    /// entries: MSHR-table entries (controller entries()); 0 in fast mode, where nothing
    /// waits (constructing an event per entry costs set-up time on large platforms).
    explicit mshr_waits(unsigned entries)
        : m_entries(entries), m_entry(entries ? new sc_core::sc_event[entries] : nullptr)
    {
    }

    /// Waits until entry e (0 .. entries - 1) is released: a request merging into a fill or
    /// write-back.
    void wait_entry(int e)
    {
        if (e < 0 || static_cast<unsigned>(e) >= m_entries)
            SC_REPORT_ERROR("vgpu/cache", "mshr_waits: wait for an entry that does not exist");
        else
            sc_core::wait(m_entry[e]);
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
        if (e >= 0 && static_cast<unsigned>(e) < m_entries) // without events nothing waits
            m_entry[e].notify(sc_core::SC_ZERO_TIME);
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
    unsigned m_entries;
    std::unique_ptr<sc_core::sc_event[]> m_entry;
    std::deque<sc_core::sc_event*> m_stalled;
};

} // namespace vgpu::cache
