// Address patterns for traffic generators: linear, strided, random (seeded), no SystemC.
// See models/traffic/README.md.
#pragma once

#include "models/common/enum_names.h"

#include <cstdint>
#include <random>

namespace vgpu::traffic {

/// Shape of the address stream.
enum class pattern_kind { linear, strided, random };
} // namespace vgpu::traffic

template <> struct vgpu::enum_names<vgpu::traffic::pattern_kind> {
    static constexpr std::pair<std::string_view, traffic::pattern_kind> table[] = {
        {"linear", traffic::pattern_kind::linear},
        {"strided", traffic::pattern_kind::strided},
        {"random", traffic::pattern_kind::random}};
};

namespace vgpu::traffic {

/// Parameters of a pattern; addresses stay in [base, base + footprint).
struct pattern_params {
    pattern_kind kind = pattern_kind::linear;
    std::uint64_t base = 0;          ///< first byte of the region
    std::uint64_t footprint = 65536; ///< bytes in the region (multiple of access_bytes)
    std::uint64_t stride = 64;       ///< step of the strided pattern (multiple of access_bytes)
    unsigned access_bytes = 4;       ///< bytes per access
    double write_ratio = 0.5;        ///< share of writes
    std::uint64_t seed = 1;          ///< random generator seed
};

/// One generated access.
struct access {
    std::uint64_t addr; ///< byte address, aligned to access_bytes
    bool write;         ///< write (true) or read
};

/// An endless deterministic stream of accesses.
class pattern_generator {
public:
    explicit pattern_generator(const pattern_params& p);
    access next();

private:
    pattern_params m_p;
    std::mt19937_64 m_rng;
    std::uint64_t m_offset = 0; ///< next offset for linear/strided
    std::uint64_t m_lane = 0;   ///< strided: which access_bytes-column of the stride we are on
};

} // namespace vgpu::traffic
