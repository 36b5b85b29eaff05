// Configuration of the traffic generator (section `traffic`). See models/traffic/README.md.
#pragma once

#include "models/common/config.h"
#include "models/traffic/core/pattern.h"

namespace vgpu::traffic {

/// Section `traffic`: the stimulus of the traffic platform.
struct traffic_config {
    unsigned generators = 1;                     ///< independent generators, each on its own region
    pattern_kind pattern = pattern_kind::random; ///< address pattern
    std::uint64_t base = 0;                      ///< start of generator 0's region
    byte_size footprint{1 << 20};                ///< bytes per generator region
    byte_size stride{256};                       ///< step of the strided pattern
    unsigned access_bytes = 64;                  ///< bytes per transaction
    double write_ratio = 0.5;                    ///< share of writes
    std::uint64_t transactions = 20000;          ///< transactions per generator
    bool check = true;                           ///< compare every read with a reference memory

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("generators", generators,
                spec("traffic generators, each with its own region").range(1, 64));
        v.choice("pattern", pattern, spec("address pattern"));
        v.value("base", base, spec("first address of generator 0's region (bytes)"));
        v.value("footprint", footprint, spec("bytes each generator touches").min(1));
        v.value("stride", stride, spec("step of the strided pattern").min(1));
        v.value("access_bytes", access_bytes,
                spec("bytes per transaction").range(1, 4096).pow2().unit("bytes"));
        v.value("write_ratio", write_ratio,
                spec("share of transactions that are writes").range(0, 1));
        v.value("transactions", transactions, spec("transactions per generator").range(1, 1e10));
        v.value("check", check, spec("check every read against a reference memory (scoreboard)"));
    }

    void validate(config::checker& c) const
    {
        const config::checker::key_value access{"traffic.access_bytes",
                                                std::to_string(access_bytes)};
        const std::string fix = " or traffic.access_bytes to a divisor of it";
        if (footprint.bytes % access_bytes != 0)
            c.conflict({{"traffic.footprint", format(footprint)}, access},
                       "not a multiple of traffic.access_bytes",
                       "set traffic.footprint to a multiple of " + std::to_string(access_bytes) +
                           fix);
        if (stride.bytes % access_bytes != 0)
            c.conflict({{"traffic.stride", format(stride)}, access},
                       "not a multiple of traffic.access_bytes",
                       "set traffic.stride to a multiple of " + std::to_string(access_bytes) + fix);
        if (base % access_bytes != 0)
            c.conflict({{"traffic.base", std::to_string(base)}, access},
                       "not aligned to traffic.access_bytes",
                       "set traffic.base to a multiple of " + std::to_string(access_bytes) + fix);
    }
};

} // namespace vgpu::traffic
