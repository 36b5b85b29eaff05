// The verilated arbiter behind a NoC port (noc.arbiter_impl rtl). See port_arbiter.h.
#include "models/noc/rtl/port_arbiter.h"

#include "Vnoc_arbiter.h"
#include "models/noc/noc_config.h"
#include "models/noc/rtl/rtl_arbiter.h"

#include <stdexcept>

namespace vgpu::noc {

namespace {
using rtl = verilated_arbiter<Vnoc_arbiter>;
static_assert(rtl::max_inputs == rtl_arbiter_max_inputs && rtl::max_age == rtl_arbiter_max_wait,
              "noc_config.h's limits of noc.arbiter_impl rtl are the verilated RTL's");

/// The adapter, and a check of the RTL's assertions after every grant (the adapter reports a
/// failed one through assertion_failed(); in the platform it ends the run).
class checked_rtl_arbiter final : public arbiter {
public:
    checked_rtl_arbiter(const std::string& port, arbiter_kind kind, unsigned inputs,
                        std::uint64_t max_wait_cycles)
        : arbiter(inputs), m_port(port),
          // Ageing is barrier_aware's; round_robin's RTL ignores max_wait.
          m_rtl(inputs, kind, kind == arbiter_kind::barrier_aware ? max_wait_cycles : 0)
    {
    }

protected:
    int choose(const candidate* cands) override
    {
        const int g = m_rtl.grant(cands, inputs());
        set_reason(m_rtl.last_reason());
        if (m_rtl.assertion_failed())
            throw std::logic_error(m_port + ": an assertion of the RTL arbiter failed (its "
                                            "message is above)");
        return g;
    }

private:
    std::string m_port;
    rtl m_rtl;
};
} // namespace

std::unique_ptr<arbiter> make_rtl_arbiter(const std::string& port, arbiter_kind kind,
                                          unsigned inputs, std::uint64_t max_wait_cycles)
{
    return std::make_unique<checked_rtl_arbiter>(port, kind, inputs, max_wait_cycles);
}

} // namespace vgpu::noc
