// The platform's links (platform.check_protocol): the binder every link is bound through, its
// protocol checkers' statistics and summary line. See docs/protocol-checker.md ("In the platform").
#pragma once

#include "models/common/stats.h"
#include "tlm_bus/link_binder.h"

#include <memory>
#include <ostream>
#include <vector>

namespace vgpu::platforms {

/// Owned by a platform: bind its links through binder() while a tlm_bus::link_binder::scope of
/// it lives; off, it adds nothing to the platform.
class link_checks {
public:
    /// `check`: platform.check_protocol.
    explicit link_checks(bool check) : m_binder(check) {}
    tlm_bus::link_binder& binder() { return m_binder; } ///< the platform's link seam
    /// Once every link is bound (the platform's end_of_elaboration): adds each checker's
    /// `<checker>.calls` and `<checker>.violations`, and reports an error (the run fails) naming
    /// every initiator socket bound around the seam, whose link would go unchecked.
    void end_of_elaboration();
    /// "  protocol checks: N links, C calls, V violations" when checking, else nothing.
    void summary(std::ostream& os) const;

private:
    tlm_bus::link_binder m_binder;
    std::vector<std::unique_ptr<stats::group>> m_groups;
    std::vector<std::unique_ptr<stats::stat>> m_stats;
};

} // namespace vgpu::platforms
