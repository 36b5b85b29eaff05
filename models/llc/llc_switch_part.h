// The LLC switcher's driver part: before each launch of a kernel with an `llc` key, selects its
// LLC organisation (ARCH, then CHANGE). See models/llc/README.md and
// models/host/README.md ("Driver parts").
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>

namespace vgpu::llc {

/// What the LLC-switch part knows of the platform.
struct llc_switch_facts {
    std::uint64_t base = 0; ///< the switcher's register window on the MMIO bus
};

/// Writes ARCH (1 private, 0 shared) and CHANGE before a kernel whose `llc` key is set.
class llc_switch_part : public host::driver_part {
public:
    llc_switch_part(host::part_host& host, const llc_switch_facts& facts);
    bool before_launch(const host::kernel_decl& k) override;
    void launch_table(vgpu_lt_header& h) const override;                       ///< llc_base
    bool launch_entry(const host::kernel_decl& k, vgpu_lt_launch& l) override; ///< llc

private:
    host::part_host& m_host;
    const llc_switch_facts m_facts;
};

} // namespace vgpu::llc
