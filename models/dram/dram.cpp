// DRAM controller of one module. See models/dram/README.md.
#include "models/dram/dram.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vgpu::dram {
namespace {
dram_timing timing_of(const dram_config& c)
{
    dram_timing t;
    t.tRCD = c.tRCD.ps;
    t.tCL = c.tCL.ps;
    t.tRP = c.tRP.ps;
    t.tRAS = c.tRAS.ps;
    t.tBURST = c.tBURST.ps;
    t.bandwidth_gbps = c.bandwidth_gbps;
    return t;
}

address_mapping mapping_of(const char* name, const dram_config& c, unsigned line_bytes)
{
    try {
        return address_mapping(c.channels, c.banks, c.row_bytes.bytes, line_bytes);
    } catch (const std::invalid_argument& e) {
        SC_REPORT_ERROR("vgpu/dram", (std::string(name) + ": " + e.what()).c_str());
        throw;
    }
}
} // namespace

dram::dram(const sc_core::sc_module_name& name, const dram_config& cfg, const clock_params& clk,
           std::uint64_t base, unsigned line_bytes)
    : sc_module(name), in("in"), m_cfg(cfg), m_clk(clk), m_base(base), m_timing(timing_of(cfg)),
      m_map(mapping_of(this->name(), cfg, line_bytes)),
      m_dmi_latency(
          tlm_bus::ps_time(cfg.latency.ps + cfg.tRCD.ps + cfg.tCL.ps + m_timing.transfer_ps(1))),
      m_log(this->name()), m_stats(this->name()),
      m_reads(m_stats, "reads", "count", "read transactions"),
      m_writes(m_stats, "writes", "count", "write transactions"),
      m_bytes_read(m_stats, "bytes_read", "bytes", "bytes read by b_transport"),
      m_bytes_written(m_stats, "bytes_written", "bytes",
                      "bytes transferred by writes (disabled byte-enable holes included)"),
      m_errors(m_stats, "errors", "count", "transactions answered with an error response"),
      m_dmi_grants(m_stats, "dmi_grants", "count", "DMI pointers handed out"),
      m_utilisation(
          m_stats, "bandwidth_utilisation", "ratio",
          "bytes moved by b_transport / (peak bandwidth of all channels x simulated time)", [this] {
              double ns = tlm_bus::sim_now().to_seconds() * 1e9;
              double peak = m_cfg.bandwidth_gbps * m_cfg.channels * ns;
              double moved = static_cast<double>(m_bytes_read.value() + m_bytes_written.value());
              return peak > 0 ? moved / peak : 0.0;
          })
{
    if (!(m_cfg.bandwidth_gbps > 0) || m_cfg.queue_entries == 0)
        SC_REPORT_ERROR(
            "vgpu/dram",
            (std::string(this->name()) + ": needs a positive bandwidth and a queue entry").c_str());
    for (unsigned c = 0; c < m_cfg.channels; ++c)
        m_channels.push_back(std::make_unique<dram_channel>(
            ("ch" + std::to_string(c)).c_str(), m_timing, m_cfg.banks, m_cfg.queue_entries,
            m_cfg.latency.ps, m_clk));
    in.register_b_transport(this, &dram::b_transport);
    in.register_transport_dbg(this, &dram::transport_dbg);
    in.register_get_direct_mem_ptr(this, &dram::get_direct_mem_ptr);
    for (unsigned c = 0; c < m_cfg.channels; ++c) {
        m_busy.push_back(std::make_unique<noc::occupancy_probe>(
            ("ch" + std::to_string(c) + "_busy").c_str(), true));
        m_channels[c]->set_busy_probe(m_busy.back().get());
    }
}

void dram::trace(sc_core::sc_trace_file* tf) const
{
    for (const auto& p : m_busy)
        p->trace(tf);
}

bool dram::check(tlm::tlm_generic_payload& gp)
{
    const std::uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    const std::uint64_t size = m_cfg.size.bytes;
    if (addr < m_base || addr - m_base >= size || len > size - (addr - m_base)) {
        VGPU_WARN(m_log, "access of %u bytes at 0x%llx is outside the module's memory", len,
                  static_cast<unsigned long long>(addr));
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    } else if (gp.get_streaming_width() < len) {
        VGPU_WARN(m_log, "streaming access at 0x%llx is not supported",
                  static_cast<unsigned long long>(addr));
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    } else if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
        VGPU_WARN(m_log, "byte-enable pointer with zero length at 0x%llx",
                  static_cast<unsigned long long>(addr));
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    } else {
        return true;
    }
    ++m_errors;
    return false;
}

void dram::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!check(gp))
        return;
    if (!gp.is_read() && !gp.is_write()) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const std::uint64_t offset = gp.get_address() - m_base;
    const unsigned len = gp.get_data_length();
    unsigned char* data = gp.get_data_ptr();
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned be_len = gp.get_byte_enable_length();
    // Data moves before any wait of accurate mode, so the store always holds the result of the
    // transactions in the order they reached the controller. Fast mode never waits: the data
    // moves after the timing, which has the host fetch the store's lines meanwhile.
    auto move_data = [&] {
        if (gp.is_read()) {
            tlm_bus::for_each_run(len, be, be_len, 0, [&](unsigned off, unsigned n) {
                m_store.read(offset + off, data + off, n);
            });
            ++m_reads;
            m_bytes_read += len;
        } else {
            tlm_bus::for_each_run(len, be, be_len, 0, [&](unsigned off, unsigned n) {
                m_store.write(offset + off, data + off, n);
            });
            ++m_writes;
            m_bytes_written += len;
        }
    };
    // The channel, bank and row of the first byte time the whole access.
    const dram_address a = m_map.decode(offset);
    if (m_clk.accurate) {
        move_data();
        m_channels[a.channel]->access(a.bank, a.row, len, gp.is_write(), delay);
    } else {
        m_store.prefetch(offset, len);
        m_channels[a.channel]->access(a.bank, a.row, len, gp.is_write(), delay);
        move_data();
    }
    gp.set_dmi_allowed(dmi_active());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned dram::transport_dbg(int, tlm::tlm_generic_payload& gp)
{
    const std::uint64_t addr = gp.get_address();
    const std::uint64_t size = m_cfg.size.bytes;
    if (addr < m_base || addr - m_base >= size)
        return 0;
    const std::uint64_t offset = addr - m_base;
    const auto len =
        static_cast<unsigned>(std::min<std::uint64_t>(gp.get_data_length(), size - offset));
    if (gp.is_read())
        m_store.read(offset, gp.get_data_ptr(), len);
    else if (gp.is_write())
        m_store.write(offset, gp.get_data_ptr(), len);
    else
        return 0;
    return len;
}

bool dram::get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
{
    const std::uint64_t addr = gp.get_address();
    const std::uint64_t size = m_cfg.size.bytes;
    if (!dmi_active() || addr < m_base || addr - m_base >= size) {
        dmi.set_start_address(addr);
        dmi.set_end_address(addr);
        return false;
    }
    // One backing-store page per grant: pages are the store's unit of contiguity.
    const std::uint64_t offset = addr - m_base;
    const std::uint64_t start = offset - offset % tlm_bus::sparse_store::page_bytes;
    const std::uint64_t end = std::min(start + tlm_bus::sparse_store::page_bytes, size) - 1;
    dmi.set_dmi_ptr(m_store.page(offset));
    dmi.set_start_address(m_base + start);
    dmi.set_end_address(m_base + end);
    dmi.allow_read_write();
    dmi.set_read_latency(m_dmi_latency);
    dmi.set_write_latency(sc_core::SC_ZERO_TIME); // posted, as through b_transport
    ++m_dmi_grants;
    return true;
}

void dram::invalidate_dmi()
{
    for (unsigned i = 0; i < in.size(); ++i)
        in[i]->invalidate_direct_mem_ptr(m_base, m_base + m_cfg.size.bytes - 1);
}

} // namespace vgpu::dram
