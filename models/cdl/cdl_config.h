// Configuration of the CDL access controller (section `cdl`). See models/cdl/README.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::cdl {

/// Section `cdl`: the CBV table and each SM's CDL access controller.
struct cdl_config {
    unsigned cbv_slots = 16;      ///< CBV descriptors in the table
    unsigned max_outstanding = 8; ///< bulk form: line reads in flight per CDL

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("cbv_slots", cbv_slots,
                spec("constant buffer view descriptors {base, size} in the CBV table's registers "
                     "(docs/registers.md)")
                    .range(1, 256));
        v.value("max_outstanding", max_outstanding,
                spec("line reads a bulk CDL keeps in flight (its scheduling/execution core "
                     "issues one per cycle up to this)")
                    .range(1, 256));
    }
    void validate(config::checker&) const {}
};

} // namespace vgpu::cdl
