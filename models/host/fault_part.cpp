// The page-fault driver part (seed 003). See models/host/fault_part.h.
#include "models/host/fault_part.h"

#include "models/cp/cp.h"
#include "models/tlb/fault_unit.h"

#include <algorithm>

namespace vgpu::host {

fault_part::fault_part(part_host& host, const fault_facts& facts, sc_core::sc_in<bool>& irq,
                       bool shadow)
    : m_host(host), m_facts(facts), m_irq(irq),
      m_records(host.stats(), "fault_records", "count",
                "fault records the shadow thread took from the fault buffer"),
      m_services(host.stats(), "fault_services", "count",
                 "pages the host's fault handler mapped (one per page however many "
                 "accesses faulted on it)"),
      m_batches(host.stats(), "fault_batches", "count",
                "service rounds of the shadow thread (each up to host.fault_batch records)"),
      m_fatal(host.stats(), "fatal_faults", "count",
              "records the host refused (not mapped, read-only, memory full, not a page "
              "fault): the kernel fails"),
      m_evictions(host.stats(), "evictions", "count",
                  "resident pages the driver evicted (copied out, unmapped, shot down)"),
      m_service_time(host.stats(), "fault_service_time", "ns",
                     "time of a service round, from taking its records to the last answer")
{
    if (shadow)
        sc_core::sc_spawn([this] { shadow_thread(); }, "shadow_thread");
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

bool fault_part::fault_write(std::uint64_t off, std::uint32_t value,
                             tlm_utils::tlm_quantumkeeper& qk)
{
    return m_host.mmio_write(m_facts.base + off, value, qk, "fault-unit");
}

void fault_part::shadow_thread()
{
    namespace fr = tlb::fault_reg;
    tlm_utils::tlm_quantumkeeper& qk = m_qk;
    qk.reset();
    if (!fault_write(fr::IRQ_ENABLE, 1, qk))
        return;
    qk.sync();
    for (unsigned idle = 0;;) {
        // (1) The blocking read: asleep until the fault buffer holds records.
        if (!m_irq.read()) {
            sc_core::wait(m_irq.posedge_event());
            continue;
        }
        qk.reset();
        const std::uint32_t count = fault_read(fr::COUNT, qk);
        if (count == 0) {
            // The level drops a delta after the last pop; give it that delta (and a
            // nanosecond once in a while, should a late pop still be on its way).
            qk.sync();
            sc_core::wait(++idle % 64 == 0 ? sc_core::sc_time(1, sc_core::SC_NS)
                                           : sc_core::SC_ZERO_TIME);
            continue;
        }
        idle = 0;
        const sc_core::sc_time start = sc_core::sc_time_stamp() + qk.get_local_time();
        // A member, not a local: a run may end while this thread waits mid-round.
        std::vector<fault_entry>& batch = m_round;
        batch.assign(std::min(count, m_host.config().fault_batch), fault_entry{});
        for (fault_entry& f : batch) {
            f.va = fault_read(fr::VA_LO, qk) | std::uint64_t{fault_read(fr::VA_HI, qk)} << 32;
            f.sm = fault_read(fr::SM, qk);
            f.warp = fault_read(fr::WARP, qk);
            f.pc = fault_read(fr::PC, qk);
            f.info = fault_read(fr::INFO, qk);
            fault_write(fr::POP, 1, qk);
        }
        m_records += batch.size();
        ++m_batches;
        qk.inc(sc_core::sc_time::from_value(m_host.config().fault_latency.ps));
        qk.sync();
        m_lock.lock();
        for (const fault_entry& f : batch) {
            std::uint32_t reason = 0;
            const std::uint32_t ack = service(f, reason);
            if (ack == 2)
                fault_write(fr::ACK_REASON, reason, qk);
            // (6) The answer: the accesses waiting on the page replay (or fail).
            fault_write(fr::ACK_VA_LO, static_cast<std::uint32_t>(f.va), qk);
            fault_write(fr::ACK_VA_HI, static_cast<std::uint32_t>(f.va >> 32), qk);
            fault_write(fr::ACK, ack, qk);
        }
        m_lock.unlock();
        m_service_time.sample(
            (sc_core::sc_time_stamp() + qk.get_local_time() - start).to_seconds() * 1e9);
        qk.sync(); // (7) back to the blocking read
    }
}

std::uint32_t fault_part::service(const fault_entry& f, std::uint32_t& reason)
{
    using tlb::fault_reason;
    // (2) Only a page fault is serviced; anything else takes the other-exception path: the
    // accesses fail and the kernel reports it.
    if ((f.info >> 8 & 0xff) != 0) {
        ++m_fatal;
        reason = static_cast<std::uint32_t>(fault_reason::not_a_fault);
        return 2;
    }
    const bool write = (f.info & 0xff) == static_cast<std::uint32_t>(tlb::fault_access::store);
    // (3) The same access in the host's view of the shared address space: a page that is
    // resident there needs nothing (another record of the batch mapped it).
    const std::uint64_t vpn = f.va / m_host.facts().page_bytes;
    std::uint32_t r = 0;
    if (m_host.memory().pages.count(vpn) == 0)
        r = map_page(f.va, write, f.sm); // (4) it faults: the host's page-fault handler
    else if (write && m_host.pages().read_only.count(vpn))
        r = static_cast<std::uint32_t>(fault_reason::read_only);
    if (r == 0)
        return 1;
    ++m_fatal;
    reason = r;
    VGPU_DEBUG(m_host.log(), "fault at VA %s refused: %s", hex(f.va).c_str(),
               tlb::reason_text(static_cast<fault_reason>(r)));
    return 2;
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
    // Placement: first touch is the module of the SM whose access faulted first.
    const unsigned touch = sm / std::max(1u, m_host.facts().sms_per_module);
    const unsigned m = m_host.placer().home(vpn, touch);
    const std::optional<std::uint64_t> pa = m_host.placer().frame(m);
    if (!pa)
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    // Fill: the staged initial data or the evicted copy, by DMA (a new frame reads as zero).
    std::vector<std::uint8_t> data;
    if (m_host.host_copy(b, vpn, data)) {
        std::vector<transfer_piece> pieces;
        m_host.pieces_physical(*pa, data.data(), page, pieces);
        if (!m_host.transfer_dma(tlm::TLM_WRITE_COMMAND, pieces, m_qk))
            return static_cast<std::uint32_t>(fault_reason::memory_full);
        m_host.count_bytes(false, page);
    }
    if (!m_host.set_pte(va, page_table::encode(*pa, !ro, ro, m), m_qk))
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    m_host.memory().pages[vpn] = *pa;
    m_host.memory().bytes_per_module = m_host.placer().bytes_per_module();
    m_host.pages().evicted.erase(vpn);
    ++m_services;
    return 0;
}

void fault_part::evict(std::size_t b)
{
    namespace reg = cp::reg;
    const std::uint64_t page = m_host.facts().page_bytes;
    const region& r = m_host.memory().buffers[b];
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    m_lock.lock();
    std::vector<std::uint64_t> vpns;
    for (auto it = m_host.memory().pages.lower_bound(r.va / page);
         it != m_host.memory().pages.end() && it->first * page < r.va + r.bytes; ++it)
        vpns.push_back(it->first);
    // Unmap first, so that no access reaches the old frames after the copy: clear the PTEs,
    // shoot the buffer's range down, give accesses translated before it time to land, copy.
    for (std::uint64_t vpn : vpns)
        if (!m_host.set_pte(vpn * page, 0, qk)) {
            m_lock.unlock();
            return;
        }
    qk.inc(sc_core::sc_time(evict_drain_ns, sc_core::SC_NS));
    copy_out(vpns, b, qk, "");
    qk.sync();
    m_lock.unlock();
}

void fault_part::copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                          tlm_utils::tlm_quantumkeeper& qk, const char* by)
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
    for (std::uint64_t vpn : vpns)
        m_host.memory().pages.erase(vpn);
    m_evictions += vpns.size();
    VGPU_INFO(m_host.log(), "evicted %zu pages of buffer '%s'%s", vpns.size(),
              m_host.work().buffers[b].name.c_str(), by);
}

} // namespace vgpu::host
