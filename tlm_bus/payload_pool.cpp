// Memory manager: pooled generic payloads. See docs/tlm-bus.md.
#include "tlm_bus/payload_pool.h"

namespace vgpu::tlm_bus {

payload_pool::~payload_pool()
{
    // Payloads still referenced elsewhere would dangle; a pool outlives its transactions.
    for (auto& gp : m_all)
        gp->free_all_extensions();
}

tlm::tlm_generic_payload* payload_pool::acquire()
{
    tlm::tlm_generic_payload* gp;
    if (m_free.empty()) {
        m_all.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
        gp = m_all.back().get();
        gp->set_extension(new gpu_extension);
    } else {
        gp = m_free.back();
        m_free.pop_back();
    }
    gp->acquire();
    return gp;
}

void payload_pool::free(tlm::tlm_generic_payload* gp)
{
    gp->set_command(tlm::TLM_IGNORE_COMMAND);
    gp->set_address(0);
    gp->set_data_ptr(nullptr);
    gp->set_data_length(0);
    gp->set_streaming_width(0);
    gp->set_byte_enable_ptr(nullptr);
    gp->set_byte_enable_length(0);
    gp->set_dmi_allowed(false);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    *gp->get_extension<gpu_extension>() = gpu_extension();
    m_free.push_back(gp);
}

} // namespace vgpu::tlm_bus
