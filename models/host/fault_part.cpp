// The page-fault driver part (seed 003). See models/host/fault_part.h.
#include "models/host/fault_part.h"

#include "models/cp/cp.h"
#include "models/tlb/fault_unit.h"

#include <algorithm>
#include <cstring>

namespace vgpu::host {

fault_part::fault_part(part_host& host, const fault_facts& facts, sc_core::sc_in<bool>& irq,
                       bool shadow)
    : m_host(host), m_facts(facts), m_irq(irq), m_free_cores(host.config().shadow_threads),
      m_records(host.stats(), "fault_records", "count",
                "fault records the host took from the fault buffer"),
      m_services(host.stats(), "fault_services", "count",
                 "pages the host's fault handler mapped (one per page however many "
                 "accesses faulted on it)"),
      m_batches(host.stats(), "fault_batches", "count",
                "service rounds of the batched driver thread (host.fault_service batched, "
                "each up to host.fault_batch records) or of the firmware host"),
      m_fatal(host.stats(), "fatal_faults", "count",
              "records the host refused (not mapped, read-only, memory full, other "
              "exception): the kernel fails"),
      m_evictions(host.stats(), "evictions", "count",
                  "resident pages the driver evicted (copied out, unmapped, shot down), "
                  "scripted or under memory pressure"),
      m_shadow_threads(host.stats(), "shadow_threads", "count",
                       "shadow threads created (host.fault_service shadow: one per warp that "
                       "faulted)"),
      m_protection(host.stats(), "protection_faults", "count",
                   "records of type protection (a store to a page that is not writable)"),
      m_cow(host.stats(), "cow_copies", "count",
            "copy-on-write pages the host copied for a store (the protection fault resolved)"),
      m_other(host.stats(), "other_exceptions", "count",
              "records of type other: the other-exception branch (refused, the kernel fails)"),
      m_swap_ins(host.stats(), "swap_ins", "count",
                 "swapped-out pages brought back (host.swap_in_latency each)"),
      m_pressure_evictions(host.stats(), "pressure_evictions", "count",
                           "pages evicted because a fault found no free frame (dram.size "
                           "smaller than the buffers); counted in evictions too"),
      m_shootdowns(host.stats(), "shootdowns", "count",
                   "TLB shootdowns of evictions (every SM's TLB invalidated for a page)"),
      m_service_time(host.stats(), "fault_service_time", "ns",
                     "shadow: time of a record's service, from its shadow thread waking to its "
                     "answer (waiting for a host core included); batched: time of a round"),
      m_core_wait(host.stats(), "shadow_core_wait", "ns",
                  "time a shadow thread waited for a free host core (host.shadow_threads) per "
                  "record"),
      m_eviction_time(host.stats(), "eviction_time", "ns",
                      "time of an eviction: PTE clears, TLB shootdowns, the drain "
                      "(evict_drain_ns) and the copy-out, per eviction event")
{
    if (shadow && host.config().service == fault_service::shadow)
        sc_core::sc_spawn([this] { dispatcher(); }, "fault_dispatcher");
    else if (shadow)
        sc_core::sc_spawn([this] { batched_thread(); }, "shadow_thread");
}

bool fault_part::set_up()
{
    // The host's page table: every page of every buffer, with its protection; the resident
    // ones present. Copy-on-write pages resident now become not writable on the GPU.
    const workload& wl = m_host.work();
    const std::uint64_t page = m_host.facts().page_bytes;
    for (std::size_t b = 0; b < wl.buffers.size() && b < m_host.memory().buffers.size(); ++b) {
        const region& r = m_host.memory().buffers[b];
        const bool cow = wl.buffers[b].copy_on_write && m_host.config().kind == host_kind::native;
        for (std::uint64_t vpn = r.va / page; vpn * page < r.va + r.bytes; ++vpn) {
            m_table.declare(vpn, !wl.buffers[b].read_only, cow);
            const auto it = m_host.memory().pages.find(vpn);
            if (it == m_host.memory().pages.end())
                continue;
            m_table.present(vpn);
            m_resident.push_back(vpn);
            if (cow) {
                const unsigned home = m_host.placer().module_of(it->second);
                if (!m_host.set_pte(vpn * page, page_table::encode(it->second, false, false, home),
                                    m_host.qk()))
                    return false;
            }
        }
    }
    return true;
}

void fault_part::phase_launched(unsigned p, sc_core::sc_time start)
{
    const workload& wl = m_host.work();
    for (const evict_decl& e : wl.evictions)
        if (e.phase == p) {
            const sc_core::sc_time at =
                start + sc_core::sc_time(static_cast<double>(e.after_ns), sc_core::SC_NS);
            const auto b = static_cast<std::size_t>(wl.buffer_index(e.buffer));
            sc_core::sc_spawn(
                [this, at, b] {
                    if (at > sc_core::sc_time_stamp())
                        sc_core::wait(at - sc_core::sc_time_stamp());
                    evict(b);
                },
                sc_core::sc_gen_unique_name("evict"));
        }
}

void fault_part::round_begun(std::uint32_t records)
{
    m_records += records;
    ++m_batches;
    m_round_start = m_host.now();
}

void fault_part::round_ended(std::uint32_t fatal)
{
    m_fatal += fatal;
    m_service_time.sample((m_host.now() - m_round_start).to_seconds() * 1e9);
}

std::uint32_t fault_part::fault_read(std::uint64_t off, tlm_utils::tlm_quantumkeeper& qk)
{
    return m_host.mmio_read(m_facts.base + off, qk, "fault-unit");
}

void fault_part::launch_table(vgpu_lt_header& h) const
{
    h.fault_base = static_cast<std::uint32_t>(m_facts.base);
}

bool fault_part::invalidate_l1(std::uint64_t pa, std::uint64_t bytes,
                               tlm_utils::tlm_quantumkeeper& qk)
{
    namespace reg = cp::reg;
    const std::uint64_t cp = m_host.facts().cp_base;
    return m_host.mmio_write(cp + reg::L1_INV_PA_LO, static_cast<std::uint32_t>(pa), qk, "CP") &&
           m_host.mmio_write(cp + reg::L1_INV_PA_HI, static_cast<std::uint32_t>(pa >> 32), qk,
                             "CP") &&
           m_host.mmio_write(cp + reg::L1_INV_BYTES, static_cast<std::uint32_t>(bytes), qk, "CP") &&
           m_host.mmio_write(cp + reg::L1_INVALIDATE, 1, qk, "CP");
}

bool fault_part::fault_write(std::uint64_t off, std::uint32_t value,
                             tlm_utils::tlm_quantumkeeper& qk)
{
    return m_host.mmio_write(m_facts.base + off, value, qk, "fault-unit");
}

fault_part::fault_entry fault_part::take_record(tlm_utils::tlm_quantumkeeper& qk)
{
    namespace fr = tlb::fault_reg;
    fault_entry f;
    f.va = fault_read(fr::VA_LO, qk) | std::uint64_t{fault_read(fr::VA_HI, qk)} << 32;
    f.sm = fault_read(fr::SM, qk);
    f.warp = fault_read(fr::WARP, qk);
    f.pc = fault_read(fr::PC, qk);
    f.info = fault_read(fr::INFO, qk);
    fault_write(fr::POP, 1, qk);
    f.taken = sc_core::sc_time_stamp() + qk.get_local_time();
    return f;
}

void fault_part::answer(const fault_entry& f, std::uint32_t ack, std::uint32_t reason,
                        tlm_utils::tlm_quantumkeeper& qk)
{
    namespace fr = tlb::fault_reg;
    if (ack == 2)
        fault_write(fr::ACK_REASON, reason, qk);
    // (56) The answer: the accesses waiting on the page replay (or fail).
    fault_write(fr::ACK_VA_LO, static_cast<std::uint32_t>(f.va), qk);
    fault_write(fr::ACK_VA_HI, static_cast<std::uint32_t>(f.va >> 32), qk);
    fault_write(fr::ACK, ack, qk);
}

std::uint32_t fault_part::wait_for_records(tlm_utils::tlm_quantumkeeper& qk)
{
    namespace fr = tlb::fault_reg;
    for (unsigned idle = 0;;) {
        if (!m_irq.read()) {
            sc_core::wait(m_irq.posedge_event());
            continue;
        }
        qk.reset();
        if (const std::uint32_t count = fault_read(fr::COUNT, qk); count != 0)
            return count;
        // The level drops a delta after the last pop; give it that delta (and a nanosecond
        // once in a while, should a late pop still be on its way).
        qk.sync();
        sc_core::wait(++idle % 64 == 0 ? sc_core::sc_time(1, sc_core::SC_NS)
                                       : sc_core::SC_ZERO_TIME);
    }
}

void fault_part::dispatcher()
{
    namespace fr = tlb::fault_reg;
    tlm_utils::tlm_quantumkeeper& qk = m_dispatch_qk;
    qk.reset();
    if (!fault_write(fr::IRQ_ENABLE, 1, qk))
        return;
    qk.sync();
    for (;;) {
        // The GPU's exception message.
        const std::uint32_t count = wait_for_records(qk);
        // (60) The driver takes each record and wakes its warp's shadow thread with it.
        for (std::uint32_t i = 0; i < count; ++i) {
            const fault_entry f = take_record(qk);
            ++m_records;
            const std::uint64_t key = std::uint64_t{f.sm} << 32 | f.warp;
            std::unique_ptr<shadow>& s = m_shadows[key];
            if (!s) {
                s = std::make_unique<shadow>();
                s->key = key;
                ++m_shadow_threads;
                shadow* sp = s.get();
                sc_core::sc_spawn([this, sp] { shadow_thread(*sp); },
                                  sc_core::sc_gen_unique_name("shadow"));
            }
            s->records.push_back(f);
            s->arrived.notify(qk.get_local_time());
            VGPU_DEBUG(m_host.log(),
                       "fault VA %s: (60) the driver hands it to the shadow thread "
                       "of SM %u warp %u",
                       hex(f.va).c_str(), f.sm, f.warp);
        }
        qk.sync();
    }
}

void fault_part::acquire_core()
{
    if (m_free_cores > 0 && m_core_waiters.empty()) {
        --m_free_cores;
        return;
    }
    sc_core::sc_event mine;
    m_core_waiters.push_back(&mine);
    sc_core::wait(mine); // release_core() hands its core over
}

void fault_part::release_core()
{
    if (m_core_waiters.empty()) {
        ++m_free_cores;
        return;
    }
    m_core_waiters.front()->notify(sc_core::SC_ZERO_TIME);
    m_core_waiters.pop_front();
}

void fault_part::shadow_thread(shadow& s)
{
    tlm_utils::tlm_quantumkeeper& qk = s.qk;
    for (;;) {
        // (50) The blocking read: asleep until the driver hands this warp's record over.
        while (s.records.empty())
            sc_core::wait(s.arrived);
        if (s.records.front().taken > sc_core::sc_time_stamp())
            sc_core::wait(s.records.front().taken - sc_core::sc_time_stamp());
        const fault_entry f = s.records.front();
        s.records.pop_front();
        const sc_core::sc_time start = sc_core::sc_time_stamp();
        acquire_core();
        m_core_wait.sample((sc_core::sc_time_stamp() - start).to_seconds() * 1e9);
        VGPU_DEBUG(m_host.log(), "fault VA %s: (50) shadow thread of SM %u warp %u runs",
                   hex(f.va).c_str(), f.sm, f.warp);
        qk.reset();
        std::uint32_t reason = 0;
        const std::uint32_t ack = service(f, reason, qk, true);
        answer(f, ack, reason, qk);
        qk.sync();
        VGPU_DEBUG(m_host.log(), "fault VA %s: (56) answered %s, back to the blocking read",
                   hex(f.va).c_str(), ack == 1 ? "mapped" : "refused");
        m_service_time.sample((sc_core::sc_time_stamp() - start).to_seconds() * 1e9);
        release_core();
    }
}

void fault_part::batched_thread()
{
    namespace fr = tlb::fault_reg;
    tlm_utils::tlm_quantumkeeper& qk = m_qk;
    qk.reset();
    if (!fault_write(fr::IRQ_ENABLE, 1, qk))
        return;
    qk.sync();
    for (;;) {
        const std::uint32_t count = wait_for_records(qk); // (1) the blocking read
        const sc_core::sc_time start = sc_core::sc_time_stamp() + qk.get_local_time();
        // A member, not a local: a run may end while this thread waits mid-round.
        std::vector<fault_entry>& batch = m_round;
        batch.assign(std::min(count, m_host.config().fault_batch), fault_entry{});
        for (fault_entry& f : batch)
            f = take_record(qk);
        m_records += batch.size();
        ++m_batches;
        qk.inc(sc_core::sc_time::from_value(m_host.config().fault_latency.ps));
        qk.sync();
        m_lock.lock();
        for (const fault_entry& f : batch) {
            std::uint32_t reason = 0;
            const std::uint32_t ack = service(f, reason, qk, false);
            answer(f, ack, reason, qk);
        }
        m_lock.unlock();
        m_service_time.sample(
            (sc_core::sc_time_stamp() + qk.get_local_time() - start).to_seconds() * 1e9);
        qk.sync(); // (7) back to the blocking read
    }
}

std::uint32_t fault_part::service(const fault_entry& f, std::uint32_t& reason,
                                  tlm_utils::tlm_quantumkeeper& qk, bool per_fault)
{
    using tlb::fault_reason;
    const auto type = static_cast<record_type>(f.info >> tlb::fault_info::TYPE_SHIFT & 0xff);
    const bool write = (f.info & 0xff) == static_cast<std::uint32_t>(tlb::fault_access::store);
    const std::uint64_t vpn = f.va / m_host.facts().page_bytes;
    if (type == record_type::protection)
        ++m_protection;
    // Faults of several warps on one page: the page is served once, the others wait for it
    // and then find it resolved.
    if (per_fault && type != record_type::other)
        while (m_in_service.count(vpn)) {
            qk.sync();
            sc_core::wait(m_page_done);
        }
    // (52) The record's type, then (54) the same access repeated against the host's page
    // table (an address outside every buffer is not mapped there).
    std::size_t b = 0;
    const region* r = m_host.region_of(f.va, &b);
    const bool in_buffer = r && r >= m_host.memory().buffers.data() &&
                           r < m_host.memory().buffers.data() + m_host.memory().buffers.size();
    fault_step step = m_table.decide(type, vpn, write);
    if (step != fault_step::other_exception && !in_buffer)
        step = fault_step::not_mapped;
    VGPU_DEBUG(m_host.log(), "fault VA %s: (52) type %u; (54) the repeated %s: %s",
               hex(f.va).c_str(), static_cast<unsigned>(type), write ? "store" : "load",
               step_text(step));
    std::uint32_t refused = 0;
    switch (step) {
    case fault_step::other_exception:
        // (58) Other exceptions: not a page fault, reported (the kernel fails).
        ++m_other;
        refused = static_cast<std::uint32_t>(fault_reason::not_a_fault);
        break;
    case fault_step::not_mapped:
        refused = static_cast<std::uint32_t>(fault_reason::not_mapped);
        break;
    case fault_step::resolved:
        return 1;
    default: {
        // (42) The OS's page-fault handler, in the shadow thread's context.
        if (per_fault) {
            m_in_service.insert(vpn);
            qk.inc(sc_core::sc_time::from_value(m_host.config().fault_latency.ps));
        }
        if (step == fault_step::swap_in) {
            ++m_swap_ins;
            qk.inc(sc_core::sc_time::from_value(m_host.config().swap_in_latency.ps));
        }
        if (per_fault) {
            qk.sync();
            m_lock.lock();
            m_qk.reset();
            // The page may have changed while the handler ran (an eviction held the lock).
            step = m_table.decide(type, vpn, write);
        }
        if (step == fault_step::resolved)
            refused = 0;
        else if (step == fault_step::protection)
            refused = static_cast<std::uint32_t>(fault_reason::read_only);
        else if (step == fault_step::copy_on_write)
            refused = copy_page(f.va);
        else
            refused = bring_in(f.va, write, f.sm);
        VGPU_DEBUG(m_host.log(), "fault VA %s: (42) the OS handler: %s%s", hex(f.va).c_str(),
                   step_text(step), refused ? " refused" : ", PTE written, (44) TLBs shot down");
        if (per_fault) {
            m_qk.sync();
            m_lock.unlock();
            m_in_service.erase(vpn);
            m_page_done.notify(sc_core::SC_ZERO_TIME);
        }
        break;
    }
    }
    if (refused == 0)
        return 1;
    ++m_fatal;
    reason = refused;
    VGPU_DEBUG(m_host.log(), "fault at VA %s refused: %s", hex(f.va).c_str(),
               tlb::reason_text(static_cast<fault_reason>(refused)));
    return 2;
}

std::uint32_t fault_part::bring_in(std::uint64_t va, bool write, unsigned sm)
{
    using tlb::fault_reason;
    const std::uint64_t page = m_host.facts().page_bytes;
    const std::uint64_t vpn = va / page;
    // Memory pressure: a full module gives its oldest resident page back first.
    for (unsigned m = 0; m < m_host.placer().modules(); ++m)
        if (m_host.placer().full(m)) {
            evict_for_pressure(vpn);
            break;
        }
    const std::uint32_t r = map_page(va, write, sm);
    if (r != 0)
        return r;
    m_table.present(vpn);
    m_resident.push_back(vpn);
    const host_pte* e = m_table.find(vpn);
    if (e && e->copy_on_write) {
        if (write) {
            m_table.copied(vpn); // its own copy from the start
        } else {
            // Shared until a store: the GPU's PTE is not writable.
            const std::uint64_t pa = m_host.memory().pages.at(vpn);
            if (!m_host.set_pte(
                    va, page_table::encode(pa, false, false, m_host.placer().module_of(pa)), m_qk))
                return static_cast<std::uint32_t>(fault_reason::not_mapped);
        }
    }
    return 0;
}

void fault_part::page_placed(std::uint64_t vpn)
{
    // Resident now: a fault raised by a walk that read its PTE before the placement finds it
    // resolved, and memory pressure may evict it.
    m_table.present(vpn);
    m_resident.push_back(vpn);
}

std::uint32_t fault_part::copy_page(std::uint64_t va)
{
    using tlb::fault_reason;
    const std::uint64_t page = m_host.facts().page_bytes;
    const std::uint64_t vpn = va / page;
    const std::uint64_t old = m_host.memory().pages.at(vpn);
    const unsigned m = m_host.placer().module_of(old);
    if (m_host.placer().full(m))
        evict_for_pressure(vpn);
    const std::optional<std::uint64_t> pa = m_host.placer().frame(m);
    if (!pa)
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    // The copy: the shared page read out and written to the new frame, by DMA.
    std::vector<std::uint8_t> data(page);
    std::vector<transfer_piece> pieces;
    m_host.pieces_physical(old, data.data(), page, pieces);
    if (!m_host.transfer_dma(tlm::TLM_READ_COMMAND, pieces, m_qk))
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    pieces.clear();
    m_host.pieces_physical(*pa, data.data(), page, pieces);
    if (!m_host.transfer_dma(tlm::TLM_WRITE_COMMAND, pieces, m_qk))
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    m_host.count_bytes(true, page);
    m_host.count_bytes(false, page);
    if (!m_host.set_pte(va, page_table::encode(*pa, true, false, m), m_qk))
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    m_host.memory().pages[vpn] = *pa;
    m_table.copied(vpn);
    ++m_cow;
    return 0;
}

std::uint32_t fault_part::map_page(std::uint64_t va, bool write, unsigned sm)
{
    using tlb::fault_reason;
    const std::uint64_t page = m_host.facts().page_bytes;
    const std::uint64_t vpn = va / page;
    std::size_t b = 0;
    const region* r = m_host.region_of(va, &b);
    if (!r || (!r->on_demand && m_host.pages().evicted.count(vpn) == 0) ||
        r < m_host.memory().buffers.data() ||
        r >= m_host.memory().buffers.data() + m_host.memory().buffers.size())
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    const bool ro = m_host.pages().read_only.count(vpn) != 0;
    if (write && ro)
        return static_cast<std::uint32_t>(fault_reason::read_only);
    // Placement: first touch is the module of the SM whose access faulted first; fill and map
    // by the copy engine and a timed PTE write (the rule shared with placement at first touch).
    const unsigned touch = sm / std::max(1u, m_host.facts().sms_per_module);
    const placed_page p = m_host.place_page(b, vpn, touch, &m_qk);
    if (p.result == placed_page::outcome::no_frame)
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    if (p.filled)
        m_host.count_bytes(false, page);
    if (p.result == placed_page::outcome::write_failed) {
        if (p.mapped) { // the shootdown failed: mapped on the GPU, so present and resident
            m_table.present(vpn);
            m_resident.push_back(vpn);
        }
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    }
    ++m_services;
    return 0;
}

void fault_part::evict(std::size_t b)
{
    const std::uint64_t page = m_host.facts().page_bytes;
    const region& r = m_host.memory().buffers[b];
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    m_lock.lock();
    std::vector<std::uint64_t> vpns;
    for (auto it = m_host.memory().pages.lower_bound(r.va / page);
         it != m_host.memory().pages.end() && it->first * page < r.va + r.bytes; ++it)
        vpns.push_back(it->first);
    unmap_and_copy_out(vpns, b, qk, "", false);
    qk.sync();
    m_lock.unlock();
}

bool fault_part::evict_for_pressure(std::uint64_t keep_vpn)
{
    const std::uint64_t page = m_host.facts().page_bytes;
    page_placer& placer = m_host.placer();
    bool ok = true;
    for (unsigned m = 0; m < placer.modules(); ++m) {
        if (!placer.full(m))
            continue;
        // The oldest resident buffer page of module m (entries of pages gone since are
        // dropped on the way).
        bool found = false;
        for (auto it = m_resident.begin(); it != m_resident.end();) {
            const std::uint64_t vpn = *it;
            const auto pg = m_host.memory().pages.find(vpn);
            if (pg == m_host.memory().pages.end()) {
                it = m_resident.erase(it);
                continue;
            }
            if (vpn == keep_vpn || m_in_service.count(vpn) || placer.module_of(pg->second) != m) {
                ++it;
                continue;
            }
            std::size_t b = 0;
            if (!m_host.region_of(vpn * page, &b)) {
                it = m_resident.erase(it);
                continue;
            }
            // By index: the timed unmap may yield, and a page placed meanwhile (page_placed)
            // is appended to m_resident, which invalidates its iterators.
            const auto at = static_cast<std::size_t>(it - m_resident.begin());
            m_resident.erase(it);
            if (unmap_and_copy_out({vpn}, b, m_qk, " (memory pressure)", true) == 0) {
                // Still mapped and resident, in its place (only appends happen meanwhile).
                m_resident.insert(m_resident.begin() +
                                      static_cast<std::ptrdiff_t>(std::min(at, m_resident.size())),
                                  vpn);
                break;
            }
            ++m_pressure_evictions;
            found = true;
            break;
        }
        ok = ok && found;
    }
    return ok;
}

std::size_t fault_part::unmap_and_copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                                           tlm_utils::tlm_quantumkeeper& qk, const char* by,
                                           bool release_frames)
{
    const std::uint64_t page = m_host.facts().page_bytes;
    const sc_core::sc_time start = sc_core::sc_time_stamp() + qk.get_local_time();
    // Unmap first, so that no access reaches the old frames after the copy: clear the PTEs
    // and shoot each page down in every SM's TLB (an access after that faults and replays
    // once the page is back), give accesses translated before it time to land, copy.
    // A PTE write that fails leaves its page mapped on the GPU: it stays present in the host's
    // page table too and resident, and so do the pages after it; the pages unmapped before it
    // are evicted. A failed shootdown leaves the PTE cleared: that page is evicted too.
    std::vector<std::uint64_t> unmapped;
    for (std::uint64_t vpn : vpns) {
        m_table.swap_out(vpn); // the host's page table first: a fault on it now swaps it in
        bool written = false;
        const bool ok = m_host.set_pte(vpn * page, 0, qk, &written);
        if (!written) {
            m_table.present(vpn); // still mapped
            break;
        }
        unmapped.push_back(vpn);
        ++m_shootdowns;
        if (!ok)
            break;
    }
    if (unmapped.empty())
        return 0;
    qk.inc(sc_core::sc_time(evict_drain_ns, sc_core::SC_NS));
    // The L1s are physically addressed and otherwise invalidated only at kernel boundaries:
    // once the accesses translated before the shootdown have landed, the pages' lines leave
    // every L1, so that a page given the frame later in the kernel is not read from them. If
    // that fails the pages are still copied out (their frames hold them), but their frames are
    // not given to other pages.
    bool dropped = true;
    for (std::uint64_t vpn : unmapped)
        dropped = dropped && invalidate_l1(m_host.memory().pages.at(vpn), page, qk);
    copy_out(unmapped, b, qk, by, release_frames && dropped);
    m_eviction_time.sample((sc_core::sc_time_stamp() + qk.get_local_time() - start).to_seconds() *
                           1e9);
    return unmapped.size();
}

void fault_part::copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                          tlm_utils::tlm_quantumkeeper& qk, const char* by, bool release_frames)
{
    const std::uint64_t page = m_host.facts().page_bytes;
    std::vector<transfer_piece> pieces;
    for (std::uint64_t vpn : vpns)
        m_host.pages().evicted[vpn].assign(page, 0);
    for (std::uint64_t vpn : vpns)
        m_host.pieces_physical(m_host.memory().pages.at(vpn), m_host.pages().evicted[vpn].data(),
                               page, pieces);
    if (m_host.transfer_dma(tlm::TLM_READ_COMMAND, pieces, qk))
        m_host.count_bytes(true, vpns.size() * page);
    for (std::uint64_t vpn : vpns) {
        if (release_frames) // the frame is free for the next page
            m_host.placer().release(m_host.memory().pages.at(vpn));
        m_host.memory().pages.erase(vpn);
        m_table.swap_out(vpn);
    }
    m_evictions += vpns.size();
    if (std::strcmp(by, " (memory pressure)") == 0)
        VGPU_DEBUG(m_host.log(), "evicted %zu pages of buffer '%s'%s", vpns.size(),
                   m_host.work().buffers[b].name.c_str(), by);
    else
        VGPU_INFO(m_host.log(), "evicted %zu pages of buffer '%s'%s", vpns.size(),
                  m_host.work().buffers[b].name.c_str(), by);
}

} // namespace vgpu::host
