// The embedded default configuration (platforms/default.yaml, compiled in).
// See docs/configuration.md.
#pragma once

#include <string>

namespace vgpu::platforms {
/// Text of platforms/default.yaml as it was at build time.
const std::string& default_config_yaml();
/// File name of the default workload under testbenches/workloads/.
extern const char* const default_workload_name;
/// Text of the default workload as it was at build time.
const std::string& default_workload_yaml();
} // namespace vgpu::platforms
