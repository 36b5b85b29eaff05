// Configuration of the command processor (section `cp`). See models/cp/README.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::cp {

/// Section `cp`: kernel queues and CTA dispatch timing.
struct cp_config {
    unsigned queues = 4;                 ///< kernel slots (queues) that run side by side
    unsigned dispatch_latency = 100;     ///< core cycles from a LAUNCH write to the first CTA
    unsigned cta_dispatch_interval = 10; ///< core cycles between two CTA launches to one SM

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("queues", queues,
                spec("kernel slots (queues) that run side by side, each with its own "
                     "register block")
                    .range(1, 16));
        v.value("dispatch_latency", dispatch_latency,
                spec("core cycles from a LAUNCH register write to the first CTA dispatch")
                    .range(0, 1e6)
                    .unit("cycles"));
        v.value("cta_dispatch_interval", cta_dispatch_interval,
                spec("minimum core cycles between two CTA launches to the same SM")
                    .range(0, 1e6)
                    .unit("cycles"));
    }

    void validate(config::checker&) const {}
};

} // namespace vgpu::cp
