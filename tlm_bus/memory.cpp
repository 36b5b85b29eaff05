// Memory target. See docs/tlm-bus.md.
#include "tlm_bus/memory.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/gpu_extension.h"

#include <algorithm>
#include <cstring>

namespace vgpu::tlm_bus {

memory::memory(const sc_core::sc_module_name& name, const memory_params& p)
    : sc_module(name), in("in"), m_params(p)
{
    in.register_b_transport(this, &memory::b_transport);
    in.register_transport_dbg(this, &memory::transport_dbg);
    in.register_get_direct_mem_ptr(this, &memory::get_direct_mem_ptr);
}

bool memory::check(tlm::tlm_generic_payload& gp)
{
    std::uint64_t addr = gp.get_address();
    unsigned len = gp.get_data_length();
    if (addr >= m_params.size || len > m_params.size - addr) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    } else if (gp.get_streaming_width() < len) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    } else if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    } else {
        return true;
    }
    ++m_errors;
    return false;
}

void memory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!check(gp))
        return;
    unsigned len = gp.get_data_length();
    unsigned char* data = gp.get_data_ptr();
    const auto* ext = gp.get_extension<gpu_extension>();
    if (ext && ext->kind == access_kind::atomic && gp.is_write() &&
        atomic_size_ok(gp.get_address(), len) && !gp.get_byte_enable_ptr()) {
        // An ATOM/CAS that reaches memory without an LLC: the memory is its point of coherence.
        std::uint8_t word[8] = {};
        m_store.read(gp.get_address(), word, len);
        atomic_apply_bytes(ext->atomic, len, word, data, ext->swap);
        m_store.write(gp.get_address(), word, len);
    } else
        for_each_run(len, gp.get_byte_enable_ptr(), gp.get_byte_enable_length(), 0,
                     [&](unsigned off, unsigned n) {
                         if (gp.is_read())
                             m_store.read(gp.get_address() + off, data + off, n);
                         else if (gp.is_write())
                             m_store.write(gp.get_address() + off, data + off, n);
                     });
    m_reads += gp.is_read();
    m_writes += gp.is_write();
    if (!gp.is_read() && !gp.is_write()) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    m_bytes += len;
    sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    sc_core::sc_time transfer(static_cast<double>(len) / m_params.bytes_per_ns, sc_core::SC_NS);
    const auto b =
        m_port.reserve(arrival.value(), transfer.value(), sc_core::sc_time_stamp().value());
    const sc_core::sc_time finish = sc_core::sc_time::from_value(b.finish);
    m_queue += finish - arrival - transfer;
    delay += (finish - arrival) + m_params.latency;
    gp.set_dmi_allowed(m_params.dmi);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned memory::transport_dbg(tlm::tlm_generic_payload& gp)
{
    std::uint64_t addr = gp.get_address();
    if (addr >= m_params.size)
        return 0;
    auto len =
        static_cast<unsigned>(std::min<std::uint64_t>(gp.get_data_length(), m_params.size - addr));
    if (gp.is_read())
        m_store.read(addr, gp.get_data_ptr(), len);
    else if (gp.is_write())
        m_store.write(addr, gp.get_data_ptr(), len);
    else
        return 0;
    return len;
}

bool memory::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
{
    std::uint64_t addr = gp.get_address();
    if (!m_params.dmi || addr >= m_params.size) {
        // Deny with the largest range we know nothing is granted in: the single address.
        dmi.set_start_address(addr);
        dmi.set_end_address(addr);
        return false;
    }
    std::uint64_t start = addr - addr % sparse_store::page_bytes;
    std::uint64_t end = std::min(start + sparse_store::page_bytes, m_params.size) - 1;
    dmi.set_dmi_ptr(m_store.page(addr));
    dmi.set_start_address(start);
    dmi.set_end_address(end);
    dmi.allow_read_write();
    dmi.set_read_latency(m_params.latency);
    dmi.set_write_latency(m_params.latency);
    ++m_dmi_grants;
    return true;
}

void memory::invalidate_dmi()
{
    in->invalidate_direct_mem_ptr(0, m_params.size - 1);
}

} // namespace vgpu::tlm_bus
