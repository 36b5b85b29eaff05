// An SM's L1 TLB. See models/tlb/README.md.
#include "models/tlb/tlb.h"
#include "tlm_bus/sim_time.h"

#include "models/common/page_table.h"

#include <algorithm>
#include <iterator>

namespace vgpu::tlb {

namespace {
/// The extension of a request, or the defaults (ptbr 0, epoch 0) for one without.
const tlm_bus::gpu_extension& attrs(const tlm::tlm_generic_payload& gp)
{
    static const tlm_bus::gpu_extension none;
    const auto* e = gp.get_extension<tlm_bus::gpu_extension>();
    return e ? *e : none;
}

/// The access of a request as a fault record names it.
fault_access access_of(const tlm::tlm_generic_payload& gp, const tlm_bus::gpu_extension& ext)
{
    return gp.is_write()                                   ? fault_access::store
           : ext.kind == tlm_bus::access_kind::instruction ? fault_access::fetch
                                                           : fault_access::load;
}

unsigned vpn_bits(std::uint64_t page_bytes)
{
    return page_table::va_bits - page_table::page_shift(page_bytes);
}

/// An SM's access that can wait and replay (its data, atomic or constant access): x is the
/// request's extension (nullptr: none).
bool can_replay(const tlm_bus::gpu_extension* x)
{
    return x && x->sm >= 0 &&
           (x->kind == tlm_bus::access_kind::data || x->kind == tlm_bus::access_kind::atomic ||
            x->kind == tlm_bus::access_kind::constant);
}

/// Takes from waits[key] the oldest wait already released (nullptr: none), dropping the key
/// when it has no more. Only a released wait can be the one a replay waited on: another
/// request under the key made while the first waits must not take it.
template <typename Map, typename Released>
typename Map::mapped_type::value_type take_released(Map& waits, std::uint64_t key,
                                                    Released released)
{
    const auto it = waits.find(key);
    if (it == waits.end())
        return nullptr;
    auto& q = it->second;
    const auto r = std::find_if(q.begin(), q.end(), released);
    if (r == q.end())
        return nullptr;
    auto w = std::move(*r);
    q.erase(r);
    if (q.empty())
        waits.erase(it);
    return w;
}
} // namespace

tlb::tlb(const sc_core::sc_module_name& name, const tlb_config& cfg, const clock_params& clk,
         std::uint64_t page_bytes, cluster_tlb& shared)
    : sc_module(name), in("in"), out("out"), walk("walk"), m_cfg(cfg), m_accurate(clk.accurate),
      m_page_bytes(page_bytes), m_cycle_ps(clk.core_ps), m_shared(shared),
      m_l1(cfg.l1.sets, cfg.l1.ways,
           make_index(array_index(cfg), cfg.l1.sets, cfg.xor_bits, vpn_bits(page_bytes))),
      m_log(this->name()), m_stats(this->name()),
      m_translations(m_stats, "translations", "count", "requests translated (b_transport)"),
      m_faults(m_stats, "faults", "count",
               "requests answered with an error (address error: not present or crossing a "
               "page; command error: a store to a page that is not writable)"),
      m_page_faults(m_stats, "page_faults", "count",
                    "requests whose page was not present or not writable for a store, raised "
                    "with the fault unit (replayed after the host's answer; counted in faults "
                    "too)"),
      m_flushes(m_stats, "flushes", "count", "L1 TLB flushes (new epoch or page table)"),
      m_touch_replays(m_stats, "touch_replays", "count",
                      "requests told to replay while their page's first touch was decided (an "
                      "earlier touch could still come: models/page_alloc/README.md)"),
      m_walk_replays(m_stats, "walk_replays", "count",
                     "fast mode: SM accesses that can replay (loads, stores, atomics, constant "
                     "and unit reads) answered at once to wait for their page's walk and "
                     "replayed when it ended, as accurate mode's access waits in the TLB"),
      m_hits(m_stats, "hits", "count", "L1 TLB lookups that found their page",
             [this] { return static_cast<double>(m_l1.hits()); }),
      m_misses(m_stats, "misses", "count", "L1 TLB lookups that did not",
               [this] { return static_cast<double>(m_l1.misses() + m_inflight_misses); }),
      m_evictions(m_stats, "evictions", "count", "valid L1 TLB entries replaced",
                  [this] { return static_cast<double>(m_l1.evictions()); })
{
    if (!page_table::valid_page_bytes(page_bytes))
        SC_REPORT_ERROR("vgpu/tlb", "page_bytes must be a power of two >= 4096");
    in.register_b_transport(this, &tlb::b_transport);
    in.register_transport_dbg(this, &tlb::transport_dbg);
}

void tlb::check_context(const tlm_bus::gpu_extension& ext)
{
    if (!m_context.changes(ext.epoch, ext.ptbr))
        return;
    ++m_flushes;
    m_l1.invalidate_all();
    m_fills.clear();
    m_kept.clear(); // replays translate again
    m_touch_waits.clear();
    m_walked.clear();
}

void tlb::invalidate(std::uint64_t va, std::uint64_t bytes)
{
    if (bytes == 0) {
        m_l1.invalidate_all();
        m_fills.clear();
        m_kept.clear();
        m_walked.clear();
        m_touch_waits.clear();
        m_ideal->invalidate(0, 0, true);
        return;
    }
    const std::uint64_t first = va / m_page_bytes, last = (va + bytes - 1) / m_page_bytes;
    m_l1.invalidate_range(first, last);
    m_fills.drop(first, last);
    for (auto it = m_kept.begin(); it != m_kept.end();)
        it = it->first >= first && it->first <= last ? m_kept.erase(it) : std::next(it);
    const auto in_range = [&](std::uint64_t key) {
        const std::uint64_t page = (key & 0xffffffffu) / m_page_bytes;
        return page >= first && page <= last;
    };
    for (auto it = m_walked.begin(); it != m_walked.end();)
        it = in_range(it->first) ? m_walked.erase(it) : std::next(it);
    for (auto it = m_touch_waits.begin(); it != m_touch_waits.end();)
        it = in_range(it->first) ? m_touch_waits.erase(it) : std::next(it);
    m_ideal->invalidate(first, last, false);
}

std::uint64_t tlb::debug_pte(std::uint64_t va, std::uint64_t ptbr)
{
    return page_table::walk(ptbr, va, m_page_bytes,
                            [this](std::uint64_t pa, std::uint64_t& raw) {
                                return walk.debug(tlm::TLM_READ_COMMAND, pa, &raw, sizeof raw) ==
                                       sizeof raw;
                            })
        .value_or(0);
}

std::uint64_t tlb::request_key(std::uint64_t va, const tlm_bus::gpu_extension& ext)
{
    return (va & 0xffffffffu) | static_cast<std::uint64_t>(static_cast<std::uint32_t>(ext.warp + 1))
                                    << 32;
}

bool tlb::take_kept(std::uint64_t vpn, std::uint64_t& pte)
{
    const auto it = m_kept.find(vpn);
    if (it == m_kept.end())
        return false;
    pte = it->second.pte;
    if (--it->second.waiting == 0)
        m_kept.erase(it);
    return true;
}

std::shared_ptr<walk_wait> tlb::take_walked(std::uint64_t key)
{
    return take_released(m_walked, key,
                         [](const std::shared_ptr<walk_wait>& w) { return w->wait->resolved; });
}

lookup_result tlb::lookup(std::uint64_t va, std::uint64_t arrival_ps,
                          const tlm_bus::gpu_extension& ext, std::shared_ptr<walk_wait>* waits)
{
    check_context(ext);
    const std::uint64_t vpn = va / m_page_bytes;
    if (m_cfg.model == model_kind::ideal) {
        // Zero time; present PTEs are kept (the table does not change within a context) so
        // that a request costs one walk of debug reads per page, not one per request.
        if (const std::uint64_t pte = m_ideal->find(ext.epoch, ext.ptbr, vpn))
            return {pte, arrival_ps, true};
        const std::uint64_t pte = debug_pte(va, ext.ptbr);
        if (pte != 0)
            m_ideal->insert(vpn, pte);
        return {pte, arrival_ps, true};
    }
    const std::uint64_t t = arrival_ps + std::uint64_t{m_cfg.l1.hit_latency} * m_cycle_ps;
    // Fast mode: the TLB as it is at t (an SM's requests come in time order). An entry whose
    // translation is still on its way at t counts as a miss that asks the cluster again, as in
    // accurate mode, where it is not entered yet.
    m_fills.apply_until(t, &m_l1);
    if (m_fills.find(vpn))
        ++m_inflight_misses;
    else if (const auto hit = m_l1.lookup(vpn))
        return {to_pte(*hit, m_page_bytes), t, true};
    const lookup_result r = m_shared.translate(va, t, ext, walk, waits);
    if (waits && *waits && !(*waits)->known) {
        // Its walk has not run yet: the entry enters at the walk's end, once it is known
        // (unless the TLB was flushed meanwhile).
        (*waits)->on_known = [this, vpn, flushes = m_flushes.value()](const lookup_result& w) {
            if (w.ok && w.pte != 0 && m_flushes.value() == flushes)
                m_fills.push(vpn,
                             pending_fill{w.pte, to_translation(w.pte, m_page_bytes), w.ready_ps});
        };
        return r;
    }
    if (r.ok && r.pte != 0) {
        const translation entry = to_translation(r.pte, m_page_bytes);
        if (r.ready_ps > tlm_bus::sim_now().value())
            m_fills.push(vpn, pending_fill{r.pte, entry, r.ready_ps}); // enters at its time
        else
            m_l1.insert(vpn, entry);
    }
    return r;
}

void tlb::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    const tlm_bus::gpu_extension& ext = attrs(gp);
    const std::uint64_t va = gp.get_address();
    const std::uint64_t vpn = va / m_page_bytes;
    const std::uint64_t arrival = tlm_bus::sim_now().value() + delay.value();
    // A replay of a request the L1 could not take yet goes below with the translation the
    // request had (one translation per request, as in accurate mode, where the request waits
    // in the L1): translated again, it would ask the cluster a second time after its L1 TLB
    // entry was displaced, and wait for the L2 TLB or a walker on the way to its MSHR.
    lookup_result r;
    if (ext.replay)
        check_context(ext); // a kept translation belongs to the kernel that made it
    auto* const x = gp.get_extension<tlm_bus::gpu_extension>();
    std::shared_ptr<walk_wait> walked =
        m_walked.empty() ? nullptr : take_walked(request_key(va, ext));
    if (walked) {
        // The replay of a read that waited for its page's walk (below): the walk's answer,
        // now (the walk has ended; its entry entered the L1 TLB at the walk's end, a fill).
        check_context(ext);
        r = walked->result;
        r.ready_ps = arrival;

    } else if (ext.replay && take_kept(vpn, r.pte)) {
        r.ready_ps = arrival;
    } else {
        ++m_translations;
        if ((va & (m_page_bytes - 1)) + gp.get_data_length() > m_page_bytes ||
            !page_table::covers(va)) {
            VGPU_WARN(m_log, "request at VA 0x%llx (%u bytes) crosses a page or the VA space",
                      static_cast<unsigned long long>(va), gp.get_data_length());
            ++m_faults;
            // Not a page fault: a record of type `other` takes the host's other-exception
            // branch.
            if (auto* x = gp.get_extension<tlm_bus::gpu_extension>(); x && m_fault_unit)
                x->fault =
                    m_fault_unit->raise(va, ext, access_of(gp, ext), arrival, fault_type::other);
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        const std::shared_ptr<tlm_bus::fault_wait> waited =
            m_touch_waits.empty()
                ? nullptr
                : take_released(
                      m_touch_waits, request_key(va, ext),
                      [](const std::shared_ptr<tlm_bus::fault_wait>& f) { return f->resolved; });
        if (waited) {
            // A replay after a first touch was decided: the walk was made before.
            r = {0, arrival, true};
        } else {
            // An SM access that can replay and needs a walk (its own, or one in flight) waits
            // for it in both modes: accurate mode's access waits here; fast mode answers it at
            // once and the SM replays it when the walk has ended (released by the cluster),
            // with the walk's answer kept for it. Forwarded with the walk's end annotated instead,
            // such reads reached the L1 up to microseconds ahead of global time in call order,
            // took its MSHRs ahead of earlier requests and spread the reads a walk releases
            // (random_gather with the timed TLB: fast +17.7 % against accurate).
            const bool can_wait = !m_accurate && m_cfg.model == model_kind::timed && can_replay(x);
            std::shared_ptr<walk_wait> w;
            r = lookup(va, arrival, ext, can_wait ? &w : nullptr);
            if (w) {
                m_walked[request_key(va, ext)].push_back(w);
                ++m_walk_replays;
                x->fault = w->wait;
                gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
                return;
            }
        }
    }
    if (r.ok && r.pte == 0 && m_first_touch) {
        // A page placed at its first touch: now, or once every earlier touch is seen.
        const bool can_wait = can_replay(x);
        const touch_answer a = m_first_touch(va, ext.sm, r.ready_ps, can_wait);
        if (a.wait && can_wait) {
            x->fault = a.wait;
            m_touch_waits[request_key(va, ext)].push_back(a.wait);
            ++m_touch_replays;
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        r.pte = a.pte;
    }
    const page_table::entry e = page_table::decode(r.pte, m_page_bytes);
    if (!r.ok || !e.present || (gp.is_write() && !e.writable)) {
        VGPU_DEBUG(m_log, "%s at VA 0x%llx (pc %u, warp %d)",
                   !r.ok        ? "PTE read error"
                   : !e.present ? "not-present fault"
                                : "write-protection fault",
                   static_cast<unsigned long long>(va), ext.pc, ext.warp);
        ++m_faults;
        if (r.ok && m_fault_unit && x) {
            // A page fault (or a protection fault: a store to a page that is not writable):
            // the host maps the page or resolves copy-on-write (or refuses it); the requester
            // waits on x->fault and replays.
            ++m_page_faults;
            x->fault =
                m_fault_unit->raise(va, ext, access_of(gp, ext), r.ready_ps,
                                    e.present ? fault_type::protection : fault_type::not_present);
        }
        // A store to a page that is not writable is a command the page refuses.
        gp.set_response_status(r.ok && e.present ? tlm::TLM_COMMAND_ERROR_RESPONSE
                                                 : tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    // The page's read-only hint travels with the request (the remote LLC uses it).
    if (x)
        x->read_only = e.read_only;
    const std::uint64_t now = tlm_bus::sim_now().value();
    delay = tlm_bus::ps_time(r.ready_ps > now ? r.ready_ps - now : 0);
    gp.set_address(page_table::physical(e, va, m_page_bytes));
    out->b_transport(gp, delay);
    gp.set_address(va);
    if (x && x->fault && x->fault->retry_ps != 0) {
        kept_translation& k = m_kept[vpn]; // the L1 answered "replay when an MSHR is free"
        k.pte = r.pte;
        ++k.waiting;
    }
    // Grants below are for physical addresses; the SM sees virtual ones.
    gp.set_dmi_allowed(false);
}

unsigned tlb::transport_dbg(tlm::tlm_generic_payload& gp)
{
    const tlm_bus::gpu_extension& ext = attrs(gp);
    const std::uint64_t va = gp.get_address();
    if (!page_table::covers(va))
        return 0;
    const page_table::entry e = page_table::decode(debug_pte(va, ext.ptbr), m_page_bytes);
    if (!e.present || (gp.is_write() && !e.writable))
        return 0;
    // A debug access may span pages: serve the part in the first page only.
    const unsigned len = gp.get_data_length();
    const std::uint64_t room = m_page_bytes - (va & (m_page_bytes - 1));
    const unsigned n = room < len ? static_cast<unsigned>(room) : len;
    gp.set_address(page_table::physical(e, va, m_page_bytes));
    gp.set_data_length(n);
    gp.set_streaming_width(n);
    const unsigned done = out->transport_dbg(gp);
    gp.set_address(va);
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    return done;
}

} // namespace vgpu::tlb
