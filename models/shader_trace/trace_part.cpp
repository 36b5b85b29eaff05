// The shader-trace unit's driver part. See models/shader_trace/trace_part.h.
#include "models/shader_trace/trace_part.h"

#include "models/shader_trace/core/image.h"
#include "models/shader_trace/trace_regs.h"

#include <cmath>

namespace vgpu::shader_trace {

using host::hex;
using host::output_files;
using host::part_host;
using host::transfer_piece;

trace_part::trace_part(part_host& host, const trace_facts& facts) : m_host(host), m_facts(facts) {}

bool trace_part::set_up()
{
    namespace r = shader_trace::trace_reg;
    const std::uint64_t bytes = m_facts.region_bytes;
    // Physically contiguous on module 0, after everything the workload placed there.
    if (m_host.placer().next(0) + bytes > m_host.facts().dram_bytes) {
        m_host.fail(
            "the shader-trace region (shader_trace.region_bytes = " + std::to_string(bytes) +
            " bytes) does not fit in module 0's DRAM after the workload's memory (" +
            std::to_string(m_host.placer().next(0)) + " of " +
            std::to_string(m_host.facts().dram_bytes) + " bytes used)");
        return false;
    }
    m_pa = m_host.placer().reserve(0, bytes);
    const auto w = [&](std::uint64_t off, std::uint32_t v) {
        return m_host.mmio_write(m_facts.base + off, v, m_host.qk(), "shader-trace");
    };
    const auto watermark =
        static_cast<std::uint64_t>(std::floor(m_facts.watermark * static_cast<double>(bytes)));
    VGPU_INFO(m_host.log(), "shader trace: %llu-byte region at physical %s",
              static_cast<unsigned long long>(bytes), hex(m_pa).c_str());
    return w(r::BASE_LO, static_cast<std::uint32_t>(m_pa)) &&
           w(r::BASE_HI, static_cast<std::uint32_t>(m_pa >> 32)) &&
           w(r::SIZE, static_cast<std::uint32_t>(bytes)) && w(r::MODE, m_facts.wrap ? 1 : 0) &&
           w(r::WATERMARK, static_cast<std::uint32_t>(watermark)) && w(r::ENABLE, 1);
}

bool trace_part::after_run()
{
    namespace r = shader_trace::trace_reg;
    namespace st = shader_trace::trace_status;
    bool ok = true;
    const auto rd = [&](std::uint64_t off) {
        return m_host.mmio_read(m_facts.base + off, m_host.qk(), "shader-trace", &ok);
    };
    const auto w = [&](std::uint64_t off, std::uint32_t v) {
        return m_host.mmio_write(m_facts.base + off, v, m_host.qk(), "shader-trace");
    };
    // Flush the partial groups, then poll until the buffer is drained into memory.
    if (!w(r::FLUSH, 1))
        return false;
    const sc_core::sc_time poll(100, sc_core::SC_NS);
    const sc_core::sc_time deadline =
        m_host.now() + sc_core::sc_time::from_value(m_host.config().kernel_timeout.ps);
    std::uint32_t status = rd(r::STATUS);
    while (ok && !(status & st::IDLE)) {
        if (m_host.now() > deadline) {
            m_host.fail(
                "the shader-trace unit did not drain within host.kernel_timeout after FLUSH");
            return false;
        }
        m_host.qk().inc(poll);
        m_host.qk().sync();
        status = rd(r::STATUS);
    }
    shader_trace::image im;
    im.tokens_per_group = rd(r::GROUP_TOKENS);
    im.cycle_ps = rd(r::CLOCK_PS);
    const std::uint32_t sources = rd(r::SOURCES);
    for (std::uint32_t s = 0; ok && s < sources; ++s) {
        if (!w(r::SRC_SEL, s))
            return false;
        const std::uint32_t info = rd(r::SRC_INFO);
        shader_trace::source_info si;
        si.kind = static_cast<shader_trace::source_kind>(info & 0xff);
        si.sm = info >> 8;
        si.dropped_tokens = rd(r::DROPPED_LO) | std::uint64_t{rd(r::DROPPED_HI)} << 32;
        im.sources.push_back(si);
    }
    const std::uint64_t size = m_facts.region_bytes;
    const std::uint64_t wptr = rd(r::WPTR);
    if (!ok)
        return false;
    // Oldest group first: from BASE, or from WPTR once the region has wrapped.
    std::vector<std::uint8_t> bytes(status & st::WRAPPED ? size : wptr);
    std::vector<transfer_piece> pieces;
    if (status & st::WRAPPED) {
        m_host.pieces_physical(m_pa + wptr, bytes.data(), size - wptr, pieces);
        m_host.pieces_physical(m_pa, bytes.data() + (size - wptr), wptr, pieces);
    } else {
        m_host.pieces_physical(m_pa, bytes.data(), wptr, pieces);
    }
    if (!m_host.transfer(tlm::TLM_READ_COMMAND, pieces))
        return false;
    im.tokens.resize(bytes.size() / 8);
    for (std::size_t i = 0; i < im.tokens.size(); ++i)
        for (unsigned b = 0; b < 8; ++b)
            im.tokens[i] |= std::uint64_t{bytes[8 * i + b]} << (8 * b);
    m_image = shader_trace::encode_image(im);
    VGPU_INFO(m_host.log(), "shader trace: %zu tokens from %u sources%s", im.tokens.size(), sources,
              status & st::FULL ? " (the region filled up: later groups were dropped)" : "");
    return true;
}

void trace_part::files(output_files& out) const
{
    out["shader_trace.bin"] = m_image;
}

} // namespace vgpu::shader_trace
