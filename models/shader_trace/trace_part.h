// The shader-trace unit's driver part: allocates its region after the workload's memory,
// programs the unit, and drains it into OUTDIR/shader_trace.bin. See
// models/shader_trace/README.md and models/host/README.md ("Driver parts").
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>
#include <vector>

namespace vgpu::shader_trace {

/// What the trace part knows of the platform (section `shader_trace`).
struct trace_facts {
    std::uint64_t base = 0;         ///< the unit's register window on the MMIO bus
    std::uint64_t region_bytes = 0; ///< `shader_trace.region_bytes`
    bool wrap = false;              ///< `shader_trace.mode` wrap
    double watermark = 0;           ///< `shader_trace.watermark`
};

/// Set-up: the region, physically contiguous on module 0; after the run: FLUSH, wait for IDLE,
/// read the region back (oldest group first) into the image.
class trace_part : public host::driver_part {
public:
    trace_part(host::part_host& host, const trace_facts& facts);
    bool set_up() override;
    bool after_run() override;
    void files(host::output_files& out) const override;

private:
    host::part_host& m_host;
    const trace_facts m_facts;
    std::uint64_t m_pa = 0;            ///< physical start of the region
    std::vector<std::uint8_t> m_image; ///< OUTDIR/shader_trace.bin (docs/trace-format.md)
};

} // namespace vgpu::shader_trace
