// The CBV table's driver part (CDL constant-buffer views): before each launch, writes the
// kernel's CBV bindings into the table. See models/host/README.md and docs/registers.md.
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>

namespace vgpu::host {

/// What the CBV part knows of the platform (section `cdl`).
struct cbv_facts {
    std::uint64_t base = 0; ///< the CBV table's register window on the MMIO bus (0: none)
    unsigned slots = 0;     ///< `cdl.cbv_slots`
};

/// Programs slot, base and size of each `cbvs:` binding of a kernel before its launch.
class cbv_part : public driver_part {
public:
    cbv_part(part_host& host, const cbv_facts& facts);
    bool before_launch(const kernel_decl& k) override;
    /// False (the run failed, with the reason) when the platform has no CBV slot c.slot.
    bool slot_exists(const kernel_decl& k, const cbv_binding& c);

private:
    part_host& m_host;
    const cbv_facts m_facts;
};

} // namespace vgpu::host
