// Configuration of the SMs' L1 data caches (section `l1`).
// See models/l1/README.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::l1 {

/// How the L1 caches of a cluster are organised (the L1-sharing block adds shared, adaptive).
enum class sharing_mode {
    private_, ///< each SM has its own L1 ("private")
};
} // namespace vgpu::l1

template <> struct vgpu::enum_names<vgpu::l1::sharing_mode> {
    static constexpr std::pair<std::string_view, l1::sharing_mode> table[] = {
        {"private", l1::sharing_mode::private_}};
};

namespace vgpu::l1 {

/// Section `l1`: geometry, latency and miss handling of each SM's L1 data cache.
struct l1_config {
    unsigned sets = 64;                            ///< sets per L1
    unsigned ways = 4;                             ///< lines per set
    unsigned line_bytes = 128;                     ///< bytes per line (= llc.line_bytes)
    unsigned hit_latency = 28;                     ///< core cycles from request to hit data
    unsigned mshrs = 32;                           ///< line misses outstanding at once
    sharing_mode sharing = sharing_mode::private_; ///< organisation among the SMs of a cluster

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("sets", sets, spec("sets per L1").range(1, 1 << 16).pow2());
        v.value("ways", ways, spec("lines per set (associativity)").range(1, 64));
        v.value("line_bytes", line_bytes,
                spec("bytes per line, equal to llc.line_bytes").range(16, 4096).pow2().unit("B"));
        v.value("hit_latency", hit_latency,
                spec("core cycles from a request to its hit data (also the tag-check time of a "
                     "miss or a write)")
                    .range(0, 10000)
                    .unit("cycles"));
        v.value("mshrs", mshrs, spec("line misses outstanding at once").range(1, 1024));
        v.choice("sharing", sharing,
                 spec("organisation of the L1s of a cluster: private = one per SM"));
    }
    void validate(config::checker&) const {}
};

} // namespace vgpu::l1
