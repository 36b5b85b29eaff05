// Host resources: the process-wide budget of optional SystemC threads. See
// docs/architecture.md ("Host limits").
#include "models/common/host_resources.h"

#include <fstream>
#include <limits>
#include <string>

namespace vgpu::host_resources {

std::uint64_t threads_available(std::uint64_t max_maps, std::uint64_t maps_in_use)
{
    const std::uint64_t used = maps_in_use + reserved_maps;
    return max_maps > used ? (max_maps - used) / maps_per_thread : 0;
}

namespace {

/// Threads left; measured once, when a model first asks.
std::uint64_t measure()
{
    std::uint64_t max_maps = 0;
    if (std::ifstream f("/proc/sys/vm/max_map_count"); !(f >> max_maps))
        return std::numeric_limits<std::uint64_t>::max();
    std::ifstream maps("/proc/self/maps");
    if (!maps)
        return std::numeric_limits<std::uint64_t>::max();
    std::uint64_t in_use = 0;
    for (std::string line; std::getline(maps, line);)
        ++in_use;
    return threads_available(max_maps, in_use);
}

} // namespace

bool take_thread()
{
    static std::uint64_t left = measure();
    if (left == 0)
        return false;
    --left;
    return true;
}

} // namespace vgpu::host_resources
