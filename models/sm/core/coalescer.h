// Memory coalescer: turns one warp memory access into the fewest cache-line requests.
// Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include <array>
#include <cstdint>

namespace vgpu::sm {

/// Groups the active lanes of a 32-lane warp access by cache line.
class coalescer {
public:
    static constexpr unsigned lanes = 32; ///< lanes per warp

    /// One cache-line request serving one or more lanes.
    struct request {
        std::uint64_t line_addr = 0; ///< address of the line
        std::uint32_t lane_mask = 0; ///< lanes it serves (bit l = lane l)
        unsigned offset = 0;         ///< lowest byte offset accessed within the line
        unsigned bytes = 0;          ///< bytes from offset to the end of the highest access
    };

    /// The requests of one access, in order of first appearance by lane index.
    /// The count comes first: an access of one line touches a single host cache line of it.
    struct result {
        unsigned count = 0;                  ///< number of requests
        std::uint32_t misaligned = 0;        ///< active lanes not aligned to the access size
                                             ///< (left out of the requests: a guest fault)
        std::array<request, lanes> requests; ///< requests[0..count) are used
        const request* begin() const { return requests.data(); }       ///< first request
        const request* end() const { return requests.data() + count; } ///< past the last
        unsigned size() const { return count; }                        ///< number of requests
    };

    /// line_bytes and access_bytes powers of two, access_bytes <= line_bytes.
    explicit coalescer(unsigned line_bytes, unsigned access_bytes = 4);

    unsigned line_bytes() const { return m_line_bytes; }     ///< bytes per cache line
    unsigned access_bytes() const { return m_access_bytes; } ///< bytes accessed per lane

    /// Coalesces the lanes set in active; lane_addr[l] is lane l's byte address (32 entries).
    result coalesce(std::uint32_t active, const std::uint32_t* lane_addr) const
    {
        result r;
        coalesce_into(active, lane_addr, r);
        return r;
    }
    /// As above, into r: writes r.count, r.misaligned and r.requests[0..count) only (an SM's
    /// memory instruction entries are many and cold in the host's caches; the other entries
    /// stay as they were).
    void coalesce_into(std::uint32_t active, const std::uint32_t* lane_addr, result& r) const
    {
        coalesce_into(active, lane_addr, r, m_access_bytes);
    }
    /// As above, with access_bytes (a power of two up to line_bytes) per lane instead of
    /// access_bytes() (sub-word LD/ST).
    void coalesce_into(std::uint32_t active, const std::uint32_t* lane_addr, result& r,
                       unsigned access_bytes) const;
    /// As above, with the addresses as an array.
    result coalesce(std::uint32_t active, const std::array<std::uint32_t, lanes>& lane_addr) const
    {
        return coalesce(active, lane_addr.data());
    }

private:
    unsigned m_line_bytes;
    unsigned m_access_bytes;
};

} // namespace vgpu::sm
