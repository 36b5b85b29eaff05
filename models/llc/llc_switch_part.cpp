// The LLC switcher's driver part. See models/llc/llc_switch_part.h.
#include "models/llc/llc_switch_part.h"

#include "models/llc/switch_regs.h"

namespace vgpu::llc {

using host::kernel_decl;
using host::part_host;

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
    return m_host.mmio_write(m_facts.base + switch_reg::ARCH,
                             *k.llc == llc_org::private_org ? 1u : 0u, qk, "LLC switcher") &&
           m_host.mmio_write(m_facts.base + switch_reg::CHANGE, 1, qk, "LLC switcher");
}

void llc_switch_part::launch_table(vgpu_lt_header& h) const
{
    h.llc_base = static_cast<std::uint32_t>(m_facts.base);
}

bool llc_switch_part::launch_entry(const kernel_decl& k, vgpu_lt_launch& l)
{
    l.llc = !k.llc                           ? VGPU_LT_LLC_KEEP
            : *k.llc == llc_org::private_org ? VGPU_LT_LLC_PRIVATE
                                             : VGPU_LT_LLC_SHARED;
    return true;
}

} // namespace vgpu::llc
