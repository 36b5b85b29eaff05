// Kernel printf's driver part. See models/host/printf_part.h.
#include "models/host/printf_part.h"

#include "models/sm/ptx/printf_format.h"

#include <algorithm>
#include <cstring>

namespace vgpu::host {

namespace {

std::uint32_t word_at(const std::vector<std::uint8_t>& b, std::uint64_t at)
{
    std::uint32_t w = 0;
    std::memcpy(&w, b.data() + at, 4);
    return w;
}

} // namespace

printf_part::printf_part(part_host& host) : m_host(host)
{
    m_stats.push_back(
        std::make_unique<stats::formula>(host.stats(), "printf.records", "count",
                                         "kernel printf records formatted into OUTDIR/console.txt",
                                         [this] { return static_cast<double>(m_records); }));
    m_stats.push_back(std::make_unique<stats::formula>(
        host.stats(), "printf.dropped", "count",
        "kernel printf records dropped because the printf FIFO (host.printf_buffer_bytes) was "
        "full",
        [this] { return static_cast<double>(m_dropped); }));
}

bool printf_part::reset(std::size_t ki, std::uint64_t used)
{
    const kernel_decl& k = m_host.work().kernels[ki];
    const int b = m_host.work().buffer_index(k.printf_buffer);
    const region& r = m_host.memory().buffers[static_cast<std::size_t>(b)];
    const std::uint64_t cap =
        m_host.work().buffers[static_cast<std::size_t>(b)].bytes() - ptx::printf_header_bytes;
    std::vector<std::uint8_t> data(ptx::printf_header_bytes + used, 0);
    const auto c = static_cast<std::uint32_t>(cap);
    std::memcpy(data.data() + 8, &c, 4);
    return m_host.move_virtual(tlm::TLM_WRITE_COMMAND, r.va, data.data(), data.size());
}

bool printf_part::set_up()
{
    for (std::size_t ki = 0; ki < m_host.work().kernels.size(); ++ki)
        if (!m_host.work().kernels[ki].printf_formats.empty() && !reset(ki, 0))
            return false;
    return true;
}

bool printf_part::after_phase(unsigned p)
{
    for (const std::size_t ki : m_host.work().schedule[p]) {
        const kernel_decl& k = m_host.work().kernels[ki];
        if (k.printf_formats.empty())
            continue;
        const int b = m_host.work().buffer_index(k.printf_buffer);
        const std::uint64_t va = m_host.memory().buffers[static_cast<std::size_t>(b)].va;
        std::vector<std::uint8_t> head(ptx::printf_header_bytes);
        if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, va, head.data(), head.size()))
            return false;
        const std::uint64_t cursor = word_at(head, 0), dropped = word_at(head, 4),
                            cap = word_at(head, 8);
        const std::uint64_t used = std::min(cursor, cap);
        std::vector<std::uint8_t> data(used);
        if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, va + ptx::printf_header_bytes, data.data(),
                                 used))
            return false;
        // Records in reservation order; each starts with its format's id + 1. Those reserved
        // after the first that did not fit were dropped too: the data ends at a zero word.
        for (std::uint64_t at = 0; at + 4 <= used;) {
            const std::uint32_t id = word_at(data, at);
            if (id == 0)
                break;
            if (id > k.printf_formats.size()) {
                m_host.fail("kernel '" + k.name +
                            "': its printf FIFO holds a record with an "
                            "unknown format id " +
                            std::to_string(id - 1) + " at byte " + std::to_string(at));
                return false;
            }
            const ptx::printf_format& f = k.printf_formats[id - 1];
            if (at + f.record_bytes() > used)
                break;
            m_console += ptx::format_printf_record(f, data.data() + at + 4);
            ++m_records;
            at += f.record_bytes();
        }
        if (dropped != 0) {
            m_dropped += dropped;
            const std::string w = "kernel '" + k.name + "': " + std::to_string(dropped) +
                                  " printf records dropped: its printf FIFO of " +
                                  std::to_string(cap) +
                                  " bytes (host.printf_buffer_bytes) was full";
            VGPU_WARN(m_host.log(), "%s", w.c_str());
            m_warnings.push_back(w);
        }
        if (!reset(ki, used)) // empty for the kernel's next launch
            return false;
    }
    return true;
}

void printf_part::files(output_files& out) const
{
    if (m_console.empty() && m_records == 0)
        return;
    std::vector<std::uint8_t>& f = out["console.txt"];
    f.insert(f.end(), m_console.begin(), m_console.end());
}

} // namespace vgpu::host
