// Same-time gate: members resuming at one simulated time run in key order.
// See docs/architecture.md ("Timing": same-time order).
#include "models/sm/same_time_gate.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <functional>

namespace vgpu::sm {

struct same_time_gate::member {
    enum class state { running, sleeping, ready };
    state st = state::running;
    bool wakeable = false;
    std::uint64_t entry = never; ///< when the sleep ends (never: only a wake ends it)
    std::uint32_t seq = 0;       ///< entries set so far (the queue's older ones are stale)
    std::uint64_t reg_time = 0;  ///< time and delta cycle the entry was set
    std::uint64_t reg_delta = 0;
    std::uint64_t pending = never; ///< earliest wake not consumed by a release
    bool early = false;            ///< goes before the members that are not (join())
    sc_core::sc_event go;
};

namespace {
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
        m.entry = never;
        ++m.seq;
        m_ready.push_back(e.key);
    }
    for (const entry& e : deferred) {
        m_queue.push_back(e);
        std::push_heap(m_queue.begin(), m_queue.end(), later_first{});
    }
    // Descending (early, then key) order: the next to go is at the back.
    std::sort(m_ready.begin(), m_ready.end(), [this](unsigned a, unsigned b) {
        const bool ea = m_members[a]->early, eb = m_members[b]->early;
        return ea != eb ? eb : a > b;
    });
    release_next();
    schedule();
}

void same_time_gate::release_next()
{
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
    if (!m_ready.empty()) {
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
