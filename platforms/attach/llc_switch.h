// The LLC switcher joined to a multi-module GPU: the switcher, every slice attached to it, its
// MMIO window, the kernel-boundary hook and each module NoC's route (private organisation).
// See models/llc/README.md ("LLC switcher").
#pragma once

#include "models/common/timing.h"
#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"

#include <memory>

namespace vgpu::platforms::attach {

/// Builds the LLC switcher (`gpu.llc_switch`, MMIO window `llc_switch`), attaches every
/// module's slices to it, ends each kernel with its kernel_boundary(), and sets each module
/// NoC's route (llc::private_route). GPUs of more than one module; after the links are bound.
std::unique_ptr<attachment> attach_llc_switch(gpu_view& gpu, const vgpu_config& cfg,
                                              const clock_params& clk);

} // namespace vgpu::platforms::attach
