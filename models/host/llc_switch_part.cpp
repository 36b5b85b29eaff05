// The LLC switcher's driver part. See models/host/llc_switch_part.h.
#include "models/host/llc_switch_part.h"

#include "models/llc/switch_regs.h"

namespace vgpu::host {

llc_switch_part::llc_switch_part(part_host& host, const llc_switch_facts& facts)
    : m_host(host), m_facts(facts)
{
}

bool llc_switch_part::before_launch(const kernel_decl& k)
{
    // The kernel's LLC organisation: ARCH, then CHANGE (models/llc/README.md).
    if (!k.llc)
        return true;
    tlm_utils::tlm_quantumkeeper& qk = m_host.qk();
    return m_host.mmio_write(m_facts.base + llc::switch_reg::ARCH,
                             *k.llc == llc::llc_org::private_org ? 1u : 0u, qk, "LLC switcher") &&
           m_host.mmio_write(m_facts.base + llc::switch_reg::CHANGE, 1, qk, "LLC switcher");
}

} // namespace vgpu::host
