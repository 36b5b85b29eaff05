// Address patterns for traffic generators. See models/traffic/README.md.
#include "models/traffic/core/pattern.h"

#include <algorithm>

namespace vgpu::traffic {

pattern_generator::pattern_generator(const pattern_params& p) : m_p(p), m_rng(p.seed) {}

access pattern_generator::next()
{
    const std::uint64_t slots = m_p.footprint / m_p.access_bytes;
    std::uint64_t offset;
    switch (m_p.kind) {
    case pattern_kind::linear:
        offset = m_offset;
        m_offset = (m_offset + m_p.access_bytes) % (slots * m_p.access_bytes);
        break;
    case pattern_kind::strided: {
        // Walk the region with the stride; after each pass shift by one access so that every
        // word of the region is eventually visited. The lanes of a pass are the first
        // min(stride, region) bytes: a stride longer than the region makes one access per
        // pass, and the next address is compared without forming offset + stride, which can
        // wrap for a huge stride.
        const std::uint64_t region = slots * m_p.access_bytes;
        offset = m_offset + m_lane;
        if (m_p.stride < region - offset) {
            m_offset += m_p.stride;
        } else {
            m_offset = 0;
            m_lane = (m_lane + m_p.access_bytes) % std::min(m_p.stride, region);
        }
        break;
    }
    case pattern_kind::random:
    default:
        offset = (m_rng() % slots) * m_p.access_bytes;
        break;
    }
    // Writes are decided by a separate draw so the address stream does not depend on the ratio.
    bool write = static_cast<double>(m_rng() >> 11) * 0x1.0p-53 < m_p.write_ratio;
    return {m_p.base + offset, write};
}

} // namespace vgpu::traffic
