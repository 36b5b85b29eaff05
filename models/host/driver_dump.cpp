// The driver's buffer dumps (host.dump_buffers): the contents of buffers after the run, written
// by the simulator to OUTDIR/buffers/<name>.bin. See docs/outputs.md ("Buffer dumps").
#include "models/host/driver.h"

#include <algorithm>
#include <vector>

namespace vgpu::host {

void driver::dump_buffers()
{
    if (m_cfg.dump_buffers == dump_kind::none || !m_loaded)
        return; // nothing asked, or no buffer was ever written (the run failed before)
    std::vector<bool> wanted(m_wl.buffers.size(), m_cfg.dump_buffers == dump_kind::all);
    for (const check_decl& c : m_wl.checks)
        if (const int b = m_wl.buffer_index(c.buffer); b >= 0)
            wanted[static_cast<std::size_t>(b)] = true;
    for (std::size_t b = 0; b < m_wl.buffers.size(); ++b) {
        if (!wanted[b])
            continue;
        const buffer_decl& d = m_wl.buffers[b];
        std::vector<std::uint8_t> bytes(d.bytes());
        std::vector<transfer_piece> pieces;
        // The debug transport, whatever host.load: a dump neither takes simulated time nor
        // counts as a read, so that asking for one changes no other output.
        if (!pieces_virtual(m_plan.buffers[b].va, bytes.data(), d.bytes(), pieces))
            continue;
        bool ok = true;
        for (const transfer_piece& p : pieces)
            if (dma.debug(tlm::TLM_READ_COMMAND, p.pa, p.data, p.len) != p.len) {
                fail("dump of buffer '" + d.name + "': no memory answered for " +
                     std::to_string(p.len) + " bytes at physical " + hex(p.pa));
                ok = false;
                break;
            }
        if (ok)
            m_dumps["buffers/" + d.name + ".bin"] = std::move(bytes);
    }
}

sm::source_profile profile_of(const workload& wl, const memory_plan& plan)
{
    sm::source_profile p;
    for (std::size_t k = 0; k < wl.kernels.size() && k < plan.programs.size(); ++k) {
        const kernel_decl& d = wl.kernels[k];
        const bool mapped = std::any_of(d.cuda_lines.begin(), d.cuda_lines.end(),
                                        [](const std::string& l) { return !l.empty(); });
        if (d.translated() && mapped)
            p.add_program(plan.programs[k].va, d.code.size());
    }
    return p;
}

void driver::add_source_profile(output_files& out) const
{
    std::vector<sm::profiled_kernel> kernels;
    for (std::size_t k = 0; k < m_wl.kernels.size() && k < m_plan.programs.size(); ++k)
        if (const auto* c = m_profile.counters(m_plan.programs[k].va))
            kernels.push_back({m_wl.kernels[k].name, &m_wl.kernels[k].cuda_lines, c});
    if (kernels.empty())
        return;
    const std::string csv = sm::source_profile_csv(kernels);
    out["source_profile.csv"] = std::vector<std::uint8_t>(csv.begin(), csv.end());
}

} // namespace vgpu::host
