// Native host driver: the schedule's program counter over phases and host loops. See
// docs/workloads.md ("Schedule") and models/host/README.md.
#include "models/host/driver.h"
#include "models/host/reference.h"

#include <cstring>

namespace vgpu::host {

std::optional<std::size_t> driver::next_phase(std::size_t p)
{
    const loop_decl* l = m_wl.loop_of(p);
    if (!l || p + 1 < l->first + l->count)
        return p + 1;
    ++m_pass; // a pass of the loop ended
    const std::string name = l->where.str() + ": schedule[" + std::to_string(l->entry) + "]";
    if (!l->until()) {
        if (m_pass < l->times)
            return l->first;
        m_pass = 0;
        return p + 1;
    }
    // Between passes the host reads the element, as a host program does with cudaMemcpy.
    const auto b = static_cast<std::size_t>(m_wl.buffer_index(l->buffer));
    const elem_type t = m_wl.buffers[b].type;
    const unsigned bytes = elem_bytes(t);
    std::uint8_t data[8] = {};
    if (!move_virtual(tlm::TLM_READ_COMMAND, m_plan.buffers[b].va + l->index * bytes, data, bytes))
        return std::nullopt;
    std::uint64_t got = 0;
    for (unsigned i = 0; i < bytes; ++i)
        got |= std::uint64_t{data[i]} << (8 * i);
    const std::uint64_t mask = bytes == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << 8 * bytes) - 1;
    const std::string element = l->buffer + "[" + std::to_string(l->index) + "]";
    if (got == (l->equals & mask)) {
        VGPU_INFO(m_log, "%s: %s equals %s after %llu pass(es)", name.c_str(), element.c_str(),
                  format_bits(got, t).c_str(), static_cast<unsigned long long>(m_pass));
        m_pass = 0;
        return p + 1;
    }
    if (m_pass < l->max)
        return l->first;
    fail(name + ": the loop stopped after its max of " + std::to_string(l->max) +
         " passes without its condition: " + element + " was " + format_bits(got, t) +
         " after the last pass, not " + format_bits(l->equals & mask, t));
    return std::nullopt;
}

} // namespace vgpu::host
