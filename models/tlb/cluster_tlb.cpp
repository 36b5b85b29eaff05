// Shared translation state of a cluster: L2 TLB, page-walk cache, walkers. See
// models/tlb/README.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, before the first <systemc>
#include "models/tlb/cluster_tlb.h"
#include "tlm_bus/sim_time.h"

#include "models/common/page_table.h"

namespace vgpu::tlb {

namespace {
unsigned vpn_bits(std::uint64_t page_bytes)
{
    return page_table::va_bits - page_table::page_shift(page_bytes);
}
} // namespace

translation to_translation(std::uint64_t pte, std::uint64_t page_bytes)
{
    const page_table::entry e = page_table::decode(pte, page_bytes);
    return translation{e.frame / page_bytes, e.writable, e.read_only, e.home};
}

std::uint64_t to_pte(const translation& t, std::uint64_t page_bytes)
{
    return page_table::encode(t.pfn * page_bytes, t.writable, t.read_only_hint, t.home);
}

cluster_tlb::cluster_tlb(const std::string& name, const tlb_config& cfg, const clock_params& clk,
                         std::uint64_t page_bytes)
    : m_cfg(cfg), m_accurate(clk.accurate), m_cycle_ps(clk.core_ps), m_page_bytes(page_bytes),
      m_l2(cfg.l2.sets == 0
               ? nullptr
               : std::make_unique<tlb_array>(cfg.l2.sets, cfg.l2.ways,
                                             make_index(array_index(cfg), cfg.l2.sets, cfg.xor_bits,
                                                        vpn_bits(page_bytes)))),
      m_pwc(cfg.pwc_entries), m_walkers(cfg.walkers), m_walker_waits(1), m_stats(name),
      m_lookups(m_stats, "lookups", "count", "L1 TLB misses that reached the cluster"),
      m_walks(m_stats, "walks", "count", "page-table walks started"),
      m_pte_reads(m_stats, "pte_reads", "count", "page-table entries read by the walkers"),
      m_merged(m_stats, "walks_merged", "count",
               "L2 TLB misses served by a walk already in flight for their page"),
      m_walker_stalls(m_stats, "walker_stalls", "count",
                      "walks that waited because every walker was busy"),
      m_flushes(m_stats, "flushes", "count", "L2 TLB and page-walk cache flushes (new epoch)"),
      m_l2_hits(m_stats, "l2.hits", "count", "L2 TLB lookups that found their page",
                [this] { return m_l2 ? static_cast<double>(m_l2->hits()) : 0.0; }),
      m_l2_misses(
          m_stats, "l2.misses", "count",
          "L2 TLB lookups that did not (also those that found a walk in flight)",
          [this] { return m_l2 ? static_cast<double>(m_l2->misses() + m_l2_inflight) : 0.0; }),
      m_l2_evictions(m_stats, "l2.evictions", "count", "valid L2 TLB entries replaced",
                     [this] { return m_l2 ? static_cast<double>(m_l2->evictions()) : 0.0; }),
      m_pwc_hits(m_stats, "pwc.hits", "count", "page-walk cache lookups that found their entry",
                 [this] { return static_cast<double>(m_pwc.hits()); }),
      m_pwc_misses(m_stats, "pwc.misses", "count", "page-walk cache lookups that did not",
                   [this] { return static_cast<double>(m_pwc.misses()); }),
      m_walks_per_miss(m_stats, "walks_per_miss", "ratio",
                       "walks started per L1 TLB miss that reached the cluster (the rest hit "
                       "the L2 TLB or joined a walk in flight)",
                       [this] {
                           return m_lookups.value() == 0
                                      ? 0.0
                                      : static_cast<double>(m_walks.value()) /
                                            static_cast<double>(m_lookups.value());
                       }),
      m_walk_latency(m_stats, "walk_latency", "ns",
                     "time from a walk's start (a walker free) to its last PTE read's data"),
      m_walker_wait(m_stats, "walker_wait", "ns", "time a walk waited for a free walker"),
      m_walk_hist(m_stats, "walk_latency_hist", "ns", "walk latency, 50 ns buckets", 50.0, 40)
{
    if (!m_accurate && cfg.model == model_kind::timed)
        sc_core::sc_spawn([this] { walk_thread(); }, sc_core::sc_gen_unique_name("tlb_walks"));
}

void cluster_tlb::check_context(const tlm_bus::gpu_extension& ext)
{
    if (!m_context.changes(ext.epoch, ext.ptbr))
        return;
    ++m_flushes;
    if (m_l2)
        m_l2->invalidate_all();
    m_pwc.invalidate_all();
    m_fills.clear();
    // Walks queued before run in their own context (start_queued); lookups of the new one
    // do not join them.
    ++m_generation;
    m_queued_by_vpn.clear();
}

void cluster_tlb::invalidate(std::uint64_t va, std::uint64_t bytes)
{
    m_pwc.invalidate_all();
    if (bytes == 0) {
        if (m_l2)
            m_l2->invalidate_all();
        m_fills.clear();
        return;
    }
    const std::uint64_t first = va / m_page_bytes, last = (va + bytes - 1) / m_page_bytes;
    if (m_l2)
        m_l2->invalidate_range(first, last);
    m_fills.drop(first, last);
}

lookup_result cluster_tlb::translate(std::uint64_t va, std::uint64_t arrival_ps,
                                     const tlm_bus::gpu_extension& ext,
                                     tlm_bus::initiator_port& port,
                                     std::shared_ptr<walk_wait>* waits)
{
    check_context(ext);
    ++m_lookups;
    const std::uint64_t vpn = va / m_page_bytes;
    return m_accurate ? translate_accurate(va, vpn, arrival_ps, ext, port)
                      : translate_fast(va, vpn, arrival_ps, ext, port, waits);
}

void cluster_tlb::join_gate(sm::same_time_gate& gate, unsigned key)
{
    gate.join(key, true);
    m_gate = &gate;
    m_gate_key = key;
}

void cluster_tlb::kick(std::uint64_t at_ps)
{
    const std::uint64_t now = tlm_bus::sim_now().value();
    const sc_core::sc_time d = tlm_bus::ps_time(at_ps > now ? at_ps - now : 0);
    if (m_gate)
        m_gate->wake(m_gate_key, tlm_bus::sim_now() + d);
    else
        m_kick.notify(d);
}

void cluster_tlb::release_at(std::uint64_t at_ps, std::shared_ptr<walk_wait> w)
{
    m_releases.emplace(std::make_pair(at_ps, m_release_seq++), std::move(w));
    kick(at_ps);
}

lookup_result cluster_tlb::start_queued(
    std::map<std::pair<std::uint64_t, std::uint64_t>, queued_walk>::iterator it, std::uint64_t t)
{
    queued_walk q = std::move(it->second);
    if (const auto b = m_queued_by_vpn.find(q.va / m_page_bytes);
        b != m_queued_by_vpn.end() && b->second == it->first)
        m_queued_by_vpn.erase(b);
    m_queued.erase(it);
    // Queued before a context change: walked in its own context (its page table from the
    // root), entering neither the page-walk cache nor the L2 TLB of the new one.
    const lookup_result r = run_walk(q.va, q.va / m_page_bytes, t, q.ext, *q.port, q.arrival_ps,
                                     q.generation == m_generation);
    for (const std::shared_ptr<walk_wait>& w : q.waiters) {
        w->result = r;
        w->known = true;
        if (w->on_known)
            w->on_known(r);
        release_at(r.ready_ps, w);
    }
    return r;
}

void cluster_tlb::walk_thread()
{
    for (;;) {
        const std::uint64_t now = tlm_bus::sim_now().value();
        while (!m_releases.empty() && m_releases.begin()->first.first <= now) {
            const std::shared_ptr<tlm_bus::fault_wait> f = m_releases.begin()->second->wait;
            m_releases.erase(m_releases.begin());
            f->resolved = true;
            f->done.notify(); // the SM replays it now
        }
        // The queued walks whose time has come, in time order, each on a walker free now.
        std::uint64_t next = m_releases.empty() ? 0 : m_releases.begin()->first.first;
        while (!m_queued.empty()) {
            const std::uint64_t at = m_queued.begin()->first.first;
            const std::uint64_t free = m_walkers.earliest(std::max(at, now), 1, now);
            if (free > now) {
                next = next == 0 ? free : std::min(next, free);
                break;
            }
            start_queued(m_queued.begin(), now);
        }
        // Through the same-time gate (fast mode's platform): at one time, the walks and
        // releases run before the SMs (an early member), not in SystemC's process order.
        if (m_gate) {
            if (next == 0 || next <= now)
                m_gate->sleep_forever(m_gate_key);
            else
                m_gate->sleep(m_gate_key, tlm_bus::ps_time(next), true);
        } else if (next == 0 || next <= now) {
            sc_core::wait(m_kick);
        } else {
            sc_core::wait(tlm_bus::ps_time(next - now), m_kick);
        }
    }
}

lookup_result cluster_tlb::walk(std::uint64_t va, std::uint64_t start_ps,
                                const tlm_bus::gpu_extension& ext, tlm_bus::initiator_port& port,
                                bool use_pwc)
{
    const unsigned levels = page_table::levels(m_page_bytes);
    // The deepest level whose table the page-walk cache knows; the root otherwise.
    std::uint64_t table = ext.ptbr;
    unsigned level = 0;
    for (unsigned l = use_pwc ? levels - 1 : 0; l-- > 0;)
        if (const auto t = m_pwc.lookup(l, page_table::prefix(va, l, m_page_bytes))) {
            table = *t;
            level = l + 1;
            break;
        }
    tlm_bus::gpu_extension w;
    w.module = ext.module;
    w.cluster = ext.cluster;
    w.sm = ext.sm;
    w.kind = tlm_bus::access_kind::page_walk;
    w.vaddr = va;
    w.epoch = ext.epoch;
    w.ptbr = ext.ptbr;
    const std::uint64_t now = tlm_bus::sim_now().value();
    sc_core::sc_time d = tlm_bus::ps_time(start_ps > now ? start_ps - now : 0);
    lookup_result r;
    ++m_walks;
    for (; level < levels; ++level) {
        std::uint64_t raw = 0;
        const tlm::tlm_response_status s = port.access(
            tlm::TLM_READ_COMMAND, page_table::entry_address(table, va, level, m_page_bytes), &raw,
            sizeof raw, d, &w);
        ++m_pte_reads;
        if (m_accurate) {
            sc_core::wait(d); // the next read starts when this one's data is back
            d = sc_core::SC_ZERO_TIME;
        }
        if (s != tlm::TLM_OK_RESPONSE) {
            r.ok = false;
            break;
        }
        if ((raw & page_table::present_bit) == 0)
            break; // not present: r.pte stays 0
        if (level + 1 == levels) {
            r.pte = raw;
            break;
        }
        table = page_table::table_of(raw);
        if (use_pwc)
            m_pwc.insert(level, page_table::prefix(va, level, m_page_bytes), table);
    }
    r.ready_ps = tlm_bus::sim_now().value() + d.value();
    const double ns = static_cast<double>(r.ready_ps - std::min(r.ready_ps, start_ps)) / 1000.0;
    m_walk_latency.sample(ns);
    m_walk_hist.sample(ns);
    return r;
}

lookup_result cluster_tlb::translate_fast(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                          const tlm_bus::gpu_extension& ext,
                                          tlm_bus::initiator_port& port,
                                          std::shared_ptr<walk_wait>* waits)
{
    const auto answer_wait = [&] {
        auto w = std::make_shared<walk_wait>();
        w->wait = std::make_shared<tlm_bus::fault_wait>();
        w->wait->placement = true; // waited for and replayed, not counted as a page fault
        w->wait->walk = true;      // the requester keeps its place (sm.max_line_requests)
        w->wait->raised_ps = t;
        w->wait->deadline_ps = ~std::uint64_t{0};
        *waits = w;
        return w;
    };
    if (m_l2)
        t += std::uint64_t{m_cfg.l2.hit_latency} * m_cycle_ps;
    // The L2 TLB as it is at t (its SMs call in their own time order, so only roughly).
    m_fills.apply_until(t, m_l2.get());
    // A walk for this page in flight at t: wait for it. As in accurate mode the lookup counts
    // as a miss that merged.
    if (const pending_fill* p = m_fills.find(vpn)) {
        ++m_merged;
        if (m_l2)
            ++m_l2_inflight;
        const lookup_result r{p->pte, std::max(p->ready_ps, t), true};
        if (waits && r.ready_ps > t) {
            const std::shared_ptr<walk_wait> w = answer_wait();
            w->result = r;
            w->known = true;
            release_at(r.ready_ps, w);
        }
        return r;
    }
    // A walk queued for this page (not started yet): wait for it, or, for a request that
    // cannot wait, start it now.
    if (const auto q = m_queued_by_vpn.find(vpn); q != m_queued_by_vpn.end()) {
        ++m_merged;
        if (m_l2)
            ++m_l2_inflight;
        const auto it = m_queued.find(q->second);
        if (waits) {
            it->second.waiters.push_back(answer_wait());
            return {};
        }
        const lookup_result r = start_queued(it, t);
        return {r.pte, std::max(r.ready_ps, t), r.ok};
    }
    if (m_l2)
        if (const auto hit = m_l2->lookup(vpn))
            return {to_pte(*hit, m_page_bytes), t, true};
    if (waits) {
        // A new walk runs at its own time (walk_thread()): its PTE reads meet the data reads
        // other SMs make at that time, not those made before it in call order.
        const std::pair<std::uint64_t, std::uint64_t> key{t, m_queue_seq++};
        queued_walk& q = m_queued[key];
        q.va = va;
        q.arrival_ps = t;
        q.ext = ext;
        q.port = &port;
        q.generation = m_generation;
        q.waiters.push_back(answer_wait());
        m_queued_by_vpn[vpn] = key;
        kick(t);
        return {};
    }
    return run_walk(va, vpn, t, ext, port, t);
}

lookup_result cluster_tlb::run_walk(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                    const tlm_bus::gpu_extension& ext,
                                    tlm_bus::initiator_port& port, std::uint64_t asked_ps,
                                    bool current)
{
    const std::uint64_t now = tlm_bus::sim_now().value();
    cache::capacity_timeline::reservation slot = m_walkers.reserve(t, now);
    if (slot.start > asked_ps)
        ++m_walker_stalls;
    m_walker_wait.sample(static_cast<double>(slot.start - std::min(slot.start, asked_ps)) / 1000.0);
    const lookup_result r = walk(va, slot.start, ext, port, current);
    m_walkers.finish(slot, r.ready_ps);
    if (!current)
        return r;
    // Lookups of the page until the walk's end share it, whatever it found: a page not present
    // too (pte 0, entering no TLB), as accurate mode's misses wait for the walk in flight.
    // Walked again instead, each access to a page that first touch has not placed yet took a
    // walker (mcm4, first_touch: 3.7 times accurate mode's walks).
    if (r.ok)
        m_fills.push(vpn,
                     pending_fill{r.pte,
                                  r.pte != 0 ? to_translation(r.pte, m_page_bytes) : translation{},
                                  r.ready_ps});
    return r;
}

lookup_result cluster_tlb::translate_accurate(std::uint64_t va, std::uint64_t vpn, std::uint64_t t,
                                              const tlm_bus::gpu_extension& ext,
                                              tlm_bus::initiator_port& port)
{
    auto wait_until = [](std::uint64_t ps) {
        const std::uint64_t now = tlm_bus::sim_now().value();
        if (ps > now)
            sc_core::wait(tlm_bus::ps_time(ps - now));
    };
    wait_until(t + (m_l2 ? std::uint64_t{m_cfg.l2.hit_latency} * m_cycle_ps : 0));
    if (m_l2)
        if (const auto hit = m_l2->lookup(vpn))
            return {to_pte(*hit, m_page_bytes), tlm_bus::sim_now().value(), true};
    if (const auto it = m_walking.find(vpn); it != m_walking.end()) {
        ++m_merged;
        const std::shared_ptr<walk_in_flight> w = it->second; // outlives the map entry
        sc_core::wait(w->done);
        return {w->pte, tlm_bus::sim_now().value(), w->ok};
    }
    const auto w = std::make_shared<walk_in_flight>();
    m_walking[vpn] = w; // later misses on this page wait for this walk
    const std::uint64_t asked = tlm_bus::sim_now().value();
    for (bool woken = false; m_walkers_busy >= m_cfg.walkers; woken = true) {
        if (!woken)
            ++m_walker_stalls;
        m_walker_waits.wait_free(woken);
    }
    m_walker_wait.sample(static_cast<double>(tlm_bus::sim_now().value() - asked) / 1000.0);
    ++m_walkers_busy;
    lookup_result r = walk(va, tlm_bus::sim_now().value(), ext, port);
    --m_walkers_busy;
    m_walker_waits.pass_on();
    if (m_l2 && r.ok && r.pte != 0)
        m_l2->insert(vpn, to_translation(r.pte, m_page_bytes));
    w->pte = r.pte;
    w->ok = r.ok;
    w->done.notify(); // waiters resume in this evaluation phase's next delta
    m_walking.erase(vpn);
    return r;
}

} // namespace vgpu::tlb
