// Simulated time for the per-request paths, without a library call per use. See
// docs/tlm-bus.md ("Time on hot paths").
#pragma once

#include <cmath>
#include <cstdint>
#include <systemc>

namespace vgpu::tlm_bus {

/// sc_core::sc_time_stamp(), inline: the current context's time (the library function reads
/// the same member through a call; a line request asks for it about 35 times).
inline const sc_core::sc_time& sim_now()
{
    return sc_core::sc_get_curr_simcontext()->time_stamp();
}

/// sim_now() in resolution units (ps).
inline std::uint64_t sim_now_ps()
{
    return sim_now().value();
}

/// sc_core::sc_time::from_value(v), inline where it is exact: one resolution unit scaled by v
/// (a double holds every integer below 2^52 exactly, so v + 0.5 truncates back to v); larger
/// values take the library call. The unit is made once, inside the simulation, when the
/// resolution is long fixed.
inline sc_core::sc_time ps_time(std::uint64_t v)
{
    if (v == 0)
        return sc_core::SC_ZERO_TIME;
    if (v >= (std::uint64_t{1} << 52))
        return sc_core::sc_time::from_value(v);
    static const sc_core::sc_time unit = sc_core::sc_time::from_value(1);
    sc_core::sc_time t = unit;
    t *= static_cast<double>(v);
    return t;
}

namespace detail {
/// The time resolution in femtoseconds, as the library keeps it for sc_time::to_seconds():
/// recovered from the library's seconds of one resolution unit (the resolution is a power of
/// ten, which sc_set_time_resolution enforces, so rounding recovers it exactly); 0 when the
/// recovered value does not reproduce the library's answer (seconds() then asks the library).
inline double resolution_fs()
{
    const double one = sc_core::sc_time::from_value(1).to_seconds();
    const double fs = std::round(one * 1e15);
    return fs * 1e-15 == one ? fs : 0.0;
}
} // namespace detail

/// t.to_seconds(), inline: the library's product (the value as a double, times the resolution
/// in femtoseconds, times 1e-15), computed in the same order from the same operands, so the
/// same double. Made once, inside the simulation, when the resolution is long fixed.
inline double seconds(const sc_core::sc_time& t)
{
    static const double fs = detail::resolution_fs();
    if (fs == 0.0)
        return t.to_seconds();
    return sc_dt::uint64_to_double(t.value()) * fs * 1e-15;
}

} // namespace vgpu::tlm_bus
