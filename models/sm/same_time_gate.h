// Same-time gate: initiator threads (fast-mode SMs) resuming at one simulated time run in key
// order, lowest first. See docs/architecture.md ("Timing").
#pragma once

#include "models/common/work_pool.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <vector>

namespace vgpu::sm {

/// Releases its members' threads in key order among those that resume at one simulated time,
/// whatever order SystemC's scheduler would run them in.
///
/// A member's thread sleeps only through the gate (sleep()); the gate's process wakes the
/// member whose key is lowest among those due now, and each member, when it sleeps again, hands
/// the turn to the next due one, in the same evaluation phase. A sleep or wake registered at
/// the current time goes in the next delta cycle (so the set of members released together
/// never depends on the order of processes within a delta). A member that waits elsewhere
/// (not through the gate) while it has the turn holds up the others for one delta cycle: the
/// gate's process then passes the turn on.
///
/// Batches (docs/architecture.md, "Parallel simulation"; only with a pool): a member whose next
/// steps touch its own state alone hands them to run_private() first thing in its turn, and the
/// turn goes on; when no member due now is left to release, or one is about to act on shared
/// state (in_order()), the work handed in runs as one batch on the pool's host threads, and its
/// members finish their turns in key order before the others go on. Shared actions so keep the
/// order they have without batches, and the results are the same on any number of threads.
class same_time_gate : public sc_core::sc_module {
public:
    /// What a member hands run_private(): steps on its own state alone, without a SystemC call,
    /// on any host thread.
    class private_work {
    public:
        virtual void run_private() = 0;

    protected:
        ~private_work() = default;
    };

    explicit same_time_gate(const sc_core::sc_module_name& name);
    ~same_time_gate() override;

    /// Adds member `key` (its rank at one time: lowest first); before the simulation starts.
    /// `early`: the member goes before every member that is not early (the early ones among
    /// themselves in key order), e.g. a thread that serves requests made before this time.
    void join(unsigned key, bool early = false);
    /// Called by member `key`'s thread: returns at `until` or, when `wakeable`, at the first
    /// earlier wake(key, at); members due at one time return in key order. sleep_forever():
    /// only a wake ends it.
    void sleep(unsigned key, const sc_core::sc_time& until, bool wakeable);
    void sleep_forever(unsigned key);
    /// From any process: member `key` may go at `at` (now if earlier) when it sleeps wakeable
    /// then; a wake that finds it running or in a plain sleep ends its next wakeable sleep at
    /// `at` (a wake at or before the time a member is released is consumed by that release).
    void wake(unsigned key, const sc_core::sc_time& at);
    /// Runs the batches on `pool` (platform.host_threads); without one, there are no batches:
    /// handed work runs at once.
    void use_pool(work_pool* pool) { m_pool = pool; }
    /// True with a pool: members hand their local work in (on one thread they need not).
    bool shares() const { return m_pool != nullptr; }
    /// Called by member `key`'s thread at its turn: `work` runs in a batch, then the member goes
    /// on at its turn. It runs at once without a pool, when the member did anything else in its
    /// turn, without the turn, or when no other member is due now.
    void run_private(unsigned key, private_work& work);
    /// Called by member `key`'s thread at its turn before it acts on anything shared: when work
    /// handed in earlier in this turn waits in the batch, the batch runs and its members finish
    /// their turns first (they precede this member), then this call returns (true). So what the
    /// members do to shared state keeps the key order of their turns.
    bool in_order(unsigned key) { return m_pool && order_turns(key); }
    /// Called before anything else touches member `key`'s state: work it handed that still
    /// waits in the batch runs now, so that it sees the state it was handed with.
    void settle(unsigned key);
    /// Batches run, and the members' work run in them (none without a pool): host-side
    /// figures, which depend on the number of threads (platform.host_threads).
    std::uint64_t batches() const { return m_batches; }
    std::uint64_t batched_runs() const { return m_batched_runs; }
    /// Members released so far, in release order (tests and debugging; kept when recording).
    const std::vector<unsigned>& released() const { return m_log; }
    /// Records the release order in released().
    void record(bool on) { m_recording = on; }

private:
    static constexpr std::uint64_t never = ~std::uint64_t{0};
    struct member;
    void run();
    /// Releases the next member of m_ready (the turn); when none is left, runs the batch and
    /// releases its members; otherwise ends the turn.
    void release_next();
    /// in_order() with a pool.
    bool order_turns(unsigned key);
    /// Runs the work handed in (m_batch) and makes its members ready.
    void run_batch();
    /// Sorts m_ready: the next to go (early first, then the lowest key) at the back.
    void sort_ready();
    /// Sets member m's entry time (never: none), registered now.
    void set_entry(unsigned key, std::uint64_t at);
    /// Notifies m_tick for the next time the gate has work.
    void schedule();

    std::vector<std::unique_ptr<member>> m_members; ///< by key
    struct entry {
        std::uint64_t at; ///< time (ps value)
        unsigned key;
        std::uint32_t seq; ///< the member's entry number (older ones are stale)
    };
    std::vector<entry> m_queue;    ///< sleeping members' entries, a min-heap by time
    std::vector<unsigned> m_ready; ///< members due now, descending key (the next at the back)
    int m_holder = -1;             ///< the member that has the turn, if any
    struct handed {
        unsigned key;
        private_work* work;
    };
    std::vector<handed> m_batch; ///< the work handed to run_private() this round
    work_pool* m_pool = nullptr;
    std::vector<private_work*> m_work; ///< run_batch(): the batch's work still to run
    std::vector<unsigned> m_home;      ///< and its members' keys
    const std::function<void(std::size_t)> m_task = [this](std::size_t i) {
        m_work[i]->run_private();
    };
    std::uint64_t m_batches = 0, m_batched_runs = 0;
    sc_core::sc_event m_tick;
    std::vector<unsigned> m_log;
    bool m_recording = false;
};

/// A quantum keeper whose sync() sleeps through a same_time_gate when it has one.
class gated_quantumkeeper : public tlm_utils::tlm_quantumkeeper {
public:
    /// Syncs through `gate` as member `key` from now on.
    void use(same_time_gate& gate, unsigned key)
    {
        m_gate = &gate;
        m_key = key;
    }
    void sync() override
    {
        if (!m_gate) {
            tlm_utils::tlm_quantumkeeper::sync();
            return;
        }
        m_gate->sleep(m_key, get_current_time(), false);
        reset();
    }
    /// need_sync() at simulated time `now` (read by the caller: no SystemC call).
    bool need_sync_at(const sc_core::sc_time& now) const
    {
        return now + m_local_time >= m_next_sync_point;
    }

private:
    same_time_gate* m_gate = nullptr;
    unsigned m_key = 0;
};

} // namespace vgpu::sm
