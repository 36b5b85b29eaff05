// Host resources a simulation uses besides ordinary memory: SystemC thread stacks and the
// memory mappings they take. No SystemC. See docs/architecture.md ("Host limits").
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace vgpu::host_resources {

/// Memory mappings one SystemC thread takes: its stack and the guard page below it.
constexpr std::uint64_t maps_per_thread = 2;
/// Mappings kept free for everything else (heap growth, files, libraries).
constexpr std::uint64_t reserved_maps = 4096;
/// Linux's default vm.max_map_count.
constexpr std::uint64_t default_max_maps = 65530;
/// Mappings a process holds besides its thread stacks (libraries, heap, the DRAM backing
/// store's chunks): a few hundred measured, counted generously.
constexpr std::uint64_t base_maps = 1024;

/// Threads that may still be created when the process may hold `max_maps` mappings
/// (vm.max_map_count) and holds `maps_in_use`: (max_maps - maps_in_use - reserved_maps) / 2.
std::uint64_t threads_available(std::uint64_t max_maps, std::uint64_t maps_in_use);

/// What take_thread gives.
enum class grant {
    thread,       ///< a thread may be started
    budget_spent, ///< the run's budget is spent: the caller does without (the same on any host)
    host_spent,   ///< the host's mappings ran out first: the run cannot keep its timing
};

/// The budget of optional threads by default (platform.max_host_threads 0): what Linux's default
/// vm.max_map_count leaves after the base mappings, the reserve and the two mappings of each of
/// the platform's `threads` that exist before the first optional one. It follows from the
/// configuration alone, and every host with the default limit or more allows it.
std::uint64_t default_budget(std::uint64_t threads);

/// The grant for the next thread when `taken` are started, the run may start `budget` and the
/// host allows `host`.
grant next_grant(std::uint64_t taken, std::uint64_t budget, std::uint64_t host);

/// Sets the run's budget of optional threads (platform.max_host_threads), before the first
/// take_thread. A budget fixed by the configuration, not by what the host has left, keeps a
/// run's results independent of the host, the allocator and anything else that maps memory.
void set_thread_budget(std::uint64_t threads);
std::uint64_t thread_budget();
std::uint64_t threads_taken(); ///< optional threads started so far

/// Takes one optional thread from the process-wide budget. The host's own limit is measured
/// from /proc/sys/vm/max_map_count and /proc/self/maps at the first call (unlimited when they
/// cannot be read); host_spent when a thread within the budget is more than it allows.
/// Threads a model cannot do without are not counted here.
grant take_thread();

/// Lists threads parked where their stacks own nothing (a worker waiting for its next job), as
/// the process objects (sc_core::sc_object*) SystemC knows them by.
using parked_source = std::function<void(std::vector<const void*>&)>;
/// Registers a source of parked threads for as long as its model exists (the id removes it).
/// The end of a run (platforms/thread_unwinder.h) leaves parked threads alone instead of
/// unwinding them: there is nothing to free, and an unwinding costs an exception per thread.
unsigned add_parked_source(parked_source source);
void remove_parked_source(unsigned id);
/// Every registered source's parked threads.
std::vector<const void*> parked_threads();

} // namespace vgpu::host_resources
