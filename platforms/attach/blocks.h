// The block table: every block the GPU platform can hold, in the order they join it.
// See docs/architecture.md ("Adding a block").
#pragma once

#include "platforms/attach/attachment.h"

#include <memory>
#include <string>
#include <vector>

namespace vgpu::platforms::attach {

/// The blocks of configuration `cfg`, in block-table order (blocks.cpp), then those `extra`
/// makes, in its order (run_options::extra_blocks).
std::vector<std::unique_ptr<block>> make_blocks(const vgpu_config& cfg, const clock_params& clk,
                                                const std::vector<block_maker>& extra = {});

/// The active blocks of `blocks` (block::active()), in block-table order, joined by ", ";
/// "none" when every block is at its baseline.
std::string active_blocks(const std::vector<std::unique_ptr<block>>& blocks);

} // namespace vgpu::platforms::attach
