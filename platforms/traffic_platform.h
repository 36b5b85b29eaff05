// The traffic platform: self-checking generators -> router -> one memory per module.
// See docs/architecture.md.
#pragma once

#include "models/common/stats.h"
#include "models/traffic/traffic_gen.h"
#include "platforms/link_checks.h"
#include "platforms/platform.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/router.h"

#include <memory>
#include <vector>

namespace vgpu::platforms {

/// Generators and memories joined by a router; the bench of the bus itself.
class traffic_platform : public sc_core::sc_module, public platform {
public:
    traffic_platform(const sc_core::sc_module_name& name, const vgpu_config& cfg);
    bool finished() const override;
    std::vector<std::string> failures() const override;
    void summary(std::ostream& os) const override;
    std::string progress() const override;

private:
    /// The links' checkers' statistics, once every link is bound (link_checks).
    void end_of_elaboration() override { m_link_checks.end_of_elaboration(); }

    /// Every link is bound through it (platform.check_protocol); declared first, so that its
    /// checkers outlive every module they are bound to.
    link_checks m_link_checks;
    const vgpu_config m_cfg;
    std::vector<std::unique_ptr<traffic::traffic_gen>> m_gens;
    tlm_bus::router m_bus;
    std::vector<std::unique_ptr<tlm_bus::memory>> m_mems;
    std::vector<std::unique_ptr<stats::group>> m_mem_stats;
    std::vector<std::unique_ptr<stats::stat>> m_mem_formulas;
};

} // namespace vgpu::platforms
