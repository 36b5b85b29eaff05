// Physics kernels: all-pairs N-body. See docs/workloads.md ("References").
#include "models/host/reference_family.h"

#include <cmath>

namespace vgpu::host::detail {

namespace {

/// The sizes of an nbody_step call: n bodies (default len(pos)/4) and the part.
struct nbody_shape {
    std::uint64_t n = 0;
    std::uint64_t part = 0;
};

template <typename Reader>
nbody_shape nbody_args(Reader& r, std::uint64_t pos, std::uint64_t vel, std::uint64_t out)
{
    nbody_shape s;
    s.n = r.count("n", pos / 4);
    s.part = r.count("part");
    if (r.error().empty() && s.part > 1)
        r.fail("part must be 0 (the new positions) or 1 (the new velocities)");
    r.fits("pos", 4 * s.n, pos);
    r.fits("vel", 4 * s.n, vel);
    r.fits("the checked buffer", 4 * s.n, out);
    return s;
}

void nbody_step(arg_reader& r, std::vector<std::uint32_t>& out)
{
    const auto& pos = r.buffer("pos");
    const auto& vel = r.buffer("vel");
    // The kernel receives dt and eps as f32 values: the reference starts from the same numbers.
    const double dt = static_cast<float>(r.number("dt"));
    const double eps = static_cast<float>(r.number("eps"));
    const nbody_shape s = nbody_args(r, pos.size(), vel.size(), out.size());
    if (!r.error().empty())
        return;
    auto at = [](const std::vector<std::uint32_t>& b, std::uint64_t k) {
        return static_cast<double>(bits_f32(b[k]));
    };
    for (std::uint64_t i = 0; i < s.n; ++i) {
        const double xi[3] = {at(pos, 4 * i), at(pos, 4 * i + 1), at(pos, 4 * i + 2)};
        double a[3] = {0, 0, 0};
        for (std::uint64_t j = 0; j < s.n; ++j) {
            if (j == i)
                continue; // p_j - p_i = 0: no force (and none of 0/0 when eps is 0)
            double d[3];
            for (int c = 0; c < 3; ++c)
                d[c] = at(pos, 4 * j + c) - xi[c];
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
            const double w = at(pos, 4 * j + 3) / (r2 * std::sqrt(r2));
            for (int c = 0; c < 3; ++c)
                a[c] += w * d[c];
        }
        for (int c = 0; c < 3; ++c) {
            const double v = at(vel, 4 * i + c) + a[c] * dt;
            const double x = xi[c] + v * dt;
            out[4 * i + c] = f32_bits(static_cast<float>(s.part == 0 ? x : v));
        }
        out[4 * i + 3] = s.part == 0 ? pos[4 * i + 3] : vel[4 * i + 3];
    }
}

reference_work nbody_step_work(shape_reader& r)
{
    const nbody_shape s = nbody_args(r, r.size("pos"), r.size("vel"), r.out());
    return {saturating_mul(s.n, s.n), "n", {}};
}

} // namespace

std::vector<reference_entry> physics_references()
{
    return {
        {{"nbody_step",
          {{"pos", arg_kind::buffer, true, {F}},
           {"vel", arg_kind::buffer, true, {F}},
           {"dt", arg_kind::scalar, true, {}},
           {"eps", arg_kind::scalar, true, {}},
           {"part", arg_kind::scalar, true, {}},
           {"n", arg_kind::scalar, false, {}}},
          {F},
          "bodies i < n (default len(pos)/4) as float4 (x, y, z, m): a_i = sum_{j != i} m_j (p_j - "
          "p_i) / (|p_j - p_i|^2 + eps^2)^(3/2), v_i' = v_i + a_i dt, p_i' = p_i + v_i' dt; "
          "part 0: (p_i', m_i), part 1: (v_i', vel w); in double rounded once to f32"},
         nbody_step,
         nbody_step_work},
    };
}

} // namespace vgpu::host::detail
