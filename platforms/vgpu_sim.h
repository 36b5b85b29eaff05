// The vgpu-sim front end as a function: vgpu-sim's main() (vgpu_sim_main.cpp) calls it, and so
// does a test front end that adds a block (test/platform/broken_link_sim.cpp). See README.md.
#pragma once

#include "platforms/attach/attachment.h"

#include <vector>

namespace vgpu::platforms {

/// Runs vgpu-sim with the command line `argv` and returns its exit code; the gpu platform holds
/// `extra_blocks` after its block table's (run_options::extra_blocks).
int vgpu_sim_main(int argc, char** argv, const std::vector<attach::block_maker>& extra_blocks = {});

} // namespace vgpu::platforms
