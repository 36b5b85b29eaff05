// The block table: every block the GPU platform can hold, in the order they join it.
// See docs/architecture.md ("Adding a block").
#pragma once

#include "platforms/attach/attachment.h"

#include <memory>
#include <vector>

namespace vgpu::platforms::attach {

/// The blocks of configuration `cfg`, in block-table order (blocks.cpp).
std::vector<std::unique_ptr<block>> make_blocks(const vgpu_config& cfg, const clock_params& clk);

} // namespace vgpu::platforms::attach
