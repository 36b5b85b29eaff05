// The CDL block joined to the GPU platform: the CBV table, its MMIO window, and every SM's CDL
// controller reading it. See models/cdl/README.md.
#pragma once

#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"

#include <memory>

namespace vgpu::platforms::attach {

/// Builds the CBV table (`gpu.cbvs`, MMIO window `cbvs`) and hands it to every SM's CDL
/// controller. After the modules are built.
std::unique_ptr<attachment> attach_cdl(gpu_view& gpu, const vgpu_config& cfg);

} // namespace vgpu::platforms::attach
