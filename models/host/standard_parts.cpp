// The driver's standard parts: which blocks' host-side work a platform's facts call for, in hook
// order. A block with host-side work adds its part here. See models/host/README.md.
#include "models/host/cbv_part.h"
#include "models/host/driver.h"
#include "models/host/fault_part.h"
#include "models/host/instrument_part.h"
#include "models/host/llc_switch_part.h"
#include "models/host/trace_part.h"

#include <algorithm>

namespace vgpu::host {

void driver::add_standard_parts()
{
    const platform_facts& f = m_facts;
    if (f.trace_base != 0) // shader_trace.enable
        add_part<trace_part>(
            trace_facts{f.trace_base, f.trace_region_bytes, f.trace_wrap, f.trace_watermark});
    // Always: its statistics exist on every host; the shadow thread only on the native host of
    // a platform with a fault unit (the firmware services faults itself).
    add_part<fault_part>(fault_facts{f.fault_base}, fault_irq,
                         m_cfg.kind != host_kind::riscv && f.fault_base != 0);
    // Always: a kernel that binds a CBV on a platform without the table fails with the reason.
    add_part<cbv_part>(cbv_facts{f.cbv_base, f.cbv_slots});
    if (f.llc_switch_base != 0) // more than one module
        add_part<llc_switch_part>(llc_switch_facts{f.llc_switch_base});
    if (std::any_of(m_wl.kernels.begin(), m_wl.kernels.end(),
                    [](const kernel_decl& k) { return k.instrumented(); }))
        add_part<instrument_part>();
}

} // namespace vgpu::host
