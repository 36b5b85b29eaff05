// Same-time gate: members resuming at one simulated time run in key order.
// See docs/architecture.md ("Timing": same-time order).
#include "models/sm/same_time_gate.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <functional>

namespace vgpu::sm {

struct same_time_gate::member {
    enum class state { running, sleeping, ready, handed };
    state st = state::running;
    bool wakeable = false;
    std::uint64_t entry = never; ///< when the sleep ends (never: only a wake ends it)
    std::uint32_t seq = 0;       ///< entries set so far (the queue's older ones are stale)
    std::uint64_t reg_time = 0;  ///< time and delta cycle the entry was set
    std::uint64_t reg_delta = 0;
    std::uint64_t pending = never; ///< earliest wake not consumed by a release
    bool early = false;            ///< goes before the members that are not (join())
    /// Released from a sleep, and has neither handed work nor acted on shared state since.
    bool fresh = false;
    sc_core::sc_event go;
};

namespace {
/// Batches of fewer runs than this are not shared out (run_batch()).
constexpr std::size_t min_shared = 4;
struct later_first {
    template <class E> bool operator()(const E& a, const E& b) const { return a.at > b.at; }
};
std::uint64_t now_ps()
{
    return tlm_bus::sim_now().value();
}
} // namespace

same_time_gate::same_time_gate(const sc_core::sc_module_name& name) : sc_module(name)
{
    SC_HAS_PROCESS(same_time_gate);
    SC_METHOD(run);
    sensitive << m_tick;
    dont_initialize();
}

same_time_gate::~same_time_gate() = default;

void same_time_gate::join(unsigned key, bool early)
{
    if (key >= m_members.size())
        m_members.resize(key + 1);
    if (m_members[key])
        SC_REPORT_ERROR("vgpu/sm", "same_time_gate: one key joined twice");
    m_members[key] = std::make_unique<member>();
    m_members[key]->early = early;
}

void same_time_gate::set_entry(unsigned key, std::uint64_t at)
{
    member& m = *m_members[key];
    m.entry = at;
    ++m.seq;
    if (at == never)
        return;
    m.reg_time = now_ps();
    m.reg_delta = sc_core::sc_delta_count();
    m_queue.push_back({at, key, m.seq});
    std::push_heap(m_queue.begin(), m_queue.end(), later_first{});
}

void same_time_gate::sleep(unsigned key, const sc_core::sc_time& until, bool wakeable)
{
    if (key >= m_members.size() || !m_members[key])
        SC_REPORT_FATAL("vgpu/sm", "same_time_gate: sleep by a key that did not join");
    member& m = *m_members[key];
    const std::uint64_t now = now_ps();
    std::uint64_t at =
        until == sc_core::sc_max_time() ? never : std::max<std::uint64_t>(until.value(), now);
    if (wakeable && m.pending != never)
        at = std::min(at, std::max(m.pending, now));
    m.st = member::state::sleeping;
    m.wakeable = wakeable;
    set_entry(key, at);
    if (m_holder == static_cast<int>(key))
        release_next(); // the turn goes on, in this evaluation phase
    schedule();
    sc_core::wait(m.go);
}

void same_time_gate::sleep_forever(unsigned key)
{
    sleep(key, sc_core::sc_max_time(), true);
}

void same_time_gate::run_private(unsigned key, private_work& work)
{
    member& m = *m_members[key];
    const bool fresh = m.fresh;
    m.fresh = false;
    if (!m_pool || !fresh || m_holder != static_cast<int>(key) ||
        (m_ready.empty() && m_batch.empty())) {
        // Only work handed before anything else of the member's turn joins a batch: the rest
        // of the turn then runs without a break, as it would without batches (and the
        // processes its actions wake run after it). On one thread, without the turn, or alone
        // at this time, the work runs at once: the same result, as it touches its member alone.
        work.run_private();
        return;
    }
    m_batch.push_back({key, &work});
    m.st = member::state::handed;
    release_next(); // the turn goes on; the batch runs when no member is left to release
    schedule();
    if (m.st == member::state::handed || m_holder != static_cast<int>(key))
        sc_core::wait(m.go);
}

bool same_time_gate::order_turns(unsigned key)
{
    member& m = *m_members[key];
    m.fresh = false;
    if (m_batch.empty() || m_holder != static_cast<int>(key))
        return false;
    m.st = member::state::ready; // again, after the batch's members
    m_ready.push_back(key);
    run_batch();
    release_next();
    schedule();
    if (m_holder != static_cast<int>(key))
        sc_core::wait(m.go);
    return true;
}

void same_time_gate::settle(unsigned key)
{
    if (key >= m_members.size() || !m_members[key] || m_members[key]->st != member::state::handed)
        return;
    for (handed& h : m_batch)
        if (h.key == key && h.work) {
            private_work* w = h.work;
            h.work = nullptr; // done: the batch only releases the member
            w->run_private();
        }
}

void same_time_gate::run_batch()
{
    std::vector<handed> batch;
    batch.swap(m_batch);
    ++m_batches;
    m_batched_runs += batch.size();
    m_work.clear();
    m_home.clear();
    for (const handed& h : batch)
        if (h.work) { // not settled meanwhile
            m_work.push_back(h.work);
            m_home.push_back(h.key); // a member's work goes to the same host thread each time
        }
    // A batch of a few short runs costs more to share out than it saves (the runs average about
    // a dozen cycles): fewer than min_shared run on this thread.
    if (m_pool && m_work.size() >= min_shared)
        m_pool->run(m_work.size(), m_task, &m_home);
    else
        for (private_work* w : m_work)
            w->run_private();
    for (const handed& h : batch) {
        m_members[h.key]->st = member::state::ready;
        m_ready.push_back(h.key);
    }
    sort_ready();
}

void same_time_gate::wake(unsigned key, const sc_core::sc_time& at)
{
    member& m = *m_members[key];
    const std::uint64_t t = std::max<std::uint64_t>(at.value(), now_ps());
    m.pending = std::min(m.pending, t);
    if (m.st == member::state::sleeping && m.wakeable && t < m.entry) {
        set_entry(key, t);
        schedule();
    }
}

void same_time_gate::run()
{
    const std::uint64_t now = now_ps();
    const std::uint64_t delta = sc_core::sc_delta_count();
    // A member that still has the turn waits elsewhere: the others go on without it.
    m_holder = -1;
    std::vector<entry> deferred;
    while (!m_queue.empty() && m_queue.front().at <= now) {
        std::pop_heap(m_queue.begin(), m_queue.end(), later_first{});
        const entry e = m_queue.back();
        m_queue.pop_back();
        member& m = *m_members[e.key];
        if (m.st != member::state::sleeping || e.seq != m.seq)
            continue; // stale
        if (m.reg_time == now && m.reg_delta == delta) {
            deferred.push_back(e); // set in this delta: it goes with the next one
            continue;
        }
        m.st = member::state::ready;
        m.fresh = true;
        m.entry = never;
        ++m.seq;
        m_ready.push_back(e.key);
    }
    for (const entry& e : deferred) {
        m_queue.push_back(e);
        std::push_heap(m_queue.begin(), m_queue.end(), later_first{});
    }
    sort_ready();
    release_next();
    schedule();
}

void same_time_gate::sort_ready()
{
    // Descending (early, then key) order: the next to go is at the back.
    std::sort(m_ready.begin(), m_ready.end(), [this](unsigned a, unsigned b) {
        const bool ea = m_members[a]->early, eb = m_members[b]->early;
        return ea != eb ? eb : a > b;
    });
}

void same_time_gate::release_next()
{
    if (m_ready.empty() && !m_batch.empty())
        run_batch();
    if (m_ready.empty()) {
        m_holder = -1;
        return;
    }
    const unsigned key = m_ready.back();
    m_ready.pop_back();
    member& m = *m_members[key];
    m.st = member::state::running;
    if (m.pending <= now_ps())
        m.pending = never; // this release serves it
    m_holder = static_cast<int>(key);
    if (m_recording)
        m_log.push_back(key);
    m.go.notify();
}

void same_time_gate::schedule()
{
    if (!m_ready.empty() || !m_batch.empty()) {
        m_tick.notify(sc_core::SC_ZERO_TIME); // passes the turn on if its holder waits elsewhere
        return;
    }
    while (!m_queue.empty()) {
        const entry& e = m_queue.front();
        const member& m = *m_members[e.key];
        if (m.st == member::state::sleeping && e.seq == m.seq)
            break;
        std::pop_heap(m_queue.begin(), m_queue.end(), later_first{});
        m_queue.pop_back();
    }
    if (m_queue.empty())
        return;
    const std::uint64_t at = m_queue.front().at, now = now_ps();
    m_tick.notify(at <= now ? sc_core::SC_ZERO_TIME : tlm_bus::ps_time(at - now));
}

} // namespace vgpu::sm
