// The CBV table's driver part. See models/cdl/cbv_part.h.
#include "models/cdl/cbv_part.h"

#include "models/cdl/cbv_table.h"

namespace vgpu::cdl {

using host::cbv_binding;
using host::kernel_decl;
using host::part_host;
using host::region;

cbv_part::cbv_part(part_host& host, const cbv_facts& facts) : m_host(host), m_facts(facts) {}

bool cbv_part::slot_exists(const kernel_decl& k, const cbv_binding& c)
{
    if (m_facts.base != 0 && c.slot < m_facts.slots)
        return true;
    m_host.fail("kernel '" + k.name + "' binds CBV slot " + std::to_string(c.slot) +
                " but the platform's CBV table has " + std::to_string(m_facts.slots) +
                " slots (cdl.cbv_slots)");
    return false;
}

bool cbv_part::before_launch(const kernel_decl& k)
{
    for (const cbv_binding& c : k.cbvs) {
        if (!slot_exists(k, c))
            return false;
        const region& b =
            m_host.memory().buffers[static_cast<std::size_t>(m_host.work().buffer_index(c.buffer))];
        namespace cr = cbv_reg;
        const std::uint64_t base = m_facts.base;
        if (!m_host.mmio_write(base + cr::slot(c.slot, cr::BASE_LO),
                               static_cast<std::uint32_t>(b.va), m_host.qk(), "CBV") ||
            !m_host.mmio_write(base + cr::slot(c.slot, cr::BASE_HI),
                               static_cast<std::uint32_t>(b.va >> 32), m_host.qk(), "CBV") ||
            !m_host.mmio_write(base + cr::slot(c.slot, cr::SIZE),
                               static_cast<std::uint32_t>(b.bytes), m_host.qk(), "CBV"))
            return false;
    }
    return true;
}

void cbv_part::launch_table(vgpu_lt_header& h) const
{
    h.cbv_base = static_cast<std::uint32_t>(m_facts.base);
}

bool cbv_part::launch_entry(const kernel_decl& k, vgpu_lt_launch& l)
{
    l.ncbvs = static_cast<std::uint32_t>(k.cbvs.size());
    for (std::size_t i = 0; i < k.cbvs.size(); ++i) {
        const cbv_binding& c = k.cbvs[i];
        if (!slot_exists(k, c))
            return false;
        const region& b =
            m_host.memory().buffers[static_cast<std::size_t>(m_host.work().buffer_index(c.buffer))];
        l.cbv[i] = {c.slot, static_cast<std::uint32_t>(b.va),
                    static_cast<std::uint32_t>(b.va >> 32), static_cast<std::uint32_t>(b.bytes)};
    }
    return true;
}

} // namespace vgpu::cdl
