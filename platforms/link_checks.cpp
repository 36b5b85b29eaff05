// The platform's links: checkers' statistics, the check that every link has one, the summary
// line. See docs/protocol-checker.md ("In the platform").
#include "platforms/link_checks.h"

#include <string>

namespace vgpu::platforms {

void link_checks::end_of_elaboration()
{
    if (!m_binder.checking())
        return;
    for (const auto& c : m_binder.checkers()) {
        const tlm_bus::protocol_checker* checker = c.get();
        m_groups.push_back(std::make_unique<stats::group>(checker->name()));
        m_stats.push_back(std::make_unique<stats::formula>(
            *m_groups.back(), "calls", "count",
            "interface calls the link's protocol checker checked (b_transport, debug, DMI, "
            "invalidations)",
            [checker] { return static_cast<double>(checker->calls()); }));
        m_stats.push_back(std::make_unique<stats::formula>(
            *m_groups.back(), "violations", "count",
            "TLM-2.0 base-protocol violations the link's checker found (the first fails the run)",
            [checker] { return static_cast<double>(checker->violations()); }));
    }
    const std::vector<std::string> unchecked = m_binder.unchecked_links();
    if (unchecked.empty())
        return;
    std::string list;
    for (const auto& s : unchecked)
        list += (list.empty() ? "" : ", ") + s;
    SC_REPORT_ERROR(tlm_bus::protocol_checker_msg_type,
                    ("platform.check_protocol: links bound without tlm_bus::bind_link, so without "
                     "a checker, from: " +
                     list)
                        .c_str());
}

void link_checks::summary(std::ostream& os) const
{
    if (!m_binder.checking())
        return;
    os << "  protocol checks: " << m_binder.checkers().size() << " links, " << m_binder.calls()
       << " calls, " << m_binder.violations() << " violations\n";
}

} // namespace vgpu::platforms
