// Memory coalescer: turns one warp memory access into the fewest cache-line requests.
// Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#include "models/sm/core/coalescer.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vgpu::sm {

namespace {
bool is_pow2(unsigned v)
{
    return v != 0 && (v & (v - 1)) == 0;
}
} // namespace

coalescer::coalescer(unsigned line_bytes, unsigned access_bytes)
    : m_line_bytes(line_bytes), m_access_bytes(access_bytes)
{
    if (!is_pow2(line_bytes) || !is_pow2(access_bytes) || access_bytes > line_bytes)
        throw std::invalid_argument("coalescer: line_bytes (" + std::to_string(line_bytes) +
                                    ") and access_bytes (" + std::to_string(access_bytes) +
                                    ") must be powers of two with access_bytes <= line_bytes");
}

void coalescer::coalesce_into(std::uint32_t active, const std::uint32_t* lane_addr, result& r,
                              unsigned access_bytes) const
{
    r.count = 0;
    r.misaligned = 0;
    const std::uint32_t offset_mask = m_line_bytes - 1;
    unsigned last = 0; // neighbouring lanes usually share a line: try the last match first
    for (unsigned l = 0; l < lanes; ++l) {
        const std::uint32_t bit = 1u << l;
        if (!(active & bit))
            continue;
        const std::uint32_t a = lane_addr[l];
        if (a & (access_bytes - 1)) {
            r.misaligned |= bit;
            continue;
        }
        const std::uint64_t line = a & ~offset_mask;
        const unsigned off = a & offset_mask;
        if (r.count == 0 || r.requests[last].line_addr != line) {
            last = 0;
            while (last < r.count && r.requests[last].line_addr != line)
                ++last;
            if (last == r.count) {
                r.requests[r.count++] = request{line, bit, off, access_bytes};
                continue;
            }
        }
        request& q = r.requests[last];
        const unsigned end = std::max(q.offset + q.bytes, off + access_bytes);
        q.offset = std::min(q.offset, off);
        q.bytes = end - q.offset;
        q.lane_mask |= bit;
    }
}

} // namespace vgpu::sm
