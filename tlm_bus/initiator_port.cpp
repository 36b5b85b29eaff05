// The one way models issue bus traffic. See docs/tlm-bus.md.
#include "tlm_bus/initiator_port.h"

#include <algorithm>
#include <cstring>

namespace vgpu::tlm_bus {

initiator_port::initiator_port(const char* name) : tlm::tlm_initiator_socket<>(name)
{
    bind(static_cast<tlm::tlm_bw_transport_if<>&>(*this));
}

const tlm::tlm_dmi* initiator_port::find_dmi(std::uint64_t addr, unsigned len,
                                             tlm::tlm_command cmd) const
{
    auto covers = [&](const tlm::tlm_dmi& d) {
        bool allowed = cmd == tlm::TLM_READ_COMMAND ? d.is_read_allowed() : d.is_write_allowed();
        return allowed && addr >= d.get_start_address() && addr + len - 1 <= d.get_end_address();
    };
    // Accesses cluster: try the region that served the previous access first.
    if (m_last_dmi < m_dmi.size() && covers(m_dmi[m_last_dmi]))
        return &m_dmi[m_last_dmi];
    for (std::size_t i = 0; i < m_dmi.size(); ++i)
        if (covers(m_dmi[i])) {
            m_last_dmi = i;
            return &m_dmi[i];
        }
    return nullptr;
}

tlm::tlm_response_status initiator_port::access(tlm::tlm_command cmd, std::uint64_t addr,
                                                void* data, unsigned len, sc_core::sc_time& delay,
                                                const gpu_extension* attrs,
                                                const std::uint8_t* byte_enable,
                                                std::shared_ptr<fault_wait>* fault)
{
    // An atomic must reach the target that executes it: never a DMI copy.
    if (m_dmi_enabled && len > 0 && !byte_enable &&
        !(attrs && attrs->kind == access_kind::atomic)) {
        if (const tlm::tlm_dmi* d = find_dmi(addr, len, cmd)) {
            std::uint8_t* p = d->get_dmi_ptr() + (addr - d->get_start_address());
            if (cmd == tlm::TLM_READ_COMMAND) {
                std::memcpy(data, p, len);
                delay += d->get_read_latency();
            } else {
                std::memcpy(p, data, len);
                delay += d->get_write_latency();
            }
            ++m_dmi_accesses;
            return tlm::TLM_OK_RESPONSE;
        }
    }
    pooled_payload* gp = m_pool.acquire();
    gp->set_command(cmd);
    gp->set_address(addr);
    gp->set_data_ptr(static_cast<unsigned char*>(data));
    gp->set_data_length(len);
    gp->set_streaming_width(len);
    if (byte_enable) {
        // The payload attribute is non-const, but targets only read byte enables.
        gp->set_byte_enable_ptr(const_cast<std::uint8_t*>(byte_enable));
        gp->set_byte_enable_length(len);
    }
    if (attrs)
        gp->ext = *attrs;
    (*this)->b_transport(*gp, delay);
    ++m_transactions;
    tlm::tlm_response_status status = gp->get_response_status();
    if (std::shared_ptr<fault_wait>& f = gp->ext.fault) {
        if (fault)
            *fault = std::move(f);
        f.reset(); // the pooled payload's extension outlives this access
    }
    if (m_dmi_enabled && gp->is_dmi_allowed() && status == tlm::TLM_OK_RESPONSE) {
        tlm::tlm_dmi dmi;
        gp->set_address(addr);
        if ((*this)->get_direct_mem_ptr(*gp, dmi))
            m_dmi.push_back(dmi);
    }
    gp->release();
    return status;
}

tlm::tlm_response_status initiator_port::access(tlm::tlm_command cmd, std::uint64_t addr,
                                                void* data, unsigned len,
                                                tlm_utils::tlm_quantumkeeper& qk,
                                                const gpu_extension* attrs)
{
    sc_core::sc_time delay = qk.get_local_time();
    tlm::tlm_response_status status = access(cmd, addr, data, len, delay, attrs);
    qk.set(delay);
    if (qk.need_sync())
        qk.sync();
    return status;
}

unsigned initiator_port::debug(tlm::tlm_command cmd, std::uint64_t addr, void* data, unsigned len,
                               const gpu_extension* attrs)
{
    // Debug accesses end within the call and come by the hundred thousand (the driver's
    // backdoor moves every line through here): one payload kept for them, set up afresh each
    // time, instead of a pool round trip. A debug access issued from inside another one on
    // this port (nothing does so today) takes a pooled payload.
    if (m_debug_busy) {
        pooled_payload* gp = m_pool.acquire();
        const unsigned n = run_debug(*gp, cmd, addr, data, len, attrs);
        gp->release();
        return n;
    }
    if (!m_debug)
        m_debug = m_pool.acquire(); // held for the port's life
    m_debug_busy = true;
    const unsigned n = run_debug(*m_debug, cmd, addr, data, len, attrs);
    m_debug_busy = false;
    return n;
}

unsigned initiator_port::run_debug(pooled_payload& gp, tlm::tlm_command cmd, std::uint64_t addr,
                                   void* data, unsigned len, const gpu_extension* attrs)
{
    // Every attribute a pooled payload starts with, so a target sees the same payload either way.
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_byte_enable_length(0);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    gp.ext = attrs ? *attrs : gpu_extension();
    return (*this)->transport_dbg(gp);
}

void initiator_port::set_dmi_enabled(bool on)
{
    m_dmi_enabled = on;
    if (!on)
        m_dmi.clear();
}

tlm::tlm_sync_enum initiator_port::nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                                   sc_core::sc_time&)
{
    SC_REPORT_ERROR("vgpu/initiator_port", "nb_transport_bw: this port uses b_transport only");
    return tlm::TLM_COMPLETED;
}

void initiator_port::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end)
{
    ++m_invalidations;
    m_dmi.erase(std::remove_if(m_dmi.begin(), m_dmi.end(),
                               [&](const tlm::tlm_dmi& d) {
                                   return d.get_start_address() <= end &&
                                          d.get_end_address() >= start;
                               }),
                m_dmi.end());
}

} // namespace vgpu::tlm_bus
