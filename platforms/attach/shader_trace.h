// The shader-trace block joined to the GPU platform: the trace unit, fed by the CP and every
// SM, its memory writes on module 0's NoC, its MMIO window and interrupt line. See
// models/shader_trace/README.md.
#pragma once

#include "models/common/timing.h"
#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"

#include <memory>

namespace vgpu::platforms::attach {

/// Builds the shader-trace unit (`gpu.trace_unit`, MMIO window `trace_unit`, NoC input
/// `trace_unit` of module 0, trace_irq) and joins the CP's and every SM's trace events to it;
/// with shader_trace.enable, after the host's NoC input.
std::unique_ptr<attachment> attach_shader_trace(gpu_view& gpu, const vgpu_config& cfg,
                                                const clock_params& clk);

} // namespace vgpu::platforms::attach
