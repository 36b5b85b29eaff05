// The GPU's fault unit. See models/tlb/fault_unit.h.
#include "models/tlb/fault_unit.h"

#include <algorithm>

namespace vgpu::tlb {

fault_unit::fault_unit(const sc_core::sc_module_name& name, unsigned capacity,
                       std::uint64_t page_bytes, std::uint64_t timeout_ps)
    : sc_module(name), mmio("mmio"), irq("irq"), m_capacity(std::max(1u, capacity)),
      m_page_bytes(page_bytes), m_timeout_ps(timeout_ps), m_regs(this->name()), m_log(this->name()),
      m_stats(this->name()),
      m_answered(m_stats, "answered", "count", "pages the host answered (ACK writes)"),
      m_fatal(m_stats, "fatal", "count", "pages the host refused (fatal faults)"),
      m_stray_acks(m_stats, "stray_acks", "count", "ACK writes for a page with no fault pending"),
      m_overflows(m_stats, "overflows", "count",
                  "records that waited for a free fault-buffer entry (none is dropped)"),
      m_faults(m_stats, "faults", "count", "accesses that found their page not present",
               [this] { return static_cast<double>(m_table.faults()); }),
      m_records(m_stats, "records", "count",
                "fault records written (one per page however many accesses fault on it)",
                [this] { return static_cast<double>(m_table.records()); }),
      m_coalesced(m_stats, "coalesced", "count",
                  "faults that joined a record already pending for their page",
                  [this] { return static_cast<double>(m_table.coalesced()); })
{
    mmio.register_b_transport(this, &fault_unit::b_transport);
    mmio.register_transport_dbg(this, &fault_unit::transport_dbg);
    define_registers();
    SC_HAS_PROCESS(fault_unit);
    SC_METHOD(deliver);
    sensitive << m_arrive;
    dont_initialize();
    SC_METHOD(update_irq);
    sensitive << m_changed;
}

void fault_unit::define_registers()
{
    using tlm_bus::reg_access;
    using tlm_bus::reg_write;
    m_regs.set_warning_handler([this](const std::string& m) { VGPU_WARN(m_log, "%s", m.c_str()); });
    m_regs.add("FAULT_COUNT", fault_reg::COUNT, reg_access::ro, 0, 0);
    m_regs.add("FAULT_VA_LO", fault_reg::VA_LO, reg_access::ro, 0, 0);
    m_regs.add("FAULT_VA_HI", fault_reg::VA_HI, reg_access::ro, 0, 0);
    m_regs.add("FAULT_SM", fault_reg::SM, reg_access::ro, 0, 0);
    m_regs.add("FAULT_WARP", fault_reg::WARP, reg_access::ro, 0, 0);
    m_regs.add("FAULT_PC", fault_reg::PC, reg_access::ro, 0, 0);
    m_regs.add("FAULT_INFO", fault_reg::INFO, reg_access::ro, 0, 0);
    m_regs.add("FAULT_POP", fault_reg::POP, reg_access::wo, 0, 1, [this](const reg_write& w) {
        if ((w.new_value & 1) == 0)
            return true;
        if (m_buffer.empty())
            return false; // nothing to pop: the host read COUNT wrong
        m_buffer.pop_front();
        if (!m_overflow.empty()) { // a waiting record takes the freed entry
            m_buffer.push_back(m_overflow.front());
            m_overflow.pop_front();
        }
        m_changed.notify(w.delay);
        return true;
    });
    m_regs.add("FAULT_ACK_VA_LO", fault_reg::ACK_VA_LO, reg_access::rw, 0, ~0u);
    m_regs.add("FAULT_ACK_VA_HI", fault_reg::ACK_VA_HI, reg_access::rw, 0, ~0u);
    m_regs.add("FAULT_ACK_REASON", fault_reg::ACK_REASON, reg_access::rw, 0, 0xff);
    m_regs.add("FAULT_ACK", fault_reg::ACK, reg_access::wo, 0, 3, [this](const reg_write& w) {
        if (w.new_value == 0)
            return true;
        if (w.new_value == 3)
            return false; // both answers at once
        return answer(std::uint64_t{m_regs.get(fault_reg::ACK_VA_HI)} << 32 |
                          m_regs.get(fault_reg::ACK_VA_LO),
                      w.new_value == 2, w.delay);
    });
    m_regs.add("FAULT_IRQ_ENABLE", fault_reg::IRQ_ENABLE, reg_access::rw, 0, 1,
               [this](const reg_write& w) {
                   m_changed.notify(w.delay);
                   return true;
               });
    m_regs.add("FAULT_CAPACITY", fault_reg::CAPACITY, reg_access::ro, m_capacity, 0);
    m_regs.add("FAULT_OVERFLOWS", fault_reg::OVERFLOWS, reg_access::ro, 0, 0);
}

std::shared_ptr<tlm_bus::fault_wait> fault_unit::raise(std::uint64_t va,
                                                       const tlm_bus::gpu_extension& ext,
                                                       fault_access access, std::uint64_t at_ps,
                                                       fault_type type)
{
    const std::uint64_t vpn = key_of(va / m_page_bytes, type);
    const std::uint64_t waiter = std::uint64_t{static_cast<std::uint16_t>(ext.sm)} << 32 |
                                 static_cast<std::uint32_t>(ext.warp);
    if (!m_table.add(vpn, waiter)) {
        // Coalesced. In fast mode a later caller may run at an earlier local time: the page's
        // record (if still on its way) takes the earliest time a fault was seen.
        const std::shared_ptr<tlm_bus::fault_wait>& w = m_waits.at(vpn);
        for (timed_record& t : m_arriving)
            if (t.key == vpn && at_ps < t.at_ps) {
                t.at_ps = at_ps;
                w->raised_ps = at_ps;
                w->deadline_ps = at_ps + m_timeout_ps;
                std::sort(
                    m_arriving.begin(), m_arriving.end(),
                    [](const timed_record& a, const timed_record& b) { return a.at_ps < b.at_ps; });
                m_arrive.notify(sc_core::sc_time::from_value(m_arriving.front().at_ps -
                                                             sc_core::sc_time_stamp().value()));
                break;
            }
        return w;
    }
    auto w = std::make_shared<tlm_bus::fault_wait>();
    w->raised_ps = at_ps;
    w->deadline_ps = at_ps + m_timeout_ps;
    m_waits.emplace(vpn, w);
    fault_record rec;
    rec.va = va;
    rec.sm = static_cast<std::uint32_t>(std::max<std::int16_t>(0, ext.sm));
    rec.warp = static_cast<std::uint32_t>(std::max(0, ext.warp));
    rec.pc = ext.pc;
    rec.access = access;
    rec.type = type;
    const auto pos =
        std::upper_bound(m_arriving.begin(), m_arriving.end(), at_ps,
                         [](std::uint64_t t, const timed_record& r) { return t < r.at_ps; });
    m_arriving.insert(pos, timed_record{at_ps, vpn, rec});
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    m_arrive.notify(sc_core::sc_time::from_value(
        m_arriving.front().at_ps > now ? m_arriving.front().at_ps - now : 0));
    VGPU_DEBUG(m_log, "fault at VA 0x%llx (SM %d, warp %d, pc %u, type %u)",
               static_cast<unsigned long long>(va), ext.sm, ext.warp, ext.pc,
               static_cast<unsigned>(type));
    return w;
}

void fault_unit::deliver()
{
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    std::size_t n = 0;
    for (; n < m_arriving.size() && m_arriving[n].at_ps <= now; ++n) {
        if (m_buffer.size() < m_capacity) {
            m_buffer.push_back(m_arriving[n].rec);
        } else {
            m_overflow.push_back(m_arriving[n].rec);
            ++m_overflows;
            m_regs.set(fault_reg::OVERFLOWS, static_cast<std::uint32_t>(m_overflows.value()));
        }
    }
    m_arriving.erase(m_arriving.begin(), m_arriving.begin() + static_cast<std::ptrdiff_t>(n));
    if (!m_arriving.empty())
        m_arrive.notify(sc_core::sc_time::from_value(m_arriving.front().at_ps - now));
    if (n > 0) {
        refresh_head();
        m_changed.notify(sc_core::SC_ZERO_TIME);
    }
}

void fault_unit::update_irq()
{
    refresh_head();
    irq.write(!m_buffer.empty() && (m_regs.get(fault_reg::IRQ_ENABLE) & 1) != 0);
}

void fault_unit::refresh_head()
{
    m_regs.set(fault_reg::COUNT, static_cast<std::uint32_t>(m_buffer.size()));
    const fault_record head = m_buffer.empty() ? fault_record{} : m_buffer.front();
    m_regs.set(fault_reg::VA_LO, static_cast<std::uint32_t>(head.va));
    m_regs.set(fault_reg::VA_HI, static_cast<std::uint32_t>(head.va >> 32));
    m_regs.set(fault_reg::SM, head.sm);
    m_regs.set(fault_reg::WARP, head.warp);
    m_regs.set(fault_reg::PC, head.pc);
    m_regs.set(fault_reg::INFO,
               static_cast<std::uint32_t>(head.access) | static_cast<std::uint32_t>(head.type)
                                                             << fault_info::TYPE_SHIFT);
}

bool fault_unit::answer(std::uint64_t va, bool fatal, const sc_core::sc_time& delay)
{
    // The page's fault; else an other exception at that page.
    std::uint64_t vpn = va / m_page_bytes;
    auto it = m_waits.find(vpn);
    if (it == m_waits.end()) {
        vpn = key_of(vpn, fault_type::other);
        it = m_waits.find(vpn);
    }
    if (it == m_waits.end()) {
        ++m_stray_acks;
        VGPU_WARN(m_log, "FAULT_ACK for VA 0x%llx: no fault is pending on that page",
                  static_cast<unsigned long long>(va));
        return false;
    }
    const std::shared_ptr<tlm_bus::fault_wait> w = it->second;
    m_waits.erase(it);
    m_table.complete(vpn);
    ++m_answered;
    if (fatal) {
        ++m_fatal;
        w->fatal = reason_text(static_cast<fault_reason>(m_regs.get(fault_reg::ACK_REASON)));
    }
    w->resolved = true;
    w->done.notify(delay);
    return true;
}

void fault_unit::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    m_regs.transport(gp, delay);
    // The head registers show the buffer as the access leaves it (the host pops, then reads).
    if (gp.is_write())
        refresh_head();
}

unsigned fault_unit::transport_dbg(tlm::tlm_generic_payload& gp)
{
    return m_regs.transport_dbg(gp);
}

} // namespace vgpu::tlb
