// The LLC switcher's driver part: before each launch of a kernel with an `llc` key, selects its
// LLC organisation (ARCH, then CHANGE). See models/host/README.md and models/llc/README.md.
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>

namespace vgpu::host {

/// What the LLC-switch part knows of the platform.
struct llc_switch_facts {
    std::uint64_t base = 0; ///< the switcher's register window on the MMIO bus
};

/// Writes ARCH (1 private, 0 shared) and CHANGE before a kernel whose `llc` key is set.
class llc_switch_part : public driver_part {
public:
    llc_switch_part(part_host& host, const llc_switch_facts& facts);
    bool before_launch(const kernel_decl& k) override;

private:
    part_host& m_host;
    const llc_switch_facts m_facts;
};

} // namespace vgpu::host
