// One DRAM channel: bank and bus timing, request queue, scheduling and statistics.
// See models/dram/README.md.
#include "models/dram/dram_channel.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>

namespace vgpu::dram {
namespace {
sc_core::sc_time ps(std::uint64_t v)
{
    return tlm_bus::ps_time(v);
}
double ns(std::uint64_t ps)
{
    return static_cast<double>(ps) / 1000.0;
}
double elapsed_ps()
{
    return static_cast<double>(tlm_bus::sim_now().value());
}
} // namespace

dram_channel::dram_channel(const sc_core::sc_module_name& name, const dram_timing& t,
                           unsigned banks, unsigned queue_entries, std::uint64_t latency_ps,
                           const clock_params& clk)
    : sc_module(name), m_latency_ps(latency_ps), m_clk(clk), m_state(t, banks),
      m_queue(queue_entries), m_stays(queue_entries), m_stats(this->name()),
      m_reads(m_stats, "reads", "count", "reads timed by this channel"),
      m_writes(m_stats, "writes", "count", "writes timed by this channel"),
      m_hits(m_stats, "row_hits", "count", "accesses that found their row open"),
      m_misses(m_stats, "row_misses", "count",
               "accesses that found their bank closed (ACTIVATE, column)"),
      m_conflicts(m_stats, "row_conflicts", "count",
                  "accesses that found another row open (PRECHARGE, ACTIVATE, column)"),
      m_opened_ahead(m_stats, "rows_opened_ahead", "count",
                     "row misses and conflicts whose row an access booked after them in call order "
                     "but served before them opened: they issued no PRECHARGE or ACTIVATE (still "
                     "counted in row_misses / row_conflicts, as planned when booked)"),
      m_full(m_stats, "queue_full", "count", "requests that waited for a free queue entry"),
      m_busy_ps(m_stats, "busy_ps", "ps",
                "time the data bus was occupied (kernel records compare it to their window)"),
      m_queue_ps(m_stats, "queue_entry_ps", "ps",
                 "queue entries held, integrated over time (entry-picoseconds)"),
      m_wait(m_stats, "wait", "ns", "time from arrival to the request's first DRAM command"),
      m_service(m_stats, "service", "ns",
                "time from the first DRAM command to the end of the data transfer"),
      m_occupancy(m_stats, "queue_occupancy", "entries", "average queue entries held over the run",
                  [this] {
                      const double t = elapsed_ps();
                      return t > 0 ? static_cast<double>(m_queue_ps.value()) / t : 0.0;
                  }),
      m_max(m_stats, "queue_max", "entries", "most queue entries held at once",
            [this] { return static_cast<double>(m_queue_max); }),
      m_utilisation(m_stats, "bandwidth_utilisation", "ratio",
                    "data-bus busy time / simulated time (over the run)", [this] {
                        const double t = elapsed_ps();
                        return t > 0 ? static_cast<double>(m_busy_ps.value()) / t : 0.0;
                    })
{
    if (clk.accurate) {
        SC_HAS_PROCESS(dram_channel);
        SC_THREAD(schedule);
    }
}

void dram_channel::access(unsigned bank, std::uint64_t row, unsigned bytes, bool write,
                          sc_core::sc_time& delay)
{
    dram_request r;
    r.bank = bank;
    r.row = row;
    r.bytes = bytes;
    r.write = write;
    if (m_clk.accurate)
        access_accurate(r, delay);
    else
        access_fast(r, delay);
}

void dram_channel::account(const dram_request& r, const access_plan& p)
{
    ++(r.write ? m_writes : m_reads);
    ++(p.outcome == row_outcome::hit    ? m_hits
       : p.outcome == row_outcome::miss ? m_misses
                                        : m_conflicts);
    m_busy_ps += p.end_ps - p.data_ps;
    if (m_probe)
        m_probe->add(p.data_ps, p.end_ps);
    m_wait.sample(ns(p.first_ps - r.arrival_ps));
    m_service.sample(ns(p.end_ps - p.first_ps));
}

void dram_channel::access_fast(dram_request r, sc_core::sc_time& delay)
{
    // Served in call order, without reordering: the request enters the queue where an entry is
    // free for its whole stay, and leaves at its first command; the banks and the bus take it
    // in their first gap that holds it.
    const std::uint64_t now = tlm_bus::sim_now().value();
    r.arrival_ps = now + delay.value();
    m_state.forget(now);
    m_stays.forget(now);
    std::uint64_t enter = r.arrival_ps;
    channel_state::plan_cursor at;
    access_plan p = m_state.plan(r.bank, r.row, r.bytes, enter, at);
    while (auto later = m_stays.blocked(enter, p.first_ps)) {
        enter = *later;
        // A later start never moves the first command earlier (plan() takes the same or a
        // later gap, and each time in a gap is a max of start and fixed times or a bus
        // first_fit, all non-decreasing in start), so while the stay up to the last plan's
        // first command is blocked, the stay of a new plan is blocked at the same instant:
        // skip that plan.
        while (auto again = m_stays.blocked(enter, p.first_ps))
            enter = *again;
        p = m_state.plan(r.bank, r.row, r.bytes, enter, at);
    }
    if (enter > r.arrival_ps)
        ++m_full;
    if (m_state.commit(r.bank, r.row, p))
        ++m_opened_ahead;
    m_queue_max = std::max(m_queue_max, m_stays.book(enter, p.first_ps));
    m_queue_ps += p.first_ps - enter;
    account(r, p);
    const std::uint64_t done = r.write ? enter : p.end_ps + m_latency_ps;
    delay = ps(done - now);
}

void dram_channel::access_accurate(dram_request r, sc_core::sc_time& delay)
{
    pending p;
    p.req = r;
    p.req.arrival_ps = (tlm_bus::sim_now() + delay).value();
    p.seq = m_registered++;
    // A posted write needs no word back once it is in the queue, and returns then: the queue
    // then holds no pointer to this frame.
    p.req.owner = r.write ? nullptr : &p;
    delay = sc_core::SC_ZERO_TIME;
    m_incoming.push_back(&p);
    std::push_heap(m_incoming.begin(), m_incoming.end(), arrives_later);
    if (p.req.arrival_ps < m_wake_ps)
        m_arrived.notify(sc_core::SC_ZERO_TIME);
    sc_core::wait(p.done); // a write queued, a read issued
    if (!r.write)
        delay = ps(p.finish_ps - tlm_bus::sim_now().value());
}

void dram_channel::arrive(std::uint64_t now)
{
    while (!m_incoming.empty() && m_incoming.front()->req.arrival_ps <= now) {
        std::pop_heap(m_incoming.begin(), m_incoming.end(), arrives_later);
        pending& p = *m_incoming.back();
        m_incoming.pop_back();
        if (m_queue.full() || !m_blocked.empty()) {
            ++m_full;
            m_blocked.push_back(&p);
            continue;
        }
        admit(p, p.req.arrival_ps);
        if (p.req.write)
            p.done.notify(sc_core::SC_ZERO_TIME);
    }
}

void dram_channel::note_queue(std::uint64_t now)
{
    m_queue_ps += m_queue.size() * (now - m_queue_since);
    m_queue_since = now;
}

void dram_channel::admit(pending& p, std::uint64_t now)
{
    note_queue(now);
    m_queue.push(p.req);
    m_queue_max = std::max(m_queue_max, static_cast<unsigned>(m_queue.size()));
}

void dram_channel::schedule()
{
    constexpr std::uint64_t never = ~std::uint64_t{0};
    const std::uint64_t cycle = m_clk.dram_ps;
    for (;;) {
        const std::uint64_t now = tlm_bus::sim_now().value();
        arrive(now);
        std::uint64_t wake = never;
        if (!m_queue.empty()) {
            const std::uint64_t edge = (now + cycle - 1) / cycle * cycle;
            wake = edge;
            if (edge == now) {
                m_state.forget(edge);
                // Several requests may start in one cycle (to different banks, or back-to-back
                // column commands to one open row): the data bus, not the command rate, is the
                // limit.
                while (auto i = m_queue.pick(m_state, edge, cycle)) {
                    note_queue(edge);
                    const dram_request r = m_queue.take(*i);
                    const access_plan p = m_queue.picked_plan(); // as planned by pick()
                    if (m_state.commit(r.bank, r.row, p))
                        ++m_opened_ahead;
                    account(r, p);
                    if (r.owner) {
                        auto* w = static_cast<pending*>(r.owner);
                        w->finish_ps = p.end_ps + m_latency_ps;
                        w->done.notify(sc_core::SC_ZERO_TIME);
                    }
                    if (!m_blocked.empty()) {
                        pending* b = m_blocked.front();
                        m_blocked.pop_front();
                        admit(*b, edge);
                        if (b->req.write)
                            b->done.notify(sc_core::SC_ZERO_TIME);
                    }
                }
                // The first edge at which a queued request can start, if nothing arrives.
                const auto next = m_queue.next_edge(m_state, edge, cycle);
                wake = next ? *next : never;
            }
        }
        // ... or the first arrival of a registered request (one registered later with an
        // earlier arrival notifies m_arrived).
        if (!m_incoming.empty())
            wake = std::min(wake, m_incoming.front()->req.arrival_ps);
        m_wake_ps = wake;
        if (wake == never)
            sc_core::wait(m_arrived); // idle costs nothing
        else
            sc_core::wait(ps(wake - now), m_arrived);
    }
}

} // namespace vgpu::dram
