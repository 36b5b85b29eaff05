// Configuration of the CDL access controller (section `cdl`). See models/cdl/README.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::cdl {

/// Section `cdl`: the CBV table and each SM's CDL access controller.
struct cdl_config {
    unsigned cbv_slots = 16;      ///< CBV descriptors in the table
    unsigned max_outstanding = 8; ///< bulk form: line reads in flight per CDL
    bool bulk_loads = true;       ///< the CUDA front end emits the bulk form (false: legacy only)

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
        v.value("bulk_loads", bulk_loads,
                spec("the CUDA front end lowers constant loads of one vector or of one 128-byte "
                     "window to a bulk CDL (the patent's form, docs/cuda.md \"Constant memory\"); "
                     "false: one legacy CDL per element, the baseline the bulk form is measured "
                     "against (hand-written programs keep the forms they use)"));
    }
    void validate(config::checker&) const {}
};

} // namespace vgpu::cdl
