// Host resources a simulation uses besides ordinary memory: SystemC thread stacks and the
// memory mappings they take. No SystemC. See docs/architecture.md ("Host limits").
#pragma once

#include <cstdint>

namespace vgpu::host_resources {

/// Memory mappings one SystemC thread takes: its stack and the guard page below it.
constexpr std::uint64_t maps_per_thread = 2;
/// Mappings kept free for everything else (heap growth, files, libraries).
constexpr std::uint64_t reserved_maps = 4096;

/// Threads that may still be created when the process may hold `max_maps` mappings
/// (vm.max_map_count) and holds `maps_in_use`: (max_maps - maps_in_use - reserved_maps) / 2.
std::uint64_t threads_available(std::uint64_t max_maps, std::uint64_t maps_in_use);

/// Takes one optional thread from the process-wide budget, measured from /proc/sys/vm/
/// max_map_count and /proc/self/maps at the first call (unlimited when they cannot be read);
/// false when the budget is spent. Threads a model cannot do without are not counted here.
bool take_thread();

} // namespace vgpu::host_resources
