// The GPU-wide figures of the SMs (stats `gpu.*`): sums over every SM, the shares of their
// active cycles and the kernel time. See docs/outputs.md.
#pragma once

#include "models/common/stats.h"
#include "models/host/driver.h"
#include "models/sm/sm.h"
#include "platforms/gpu_units.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace vgpu::platforms {

/// The SMs' figures, computed at dump time from the SMs' own statistics.
class gpu_figures {
public:
    /// Adds the figures to `g` (the platform's group); they read the SMs of `modules` and the
    /// phases of `host` when evaluated.
    gpu_figures(stats::group& g, const std::vector<std::unique_ptr<module_unit>>& modules,
                const host::driver& host);

    stats::formula instructions;     ///< warp-instructions of all SMs
    stats::formula mem_requests;     ///< line requests of all SMs
    stats::formula lsu_budget_waits; ///< line requests that waited for an LSU thread
    stats::formula line_limit_waits; ///< line requests that waited for sm.max_line_requests
    stats::formula kernel_time;      ///< sum of the phase windows, ns
    stats::formula active;           ///< SM cycles with a resident CTA, all SMs
    stats::formula issue_share;      ///< share of active cycles issuing or unit-busy
    stats::formula memory_share;     ///< share of active cycles waiting for memory
    stats::formula alu_share;        ///< share of active cycles waiting for ALU results
    stats::formula barrier_share;    ///< share of active cycles waiting at barriers

private:
    /// sum_over_sms(stat) as a share of all SMs' active cycles.
    double share(std::uint64_t (sm::sm::*stat)() const) const;

    const std::vector<std::unique_ptr<module_unit>>& m_modules;
    const host::driver& m_host;
};

} // namespace vgpu::platforms
