// A point of contention with fast (busy-until) and accurate (per-cycle arbitration) timing.
// See docs/architecture.md ("Timing").
#include "models/noc/shared_resource.h"
#include "tlm_bus/sim_time.h"

#if VGPU_NOC_RTL
#include "models/noc/rtl/port_arbiter.h"
#endif

#include <algorithm>
#include <iterator>

namespace vgpu::noc {

namespace {
/// The arbiter of port `port`: the C++ core's, or with noc.arbiter_impl rtl the verilated RTL
/// (models/noc/rtl/port_arbiter.h), which serves at most rtl_arbiter_max_inputs inputs.
std::unique_ptr<arbiter> make_port_arbiter(const std::string& port, const resource_params& p)
{
    if (p.impl == arbiter_impl_kind::tlm)
        return make_arbiter(p.policy, p.inputs, p.max_wait_cycles);
    if (p.inputs > rtl_arbiter_max_inputs)
        throw port_config_error(
            "noc.arbiter_impl",
            "rtl: port " + port + " has " + std::to_string(p.inputs) + " inputs, more than the " +
                std::to_string(rtl_arbiter_max_inputs) +
                " the RTL arbiter serves (noc_arbiter.sv is verilated for N = " +
                std::to_string(rtl_arbiter_max_inputs) +
                "); set noc.arbiter_impl to tlm, or give the platform fewer inputs per port");
#if VGPU_NOC_RTL
    return make_rtl_arbiter(port, p.policy, p.inputs, p.max_wait_cycles);
#else
    throw std::logic_error("noc.arbiter_impl rtl in a build without the RTL arbiter (the "
                           "configuration checks refuse it)");
#endif
}
} // namespace

shared_resource::shared_resource(const sc_core::sc_module_name& name, const resource_params& p)
    : sc_module(name), m_p(p), m_arbiter(make_port_arbiter(this->name(), p)), m_waiting(p.inputs),
      m_sources(p.policy == arbiter_kind::barrier_aware ? p.inputs : 0),
      m_offered(p.policy == arbiter_kind::barrier_aware ? p.inputs : 0),
      m_per_source(p.policy == arbiter_kind::barrier_aware), m_cands(p.inputs),
      m_stats(this->name()), m_grants(m_stats, "grants", "count", "requests served"),
      m_busy_cycles(m_stats, "busy_cycles", "cycles", "cycles the resource was occupied"),
      m_busy_ps(m_stats, "busy_ps", "ps",
                "time the resource was occupied (kernel records compare it to their window)"),
      m_by_priority(m_stats, "grants_by_priority", "count",
                    "accurate mode: grants won by a higher barrier count (noc.arbiter "
                    "barrier_aware), over another input's request or over an older request of "
                    "another SM at the same input"),
      m_by_age(m_stats, "grants_by_age", "count",
               "accurate mode: grants won by age (barrier_aware past noc.max_wait_cycles; fifo "
               "over a younger request)"),
      m_wait(m_stats, "wait", "ns", "time a request waited before it was served"),
      m_credit_stalls(p.credits && p.accurate
                          ? std::make_unique<stats::counter>(
                                m_stats, "credit_stalls", "count",
                                "accurate mode: times requests waited because the buffer this "
                                "port feeds was full (credit-based back-pressure)")
                          : nullptr)
{
    m_credits = p.credits;
    if (p.accurate) {
        SC_HAS_PROCESS(shared_resource);
        SC_THREAD(arbitrate);
    }
}

sc_core::sc_time shared_resource::next_edge(const sc_core::sc_time& t) const
{
    std::uint64_t c = m_p.cycle.value();
    return sc_core::sc_time::from_value((t.value() / c + 1) * c);
}

void shared_resource::use(unsigned input, const tlm_bus::gpu_extension* ext, unsigned cycles,
                          sc_core::sc_time& delay, std::uint64_t age)
{
    if (input >= m_p.inputs)
        SC_REPORT_ERROR(
            "vgpu/shared_resource",
            (std::string(name()) + ": input " + std::to_string(input) + " out of range").c_str());
    ++m_grants;
    m_busy_cycles += cycles;
    const std::uint64_t occupancy = cycles * m_p.cycle.value();
    m_busy_ps += occupancy;
    if (!m_p.accurate) {
        const std::uint64_t arrival = (tlm_bus::sim_now() + delay).value();
        const auto b = m_busy.reserve(arrival, occupancy, tlm_bus::sim_now().value());
        // Queueing = completion - arrival - own occupancy (the pieces may straddle bookings).
        m_wait.sample(static_cast<double>(b.finish - arrival - occupancy) / 1000.0);
        delay += tlm_bus::ps_time(b.finish - arrival);
        return;
    }
    sc_core::wait(delay);
    delay = sc_core::SC_ZERO_TIME;
    request r{input,
              ext ? ext->sm : -1,
              ext ? ext->barrier_waiting : 0u,
              tlm_bus::sim_now(),
              m_arrivals++,
              age,
              cycles,
              {}};
    // Requests that arrive together reach this point in an order the SystemC kernel does not
    // specify (the threads of an MSHR's merged requests, woken by one fill, resume last-merged
    // first): of those of one input, the oldest goes first, as in fast mode, where they are
    // booked in the order they reached the cache. It takes the earliest arrival order of them
    // (the fifo arbiter's), so the order stays increasing along the queue.
    auto& q = m_waiting[r.input];
    auto at = q.end();
    for (; at != q.begin(); --at) {
        request& before = **std::prev(at);
        if (before.arrival != r.arrival || before.age <= r.age)
            break;
        std::swap(before.order, r.order);
    }
    // An insertion at the front of an empty deque would take a new block every time.
    if (at == q.end())
        q.push_back(&r);
    else
        q.insert(at, &r);
    if (q.size() == 1)
        m_nonempty.push_back(r.input);
    if (m_per_source) {
        // Its SM's queue, in the same order (a requester's order is never changed: of the
        // requests of one SM, the oldest is always the one that competes).
        auto& qs = m_sources[r.input];
        auto s = std::find_if(qs.begin(), qs.end(),
                              [&](const source_queue& x) { return x.source == r.source; });
        if (s == qs.end()) {
            qs.push_back({r.source, {}});
            s = std::prev(qs.end());
        }
        auto pos = s->q.end();
        while (pos != s->q.begin() && (*std::prev(pos))->order > r.order)
            --pos;
        if (pos == s->q.end())
            s->q.push_back(&r);
        else
            s->q.insert(pos, &r);
    }
    ++m_pending;
    m_work.notify(sc_core::SC_ZERO_TIME);
    sc_core::wait(r.granted);
    m_wait.sample((tlm_bus::sim_now() - r.arrival).to_seconds() * 1e9);
    delay = tlm_bus::ps_time(occupancy);
}

void shared_resource::return_credit()
{
    if (m_p.credits == 0 || m_credits >= m_p.credits)
        SC_REPORT_ERROR("vgpu/shared_resource",
                        (std::string(name()) + ": credit returned that was never taken").c_str());
    ++m_credits;
    m_work.notify(sc_core::SC_ZERO_TIME);
}

shared_resource::request* shared_resource::source_head(unsigned i, const sc_core::sc_time& edge)
{
    request* oldest = m_waiting[i].front();
    if (oldest->arrival > edge)
        return nullptr; // the oldest arrived first: nothing of this input has arrived
    if (m_p.max_wait_cycles > 0 &&
        (edge - oldest->arrival).value() / m_p.cycle.value() >= m_p.max_wait_cycles)
        return oldest; // ageing: the oldest head wins over every count
    request* best = nullptr;
    for (const source_queue& s : m_sources[i]) {
        if (s.q.empty())
            continue;
        request* h = s.q.front();
        if (h->arrival <= edge &&
            (!best || h->barrier_count > best->barrier_count ||
             (h->barrier_count == best->barrier_count && h->order < best->order)))
            best = h;
    }
    return best;
}

void shared_resource::arbitrate()
{
    sc_core::sc_time free_at = sc_core::SC_ZERO_TIME;
    bool stalled = false;
    for (;;) {
        if (m_pending == 0)
            sc_core::wait(m_work);
        // The buffer this port feeds is full: no grant until a slot is returned; whoever
        // waits then competes at that edge, so the policy, not the wake-up order, decides.
        if (m_p.credits && m_credits == 0) {
            if (!stalled && m_pending > 0)
                ++*m_credit_stalls;
            stalled = true;
            sc_core::wait(m_work);
            continue;
        }
        stalled = false;
        // Requests compete at the first clock edge at or after their arrival at which the
        // resource is free: one grant per edge, none while a grant still occupies it.
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        sc_core::sc_time edge = now.value() % m_p.cycle.value() == 0 ? now : next_edge(now);
        if (edge < free_at)
            edge = free_at;
        if (edge > now)
            sc_core::wait(edge - now);
        const std::uint64_t c = m_p.cycle.value();
        // Only inputs with requests can be candidates: the others stay invalid from the last
        // edge (a crossbar port has an input per SM, most of them idle at any edge).
        for (unsigned i : m_marked)
            m_cands[i] = {};
        m_marked.clear();
        for (unsigned i : m_nonempty) {
            // An input offers its oldest request, or under barrier_aware the best head of its
            // SM queues, so the heads of every SM's queue bound for this port are ranked.
            const request* head = m_waiting[i].front();
            if (m_per_source)
                head = m_offered[i] = source_head(i, edge);
            if (head && head->arrival <= edge) {
                m_cands[i] = {true, head->barrier_count, (edge - head->arrival).value() / c,
                              head->order};
                m_marked.push_back(i);
            }
        }
        int g = m_arbiter->grant(m_cands);
        if (g < 0) {
            sc_core::wait(next_edge(edge) - edge); // nothing eligible yet: try the next edge
            continue;
        }
        auto& q = m_waiting[g];
        request* r = q.front();
        if (m_per_source && m_offered[g] != r) {
            // A higher count overtook an older request of another SM at the same input.
            r = m_offered[g];
            ++m_by_priority;
            q.erase(std::find(q.begin(), q.end(), r));
        } else {
            if (m_arbiter->last_reason() == grant_reason::priority)
                ++m_by_priority;
            else if (m_arbiter->last_reason() == grant_reason::age)
                ++m_by_age;
            q.pop_front();
        }
        if (m_per_source)
            for (source_queue& s : m_sources[g])
                if (s.source == r->source) {
                    s.q.pop_front(); // r is its SM's oldest
                    break;
                }
        if (m_waiting[g].empty())
            m_nonempty.erase(
                std::find(m_nonempty.begin(), m_nonempty.end(), static_cast<unsigned>(g)));
        --m_pending;
        if (m_p.credits)
            --m_credits;
        free_at = edge + sc_core::sc_time::from_value(std::max(1u, r->cycles) * c);
        r->granted.notify(sc_core::SC_ZERO_TIME);
    }
}

} // namespace vgpu::noc
