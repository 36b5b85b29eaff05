// The root of the configuration: one member per section. See docs/configuration.md.
#pragma once

#include "models/dram/dram_config.h"
#include "models/traffic/traffic_config.h"
#include "platforms/platform_config.h"

namespace vgpu::platforms {

/// Everything a run is configured with; `vgpu-sim --list-params` prints its declaration.
struct vgpu_config {
    platform_config platform;
    log_config log;
    dram::dram_config dram;
    traffic::traffic_config traffic;

    void declare(config::visitor& v)
    {
        v.section("platform", platform, "Shape of the platform, clocks, timing mode, seed, limits.");
        v.section("log", log, "Log levels.");
        v.section("dram", dram, "DRAM of each module.");
        v.section("traffic", traffic, "Traffic generators of the `traffic` platform.");
    }

    void validate(config::checker& c) const
    {
        platform.validate(c);
        dram.validate(c);
        traffic.validate(c);
        if (traffic.footprint.bytes * traffic.generators + traffic.base >
            dram.size.bytes * platform.modules)
            c.error("traffic.footprint", "the generators' regions do not fit in the memory "
                                         "(dram.size x platform.modules)");
    }
};

} // namespace vgpu::platforms
