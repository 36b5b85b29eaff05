// Platform assembly: turns a validated configuration into wired SystemC modules.
// See docs/architecture.md.
#pragma once

#include "platforms/platform.h"
#include "platforms/vgpu_config.h"

#include <memory>

namespace vgpu::platforms {

/// Builds the platform `cfg.platform.kind`; throws build_error on a bad workload.
std::unique_ptr<platform> build(const vgpu_config& cfg, const run_options& opts);

} // namespace vgpu::platforms
