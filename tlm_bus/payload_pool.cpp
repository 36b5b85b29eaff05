// Memory manager: pooled generic payloads. See docs/tlm-bus.md.
#include "tlm_bus/payload_pool.h"

namespace vgpu::tlm_bus {

pooled_payload* payload_pool::acquire()
{
    pooled_payload* gp;
    if (m_free.empty()) {
        m_all.push_back(std::make_unique<pooled_payload>(this));
        gp = m_all.back().get();
    } else {
        gp = m_free.back();
        m_free.pop_back();
    }
    gp->acquire();
    return gp;
}

void payload_pool::free(tlm::tlm_generic_payload* gp)
{
    // Only this pool's payloads name it as their memory manager.
    auto* p = static_cast<pooled_payload*>(gp);
    p->set_command(tlm::TLM_IGNORE_COMMAND);
    p->set_address(0);
    p->set_data_ptr(nullptr);
    p->set_data_length(0);
    p->set_streaming_width(0);
    p->set_byte_enable_ptr(nullptr);
    p->set_byte_enable_length(0);
    p->set_dmi_allowed(false);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p->ext = gpu_extension();
    m_free.push_back(p);
}

} // namespace vgpu::tlm_bus
