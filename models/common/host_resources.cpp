// Host resources: the process-wide budget of optional SystemC threads. See
// docs/architecture.md ("Host limits").
#include "models/common/host_resources.h"

#include <fstream>
#include <limits>
#include <map>
#include <string>

namespace vgpu::host_resources {

std::uint64_t threads_available(std::uint64_t max_maps, std::uint64_t maps_in_use)
{
    const std::uint64_t used = maps_in_use + reserved_maps;
    return max_maps > used ? (max_maps - used) / maps_per_thread : 0;
}

std::uint64_t default_budget(std::uint64_t threads)
{
    return threads_available(default_max_maps, base_maps + threads * maps_per_thread);
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

std::uint64_t budget = default_budget(0);
std::uint64_t taken = 0;
std::map<unsigned, parked_source> sources;
unsigned next_source = 0;

} // namespace

void set_thread_budget(std::uint64_t threads)
{
    budget = threads;
}

std::uint64_t thread_budget()
{
    return budget;
}

std::uint64_t threads_taken()
{
    return taken;
}

grant next_grant(std::uint64_t taken, std::uint64_t budget, std::uint64_t host)
{
    return taken >= budget ? grant::budget_spent
           : taken >= host ? grant::host_spent
                           : grant::thread;
}

grant take_thread()
{
    if (taken >= budget) // the host is not asked
        return grant::budget_spent;
    static const std::uint64_t host = measure();
    const grant g = next_grant(taken, budget, host);
    taken += g == grant::thread ? 1 : 0;
    return g;
}

unsigned add_parked_source(parked_source source)
{
    sources.emplace(next_source, std::move(source));
    return next_source++;
}

void remove_parked_source(unsigned id)
{
    sources.erase(id);
}

std::vector<const void*> parked_threads()
{
    std::vector<const void*> out;
    for (const auto& [id, source] : sources)
        source(out);
    return out;
}

} // namespace vgpu::host_resources
