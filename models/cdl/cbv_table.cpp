// The CBV table. See models/cdl/cbv_table.h.
#include "models/cdl/cbv_table.h"

namespace vgpu::cdl {

cbv_table::cbv_table(const sc_core::sc_module_name& name, unsigned slots)
    : sc_module(name), mmio("mmio"), m_entries(slots), m_regs(this->name()), m_log(this->name())
{
    m_regs.set_warning_handler([this](const std::string& m) { VGPU_WARN(m_log, "%s", m.c_str()); });
    for (unsigned i = 0; i < slots; ++i) {
        const std::string p = "CBV" + std::to_string(i) + "_";
        for (const auto& [n, off] :
             {std::pair<const char*, std::uint64_t>{"BASE_LO", cbv_reg::BASE_LO},
              {"BASE_HI", cbv_reg::BASE_HI},
              {"SIZE", cbv_reg::SIZE}}) {
            // The descriptor takes effect at the write (the driver programs it before LAUNCH).
            m_regs.add(p + n, cbv_reg::slot(i, off), tlm_bus::reg_access::rw, 0, ~0u,
                       [this, i](const tlm_bus::reg_write&) {
                           cbv& e = m_entries[i];
                           e.base = std::uint64_t{m_regs.get(cbv_reg::slot(i, cbv_reg::BASE_HI))}
                                        << 32 |
                                    m_regs.get(cbv_reg::slot(i, cbv_reg::BASE_LO));
                           e.bytes = m_regs.get(cbv_reg::slot(i, cbv_reg::SIZE));
                           return true;
                       });
        }
    }
    mmio.register_b_transport(this, &cbv_table::b_transport);
    mmio.register_transport_dbg(this, &cbv_table::transport_dbg);
}

void cbv_table::program(unsigned slot, const cbv& v)
{
    m_regs.set(cbv_reg::slot(slot, cbv_reg::BASE_LO), static_cast<std::uint32_t>(v.base));
    m_regs.set(cbv_reg::slot(slot, cbv_reg::BASE_HI), static_cast<std::uint32_t>(v.base >> 32));
    m_regs.set(cbv_reg::slot(slot, cbv_reg::SIZE), static_cast<std::uint32_t>(v.bytes));
    m_entries.at(slot) = v;
}

void cbv_table::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    m_regs.transport(gp, delay);
}

unsigned cbv_table::transport_dbg(tlm::tlm_generic_payload& gp)
{
    return m_regs.transport_dbg(gp);
}

} // namespace vgpu::cdl
