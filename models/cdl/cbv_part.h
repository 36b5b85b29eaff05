// The CBV table's driver part (CDL constant-buffer views): before each launch, writes the
// kernel's CBV bindings into the table. See models/cdl/README.md,
// models/host/README.md ("Driver parts") and docs/registers.md.
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>

namespace vgpu::cdl {

/// What the CBV part knows of the platform (section `cdl`).
struct cbv_facts {
    std::uint64_t base = 0; ///< the CBV table's register window on the MMIO bus (0: none)
    unsigned slots = 0;     ///< `cdl.cbv_slots`
};

/// Programs slot, base and size of each `cbvs:` binding of a kernel before its launch.
class cbv_part : public host::driver_part {
public:
    cbv_part(host::part_host& host, const cbv_facts& facts);
    bool before_launch(const host::kernel_decl& k) override;
    void launch_table(vgpu_lt_header& h) const override;                       ///< cbv_base
    bool launch_entry(const host::kernel_decl& k, vgpu_lt_launch& l) override; ///< ncbvs, cbv[]
    /// False (the run failed, with the reason) when the platform has no CBV slot c.slot.
    bool slot_exists(const host::kernel_decl& k, const host::cbv_binding& c);

private:
    host::part_host& m_host;
    const cbv_facts m_facts;
};

} // namespace vgpu::cdl
